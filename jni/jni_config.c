/*
 * io.snapcommit.jni.NativeConfig: process-wide settings the native library
 * reads from its environment.
 *
 * libsnapcommit has no per-store configuration API yet: an s3:// store is to
 * read the AWS conventions (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL_S3, ...) from the process
 * environment. The connector's s3.* options are handed over here as those
 * variables. They are process-wide: every table of the JVM sees the same
 * values. Values are never logged.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jni_internal.h"

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;

/* Only these names may be set: the binding is no general setenv(). */
static int allowed(const char *name) {
    static const char *const names[] = {
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
        "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "SNAPCOMMIT_S3_PATH_STYLE",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) return 1;
    return 0;
}

/* static native void setEnv(byte[] name, byte[] value): value null = unset */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeConfig_setEnv(JNIEnv *env, jclass cls,
                                                                   jbyteArray name,
                                                                   jbyteArray value) {
    (void)cls;
    char *n = scj_cstr(env, name, "name must be NUL-terminated UTF-8", 0);
    if (!n) return;
    if (!allowed(n)) {
        free(n);
        scj_throw(env, scj.illegal_argument, "not a storage setting snapcommit reads");
        return;
    }
    char *v = scj_cstr(env, value, "value must be NUL-terminated UTF-8", 1);
    if (!v && (*env)->ExceptionCheck(env)) {
        free(n);
        return;
    }
    pthread_mutex_lock(&env_lock);
    int r = v ? setenv(n, v, 1) : unsetenv(n);
    pthread_mutex_unlock(&env_lock);
    if (r != 0) scj_throw(env, scj.out_of_memory, "setenv");
    free(v);
    free(n);
}
