/*
 * io.snapcommit.jni.NativeTable: sc_table_* marshalled one to one.
 * The Java wrapper serializes calls per handle (a sc_table is used by one
 * thread at a time) and never passes a closed handle.
 */
#include <stdlib.h>
#include <string.h>

#include "jni_internal.h"

#define TABLE(h) ((sc_table *)scj_handle(env, (h), "snapcommit table is closed"))

/* static native long open(byte[] location, byte[][] config): config null = environment/defaults */
SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeTable_open(JNIEnv *env, jclass cls,
                                                                 jbyteArray location,
                                                                 jobjectArray config) {
    (void)cls;
    sc_store_config cfg;
    scj_config_strings keep;
    if (scj_config_from(env, config, &cfg, &keep) != 0) return 0;
    char *loc = scj_cstr(env, location, "location must be NUL-terminated UTF-8", 0);
    sc_table *t = NULL;
    int rc = loc ? sc_table_open_location_with_config(&t, loc, &cfg) : 0;
    scj_config_release(&keep);
    free(loc);
    if (!loc) return 0;
    if (rc) {
        scj_throw_code(env, rc, 0);
        return 0;
    }
    return scj_to_handle(t);
}

/* static native void create(byte[] location, int strategy, byte[][] config): strategy is an
 * sc_strategy_kind value (Strategy.code()); SC_ETABLEEXISTS when present */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeTable_create(JNIEnv *env, jclass cls,
                                                                  jbyteArray location,
                                                                  jint strategy,
                                                                  jobjectArray config) {
    (void)cls;
    if (!sc_strategy_name((sc_strategy_kind)strategy)) {
        scj_throw(env, scj.illegal_argument, "unknown strategy code");
        return;
    }
    sc_store_config cfg;
    scj_config_strings keep;
    if (scj_config_from(env, config, &cfg, &keep) != 0) return;
    char *loc = scj_cstr(env, location, "location must be NUL-terminated UTF-8", 0);
    if (!loc) {
        scj_config_release(&keep);
        return;
    }
    sc_store *store = NULL;
    int rc = sc_store_open_with_config(&store, loc, &cfg);
    scj_config_release(&keep);
    if (!rc) rc = sc_table_create(store, (sc_strategy_kind)strategy);
    if (rc) scj_throw_code(env, rc, 0);
    sc_store_free(store);
    free(loc);
}

/*
 * static native void createWithSchema(byte[] location, int strategy, byte[][] config, byte[] schema):
 * as create, with the table's schema JSON (UTF-8, no terminator needed; null = no schema);
 * SC_ETABLEEXISTS when present, SC_EINVAL naming the problem in the schema.
 */
SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeTable_createWithSchema(
    JNIEnv *env, jclass cls, jbyteArray location, jint strategy, jobjectArray config,
    jbyteArray schema) {
    (void)cls;
    if (!sc_strategy_name((sc_strategy_kind)strategy)) {
        scj_throw(env, scj.illegal_argument, "unknown strategy code");
        return;
    }
    size_t schema_len = 0;
    int absent;
    uint8_t *json = scj_copy_bytes(env, schema, &schema_len, &absent);
    if (!json && !absent) return;
    sc_store_config cfg;
    scj_config_strings keep;
    if (scj_config_from(env, config, &cfg, &keep) != 0) {
        free(json);
        return;
    }
    char *loc = scj_cstr(env, location, "location must be NUL-terminated UTF-8", 0);
    if (!loc) {
        scj_config_release(&keep);
        free(json);
        return;
    }
    sc_store *store = NULL;
    int rc = sc_store_open_with_config(&store, loc, &cfg);
    scj_config_release(&keep);
    if (!rc) rc = sc_table_create_with_schema(store, (sc_strategy_kind)strategy, (const char *)json,
                                              schema_len);
    if (rc) scj_throw_code(env, rc, 0);
    sc_store_free(store);
    free(loc);
    free(json);
}

/* static native byte[] schemaJson(long table): the table's schema as Paimon's JSON (UTF-8). */
SCJ_EXPORT jbyteArray JNICALL Java_io_snapcommit_jni_NativeTable_schemaJson(JNIEnv *env,
                                                                            jclass cls,
                                                                            jlong handle) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return NULL;
    char *json = NULL;
    size_t len = 0;
    int rc = sc_table_schema_json(&json, &len, t);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return NULL;
    }
    jbyteArray out = scj_new_bytes(env, json, len);
    free(json);
    return out;
}

SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeTable_close(JNIEnv *env, jclass cls,
                                                                 jlong handle) {
    (void)env, (void)cls;
    sc_table_free((sc_table *)(intptr_t)handle);
}

SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeTable_setRetryPolicy(
    JNIEnv *env, jclass cls, jlong handle, jint max_retries, jlong min_wait_ms, jlong max_wait_ms,
    jlong timeout_ms) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return;
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    p.max_retries = max_retries;
    p.min_wait_ms = min_wait_ms;
    p.max_wait_ms = max_wait_ms;
    p.timeout_ms = timeout_ms;
    sc_table_set_retry_policy(t, &p);
}

/* static native int strategy(long): the sc_strategy_kind value (Strategy.ofCode) */
SCJ_EXPORT jint JNICALL Java_io_snapcommit_jni_NativeTable_strategy(JNIEnv *env, jclass cls,
                                                                    jlong handle) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return 0;
    return (jint)sc_table_strategy(t);
}

/* static native String uuid(long) — 36 ASCII characters */
SCJ_EXPORT jstring JNICALL Java_io_snapcommit_jni_NativeTable_uuid(JNIEnv *env, jclass cls,
                                                                   jlong handle) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return NULL;
    return (*env)->NewStringUTF(env, sc_table_uuid(t));
}

/*
 * static native long[] commit(long table, byte[] user, long identifier, int kind,
 *                             long baseSnapshot, long changes)
 * kind is an sc_commit_kind value (CommitKind.code()); libsnapcommit refuses an unknown one.
 * → {snapshotId, attempts, lostClaims, unknownOutcomes, elapsedMs, storeOps}
 * SC_ECOMMITTED throws AlreadyCommittedException whose detail is the existing snapshot.
 */
SCJ_EXPORT jlongArray JNICALL Java_io_snapcommit_jni_NativeTable_commit(
    JNIEnv *env, jclass cls, jlong handle, jbyteArray user, jlong identifier, jint kind,
    jlong base_snapshot, jlong changes_handle) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return NULL;
    sc_changes *changes = scj_handle(env, changes_handle, "snapcommit changes are closed");
    if (!changes) return NULL;
    if (base_snapshot < 0) {
        scj_throw(env, scj.illegal_argument, "base snapshot must be >= 0");
        return NULL;
    }
    char *commit_user = scj_cstr(env, user, "commit user must be NUL-terminated UTF-8", 0);
    if (!commit_user) return NULL;
    sc_commit_request req = {0};
    sc_commit_result res;
    memset(&res, 0, sizeof res);
    req.kind = (sc_commit_kind)kind;
    req.commit_user = commit_user;
    req.identifier = identifier;
    req.base_snapshot = (uint64_t)base_snapshot;
    req.changes = changes;
    int rc = sc_table_commit(&res, t, &req);
    free(commit_user);
    if (rc) {
        scj_throw_code(env, rc, rc == SC_ECOMMITTED ? (int64_t)res.existing_snapshot : 0);
        return NULL;
    }
    uint64_t ops = 0;
    for (int i = 0; i < SC_OP_COUNT; i++) ops += res.stats.ops[i];
    jlong out[6] = {(jlong)res.snapshot_id, res.attempts,    res.lost_claims,
                    res.unknown_outcomes,   res.elapsed_ms, (jlong)ops};
    jlongArray arr = (*env)->NewLongArray(env, 6);
    if (!arr) return NULL;
    (*env)->SetLongArrayRegion(env, arr, 0, 6, out);
    return arr;
}

/*
 * static native long[] commitCheckpoint(long table, byte[] user, long identifier, long baseSnapshot,
 *                                       boolean hasWatermark, long watermark, long append, long compact,
 *                                       int overwrite, byte[] overwritePartition)
 * append / compact: NativeChanges handles, 0 for none. overwrite: sc_overwrite_scope (0 none);
 * overwritePartition: the NUL-terminated spec of SC_OVERWRITE_PARTITION, null otherwise.
 * → {append: snapshotId, kind, attempts, lostClaims, unknownOutcomes, elapsedMs, storeOps,
 *    compact: snapshotId, attempts, lostClaims, unknownOutcomes, elapsedMs, storeOps}
 *   (CheckpointResult.java reads them so).
 * An error throws; its detail is the existing snapshot for SC_ECOMMITTED, else the APPEND
 * snapshot that landed before the COMPACT part failed (0: none).
 */
#define SCJ_CHECKPOINT_FIELDS 13
static void put_part(jlong *out, const sc_commit_result *r) {
    uint64_t ops = 0;
    for (int i = 0; i < SC_OP_COUNT; i++) ops += r->stats.ops[i];
    out[0] = (jlong)r->attempts;
    out[1] = (jlong)r->lost_claims;
    out[2] = (jlong)r->unknown_outcomes;
    out[3] = (jlong)r->elapsed_ms;
    out[4] = (jlong)ops;
}

SCJ_EXPORT jlongArray JNICALL Java_io_snapcommit_jni_NativeTable_commitCheckpoint(
    JNIEnv *env, jclass cls, jlong handle, jbyteArray user, jlong identifier, jlong base_snapshot,
    jboolean has_watermark, jlong watermark, jlong append_handle, jlong compact_handle, jint overwrite,
    jbyteArray overwrite_partition) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return NULL;
    sc_changes *append = NULL, *compact = NULL;
    if (append_handle && !(append = scj_handle(env, append_handle, "snapcommit changes are closed"))) return NULL;
    if (compact_handle && !(compact = scj_handle(env, compact_handle, "snapcommit changes are closed")))
        return NULL;
    if (base_snapshot < 0) {
        scj_throw(env, scj.illegal_argument, "base snapshot must be >= 0");
        return NULL;
    }
    char *commit_user = scj_cstr(env, user, "commit user must be NUL-terminated UTF-8", 0);
    if (!commit_user) return NULL;
    char *spec = NULL;
    if (overwrite_partition &&
        !(spec = scj_cstr(env, overwrite_partition, "overwrite partition must be NUL-terminated UTF-8", 0))) {
        free(commit_user);
        return NULL;
    }
    sc_checkpoint_request req;
    memset(&req, 0, sizeof req);
    req.commit_user = commit_user;
    req.identifier = identifier;
    req.base_snapshot = (uint64_t)base_snapshot;
    req.has_watermark = has_watermark ? 1 : 0;
    req.watermark = watermark;
    req.append = append;
    req.compact = compact;
    req.overwrite = (sc_overwrite_scope)overwrite;
    req.overwrite_partition = spec;
    sc_checkpoint_result res;
    memset(&res, 0, sizeof res);
    int rc = sc_table_commit_checkpoint(&res, t, &req);
    free(commit_user);
    free(spec);
    if (rc) {
        /* A replay found by the compact part (an empty append part) names its snapshot there. */
        uint64_t existing = res.append.existing_snapshot ? res.append.existing_snapshot : res.compact.existing_snapshot;
        scj_throw_code(env, rc, rc == SC_ECOMMITTED ? (int64_t)existing : (int64_t)res.append.snapshot_id);
        return NULL;
    }
    jlong out[SCJ_CHECKPOINT_FIELDS];
    out[0] = (jlong)res.append.snapshot_id;
    out[1] = (jlong)res.append_kind;
    put_part(out + 2, &res.append);
    out[7] = (jlong)res.compact.snapshot_id;
    put_part(out + 8, &res.compact);
    jlongArray arr = (*env)->NewLongArray(env, SCJ_CHECKPOINT_FIELDS);
    if (!arr) return NULL;
    (*env)->SetLongArrayRegion(env, arr, 0, SCJ_CHECKPOINT_FIELDS, out);
    return arr;
}

/* static native long lastCommitted(long table, byte[] user): -1 when the user has no commit */
SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeTable_lastCommitted(JNIEnv *env, jclass cls,
                                                                          jlong handle,
                                                                          jbyteArray user) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return -1;
    char *u = scj_cstr(env, user, "commit user must be NUL-terminated UTF-8", 0);
    if (!u) return -1;
    int64_t id = 0;
    int found = 0;
    int rc = sc_table_last_committed(&id, &found, t, u);
    free(u);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return -1;
    }
    return found ? (jlong)id : -1;
}

/* static native long[] filterCommitted(long table, byte[] user, long[] ids) */
SCJ_EXPORT jlongArray JNICALL Java_io_snapcommit_jni_NativeTable_filterCommitted(
    JNIEnv *env, jclass cls, jlong handle, jbyteArray user, jlongArray ids) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return NULL;
    if (!ids) {
        scj_throw(env, scj.illegal_argument, "ids is null");
        return NULL;
    }
    char *u = scj_cstr(env, user, "commit user must be NUL-terminated UTF-8", 0);
    if (!u) return NULL;
    jsize n = (*env)->GetArrayLength(env, ids);
    int64_t *in = malloc(((size_t)n + 1) * sizeof *in);
    int64_t *kept = malloc(((size_t)n + 1) * sizeof *kept);
    jlongArray result = NULL;
    if (!in || !kept) {
        scj_throw(env, scj.out_of_memory, "filterCommitted");
        goto done;
    }
    (*env)->GetLongArrayRegion(env, ids, 0, n, (jlong *)in);
    if ((*env)->ExceptionCheck(env)) goto done;
    size_t count = 0;
    int rc = sc_table_filter_committed(kept, &count, t, u, in, (size_t)n);
    if (rc) {
        scj_throw_code(env, rc, 0);
        goto done;
    }
    result = (*env)->NewLongArray(env, (jsize)count);
    if (result && count) (*env)->SetLongArrayRegion(env, result, 0, (jsize)count, (const jlong *)kept);
done:
    free(in);
    free(kept);
    free(u);
    return result;
}

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeTable_latestId(JNIEnv *env, jclass cls,
                                                                     jlong handle) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return 0;
    uint64_t id = 0;
    int rc = sc_table_latest_id(&id, t);
    if (rc) scj_throw_code(env, rc, 0);
    return (jlong)id;
}

SCJ_EXPORT jlong JNICALL Java_io_snapcommit_jni_NativeTable_earliestId(JNIEnv *env, jclass cls,
                                                                       jlong handle) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return 0;
    uint64_t id = 0;
    int rc = sc_table_earliest_id(&id, t);
    if (rc) scj_throw_code(env, rc, 0);
    return (jlong)id;
}

/* static native SnapshotInfo snapshotInfo(long table, long id) */
SCJ_EXPORT jobject JNICALL Java_io_snapcommit_jni_NativeTable_snapshotInfo(JNIEnv *env, jclass cls,
                                                                           jlong handle, jlong id) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return NULL;
    sc_snapshot_info *info = NULL;
    int rc = sc_table_snapshot_info(&info, t, (uint64_t)id);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return NULL;
    }
    jobject result = NULL;
    jbyteArray user = scj_new_bytes_str(env, info->commit_user);
    jstring parent = user ? (*env)->NewStringUTF(env, info->parent_hash) : NULL;
    if (parent)
        result = (*env)->NewObject(env, scj.snapshot_info, scj.snapshot_info_ctor, (jlong)info->id, user,
                                   (jlong)info->commit_identifier, (jint)info->commit_kind,
                                   (jlong)info->time_millis,
                                   (jlong)info->total_record_count, (jlong)info->delta_record_count,
                                   (jlong)info->file_count, parent);
    if (user) (*env)->DeleteLocalRef(env, user);
    if (parent) (*env)->DeleteLocalRef(env, parent);
    sc_snapshot_info_free(info);
    return result;
}

/* static native FileEntry[] files(long table, long snapshotId): 0 = latest */
SCJ_EXPORT jobjectArray JNICALL Java_io_snapcommit_jni_NativeTable_files(JNIEnv *env, jclass cls,
                                                                         jlong handle, jlong id) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return NULL;
    sc_file_list *list = NULL;
    int rc = sc_table_files(&list, t, (uint64_t)id);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return NULL;
    }
    jobjectArray result = NULL;
    if (list->count > (size_t)INT32_MAX) {
        scj_throw(env, scj.out_of_memory, "too many files for a Java array");
        goto done;
    }
    result = (*env)->NewObjectArray(env, (jsize)list->count, scj.file_entry, NULL);
    if (!result) goto done;
    for (size_t i = 0; i < list->count; i++) {
        jobject e = scj_entry_to_java(env, &list->entries[i]);
        if (!e) {
            (*env)->DeleteLocalRef(env, result);
            result = NULL;
            goto done;
        }
        (*env)->SetObjectArrayElement(env, result, (jsize)i, e);
        (*env)->DeleteLocalRef(env, e); /* one per iteration: no local-reference growth */
    }
done:
    sc_file_list_free(list);
    return result;
}

SCJ_EXPORT void JNICALL Java_io_snapcommit_jni_NativeTable_fsck(JNIEnv *env, jclass cls,
                                                                jlong handle) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return;
    int rc = sc_table_fsck(t, NULL, NULL);
    if (rc) scj_throw_code(env, rc, 0);
}

/*
 * static native long[] expire(long table, long[] options)
 * options = {retainMin, retainMax, olderThanMs, limit, dryRun}; a negative value keeps what
 * sc_expire_options_from_table chose (the table's own Paimon options, else Paimon's defaults).
 * → the fields of sc_expire_result in declaration order (ExpireResult.java reads them so).
 */
#define SCJ_EXPIRE_OPTS 5
#define SCJ_EXPIRE_FIELDS 10
/* A field added to sc_expire_result must be added here and in ExpireResult.java too. */
_Static_assert(sizeof(sc_expire_result) == SCJ_EXPIRE_FIELDS * sizeof(uint64_t),
               "sc_expire_result changed: update the expire binding");
SCJ_EXPORT jlongArray JNICALL Java_io_snapcommit_jni_NativeTable_expire(JNIEnv *env, jclass cls,
                                                                        jlong handle,
                                                                        jlongArray options) {
    (void)cls;
    sc_table *t = TABLE(handle);
    if (!t) return NULL;
    if (!options || (*env)->GetArrayLength(env, options) != SCJ_EXPIRE_OPTS) {
        scj_throw(env, scj.illegal_argument, "expire options must be a long[" SCJ_STR(SCJ_EXPIRE_OPTS) "]");
        return NULL;
    }
    jlong o[SCJ_EXPIRE_OPTS];
    (*env)->GetLongArrayRegion(env, options, 0, SCJ_EXPIRE_OPTS, o);
    if ((*env)->ExceptionCheck(env)) return NULL;
    sc_expire_options opt;
    int rc = sc_expire_options_from_table(&opt, t);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return NULL;
    }
    /* Range checks (min >= 1, max >= min, limit >= 1) are the library's: SC_EINVAL names them. */
    if (o[0] >= 0) opt.retain_min = (uint64_t)o[0];
    if (o[1] >= 0) opt.retain_max = (uint64_t)o[1];
    if (o[2] >= 0) opt.older_than_ms = (int64_t)o[2];
    if (o[3] >= 0) opt.limit = (uint64_t)o[3];
    if (o[4] >= 0) opt.dry_run = o[4] != 0;
    sc_expire_result res;
    memset(&res, 0, sizeof res);
    rc = sc_table_expire(&res, t, &opt);
    if (rc) {
        scj_throw_code(env, rc, 0);
        return NULL;
    }
    jlong out[SCJ_EXPIRE_FIELDS] = {(jlong)res.earliest_before,        (jlong)res.earliest_after,
                                    (jlong)res.latest,                 (jlong)res.snapshots_expired,
                                    (jlong)res.data_files_deleted,     (jlong)res.manifests_deleted,
                                    (jlong)res.manifest_lists_deleted, (jlong)res.bytes_deleted,
                                    (jlong)res.already_gone,           (jlong)res.skipped};
    jlongArray arr = (*env)->NewLongArray(env, SCJ_EXPIRE_FIELDS);
    if (!arr) return NULL;
    (*env)->SetLongArrayRegion(env, arr, 0, SCJ_EXPIRE_FIELDS, out);
    return arr;
}
