/* Marshalling helpers: byte arrays, UTF-8 strings and handles. */
#include <stdlib.h>
#include <string.h>

#include "jni_internal.h"

void *scj_handle(JNIEnv *env, jlong handle, const char *what) {
    if (handle == 0) {
        scj_throw(env, scj.illegal_state, what);
        return NULL;
    }
    return (void *)(intptr_t)handle;
}

uint8_t *scj_copy_bytes(JNIEnv *env, jbyteArray arr, size_t *len, int *absent) {
    *len = 0;
    *absent = 0;
    if (!arr) {
        *absent = 1;
        return NULL;
    }
    jsize n = (*env)->GetArrayLength(env, arr);
    uint8_t *copy = malloc((size_t)n + 1); /* +1: never malloc(0) */
    if (!copy) {
        scj_throw(env, scj.out_of_memory, "copying a byte array");
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, arr, 0, n, (jbyte *)copy);
    if ((*env)->ExceptionCheck(env)) {
        free(copy);
        return NULL;
    }
    *len = (size_t)n;
    return copy;
}

char *scj_cstr(JNIEnv *env, jbyteArray arr, const char *what, int optional) {
    if (!arr) {
        if (!optional) scj_throw(env, scj.illegal_argument, what);
        return NULL;
    }
    size_t len;
    int absent;
    uint8_t *copy = scj_copy_bytes(env, arr, &len, &absent);
    if (!copy) return NULL;
    /* Exactly one NUL, at the end (Utf8.z() appends it). */
    if (len == 0 || copy[len - 1] != 0 || memchr(copy, 0, len - 1) != NULL) {
        free(copy);
        scj_throw(env, scj.illegal_argument, what);
        return NULL;
    }
    return (char *)copy;
}

jbyteArray scj_new_bytes(JNIEnv *env, const void *data, size_t len) {
    if (len > (size_t)INT32_MAX - 8) {
        scj_throw(env, scj.out_of_memory, "object larger than a Java array");
        return NULL;
    }
    jbyteArray arr = (*env)->NewByteArray(env, (jsize)len);
    if (!arr) return NULL; /* OutOfMemoryError pending */
    if (len) (*env)->SetByteArrayRegion(env, arr, 0, (jsize)len, (const jbyte *)data);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->DeleteLocalRef(env, arr);
        return NULL;
    }
    return arr;
}

jbyteArray scj_new_bytes_str(JNIEnv *env, const char *text) {
    return scj_new_bytes(env, text ? text : "", text ? strlen(text) : 0);
}
