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
 * static native void add(long changes, boolean delete, long[] nums, byte[][] bytes,
 *                        byte[][] extraFiles, byte[][] valueStatsCols, byte[][] writeCols,
 *                        long[] keyNullCounts, long[] valueNullCounts)
 * FileEntry.toNative's shape (jni_entry.c).
 */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeChanges_add(
    JNIEnv *env, jclass cls, jlong handle, jboolean is_delete, jlongArray nums, jobjectArray bytes,
    jobjectArray extra_files, jobjectArray stats_cols, jobjectArray write_cols, jlongArray key_nulls,
    jlongArray value_nulls) {
    (void)cls;
    sc_changes *c = scj_handle(env, handle, "snapcommit changes are closed");
    if (!c) return;
    scj_entry e;
    if (scj_entry_from_java(env, &e, nums, bytes, extra_files, stats_cols, write_cols, key_nulls,
                            value_nulls))
        return;
    int rc = is_delete ? sc_changes_delete(c, &e.e) : sc_changes_add(c, &e.e);
    if (rc) scj_throw_code(env, rc, 0);
    scj_entry_release(&e);
}

/*
 * static native FileEntry echo(long[] nums, ...): the entry converted to
 * sc_file_entry and back, without libsnapcommit; lets the tests check the
 * marshalling of every field in both directions.
 */
SCJ_EXPORT jobject JNICALL Java_io_snapcommit_jni_NativeChanges_echo(
    JNIEnv *env, jclass cls, jlongArray nums, jobjectArray bytes, jobjectArray extra_files,
    jobjectArray stats_cols, jobjectArray write_cols, jlongArray key_nulls, jlongArray value_nulls) {
    (void)cls;
    scj_entry e;
    if (scj_entry_from_java(env, &e, nums, bytes, extra_files, stats_cols, write_cols, key_nulls,
                            value_nulls))
        return NULL;
    jobject obj = scj_entry_to_java(env, &e.e);
    scj_entry_release(&e);
    return obj;
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
