/*
 * Paimon data types (internal): the column types a table schema declares,
 * parsed from and rendered to Paimon's type strings ("INT NOT NULL",
 * "DECIMAL(10, 2)", "TIMESTAMP(3) WITH LOCAL TIME ZONE"; docs/paimon-layout.md §2).
 *
 * Atomic types are understood fully: they can be partition keys, primary
 * keys and statistics columns, and BinaryRow encodes them (binary_row.h).
 * Nested types (ARRAY, MAP, MULTISET, ROW, VARIANT, …) are kept as their JSON
 * text so a schema round-trips unchanged, but they can be neither keys nor
 * partition fields.
 */
#ifndef SC_DATA_TYPE_H
#define SC_DATA_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef enum sc_type_root {
    SC_TYPE_BOOLEAN = 1,
    SC_TYPE_TINYINT,
    SC_TYPE_SMALLINT,
    SC_TYPE_INT,
    SC_TYPE_BIGINT,
    SC_TYPE_FLOAT,
    SC_TYPE_DOUBLE,
    SC_TYPE_CHAR,          /* length */
    SC_TYPE_VARCHAR,       /* length; STRING = VARCHAR(2147483647) */
    SC_TYPE_BINARY,        /* length */
    SC_TYPE_VARBINARY,     /* length; BYTES = VARBINARY(2147483647) */
    SC_TYPE_DECIMAL,       /* precision 1..38, scale 0..precision */
    SC_TYPE_DATE,          /* days since 1970-01-01 */
    SC_TYPE_TIME,          /* precision 0..9; millis of day */
    SC_TYPE_TIMESTAMP,     /* precision 0..9; local date-time */
    SC_TYPE_TIMESTAMP_LTZ, /* precision 0..9; WITH LOCAL TIME ZONE */
    SC_TYPE_NESTED,        /* anything else: kept as JSON text in `nested_json` */
} sc_type_root;

#define SC_TYPE_MAX_LENGTH 2147483647

/* One column type. `nested_json` is owned (NULL unless root == SC_TYPE_NESTED). */
typedef struct sc_data_type {
    sc_type_root root;
    int nullable;      /* 1 unless "NOT NULL" */
    int32_t length;    /* CHAR, VARCHAR, BINARY, VARBINARY */
    int32_t precision; /* DECIMAL, TIME, TIMESTAMP, TIMESTAMP_LTZ */
    int32_t scale;     /* DECIMAL */
    char *nested_json; /* compact JSON of a nested type, verbatim semantics */
} sc_data_type;

/*
 * Parse a type string as Paimon writes it (case-insensitive keywords, optional
 * " NOT NULL"; aliases STRING, BYTES, INTEGER, DEC/NUMERIC, TIMESTAMP_LTZ,
 * TIMESTAMP without precision = 6, TIME without = 0, DECIMAL without = (10, 0),
 * CHAR/BINARY without = 1, VARCHAR/VARBINARY without = 1).
 * SC_EINVAL naming `what` and the text for anything else (including ranges).
 */
int sc_data_type_parse(sc_data_type *out, const char *text, const char *what);
/*
 * Render the canonical Paimon string ("STRING", "VARCHAR(10)", "DECIMAL(10, 2)",
 * "TIMESTAMP(3) WITH LOCAL TIME ZONE", " NOT NULL" appended when not nullable).
 * SC_EINVAL for SC_TYPE_NESTED (those are rendered from nested_json).
 */
int sc_data_type_render(sc_buf *out, const sc_data_type *type);
/* Deep copy. */
int sc_data_type_copy(sc_data_type *out, const sc_data_type *in);
void sc_data_type_clear(sc_data_type *type);
/* 1 for the atomic types BinaryRow and the key/partition code support. */
int sc_data_type_is_atomic(const sc_data_type *type);

#endif
