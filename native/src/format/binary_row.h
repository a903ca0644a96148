/*
 * Paimon BinaryRow bytes (internal): partitions, primary keys and statistics
 * rows in manifests, byte for byte as Paimon's BinaryRowWriter produces them
 * (docs/paimon-layout.md §6), and Paimon's typed order of keys (§7).
 *
 * A *serialized row* is what a manifest's `bytes` field holds: a 4-byte
 * big-endian arity, then the row (header + null bits, 8-byte fixed slots,
 * 8-byte aligned variable part; little-endian values). Every function takes
 * (pointer, length) and never reads outside it; a malformed row is
 * SC_ECORRUPT naming `what` ("partition of manifest-…, record 3"), the field
 * index and the byte offset.
 *
 * Partitions compare by bytes (Paimon's BinaryRow.equals), so the encoder
 * must be canonical: header byte 0 (+I), zeroed unused slot bytes and
 * padding, strings and binaries of at most 7 bytes inline.
 */
#ifndef SC_BINARY_ROW_H
#define SC_BINARY_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/data_type.h"

/* Most fields in a row we encode or decode (Paimon has no limit; tables rarely exceed 1,000). */
#define SC_ROW_MAX_ARITY 10000

/*
 * One field value. Which member holds it follows the type:
 *   BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DATE (days), TIME (millis of day): i
 *   FLOAT, DOUBLE: f
 *   CHAR, VARCHAR, BINARY, VARBINARY: bytes (borrowed; UTF-8 for strings)
 *   DECIMAL: unscaled (precision <= 18) or bytes/len (precision > 18: the
 *            unscaled value as big-endian two's complement, 1..16 bytes,
 *            borrowed; the encoder writes the shortest form, as Java's
 *            BigInteger.toByteArray does)
 *   TIMESTAMP, TIMESTAMP_LTZ: millis (epoch millis of the local date-time) + nanos (0..999,999 of the milli)
 */
typedef struct sc_datum {
    int is_null;
    int64_t i;
    double f;
    const uint8_t *bytes;
    size_t len;
    int64_t unscaled;
    int64_t millis;
    int32_t nanos;
} sc_datum;

/* Append the serialized row (arity + row) of `arity` values of `types`.
 * SC_EINVAL when a value does not fit its type (naming the field index). */
int sc_row_encode(sc_buf *out, const sc_data_type *types, const sc_datum *values, size_t arity);

/* The arity of a serialized row; SC_ECORRUPT when shorter than its header and
 * fixed part need, when the row is not a whole number of 8-byte words (Paimon
 * pads every row) or the header byte is no row kind; SC_ELIMIT above
 * SC_ROW_MAX_ARITY. */
int sc_row_arity(uint32_t *out, const uint8_t *row, size_t len, const char *what);

/*
 * Decode field `index` of a serialized row whose fields have `type` at that
 * index. Variable-length values point into `row`. SC_ECORRUPT when an offset
 * or length runs outside the row, an inline length is above 7, or the index
 * is beyond the arity.
 */
int sc_row_get(sc_datum *out, const uint8_t *row, size_t len, const sc_data_type *type,
               size_t index, const char *what);

/*
 * Paimon's typed order of two serialized rows over the first `arity` fields of
 * `types` (field by field: numbers numerically, strings and binaries by
 * unsigned bytes, BOOLEAN false < true, DECIMAL numerically, TIMESTAMP by
 * (millis, nanos), nulls first). *out < 0, 0, > 0. Errors as sc_row_get.
 */
int sc_row_compare(int *out, const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                   const sc_data_type *types, size_t arity, const char *what);
/* Same order for two single values of one type. */
int sc_datum_compare(const sc_datum *a, const sc_datum *b, const sc_data_type *type);

/*
 * Check that a serialized row is well formed for `types` (arity matches,
 * every field decodes). Used on rows that arrive from callers or storage.
 */
int sc_row_validate(const uint8_t *row, size_t len, const sc_data_type *types, size_t arity,
                    const char *what);

/*
 * Text of a value as Paimon's partition paths show it (Paimon's toString of
 * the internal value with partition.legacy-name = true: DATE as its day
 * number, numbers in decimal, DECIMAL with its scale, BOOLEAN true/false,
 * strings as is, TIMESTAMP as "yyyy-MM-ddTHH:mm[:ss[.fff…]]"). Not escaped.
 * BINARY/VARBINARY partitions are SC_EINVAL (Paimon cannot name them either).
 */
int sc_datum_to_text(sc_buf *out, const sc_datum *value, const sc_data_type *type);
/*
 * Parse such text into a value of `type` (DATE also accepts yyyy-mm-dd;
 * BOOLEAN true/false; numbers in decimal). Variable-length results are copied
 * into a new allocation returned in *out_owned (NULL when none was needed);
 * out->bytes points into it and the caller frees it. SC_EINVAL naming `what`
 * and the text.
 */
int sc_datum_from_text(sc_datum *out, uint8_t **out_owned, const char *text,
                       const sc_data_type *type, const char *what);

#endif
