/* io.snapcommit.jni.NativeChanges: a sc_changes set built entry by entry. */
#include <stdlib.h>

#include "jni_internal.h"

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeChanges_create(JNIEnv *env, jclass cls) {
    (void)cls;
    sc_changes *c = NULL;
    int rc = sc_changes_new(&c);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return 0;
    }
    return scj_to_handle(c);
}

SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeChanges_free(JNIEnv *env, jclass cls,
                                                                  jlong handle) {
    (void)env, (void)cls;
    sc_changes_free((sc_changes *)(intptr_t)handle);
}

/*
 * static native void add(long changes, boolean delete, byte[] partition, int bucket,
 *                        int totalBuckets, int level, byte[] file, long rows, long size,
 *                        byte[] minKey, byte[] maxKey)
 * partition, minKey and maxKey may be null (absent); file is NUL-terminated UTF-8.
 */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeChanges_add(
    JNIEnv *env, jclass cls, jlong handle, jboolean is_delete, jbyteArray partition, jint bucket,
    jint total_buckets, jint level, jbyteArray file, jlong rows, jlong size, jbyteArray min_key,
    jbyteArray max_key) {
    (void)cls;
    sc_changes *c = scj_handle(env, handle, "snapcommit changes are closed");
    if (!c) return;
    uint8_t *part = NULL, *min = NULL, *max = NULL;
    size_t part_len = 0, min_len = 0, max_len = 0;
    int absent;
    char *name = scj_cstr(env, file, "file must be NUL-terminated UTF-8", 0);
    if (!name) return;
    part = scj_copy_bytes(env, partition, &part_len, &absent);
    if (!part && !absent) goto done;
    min = scj_copy_bytes(env, min_key, &min_len, &absent);
    if (!min && !absent) goto done;
    max = scj_copy_bytes(env, max_key, &max_len, &absent);
    if (!max && !absent) goto done;
    sc_file_entry e = {
        .partition = {part, part_len},
        .bucket = bucket,
        .total_buckets = total_buckets,
        .level = level,
        .file = name,
        .rows = rows,
        .size = size,
        .min_key = {min, min_len},
        .max_key = {max, max_len},
    };
    int rc = is_delete ? sc_changes_delete(c, &e) : sc_changes_add(c, &e);
    if (rc) scj_throw_code(env, rc, 0);
done:
    free(name);
    free(part);
    free(min);
    free(max);
}

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeChanges_addCount(JNIEnv *env, jclass cls,
                                                                       jlong handle) {
    (void)cls;
    sc_changes *c = scj_handle(env, handle, "snapcommit changes are closed");
    return c ? (jlong)sc_changes_add_count(c) : 0;
}

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeChanges_deleteCount(JNIEnv *env, jclass cls,
                                                                          jlong handle) {
    (void)cls;
    sc_changes *c = scj_handle(env, handle, "snapcommit changes are closed");
    return c ? (jlong)sc_changes_delete_count(c) : 0;
}
