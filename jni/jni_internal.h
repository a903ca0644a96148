/*
 * libsnapcommit_jni internals: the classes and methods cached in JNI_OnLoad,
 * exception mapping and the marshalling helpers shared by the jni_*.c files.
 *
 * This library only marshals: every decision about commits is taken by
 * libsnapcommit. Strings cross the boundary as NUL-terminated UTF-8 byte
 * arrays (Java's modified UTF-8 differs for NUL and supplementary
 * characters), copied with GetByteArrayRegion; no critical sections are held
 * around storage I/O.
 */
#ifndef SNAPCOMMIT_JNI_INTERNAL_H
#define SNAPCOMMIT_JNI_INTERNAL_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "snapcommit/snapcommit.h"

/* Only the Java_* entry points and JNI_OnLoad/OnUnload are exported (see exports.map). */
#define SCJ_EXPORT JNIEXPORT __attribute__((visibility("default")))

#define SCJ_JNI_VERSION JNI_VERSION_1_8
#define SCJ_PKG "io/snapcommit/jni/"

/* Global references and ids resolved once in JNI_OnLoad. */
typedef struct scj_cache {
    JavaVM *vm;
    jclass snapcommit_exception;      /* base class: io.snapcommit.jni.SnapcommitException */
    jclass illegal_argument;          /* java.lang.IllegalArgumentException */
    jclass illegal_state;             /* java.lang.IllegalStateException */
    jclass out_of_memory;             /* java.lang.OutOfMemoryError */
    jclass file_entry;                /* io.snapcommit.jni.FileEntry */
    jmethodID file_entry_ctor;
    jclass snapshot_info;             /* io.snapcommit.jni.SnapshotInfo */
    jmethodID snapshot_info_ctor;
    jclass native_log;                /* io.snapcommit.jni.NativeLog */
    jmethodID native_log_emit;        /* static void emit(int level, byte[] message) */
    jclass byte_array;                /* byte[] */
} scj_cache;

/*
 * Who may call whom (jni/check_cycles.sh keeps it so): the cache (jni_cache.c)
 * depends on nothing; errors (jni_errors.c) only on the cache; marshalling
 * (jni_marshal.c) reports through errors; file entries (jni_entry.c) use
 * marshalling; the entry points (jni_changes,
 * jni_config, jni_enums, jni_log, jni_store, jni_table) use all three;
 * jni_onload.c sets them up and tears them down. Nothing below calls up.
 */
extern scj_cache scj; /* jni_cache.c */

/* Resolve the exception classes and the factory (JNI_OnLoad); 0 on success, with a Java error pending otherwise. */
int scj_errors_init(JNIEnv *env);
void scj_errors_release(JNIEnv *env);

/* A global reference to class `name` (FindClass + NewGlobalRef); NULL with a Java error pending. */
jclass scj_global_class(JNIEnv *env, const char *name);

/* Uninstall the Java log handler, if installed (jni_log.c; JNI_OnUnload). */
void scj_log_release(void);

/*
 * Throw SnapcommitException.fromNative(code, message, detail) -- the one place
 * (in Java) where codes map to exception classes -- with the calling thread's
 * sc_error_message() as message; `detail` is a code-specific number
 * (the existing snapshot for SC_ECOMMITTED). Call it right after the failing
 * snapcommit call, before any other one on this thread.
 */
void scj_throw_code(JNIEnv *env, int code, int64_t detail);
void scj_throw(JNIEnv *env, jclass cls, const char *message);

/* Handles: jlong <-> pointer. A zero handle throws IllegalStateException and yields NULL. */
void *scj_handle(JNIEnv *env, jlong handle, const char *what);
static inline jlong scj_to_handle(const void *p) { return (jlong)(intptr_t)p; }

/*
 * A malloc()ed, NUL-terminated copy of a byte array holding UTF-8 text and
 * its terminator (as io.snapcommit.jni.Utf8.z() makes). NULL with an exception
 * pending when arr is NULL (and !optional), unterminated, contains an
 * interior NUL, or memory runs out. NULL without exception when arr is NULL
 * and optional.
 */
char *scj_cstr(JNIEnv *env, jbyteArray arr, const char *what, int optional);

/*
 * A malloc()ed copy of a byte array. *absent = 1 (and NULL returned, no
 * exception) when arr is NULL. NULL with an exception pending on failure.
 * An empty array yields a non-NULL 1-byte allocation and *len = 0.
 */
uint8_t *scj_copy_bytes(JNIEnv *env, jbyteArray arr, size_t *len, int *absent);

/* A new byte[] holding len bytes of data; NULL with an exception pending on failure. */
jbyteArray scj_new_bytes(JNIEnv *env, const void *data, size_t len);
jbyteArray scj_new_bytes_str(JNIEnv *env, const char *text);

/*
 * FileEntry <-> sc_file_entry (jni_entry.c; the shape is described there).
 * Indexes into FileEntry's long[] of numbers and byte[][] of byte fields;
 * FileEntry.java holds the same constants.
 */
#define SCJ_STR_(x) #x
#define SCJ_STR(x) SCJ_STR_(x)
#define SCJ_FE_NUMS 16
#define SCJ_FE_BYTES 10
enum {
    SCJ_FE_BUCKET = 0,
    SCJ_FE_TOTAL_BUCKETS,
    SCJ_FE_LEVEL,
    SCJ_FE_ROWS,
    SCJ_FE_SIZE,
    SCJ_FE_MIN_SEQ,
    SCJ_FE_MAX_SEQ,
    SCJ_FE_SCHEMA_ID,
    SCJ_FE_HAS_CREATION_TIME,
    SCJ_FE_CREATION_TIME,
    SCJ_FE_HAS_DELETE_ROW_COUNT,
    SCJ_FE_DELETE_ROW_COUNT,
    SCJ_FE_HAS_FILE_SOURCE,
    SCJ_FE_FILE_SOURCE,
    SCJ_FE_HAS_FIRST_ROW_ID,
    SCJ_FE_FIRST_ROW_ID,
};
enum {
    SCJ_FE_PARTITION = 0,
    SCJ_FE_FILE,
    SCJ_FE_MIN_KEY,
    SCJ_FE_MAX_KEY,
    SCJ_FE_KEY_MIN,
    SCJ_FE_KEY_MAX,
    SCJ_FE_VALUE_MIN,
    SCJ_FE_VALUE_MAX,
    SCJ_FE_EMBEDDED_INDEX,
    SCJ_FE_EXTERNAL_PATH,
};

/* An sc_file_entry built from Java, with the copies it borrows. */
typedef struct scj_entry {
    sc_file_entry e;
    uint8_t *bytes[SCJ_FE_BYTES];
    char **names[3]; /* extra files, value stats columns, write columns */
    size_t name_count[3];
    int64_t *counts[2]; /* key, value null counts */
    size_t count_len[2];
} scj_entry;

/*
 * Fill *out from FileEntry's native form (FileEntry.toNative). 0 on success
 * (release with scj_entry_release), -1 with an exception pending (nothing to
 * release).
 */
int scj_entry_from_java(JNIEnv *env, scj_entry *out, jlongArray nums, jobjectArray bytes,
                        jobjectArray extra_files, jobjectArray stats_cols, jobjectArray write_cols,
                        jlongArray key_nulls, jlongArray value_nulls);
void scj_entry_release(scj_entry *e);
/* A new FileEntry, or NULL with an exception pending. */
jobject scj_entry_to_java(JNIEnv *env, const sc_file_entry *e);

/*
 * Store configuration from Java: StoreConfig.toNative() gives a byte[][] of
 * SCJ_CFG_COUNT fields in this order (null = unset; numbers as decimal text).
 */
enum {
    SCJ_CFG_ENDPOINT = 0,
    SCJ_CFG_REGION,
    SCJ_CFG_ACCESS_KEY,
    SCJ_CFG_SECRET_KEY,
    SCJ_CFG_SESSION_TOKEN,
    SCJ_CFG_PATH_STYLE,
    SCJ_CFG_TLS_VERIFY,
    SCJ_CFG_CA_BUNDLE,
    SCJ_CFG_CONDITIONAL,
    SCJ_CFG_CONNECT_TIMEOUT,
    SCJ_CFG_REQUEST_TIMEOUT,
    SCJ_CFG_TRACKER_TTL,
    SCJ_CFG_ANONYMOUS,
    SCJ_CFG_COUNT
};

/* The strings an sc_store_config borrows while one open call runs. */
typedef struct scj_config_strings {
    char *s[SCJ_CFG_COUNT];
} scj_config_strings;

/*
 * Fill *out from arr (NULL arr: every field unset). 0 on success, -1 with a
 * Java exception pending. Release `keep` with scj_config_release() after the
 * open call, on success only (on failure it is already released).
 */
int scj_config_from(JNIEnv *env, jobjectArray arr, sc_store_config *out, scj_config_strings *keep);
/* Wipe and free the strings (secrets included). */
void scj_config_release(scj_config_strings *keep);

#endif
