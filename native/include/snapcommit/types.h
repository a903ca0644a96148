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

/* Version of the table format (docs/format.md) this library reads and writes. */
#define SC_FORMAT_VERSION 1

typedef enum sc_commit_kind {
    SC_KIND_APPEND = 0,
    SC_KIND_COMPACT = 1,
    SC_KIND_OVERWRITE = 2,
} sc_commit_kind;

/* "APPEND", "COMPACT", "OVERWRITE". Static storage; NULL for invalid kinds. */
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

/* One data file as recorded in manifests (Paimon's DataFileMeta, reduced). */
typedef struct sc_file_entry {
    sc_bytes partition;     /* opaque, compared bytewise; may be empty */
    int32_t bucket;         /* >= 0 */
    int32_t total_buckets;  /* > 0, or 0 when unknown / not bucketed */
    int32_t level;          /* LSM level, >= 0 */
    const char *file;       /* relative to the table root; no "..", not absolute */
    int64_t rows;           /* >= 0 */
    int64_t size;           /* bytes, >= 0 */
    sc_bytes min_key;       /* optional: both present or both absent */
    sc_bytes max_key;
} sc_file_entry;

/* How a commit retries lost claims (sc_table_set_retry_policy). */
typedef struct sc_retry_policy {
    int max_retries;      /* default 10 */
    int64_t min_wait_ms;  /* default 10 */
    int64_t max_wait_ms;  /* default 10000 */
    int64_t timeout_ms;   /* 0 = no timeout (default) */
} sc_retry_policy;

/* Paimon's defaults: 10 retries, 10 ms .. 10 s, no timeout. */
SC_API void sc_retry_policy_default(sc_retry_policy *out);

#ifdef __cplusplus
}
#endif
#endif
