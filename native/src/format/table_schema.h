/*
 * Table schemas (internal): Paimon's schema/schema-N JSON (version 3,
 * docs/paimon-layout.md §2) and the short form the CLI accepts:
 *   {"fields":[{"name":"dt","type":"STRING"},...],"partitionKeys":[...],
 *    "primaryKeys":[...],"options":{...}}
 * (field ids, highestFieldId, version and id are then assigned: ids from 0
 * in order). Decoding is bounded and fails closed: SC_ECORRUPT for a stored
 * schema (`object` names it), SC_EINVAL for user input (`object` NULL).
 */
#ifndef SC_TABLE_SCHEMA_H
#define SC_TABLE_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/data_type.h"

/* Largest schema object read (and accepted as input). */
#define SC_SCHEMA_MAX_BYTES ((size_t)4 << 20)
/* Most fields, keys or options in one schema. */
#define SC_SCHEMA_MAX_FIELDS 10000
/* Paimon's "bucket" = "-1": a bucket-unaware append table (every file in
 * bucket 0), or a dynamic-bucket primary-key table (Paimon's HASH_DYNAMIC:
 * buckets 0.. assigned by its HASH index, _TOTAL_BUCKETS -1 on every file). */
#define SC_BUCKET_UNAWARE (-1)

typedef struct sc_schema_field {
    int32_t id;
    char *name;
    sc_data_type type;
    char *description; /* NULL when absent */
    char *default_value; /* Paimon's "defaultValue"; NULL when absent */
} sc_schema_field;

/* A struct tag only: the name sc_schema_option is the lookup function below. */
struct sc_schema_option {
    char *key;
    char *value;
};

/* Everything owned; free with sc_schema_clear. */
typedef struct sc_table_schema {
    int64_t id;
    sc_schema_field *fields;
    size_t field_count;
    int32_t highest_field_id;
    char **partition_keys;
    size_t partition_key_count;
    char **primary_keys;
    size_t primary_key_count;
    struct sc_schema_option *options; /* in the order read; keys unique */
    size_t option_count;
    char *comment;             /* NULL when absent */
    int64_t time_millis;       /* 0 when absent */

    /* Derived by decode (and sc_schema_finish): field indexes. */
    size_t *partition_index;   /* partition_key_count entries */
    size_t *primary_index;     /* primary_key_count entries */
    size_t *trimmed_key_index; /* primary keys that are not partition keys, in pk order */
    size_t trimmed_key_count;
    sc_data_type *partition_types; /* copies, partition_key_count entries */
    sc_data_type *trimmed_key_types; /* copies, trimmed_key_count entries */
    sc_data_type *field_types;     /* copies, field_count entries (value stats order) */
    int32_t bucket;            /* option "bucket": -1 when unset: bucket-unaware on an append table,
                                * dynamic-bucket on a primary-key table */
} sc_table_schema;

/*
 * Decode Paimon's schema JSON or the short form, then check it: unique field
 * names, partition and primary keys name distinct fields, primary keys
 * include every partition key (else Paimon's cross-partition KEY_DYNAMIC
 * mode, refused), key and partition fields are
 * atomic, primary-key fields become NOT NULL (as Paimon stores them), option
 * values are strings, "bucket" is -1 or > 0. Computes the derived part.
 * Also Paimon's: primary keys must not equal the partition keys; "bucket-key"
 * names atomic fields and needs bucket > 0; a bucketed append table needs
 * "bucket-key". A primary-key table without "bucket" (or with -1) is Paimon's
 * dynamic bucket mode (accepted; sc_schema_is_dynamic_bucket).
 * Schemas without "version" (Paimon 0.7) get bucket 1, versions <= 2 file.format
 * orc when those options are missing, as Paimon reads them.
 * Limits: more than SC_SCHEMA_MAX_BYTES or SC_SCHEMA_MAX_FIELDS is SC_ELIMIT.
 */
int sc_schema_decode(sc_table_schema *out, const uint8_t *data, size_t len, const char *object);
/* The schema of a table created without --schema: no fields, no keys, no options, id 0. */
int sc_schema_empty(sc_table_schema *out);
/* Paimon's schema JSON (pretty or compact; "version": 3, every required key). */
int sc_schema_encode(sc_buf *out, const sc_table_schema *schema);
void sc_schema_clear(sc_table_schema *schema);
/* 1 for a dynamic-bucket primary-key table (bucket -1 with a primary key). */
int sc_schema_is_dynamic_bucket(const sc_table_schema *schema);
/* The option's value or NULL. */
const char *sc_schema_option(const sc_table_schema *schema, const char *key);
/* Index of the named field, or -1. */
long sc_schema_field_index(const sc_table_schema *schema, const char *name);
/* Store key of schema `id`: "schema/schema-<id>". */
void sc_schema_key(char out[64], int64_t id);

#endif
