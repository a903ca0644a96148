/*
 * A commit's entries checked and completed against the table's schema
 * (internal). sc_changes_add checks what holds for any table; this checks
 * what depends on the schema and fills in what Paimon's readers need and
 * the caller may leave out, so every manifest we write is one Paimon reads.
 */
#ifndef SC_ENTRIES_H
#define SC_ENTRIES_H

#include "format/changes.h"
#include "strategy/strategy.h"

/*
 * For every added file: the partition is a row of the schema's partition
 * fields; keys are rows of the trimmed primary key, required on a
 * primary-key table (typed min <= max) and absent otherwise; total_buckets 0
 * becomes the table's setting, and must be -1 on a bucket-unaware table (bucket
 * 0) and on a dynamic-bucket primary-key table (any bucket >= 0), > 0 on a
 * fixed-bucket one; value statistics, when given, have one column
 * per field (or per value_stats_cols); schema_id is not above the table's.
 * Filled in when absent: value statistics as "no columns" (an empty
 * value_stats_cols), key statistics of a primary-key table from the key range
 * (first key field exact, the others unknown), file source (APPEND, or COMPACT
 * for a COMPACT commit) and creation time (`now_ms`).
 * For every deleted file: the partition is a row of the partition fields.
 * SC_EINVAL naming the list, index, file and field. `changes` is updated in place.
 */
int sc_entries_prepare(sc_table *t, sc_changes *changes, sc_commit_kind kind, int64_t now_ms);

/* "dt=2024-01-01/h=3" for a partition row of the table ("" when unpartitioned), or the
 * escaped bytes when the row does not fit the schema; for messages. */
void sc_entries_describe_partition(char *out, size_t cap, const sc_table *t, sc_bytes partition);
/* The values of a key row as "[v1, v2]" (or its escaped bytes), for messages. */
void sc_entries_describe_key(char *out, size_t cap, const sc_table *t, sc_bytes key);

#endif
