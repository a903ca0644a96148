/*
 * JNI_OnLoad / JNI_OnUnload: resolve and cache (as global references) every
 * class and method id the library uses, so that no entry point looks a class
 * up by name and so that callbacks on any thread can reach them (the cache
 * itself is defined in jni_cache.c).
 */
#include <string.h>

#include "jni_internal.h"

static void release_all(JNIEnv *env) {
    jclass *refs[] = {&scj.file_entry, &scj.snapshot_info, &scj.native_log, &scj.byte_array};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        if (*refs[i]) (*env)->DeleteGlobalRef(env, *refs[i]);
        *refs[i] = NULL;
    }
    scj_errors_release(env);
}

SCJ_EXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, SCJ_JNI_VERSION) != JNI_OK) return JNI_ERR;
    memset(&scj, 0, sizeof scj);
    scj.vm = vm;
    if (scj_errors_init(env) != 0) goto fail;
    if (!(scj.file_entry = scj_global_class(env, SCJ_PKG "FileEntry"))) goto fail;
    /* (long[] nums, byte[][] bytes, byte[][] extraFiles, byte[][] valueStatsCols,
     *  byte[][] writeCols, long[] keyNullCounts, long[] valueNullCounts): jni_entry.c */
    scj.file_entry_ctor = (*env)->GetMethodID(env, scj.file_entry, "<init>",
                                              "([J[[B[[B[[B[[B[J[J)V");
    if (!scj.file_entry_ctor) goto fail;
    if (!(scj.snapshot_info = scj_global_class(env, SCJ_PKG "SnapshotInfo"))) goto fail;
    /* (long id, byte[] user, long identifier, int kind (sc_commit_kind), long timeMillis,
     *  long totalRecords, long deltaRecords, long fileCount, String parentHash) */
    scj.snapshot_info_ctor = (*env)->GetMethodID(env, scj.snapshot_info, "<init>",
                                                 "(J[BJIJJJJLjava/lang/String;)V");
    if (!scj.snapshot_info_ctor) goto fail;
    if (!(scj.native_log = scj_global_class(env, SCJ_PKG "NativeLog"))) goto fail;
    scj.native_log_emit = (*env)->GetStaticMethodID(env, scj.native_log, "emit", "(I[B)V");
    if (!scj.native_log_emit) goto fail;
    if (!(scj.byte_array = scj_global_class(env, "[B"))) goto fail;
    return SCJ_JNI_VERSION;
fail:
    /* Leave the Java error (NoClassDefFoundError, NoSuchMethodError) for System.load to report. */
    release_all(env);
    return JNI_ERR;
}

SCJ_EXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    scj_log_release();
    if ((*vm)->GetEnv(vm, (void **)&env, SCJ_JNI_VERSION) != JNI_OK) return;
    release_all(env);
}
