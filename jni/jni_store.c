/*
 * io.snapcommit.jni.NativeStore: the sc_store wrappers writers use to put
 * data files (and tests to read them back). A store handle is used by one
 * thread at a time; each writer subtask opens its own.
 */
#include <stdlib.h>

#include "jni_internal.h"

#define STORE(h) ((sc_store *)scj_handle(env, (h), "snapcommit store is closed"))

/* static native long open(byte[] location, byte[][] config): config null = environment/defaults */
SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeStore_open(JNIEnv *env, jclass cls,
                                                                 jbyteArray location,
                                                                 jobjectArray config) {
    (void)cls;
    sc_store_config cfg;
    scj_config_strings keep;
    if (scj_config_from(env, config, &cfg, &keep) != 0) return 0;
    char *loc = scj_cstr(env, location, "location must be NUL-terminated UTF-8", 0);
    sc_store *s = NULL;
    int rc = loc ? sc_store_open_with_config(&s, loc, &cfg) : 0;
    scj_config_release(&keep);
    free(loc);
    if (!loc) return 0;
    if (rc) {
        scj_throw_code(env, rc, 0);
        return 0;
    }
    return scj_to_handle(s);
}

/* static native void check(long store): one cheap request (sc_store_check) */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeStore_check(JNIEnv *env, jclass cls,
                                                                 jlong handle) {
    (void)cls;
    sc_store *s = STORE(handle);
    if (!s) return;
    int rc = sc_store_check(s);
    if (rc) scj_throw_code(env, rc, 0);
}

SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeStore_free(JNIEnv *env, jclass cls,
                                                                jlong handle) {
    (void)env, (void)cls;
    sc_store_free((sc_store *)(intptr_t)handle);
}

SCJ_EXPORT jstring JNICALL Java_io_snapcommit_jni_NativeStore_backend(JNIEnv *env, jclass cls,
                                                                      jlong handle) {
    (void)cls;
    sc_store *s = STORE(handle);
    if (!s) return NULL;
    return (*env)->NewStringUTF(env, sc_store_backend_name(s)); /* ASCII */
}

/*
 * static native void put(long store, byte[] key, byte[] data, int offset, int length)
 * The bytes are copied out of the Java heap first (GetByteArrayRegion): the
 * write itself runs with no JNI critical section held.
 */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeStore_put(JNIEnv *env, jclass cls,
                                                               jlong handle, jbyteArray key,
                                                               jbyteArray data, jint offset,
                                                               jint length) {
    (void)cls;
    sc_store *s = STORE(handle);
    if (!s) return;
    if (!data) {
        scj_throw(env, scj.illegal_argument, "data is null");
        return;
    }
    jsize n = (*env)->GetArrayLength(env, data);
    if (offset < 0 || length < 0 || offset > n - length) {
        scj_throw(env, scj.illegal_argument, "offset/length outside the array");
        return;
    }
    char *k = scj_cstr(env, key, "key must be NUL-terminated UTF-8", 0);
    if (!k) return;
    uint8_t *copy = malloc((size_t)length + 1);
    if (!copy) {
        free(k);
        scj_throw(env, scj.out_of_memory, "copying data for a store put");
        return;
    }
    (*env)->GetByteArrayRegion(env, data, offset, length, (jbyte *)copy);
    if (!(*env)->ExceptionCheck(env)) {
        int rc = sc_store_put(s, NULL, k, copy, (size_t)length);
        if (rc) scj_throw_code(env, rc, 0);
    }
    free(copy);
    free(k);
}

/*
 * static native boolean putIfAbsent(long store, byte[] key, byte[] data, int offset, int length)
 * true: this call created the object; false: it was already there (SC_EEXISTS, nothing
 * written). Any other outcome is thrown, SC_EUNKNOWN as UnknownOutcomeException: settling a
 * lost answer (reading the object back) is the Java caller's, not marshalling's.
 */
SCJ_EXPORT jboolean JNICALL Java_io_snapcommit_jni_NativeStore_putIfAbsent(JNIEnv *env, jclass cls,
                                                                           jlong handle, jbyteArray key,
                                                                           jbyteArray data, jint offset,
                                                                           jint length) {
    (void)cls;
    sc_store *s = STORE(handle);
    if (!s) return JNI_FALSE;
    if (!data) {
        scj_throw(env, scj.illegal_argument, "data is null");
        return JNI_FALSE;
    }
    jsize n = (*env)->GetArrayLength(env, data);
    if (offset < 0 || length < 0 || offset > n - length) {
        scj_throw(env, scj.illegal_argument, "offset/length outside the array");
        return JNI_FALSE;
    }
    char *k = scj_cstr(env, key, "key must be NUL-terminated UTF-8", 0);
    if (!k) return JNI_FALSE;
    uint8_t *copy = malloc((size_t)length + 1);
    if (!copy) {
        free(k);
        scj_throw(env, scj.out_of_memory, "copying data for a store put_if_absent");
        return JNI_FALSE;
    }
    jboolean created = JNI_FALSE;
    (*env)->GetByteArrayRegion(env, data, offset, length, (jbyte *)copy);
    if (!(*env)->ExceptionCheck(env)) {
        int rc = sc_store_put_if_absent(s, NULL, k, copy, (size_t)length);
        if (rc == 0)
            created = JNI_TRUE;
        else if (rc == SC_EEXISTS)
            sc_error_clear();
        else
            scj_throw_code(env, rc, 0);
    }
    free(copy);
    free(k);
    return created;
}

/* static native byte[] get(long store, byte[] key) — SC_ENOTFOUND when absent */
SCJ_EXPORT jbyteArray JNICALL Java_io_snapcommit_jni_NativeStore_get(JNIEnv *env, jclass cls,
                                                                     jlong handle, jbyteArray key) {
    (void)cls;
    sc_store *s = STORE(handle);
    if (!s) return NULL;
    char *k = scj_cstr(env, key, "key must be NUL-terminated UTF-8", 0);
    if (!k) return NULL;
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = sc_store_get(s, &data, &len, NULL, k);
    free(k);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return NULL;
    }
    jbyteArray out = scj_new_bytes(env, data, len);
    free(data);
    return out;
}

SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeStore_delete(JNIEnv *env, jclass cls,
                                                                  jlong handle, jbyteArray key) {
    (void)cls;
    sc_store *s = STORE(handle);
    if (!s) return;
    char *k = scj_cstr(env, key, "key must be NUL-terminated UTF-8", 0);
    if (!k) return;
    int rc = sc_store_delete(s, k);
    free(k);
    if (rc) scj_throw_code(env, rc, 0);
}

/* static native byte[][] list(long store, byte[] prefix): every key under prefix, UTF-8 */
SCJ_EXPORT jobjectArray JNICALL Java_io_snapcommit_jni_NativeStore_list(JNIEnv *env, jclass cls,
                                                                        jlong handle,
                                                                        jbyteArray prefix) {
    (void)cls;
    sc_store *s = STORE(handle);
    if (!s) return NULL;
    char *p = scj_cstr(env, prefix, "prefix must be NUL-terminated UTF-8", 0);
    if (!p) return NULL;
    sc_list_page page = {0};
    int rc = sc_store_list_all(s, &page, p);
    free(p);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return NULL;
    }
    jobjectArray out = NULL;
    if (page.count > (size_t)INT32_MAX) {
        scj_throw(env, scj.out_of_memory, "too many keys for a Java array");
        goto done;
    }
    out = (*env)->NewObjectArray(env, (jsize)page.count, scj.byte_array, NULL);
    if (!out) goto done;
    for (size_t i = 0; i < page.count; i++) {
        jbyteArray k = scj_new_bytes_str(env, page.keys[i]);
        if (!k) {
            (*env)->DeleteLocalRef(env, out);
            out = NULL;
            goto done;
        }
        (*env)->SetObjectArrayElement(env, out, (jsize)i, k);
        (*env)->DeleteLocalRef(env, k);
    }
done:
    sc_list_page_free(&page);
    return out;
}
