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
#include "format/table_schema.h"

#define SC_DEFAULT_PARTITION_NAME "__DEFAULT_PARTITION__"

/*
 * Parse a spec naming every partition key of `schema` exactly once, in any
 * order ("" for an unpartitioned table), into the serialized BinaryRow.
 * SC_EINVAL naming the spec and the problem: unknown key, missing key, a
 * value that does not parse as the field's type, a repeated key, bad %XX.
 */
int sc_partition_parse(sc_buf *out_row, const sc_table_schema *schema, const char *spec);
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

#endif
