/* io.snapcommit.jni.NativeChanges: a sc_changes set built entry by entry. */
#include <stdlib.h>

#include "jni_internal.h"

/* The set behind `handle`, or NULL with IllegalStateException pending once it is closed. */
static sc_changes *changes_of(JNIEnv *env, jlong handle) {
    return scj_handle(env, handle, "snapcommit changes are closed");
}

/* One of the set's counts (sc_changes_*_count), 0 once it is closed. */
static jlong count_of(JNIEnv *env, jlong handle, size_t (*count)(const sc_changes *)) {
    sc_changes *c = changes_of(env, handle);
    return c ? (jlong)count(c) : 0;
}

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
    sc_changes *c = changes_of(env, handle);
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
    return count_of(env, handle, sc_changes_add_count);
}

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeChanges_deleteCount(JNIEnv *env, jclass cls,
                                                                          jlong handle) {
    (void)cls;
    return count_of(env, handle, sc_changes_delete_count);
}

/*
 * static native void addPaimon(long changes, int section, byte[] avro): one Paimon manifest-format
 * Avro container (ManifestEntry records for DATA/CHANGELOG, IndexManifestEntry for INDEX) added
 * to the set by sc_changes_add_paimon, which decodes it with the limits of manifests read from
 * storage and adds nothing on error. The section is an sc_paimon_section value; the library
 * refuses an unknown one.
 */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeChanges_addPaimon(JNIEnv *env, jclass cls,
                                                                       jlong handle, jint section,
                                                                       jbyteArray avro) {
    (void)cls;
    sc_changes *c = changes_of(env, handle);
    if (!c) return;
    if (!avro) {
        scj_throw(env, scj.illegal_argument, "the Avro bytes must not be null");
        return;
    }
    jsize len = (*env)->GetArrayLength(env, avro);
    /* Read in place: sc_changes_add_paimon copies what it keeps, so no copy of the container. */
    jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, avro, NULL);
    if (!bytes) return; /* OutOfMemoryError pending */
    /* No JNI call may happen while the array is pinned: decode, release, then throw. */
    int rc = sc_changes_add_paimon(c, (sc_paimon_section)section, (const uint8_t *)bytes, (size_t)len);
    (*env)->ReleasePrimitiveArrayCritical(env, avro, bytes, JNI_ABORT);
    if (rc) scj_throw_code(env, rc, 0);
}

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeChanges_changelogCount(JNIEnv *env, jclass cls,
                                                                             jlong handle) {
    (void)cls;
    return count_of(env, handle, sc_changes_changelog_count);
}

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeChanges_indexAddCount(JNIEnv *env, jclass cls,
                                                                            jlong handle) {
    (void)cls;
    return count_of(env, handle, sc_changes_index_add_count);
}

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeChanges_indexDeleteCount(JNIEnv *env, jclass cls,
                                                                               jlong handle) {
    (void)cls;
    return count_of(env, handle, sc_changes_index_delete_count);
}
