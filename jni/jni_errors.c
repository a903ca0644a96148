/*
 * Native codes -> Java exceptions, through one Java method: every failure is
 * thrown as SnapcommitException.fromNative(code, message, detail), which picks
 * the class (the code -> class mapping lives in Java, next to the ErrorCode
 * enum checked against error.h). This file only carries the code, the calling
 * thread's sc_error_message() and the detail number across.
 */
#include <stdlib.h>
#include <string.h>

#include "jni_internal.h"

/* static SnapcommitException fromNative(int code, byte[] message, long detail) */
#define FROM_NATIVE_SIG "(I[BJ)L" SCJ_PKG "SnapcommitException;"

static jmethodID from_native;

jclass scj_global_class(JNIEnv *env, const char *name) {
    jclass local = (*env)->FindClass(env, name);
    if (!local) return NULL; /* NoClassDefFoundError pending */
    jclass global = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    /* OutOfMemoryError itself may be the class that failed: then there is nothing to throw with. */
    if (!global && scj.out_of_memory) scj_throw(env, scj.out_of_memory, "NewGlobalRef");
    return global;
}

int scj_errors_init(JNIEnv *env) {
    if (!(scj.out_of_memory = scj_global_class(env, "java/lang/OutOfMemoryError"))) return -1;
    if (!(scj.illegal_argument = scj_global_class(env, "java/lang/IllegalArgumentException"))) return -1;
    if (!(scj.illegal_state = scj_global_class(env, "java/lang/IllegalStateException"))) return -1;
    if (!(scj.snapcommit_exception = scj_global_class(env, SCJ_PKG "SnapcommitException"))) return -1;
    from_native = (*env)->GetStaticMethodID(env, scj.snapcommit_exception, "fromNative", FROM_NATIVE_SIG);
    return from_native ? 0 : -1;
}

static void drop(JNIEnv *env, jclass *ref) {
    if (*ref) (*env)->DeleteGlobalRef(env, *ref);
    *ref = NULL;
}

void scj_errors_release(JNIEnv *env) {
    drop(env, &scj.snapcommit_exception);
    drop(env, &scj.illegal_argument);
    drop(env, &scj.illegal_state);
    drop(env, &scj.out_of_memory);
}

void scj_throw(JNIEnv *env, jclass cls, const char *message) {
    if ((*env)->ExceptionCheck(env)) return; /* keep the first failure */
    (*env)->ThrowNew(env, cls, message);
}

void scj_throw_code(JNIEnv *env, int code, int64_t detail) {
    if ((*env)->ExceptionCheck(env)) return; /* keep the first failure */
    /* Thread-local and valid until the next snapcommit call on this thread: JNI calls make none. */
    const char *text = sc_error_message();
    /* Made here, not with scj_new_bytes: marshalling reports its failures through this
     * file, so this file does not call back into it (jni_internal.h). A message is
     * at most 1023 bytes, far below a Java array's limit. */
    jsize len = (jsize)strlen(text);
    jbyteArray bytes = (*env)->NewByteArray(env, len);
    if (!bytes) return; /* OutOfMemoryError pending */
    (*env)->SetByteArrayRegion(env, bytes, 0, len, (const jbyte *)text);
    jthrowable ex = (jthrowable)(*env)->CallStaticObjectMethod(env, scj.snapcommit_exception, from_native,
                                                               (jint)code, bytes, (jlong)detail);
    int failed = (*env)->ExceptionCheck(env); /* the factory's own failure stays pending */
    (*env)->DeleteLocalRef(env, bytes);
    if (failed || !ex) {
        if (ex) (*env)->DeleteLocalRef(env, ex);
        return;
    }
    (*env)->Throw(env, ex);
    (*env)->DeleteLocalRef(env, ex);
}
