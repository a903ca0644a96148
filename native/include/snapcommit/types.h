/*
 * snapcommit value types shared by the whole API: commit and strategy kinds,
 * byte strings, data-file entries, the retry policy. Plain values with no
 * behaviour of their own beyond names and defaults, so that the codecs and
 * the building blocks of the library can use them without the table API
 * (table.h includes this header; so does snapcommit.h).
 */
#ifndef SNAPCOMMIT_TYPES_H
#define SNAPCOMMIT_TYPES_H

#include "snapcommit/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the table format (docs/format.md) this library writes, and the oldest it
 * reads. Version 3 = version 2 plus the watermark archive, which a version-2 writer
 * would drop: a table is raised to 3 before its first snapshot names an archive. */
#define SC_FORMAT_VERSION 3
#define SC_FORMAT_VERSION_MIN 2

typedef enum sc_commit_kind {
    SC_KIND_APPEND = 0,
    SC_KIND_COMPACT = 1,
    SC_KIND_OVERWRITE = 2,
    SC_KIND_ANALYZE = 3, /* Paimon's statistics snapshots: read, never committed by snapcommit */
} sc_commit_kind;

/* "APPEND", "COMPACT", "OVERWRITE", "ANALYZE". Static storage; NULL for invalid kinds. */
SC_API const char *sc_commit_kind_name(sc_commit_kind kind);
/* Parse a kind name, case-insensitive. SC_EINVAL when unknown. */
SC_API int sc_commit_kind_parse(sc_commit_kind *out, const char *name);

/* How snapshot N+1 is claimed. */
typedef enum sc_strategy_kind {
    SC_STRATEGY_AUTO = 0,    /* pick from the store's capabilities at init */
    SC_STRATEGY_RENAME,      /* atomic no-replace publish (POSIX) */
    SC_STRATEGY_CONDITIONAL, /* conditional create (S3 If-None-Match) */
    SC_STRATEGY_HEAD,        /* compare-and-swap of a fixed-size head record */
    SC_STRATEGY_TRACKER,     /* list-based tracker protocol (PUT/GET/LIST only) */
} sc_strategy_kind;

SC_API const char *sc_strategy_name(sc_strategy_kind kind);
SC_API int sc_strategy_parse(sc_strategy_kind *out, const char *name);

/* A byte string; data == NULL means absent (distinct from empty). */
typedef struct sc_bytes {
    const uint8_t *data;
    size_t len;
} sc_bytes;

/*
 * Statistics of some columns of a data file (Paimon's SimpleStats): a
 * serialized BinaryRow of the minimum values, one of the maximum values
 * (both the 4-byte big-endian arity followed by the row), and one null count
 * per column (-1 = unknown, Paimon's null). All absent (data NULL, count 0)
 * means "no statistics" and is written as arity-0 rows with an empty list.
 */
typedef struct sc_stats {
    sc_bytes min_values;
    sc_bytes max_values;
    const int64_t *null_counts;
    size_t null_count_len;
} sc_stats;

/*
 * One data file as Paimon's manifests record it (DataFileMeta plus the
 * entry's partition and bucket; docs/format.md). Borrowed pointers: the
 * library copies what it keeps. Optional members are absent when zero/NULL
 * unless a has_ flag says otherwise, so `sc_file_entry e = {0}` plus the
 * required fields is a valid append entry.
 */
typedef struct sc_file_entry {
    sc_bytes partition;     /* serialized BinaryRow of the partition fields (arity 0 when unpartitioned) */
    int32_t bucket;         /* >= 0 (0 for a bucket-unaware table) */
    int32_t total_buckets;  /* > 0, or -1 for a bucket-unaware table; 0 = the table's setting */
    int32_t level;          /* LSM level, >= 0 */
    const char *file;       /* file name only, under <partition path>/bucket-<b>/ */
    int64_t rows;           /* >= 0 */
    int64_t size;           /* bytes, >= 0 */
    sc_bytes min_key;       /* serialized BinaryRow of the trimmed primary key; */
    sc_bytes max_key;       /*   absent = arity 0 (tables without a primary key) */
    /* ---- the rest of DataFileMeta (format version 2) ---- */
    sc_stats key_stats;
    sc_stats value_stats;
    int64_t min_seq;        /* sequence numbers, min <= max */
    int64_t max_seq;
    int64_t schema_id;      /* schema the file was written with; the table's current when 0 and unknown */
    const char *const *extra_files;
    size_t extra_file_count;
    int has_creation_time;
    int64_t creation_time_millis; /* local wall-clock millis, as Paimon writes it */
    int has_delete_row_count;
    int64_t delete_row_count;
    int has_file_source;
    int32_t file_source;    /* 0 APPEND, 1 COMPACT */
    int has_value_stats_cols;
    const char *const *value_stats_cols; /* columns value_stats covers; !has = every column */
    size_t value_stats_col_count;
    sc_bytes embedded_index;    /* absent when data NULL */
    const char *external_path;  /* NULL when absent */
    int has_first_row_id;
    int64_t first_row_id;
    int has_write_cols;
    const char *const *write_cols;
    size_t write_col_count;
} sc_file_entry;

/*
 * One deletion vector inside an index file (Paimon's DeletionVectorMeta): the
 * data file whose deleted rows it marks and where its bytes are in the index
 * file. Borrowed pointers, as in sc_file_entry.
 */
typedef struct sc_dv_range {
    const char *data_file;  /* f0: the data file's name (no directory) */
    int32_t offset;         /* f1: byte offset in the index file, >= 0 */
    int32_t length;         /* f2: bytes, >= 0 */
    int has_cardinality;
    int64_t cardinality;    /* _CARDINALITY: deleted rows (Paimon's nullable field) */
} sc_dv_range;

/*
 * One index file as Paimon's index manifest records it (IndexManifestEntry
 * without its kind): a bucket's hash index ("HASH") or deletion vectors
 * ("DELETION_VECTORS"), stored under index/ (or at external_path). Borrowed
 * pointers: the library copies what it keeps. Paimon's _GLOBAL_INDEX (global
 * indexes of data-evolution tables) is not represented: an index manifest
 * carrying one is refused with SC_EUNSUPPORTED.
 */
typedef struct sc_index_entry {
    sc_bytes partition;           /* serialized BinaryRow, as in sc_file_entry */
    int32_t bucket;               /* >= 0 (0 for a bucket-unaware table) */
    const char *index_type;       /* "HASH", "DELETION_VECTORS", ...: non-empty */
    const char *file;             /* _FILE_NAME: a file name under index/ (no "/") */
    int64_t size;                 /* _FILE_SIZE, >= 0 */
    int64_t rows;                 /* _ROW_COUNT, >= 0 */
    int has_dv_ranges;            /* _DELETIONS_VECTORS_RANGES is non-null */
    const sc_dv_range *dv_ranges; /* dv_range_count items (may be 0 with has_dv_ranges) */
    size_t dv_range_count;
    const char *external_path;    /* _EXTERNAL_PATH: NULL when absent */
} sc_index_entry;

/* max_retries value: no limit on the number of lost claims (the default). */
#define SC_RETRY_UNBOUNDED (-1)
/* The default commit budget (sc_retry_policy.timeout_ms). Orphan removal refuses an
 * age below it (upkeep.h sc_orphans_options.force). */
#define SC_COMMIT_DEFAULT_TIMEOUT_MS ((int64_t)60000)

/*
 * How a commit retries lost claims (sc_table_set_retry_policy;
 * docs/protocols.md §5). By default a commit is bounded by a total time
 * budget, not by a count: it retries lost claims until timeout_ms would be
 * exceeded. A max_retries >= 0 set by the caller is honoured as before (at
 * most max_retries + 1 claims).
 */
typedef struct sc_retry_policy {
    int max_retries;      /* lost claims retried; SC_RETRY_UNBOUNDED (default) = no count limit */
    int64_t min_wait_ms;  /* default 10: the wait unit per commit seen landing meanwhile */
    int64_t max_wait_ms;  /* default 10000: the longest single wait */
    int64_t timeout_ms;   /* the commit budget: default 60000; 0 = none */
} sc_retry_policy;

/* No count limit, waits from 10 ms up to 10 s, a budget of 60 s per commit. */
SC_API void sc_retry_policy_default(sc_retry_policy *out);

#ifdef __cplusplus
}
#endif
#endif
