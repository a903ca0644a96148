/*
 * io.snapcommit.jni.FileEntry <-> sc_file_entry (the whole DataFileMeta).
 *
 * Both directions use one shape, so that the Java side packs and unpacks in
 * one place (FileEntry.toNative / the native constructor):
 *   long[SCJ_FE_NUMS]      the numbers and has_ flags (SCJ_FE_* below)
 *   byte[][SCJ_FE_BYTES]   the byte fields; file and external path as
 *                          NUL-terminated UTF-8, null = absent
 *   byte[][] x 3           extra files (never null), value stats columns and
 *                          write columns (null = absent), NUL-terminated UTF-8
 *   long[] x 2             key and value stats null counts (-1 = unknown;
 *                          null = absent)
 * Everything coming from Java is bounded here (counts, int ranges, string
 * form) and refused with an IllegalArgumentException naming the field;
 * libsnapcommit validates the meaning.
 */
#include <stdlib.h>
#include <string.h>

#include "jni_internal.h"

/* Bounds on what one entry may carry across the boundary. */
#define SCJ_FE_MAX_NAMES 65536  /* extra files, stats columns, write columns */
#define SCJ_FE_MAX_COUNTS 65536 /* null counts per stats */

static void bad(JNIEnv *env, const char *what) { scj_throw(env, scj.illegal_argument, what); }

void scj_entry_release(scj_entry *e) {
    for (int i = 0; i < SCJ_FE_BYTES; i++) free(e->bytes[i]);
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < e->name_count[k]; i++) free(e->names[k][i]);
        free(e->names[k]);
    }
    free(e->counts[0]);
    free(e->counts[1]);
    memset(e, 0, sizeof *e);
}

/* A malloc()ed array of n NUL-terminated strings from a byte[][]; -1 with an exception pending. */
static int names_from(JNIEnv *env, jobjectArray arr, char ***out, size_t *count, const char *what) {
    *out = NULL;
    *count = 0;
    jsize n = (*env)->GetArrayLength(env, arr);
    if (n > SCJ_FE_MAX_NAMES) {
        bad(env, what);
        return -1;
    }
    char **names = calloc((size_t)n + 1, sizeof *names);
    if (!names) {
        scj_throw(env, scj.out_of_memory, what);
        return -1;
    }
    *out = names;
    for (jsize i = 0; i < n; i++) {
        jbyteArray b = (jbyteArray)(*env)->GetObjectArrayElement(env, arr, i);
        if ((*env)->ExceptionCheck(env)) return -1;
        names[i] = scj_cstr(env, b, what, 0);
        if (b) (*env)->DeleteLocalRef(env, b);
        if (!names[i]) return -1;
        *count = (size_t)i + 1;
    }
    return 0;
}

/* A malloc()ed copy of a long[] of null counts (each >= -1); -1 with an exception pending. */
static int counts_from(JNIEnv *env, jlongArray arr, int64_t **out, size_t *count, const char *what) {
    *out = NULL;
    *count = 0;
    jsize n = (*env)->GetArrayLength(env, arr);
    if (n > SCJ_FE_MAX_COUNTS) {
        bad(env, what);
        return -1;
    }
    int64_t *c = malloc(((size_t)n + 1) * sizeof *c);
    if (!c) {
        scj_throw(env, scj.out_of_memory, what);
        return -1;
    }
    (*env)->GetLongArrayRegion(env, arr, 0, n, (jlong *)c);
    if ((*env)->ExceptionCheck(env)) {
        free(c);
        return -1;
    }
    for (jsize i = 0; i < n; i++)
        if (c[i] < -1) {
            free(c);
            bad(env, what);
            return -1;
        }
    *out = c;
    *count = (size_t)n;
    return 0;
}

static int fits_int32(jlong v) { return v >= INT32_MIN && v <= INT32_MAX; }

int scj_entry_from_java(JNIEnv *env, scj_entry *out, jlongArray nums, jobjectArray bytes,
                        jobjectArray extra_files, jobjectArray stats_cols, jobjectArray write_cols,
                        jlongArray key_nulls, jlongArray value_nulls) {
    memset(out, 0, sizeof *out);
    if (!nums || (*env)->GetArrayLength(env, nums) != SCJ_FE_NUMS) {
        bad(env, "file entry: the number fields must be a long[" SCJ_STR(SCJ_FE_NUMS) "]");
        return -1;
    }
    if (!bytes || (*env)->GetArrayLength(env, bytes) != SCJ_FE_BYTES) {
        bad(env, "file entry: the byte fields must be a byte[" SCJ_STR(SCJ_FE_BYTES) "][]");
        return -1;
    }
    if (!extra_files) {
        bad(env, "file entry: extraFiles must not be null");
        return -1;
    }
    jlong n[SCJ_FE_NUMS];
    (*env)->GetLongArrayRegion(env, nums, 0, SCJ_FE_NUMS, n);
    if ((*env)->ExceptionCheck(env)) return -1;
    static const struct {
        int index;
        const char *message;
    } ints[] = {{SCJ_FE_BUCKET, "file entry: bucket is not an int"},
                {SCJ_FE_TOTAL_BUCKETS, "file entry: totalBuckets is not an int"},
                {SCJ_FE_LEVEL, "file entry: level is not an int"},
                {SCJ_FE_FILE_SOURCE, "file entry: fileSource is not an int"}};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (!fits_int32(n[ints[i].index])) {
            bad(env, ints[i].message);
            return -1;
        }
    static const char *const byte_names[SCJ_FE_BYTES] = {
        "file entry: partition",        "file entry: file must be NUL-terminated UTF-8",
        "file entry: minKey",           "file entry: maxKey",
        "file entry: keyStats.min",     "file entry: keyStats.max",
        "file entry: valueStats.min",   "file entry: valueStats.max",
        "file entry: embeddedIndex",    "file entry: externalPath must be NUL-terminated UTF-8"};
    size_t len[SCJ_FE_BYTES] = {0};
    for (int i = 0; i < SCJ_FE_BYTES; i++) {
        jbyteArray b = (jbyteArray)(*env)->GetObjectArrayElement(env, bytes, i);
        if ((*env)->ExceptionCheck(env)) goto fail;
        if (i == SCJ_FE_FILE || i == SCJ_FE_EXTERNAL_PATH) {
            out->bytes[i] = (uint8_t *)scj_cstr(env, b, byte_names[i], i == SCJ_FE_EXTERNAL_PATH);
            if (out->bytes[i]) len[i] = strlen((char *)out->bytes[i]);
        } else {
            int absent;
            out->bytes[i] = scj_copy_bytes(env, b, &len[i], &absent);
        }
        if (b) (*env)->DeleteLocalRef(env, b);
        if ((*env)->ExceptionCheck(env)) goto fail;
    }
    if (names_from(env, extra_files, &out->names[0], &out->name_count[0],
                   "file entry: extraFiles: at most 65536 NUL-terminated UTF-8 names"))
        goto fail;
    if (stats_cols &&
        names_from(env, stats_cols, &out->names[1], &out->name_count[1],
                   "file entry: valueStatsCols: at most 65536 NUL-terminated UTF-8 names"))
        goto fail;
    if (write_cols &&
        names_from(env, write_cols, &out->names[2], &out->name_count[2],
                   "file entry: writeCols: at most 65536 NUL-terminated UTF-8 names"))
        goto fail;
    if (key_nulls && counts_from(env, key_nulls, &out->counts[0], &out->count_len[0],
                                 "file entry: keyStats null counts: at most 65536, each >= -1"))
        goto fail;
    if (value_nulls && counts_from(env, value_nulls, &out->counts[1], &out->count_len[1],
                                   "file entry: valueStats null counts: at most 65536, each >= -1"))
        goto fail;
#define B(i) ((sc_bytes){out->bytes[i], len[i]})
    out->e = (sc_file_entry){
        .partition = B(SCJ_FE_PARTITION),
        .bucket = (int32_t)n[SCJ_FE_BUCKET],
        .total_buckets = (int32_t)n[SCJ_FE_TOTAL_BUCKETS],
        .level = (int32_t)n[SCJ_FE_LEVEL],
        .file = (const char *)out->bytes[SCJ_FE_FILE],
        .rows = n[SCJ_FE_ROWS],
        .size = n[SCJ_FE_SIZE],
        .min_key = B(SCJ_FE_MIN_KEY),
        .max_key = B(SCJ_FE_MAX_KEY),
        .key_stats = {B(SCJ_FE_KEY_MIN), B(SCJ_FE_KEY_MAX), out->counts[0], out->count_len[0]},
        .value_stats = {B(SCJ_FE_VALUE_MIN), B(SCJ_FE_VALUE_MAX), out->counts[1], out->count_len[1]},
        .min_seq = n[SCJ_FE_MIN_SEQ],
        .max_seq = n[SCJ_FE_MAX_SEQ],
        .schema_id = n[SCJ_FE_SCHEMA_ID],
        .extra_files = (const char *const *)out->names[0],
        .extra_file_count = out->name_count[0],
        .has_creation_time = n[SCJ_FE_HAS_CREATION_TIME] != 0,
        .creation_time_millis = n[SCJ_FE_CREATION_TIME],
        .has_delete_row_count = n[SCJ_FE_HAS_DELETE_ROW_COUNT] != 0,
        .delete_row_count = n[SCJ_FE_DELETE_ROW_COUNT],
        .has_file_source = n[SCJ_FE_HAS_FILE_SOURCE] != 0,
        .file_source = (int32_t)n[SCJ_FE_FILE_SOURCE],
        .has_value_stats_cols = stats_cols != NULL,
        .value_stats_cols = (const char *const *)out->names[1],
        .value_stats_col_count = out->name_count[1],
        .embedded_index = B(SCJ_FE_EMBEDDED_INDEX),
        .external_path = (const char *)out->bytes[SCJ_FE_EXTERNAL_PATH],
        .has_first_row_id = n[SCJ_FE_HAS_FIRST_ROW_ID] != 0,
        .first_row_id = n[SCJ_FE_FIRST_ROW_ID],
        .has_write_cols = write_cols != NULL,
        .write_cols = (const char *const *)out->names[2],
        .write_col_count = out->name_count[2],
    };
#undef B
    return 0;
fail:
    scj_entry_release(out);
    return -1;
}

/* A byte[][] of n strings, or NULL (absent) when !present; -1 with an exception pending. */
static int names_to(JNIEnv *env, jobjectArray *out, int present, const char *const *names, size_t n) {
    *out = NULL;
    if (!present) return 0;
    if (n > SCJ_FE_MAX_NAMES) {
        scj_throw(env, scj.illegal_state, "file entry from the library: too many names");
        return -1;
    }
    *out = (*env)->NewObjectArray(env, (jsize)n, scj.byte_array, NULL);
    if (!*out) return -1;
    for (size_t i = 0; i < n; i++) {
        jbyteArray b = scj_new_bytes_str(env, names[i]);
        if (!b) return -1;
        (*env)->SetObjectArrayElement(env, *out, (jsize)i, b);
        (*env)->DeleteLocalRef(env, b);
    }
    return 0;
}

static int counts_to(JNIEnv *env, jlongArray *out, const sc_stats *s) {
    *out = NULL;
    if (!s->null_counts) return 0;
    if (s->null_count_len > SCJ_FE_MAX_COUNTS) {
        scj_throw(env, scj.illegal_state, "file entry from the library: too many null counts");
        return -1;
    }
    *out = (*env)->NewLongArray(env, (jsize)s->null_count_len);
    if (!*out) return -1;
    (*env)->SetLongArrayRegion(env, *out, 0, (jsize)s->null_count_len, (const jlong *)s->null_counts);
    return (*env)->ExceptionCheck(env) ? -1 : 0;
}

jobject scj_entry_to_java(JNIEnv *env, const sc_file_entry *e) {
    jobject obj = NULL;
    jlongArray nums = NULL, key_nulls = NULL, value_nulls = NULL;
    jobjectArray bytes = NULL, names[3] = {NULL, NULL, NULL};
    const sc_bytes fields[SCJ_FE_BYTES] = {
        [SCJ_FE_PARTITION] = e->partition,
        [SCJ_FE_MIN_KEY] = e->min_key,
        [SCJ_FE_MAX_KEY] = e->max_key,
        [SCJ_FE_KEY_MIN] = e->key_stats.min_values,
        [SCJ_FE_KEY_MAX] = e->key_stats.max_values,
        [SCJ_FE_VALUE_MIN] = e->value_stats.min_values,
        [SCJ_FE_VALUE_MAX] = e->value_stats.max_values,
        [SCJ_FE_EMBEDDED_INDEX] = e->embedded_index,
        [SCJ_FE_FILE] = {(const uint8_t *)e->file, e->file ? strlen(e->file) : 0},
        [SCJ_FE_EXTERNAL_PATH] = {(const uint8_t *)e->external_path,
                                  e->external_path ? strlen(e->external_path) : 0},
    };
    const jlong n[SCJ_FE_NUMS] = {
        [SCJ_FE_BUCKET] = e->bucket,
        [SCJ_FE_TOTAL_BUCKETS] = e->total_buckets,
        [SCJ_FE_LEVEL] = e->level,
        [SCJ_FE_ROWS] = e->rows,
        [SCJ_FE_SIZE] = e->size,
        [SCJ_FE_MIN_SEQ] = e->min_seq,
        [SCJ_FE_MAX_SEQ] = e->max_seq,
        [SCJ_FE_SCHEMA_ID] = e->schema_id,
        [SCJ_FE_HAS_CREATION_TIME] = e->has_creation_time != 0,
        [SCJ_FE_CREATION_TIME] = e->creation_time_millis,
        [SCJ_FE_HAS_DELETE_ROW_COUNT] = e->has_delete_row_count != 0,
        [SCJ_FE_DELETE_ROW_COUNT] = e->delete_row_count,
        [SCJ_FE_HAS_FILE_SOURCE] = e->has_file_source != 0,
        [SCJ_FE_FILE_SOURCE] = e->file_source,
        [SCJ_FE_HAS_FIRST_ROW_ID] = e->has_first_row_id != 0,
        [SCJ_FE_FIRST_ROW_ID] = e->first_row_id,
    };
    if (!(nums = (*env)->NewLongArray(env, SCJ_FE_NUMS))) goto done;
    (*env)->SetLongArrayRegion(env, nums, 0, SCJ_FE_NUMS, n);
    if (!(bytes = (*env)->NewObjectArray(env, SCJ_FE_BYTES, scj.byte_array, NULL))) goto done;
    for (int i = 0; i < SCJ_FE_BYTES; i++) {
        if (!fields[i].data) continue; /* absent stays null */
        jbyteArray b = scj_new_bytes(env, fields[i].data, fields[i].len);
        if (!b) goto done;
        (*env)->SetObjectArrayElement(env, bytes, i, b);
        (*env)->DeleteLocalRef(env, b);
    }
    if (names_to(env, &names[0], 1, e->extra_files, e->extra_file_count)) goto done;
    if (names_to(env, &names[1], e->has_value_stats_cols, e->value_stats_cols,
                 e->value_stats_col_count))
        goto done;
    if (names_to(env, &names[2], e->has_write_cols, e->write_cols, e->write_col_count)) goto done;
    if (counts_to(env, &key_nulls, &e->key_stats)) goto done;
    if (counts_to(env, &value_nulls, &e->value_stats)) goto done;
    obj = (*env)->NewObject(env, scj.file_entry, scj.file_entry_ctor, nums, bytes, names[0], names[1],
                            names[2], key_nulls, value_nulls);
done:;
    jobject locals[] = {nums, bytes, names[0], names[1], names[2], key_nulls, value_nulls};
    for (size_t i = 0; i < sizeof locals / sizeof *locals; i++)
        if (locals[i]) (*env)->DeleteLocalRef(env, locals[i]);
    return obj;
}
