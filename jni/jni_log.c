/*
 * Native log lines → io.snapcommit.jni.NativeLog.emit(level, utf8) → SLF4J.
 *
 * libsnapcommit logs on the thread that called it (a Java thread), and on S3
 * also from the thread that writes a commit's LATEST hint after the commit
 * returned: a line from such a thread is attached as a daemon for the call
 * and detached again. A line is dropped, never allowed
 * to disturb the caller: when an exception is already pending on the thread,
 * and when the Java side throws (that exception is cleared).
 */
#include <stdatomic.h>
#include <string.h>

#include "jni_internal.h"

static atomic_int min_level = SC_LOG_INFO;
static atomic_int installed;

static void bridge(void *ctx, sc_log_level level, const char *message) {
    (void)ctx;
    if ((int)level < atomic_load(&min_level) || !scj.vm || !scj.native_log) return;
    JavaVM *vm = scj.vm;
    JNIEnv *env = NULL;
    int attached = 0;
    jint rc = (*vm)->GetEnv(vm, (void **)&env, SCJ_JNI_VERSION);
    if (rc == JNI_EDETACHED) {
        if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, NULL) != JNI_OK) return;
        attached = 1;
    } else if (rc != JNI_OK) {
        return;
    }
    if (!(*env)->ExceptionCheck(env)) {
        jbyteArray text = scj_new_bytes(env, message, strlen(message));
        if (text) {
            (*env)->CallStaticVoidMethod(env, scj.native_log, scj.native_log_emit, (jint)level, text);
            (*env)->DeleteLocalRef(env, text);
        }
        if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    }
    if (attached) (*vm)->DetachCurrentThread(vm);
}

void scj_log_release(void) {
    if (atomic_exchange(&installed, 0)) sc_log_set_handler(NULL, NULL);
}

/* NativeLog.install(int minLevel): route native log lines at or above minLevel to Java. */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeLog_install(JNIEnv *env, jclass cls,
                                                                   jint level) {
    (void)env, (void)cls;
    atomic_store(&min_level, (int)level);
    if (!atomic_exchange(&installed, 1)) sc_log_set_handler(bridge, NULL);
}

/* NativeLog.uninstall(): silence native logging again. */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeLog_uninstall(JNIEnv *env, jclass cls) {
    (void)env, (void)cls;
    scj_log_release();
}
