/*
 * Partitions (internal): the Hive-style specs users and paths show
 * ("dt=2024-01-01/h=3") and the BinaryRow of the partition fields that
 * manifests store (binary_row.h), converted both ways for a schema.
 * Escaping follows Paimon's PartitionPathUtils: control characters and
 * " # % ' * / : = ? \ DEL { } [ ] ^ become %XX (upper-case hex); a null value
 * is the option partition.default-name (default "__DEFAULT_PARTITION__").
 */
#ifndef SC_PARTITION_H
#define SC_PARTITION_H

#include "base/buf.h"
#include "format/binary_row.h" /* sc_datum */
#include "format/table_schema.h"
#include "snapcommit/types.h" /* sc_bytes */

#define SC_DEFAULT_PARTITION_NAME "__DEFAULT_PARTITION__"

/*
 * Parse a spec naming every partition key of `schema` exactly once, in any
 * order ("" for an unpartitioned table), into the serialized BinaryRow.
 * SC_EINVAL naming the spec and the problem: unknown key, missing key, a
 * value that does not parse as the field's type, a repeated key, bad %XX.
 */
int sc_partition_parse(sc_buf *out_row, const sc_table_schema *schema, const char *spec);
/*
 * The values a spec names for some of the partition keys, each at most once,
 * in any order (a predicate on partitions, as Paimon's createPartitionPredicate
 * takes a partial spec): for each key i named, named[i] = 1 and values[i] its
 * value (is_null for the default name). values, owned and named have
 * partition_key_count slots zeroed by the caller, who frees owned[i] (the
 * copies values[i] points into) also on error. "" names none. Errors as
 * sc_partition_parse, but for the missing keys.
 */
int sc_partition_parse_some(sc_datum *values, uint8_t **owned, char *named, const sc_table_schema *schema,
                            const char *spec);
/*
 * The spec of a serialized partition row in schema order ("dt=2024-01-01/h=3",
 * values escaped; "" for arity 0). SC_ECORRUPT (naming `what`) when the row
 * does not fit the schema's partition types.
 */
int sc_partition_spec(sc_buf *out, const sc_table_schema *schema, const uint8_t *row, size_t len,
                      const char *what);
/* The directory of a bucket: "<spec>/bucket-<b>" or "bucket-<b>" (no trailing /). */
int sc_partition_bucket_dir(sc_buf *out, const sc_table_schema *schema, const uint8_t *row,
                            size_t len, int32_t bucket, const char *what);

/*
 * Paimon's _PARTITION_STATS of `count` serialized partition rows: per field,
 * the typed minimum and maximum over the non-null values (null when every
 * value is null) as two serialized rows appended to `min_out` and `max_out`,
 * and the number of nulls in null_counts[i] (partition_key_count entries).
 * SC_ECORRUPT (naming `what`) when a row does not fit the partition types.
 */
int sc_partition_stats(sc_buf *min_out, sc_buf *max_out, int64_t *null_counts, const sc_table_schema *schema,
                       const sc_bytes *rows, size_t count, const char *what);
/*
 * *out 1 when `row` may lie within partition stats [min, max]: every field
 * of the row is within its bounds (a null bound, or a row of another arity,
 * says nothing and counts as "may"). Used to skip manifests that cannot hold
 * a partition a commit touches.
 */
int sc_partition_stats_may_hold(int *out, const sc_table_schema *schema, sc_bytes min, sc_bytes max, sc_bytes row);

#endif
