/* Paimon BinaryRow bytes: canonical encoding, bounded decoding, typed order, partition text. */
#include "format/binary_row.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"

/* 128-bit integers for DECIMAL(19..38); __extension__ keeps -Wpedantic quiet about the GCC type. */
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define ARITY_PREFIX 4
/* Strings and binaries up to this many bytes live inside their slot (MAX_FIX_PART_DATA_SIZE). */
#define INLINE_MAX 7
#define MILLIS_PER_DAY 86400000LL

static size_t null_bits_size(size_t arity) { return ((arity + 63 + 8) / 64) * 8; }

static uint64_t rd_u64le(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void wr_u64le(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static int is_timestamp(sc_type_root r) { return r == SC_TYPE_TIMESTAMP || r == SC_TYPE_TIMESTAMP_LTZ; }
/* Paimon's Decimal.isCompact / Timestamp.isCompact: the value fits the 8-byte slot. */
static int decimal_compact(const sc_data_type *t) { return t->precision <= 18; }
static int timestamp_compact(const sc_data_type *t) { return t->precision <= 3; }

static i128 pow10_i128(int n) {
    i128 v = 1;
    while (n-- > 0) v *= 10;
    return v;
}

static int fits_precision(i128 v, int precision) {
    i128 lim = pow10_i128(precision);
    return v < lim && v > -lim;
}

/* Big-endian two's complement (1..16 bytes) to a 128-bit integer. */
static i128 big_to_i128(const uint8_t *b, size_t len) {
    if (!b || !len || len > 16) return 0; /* callers check 1..16; never read a missing byte */
    u128 v = (b[0] & 0x80) ? ~(u128)0 : 0;
    for (size_t i = 0; i < len; i++) v = v << 8 | b[i];
    return (i128)v;
}

/* The shortest big-endian two's complement of v (BigInteger.toByteArray); returns the length. */
static size_t i128_to_big(uint8_t out[16], i128 v) {
    uint8_t full[16];
    u128 u = (u128)v;
    for (int i = 15; i >= 0; i--) {
        full[i] = (uint8_t)u;
        u >>= 8;
    }
    size_t start = 0;
    while (start < 15 && ((full[start] == 0x00 && !(full[start + 1] & 0x80)) ||
                          (full[start] == 0xff && (full[start + 1] & 0x80))))
        start++;
    memcpy(out, full + start, 16 - start);
    return 16 - start;
}

/* ---------------------------------------------------------------- encode */

static int enc_bad(size_t field, const char *why) {
    return sc_error_set(SC_EINVAL, "encoding a BinaryRow: field %zu: %s", field, why);
}

/* Append `len` bytes plus zero padding to a multiple of 8 to the row's variable part;
 * *offset is where they start, counted from the row start (after the arity). */
static int append_var(sc_buf *out, size_t row_start, const uint8_t *data, size_t len, size_t *offset) {
    size_t rounded = (len + 7) & ~(size_t)7;
    *offset = out->len - row_start;
    if (*offset + rounded > INT32_MAX) return sc_error_set(SC_ELIMIT, "encoding a BinaryRow: row above 2 GiB");
    int rc = sc_buf_reserve(out, rounded);
    if (rc) return rc;
    if (len) memcpy(out->data + out->len, data, len);
    memset(out->data + out->len + len, 0, rounded - len);
    out->len += rounded;
    return 0;
}

static int encode_field(sc_buf *out, size_t row_start, size_t slot_at, size_t field, const sc_data_type *t,
                        const sc_datum *v) {
    uint8_t slot[8] = {0};
    size_t off = 0;
    int rc = 0;
    if (v->is_null) {
        /* Non-compact DECIMAL and TIMESTAMP keep their variable-part room even when null (RowHelper
         * writes them through writeDecimal/writeTimestamp with a null value). */
        if (t->root == SC_TYPE_DECIMAL && !decimal_compact(t)) {
            static const uint8_t zeros[16];
            rc = append_var(out, row_start, zeros, 16, &off);
            wr_u64le(slot, (uint64_t)off << 32);
        } else if (is_timestamp(t->root) && !timestamp_compact(t)) {
            static const uint8_t zeros[8];
            rc = append_var(out, row_start, zeros, 8, &off);
            wr_u64le(slot, (uint64_t)off << 32);
        }
        if (rc) return rc;
        memcpy(out->data + slot_at, slot, 8);
        size_t bit = field + 8;
        out->data[row_start + bit / 8] |= (uint8_t)(1u << (bit % 8));
        return 0;
    }
    switch (t->root) {
    case SC_TYPE_BOOLEAN:
        if (v->i != 0 && v->i != 1) return enc_bad(field, "BOOLEAN must be 0 or 1");
        slot[0] = (uint8_t)v->i;
        break;
    case SC_TYPE_TINYINT:
        if (v->i < INT8_MIN || v->i > INT8_MAX) return enc_bad(field, "TINYINT out of range");
        wr_u64le(slot, (uint64_t)v->i & 0xff);
        break;
    case SC_TYPE_SMALLINT:
        if (v->i < INT16_MIN || v->i > INT16_MAX) return enc_bad(field, "SMALLINT out of range");
        wr_u64le(slot, (uint64_t)v->i & 0xffff);
        break;
    case SC_TYPE_INT:
    case SC_TYPE_DATE:
    case SC_TYPE_TIME:
        if (v->i < INT32_MIN || v->i > INT32_MAX) return enc_bad(field, "value out of the 32-bit range");
        wr_u64le(slot, (uint64_t)v->i & 0xffffffffu);
        break;
    case SC_TYPE_BIGINT: wr_u64le(slot, (uint64_t)v->i); break;
    case SC_TYPE_FLOAT: {
        float f = (float)v->f;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        wr_u64le(slot, bits);
        break;
    }
    case SC_TYPE_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &v->f, 8);
        wr_u64le(slot, bits);
        break;
    }
    case SC_TYPE_CHAR:
    case SC_TYPE_VARCHAR:
    case SC_TYPE_BINARY:
    case SC_TYPE_VARBINARY:
        if (v->len && !v->bytes) return enc_bad(field, "bytes missing");
        if (v->len > INT32_MAX) return enc_bad(field, "value above 2 GiB");
        if (v->len <= INLINE_MAX) {
            if (v->len) memcpy(slot, v->bytes, v->len);
            slot[7] = (uint8_t)(0x80 | v->len);
        } else {
            rc = append_var(out, row_start, v->bytes, v->len, &off);
            wr_u64le(slot, (uint64_t)off << 32 | (uint64_t)v->len);
        }
        break;
    case SC_TYPE_DECIMAL:
        if (decimal_compact(t)) {
            if (!fits_precision(v->unscaled, t->precision)) return enc_bad(field, "DECIMAL value exceeds its precision");
            wr_u64le(slot, (uint64_t)v->unscaled);
        } else {
            if (!v->bytes || v->len < 1 || v->len > 16) return enc_bad(field, "DECIMAL(>18) needs 1..16 bytes");
            i128 x = big_to_i128(v->bytes, v->len);
            if (!fits_precision(x, t->precision)) return enc_bad(field, "DECIMAL value exceeds its precision");
            uint8_t big[16] = {0};
            size_t n = i128_to_big(big, x);
            rc = append_var(out, row_start, big, 16, &off);
            wr_u64le(slot, (uint64_t)off << 32 | n);
        }
        break;
    case SC_TYPE_TIMESTAMP:
    case SC_TYPE_TIMESTAMP_LTZ:
        if (v->nanos < 0 || v->nanos > 999999) return enc_bad(field, "nanos of millisecond outside 0..999999");
        if (timestamp_compact(t)) {
            if (v->nanos) return enc_bad(field, "TIMESTAMP(<=3) cannot hold nanos");
            wr_u64le(slot, (uint64_t)v->millis);
        } else {
            uint8_t m[8];
            wr_u64le(m, (uint64_t)v->millis);
            rc = append_var(out, row_start, m, 8, &off);
            wr_u64le(slot, (uint64_t)off << 32 | (uint32_t)v->nanos);
        }
        break;
    default: return enc_bad(field, "nested types cannot be encoded");
    }
    if (rc) return rc;
    memcpy(out->data + slot_at, slot, 8);
    return 0;
}

int sc_row_encode(sc_buf *out, const sc_data_type *types, const sc_datum *values, size_t arity) {
    if (arity > SC_ROW_MAX_ARITY)
        return sc_error_set(SC_ELIMIT, "encoding a BinaryRow: arity %zu above %d", arity, SC_ROW_MAX_ARITY);
    size_t start_len = out->len;
    size_t fixed = null_bits_size(arity) + 8 * arity;
    int rc = sc_buf_append_u32be(out, (uint32_t)arity);
    if (rc) return rc;
    size_t row_start = out->len;
    rc = sc_buf_reserve(out, fixed);
    if (rc) goto fail;
    memset(out->data + out->len, 0, fixed);
    out->len += fixed;
    for (size_t i = 0; i < arity; i++) {
        rc = encode_field(out, row_start, row_start + null_bits_size(arity) + 8 * i, i, &types[i], &values[i]);
        if (rc) goto fail;
    }
    return 0;
fail:
    out->len = start_len;
    return rc;
}

/* ---------------------------------------------------------------- decode */

static int corrupt(const char *what, size_t field, size_t at, const char *why) {
    return sc_error_set(SC_ECORRUPT, "%s: BinaryRow field %zu at byte %zu: %s", what ? what : "row", field, at, why);
}

int sc_row_arity(uint32_t *out, const uint8_t *row, size_t len, const char *what) {
    if (!row || len < ARITY_PREFIX)
        return sc_error_set(SC_ECORRUPT, "%s: BinaryRow of %zu bytes has no 4-byte arity", what ? what : "row", len);
    uint32_t arity = (uint32_t)row[0] << 24 | (uint32_t)row[1] << 16 | (uint32_t)row[2] << 8 | row[3];
    if (arity > SC_ROW_MAX_ARITY)
        return sc_error_set(SC_ELIMIT, "%s: BinaryRow arity %" PRIu32 " above %d", what ? what : "row", arity,
                            SC_ROW_MAX_ARITY);
    size_t fixed = null_bits_size(arity) + 8 * (size_t)arity;
    if (len - ARITY_PREFIX < fixed)
        return sc_error_set(SC_ECORRUPT, "%s: BinaryRow of arity %" PRIu32 " needs %zu bytes, has %zu",
                            what ? what : "row", arity, ARITY_PREFIX + fixed, len);
    /* Paimon's writers (Java and pypaimon) round every variable-part value up to 8 bytes. */
    if ((len - ARITY_PREFIX) % 8 != 0)
        return sc_error_set(SC_ECORRUPT, "%s: BinaryRow of %zu bytes is not a whole number of 8-byte words",
                            what ? what : "row", len - ARITY_PREFIX);
    if (row[ARITY_PREFIX] > 3)
        return sc_error_set(SC_ECORRUPT, "%s: BinaryRow header byte %u is no row kind", what ? what : "row",
                            row[ARITY_PREFIX]);
    *out = arity;
    return 0;
}

/* A (offset, size) pointing into the variable part: after the fixed part, inside the row. */
static int var_range(const uint8_t **p, size_t len, size_t fixed_end, uint64_t offset, uint64_t size,
                     const char *what, size_t field, size_t slot_at) {
    size_t row_len = len - ARITY_PREFIX;
    if (offset < fixed_end || offset > row_len || size > row_len - offset)
        return corrupt(what, field, slot_at, "variable-part offset/length outside the row");
    *p += offset;
    return 0;
}

int sc_row_get(sc_datum *out, const uint8_t *row, size_t len, const sc_data_type *type, size_t index,
               const char *what) {
    memset(out, 0, sizeof *out);
    uint32_t arity = 0; /* set by sc_row_arity on success; -O3 cannot see it */
    int rc = sc_row_arity(&arity, row, len, what);
    if (rc) return rc;
    if (index >= arity) return corrupt(what, index, 0, "field beyond the row's arity");
    const uint8_t *base = row + ARITY_PREFIX;
    size_t fixed_end = null_bits_size(arity) + 8 * (size_t)arity;
    size_t slot_off = null_bits_size(arity) + 8 * index;
    size_t slot_at = ARITY_PREFIX + slot_off; /* for messages: offset in the serialized bytes */
    size_t bit = index + 8;
    if (base[bit / 8] & (1u << (bit % 8))) {
        out->is_null = 1;
        return 0;
    }
    const uint8_t *s = base + slot_off;
    uint64_t w = rd_u64le(s);
    const uint8_t *p = base;
    switch (type->root) {
    case SC_TYPE_BOOLEAN: out->i = s[0] != 0; break;
    case SC_TYPE_TINYINT: out->i = (int8_t)s[0]; break;
    case SC_TYPE_SMALLINT: out->i = (int16_t)(uint16_t)(s[0] | s[1] << 8); break;
    case SC_TYPE_INT:
    case SC_TYPE_DATE:
    case SC_TYPE_TIME: out->i = (int32_t)(uint32_t)w; break;
    case SC_TYPE_BIGINT: out->i = (int64_t)w; break;
    case SC_TYPE_FLOAT: {
        uint32_t bits = (uint32_t)w;
        float f;
        memcpy(&f, &bits, 4);
        out->f = f;
        break;
    }
    case SC_TYPE_DOUBLE: memcpy(&out->f, &w, 8); break;
    case SC_TYPE_CHAR:
    case SC_TYPE_VARCHAR:
    case SC_TYPE_BINARY:
    case SC_TYPE_VARBINARY:
        if (s[7] & 0x80) {
            size_t n = s[7] & 0x7f;
            if (n > INLINE_MAX) return corrupt(what, index, slot_at + 7, "inline length above 7");
            out->bytes = s;
            out->len = n;
        } else {
            rc = var_range(&p, len, fixed_end, w >> 32, (uint32_t)w, what, index, slot_at);
            if (rc) return rc;
            out->bytes = p;
            out->len = (uint32_t)w;
        }
        break;
    case SC_TYPE_DECIMAL:
        if (decimal_compact(type)) {
            out->unscaled = (int64_t)w;
            if (!fits_precision(out->unscaled, type->precision))
                return corrupt(what, index, slot_at, "DECIMAL value exceeds its precision");
        } else {
            uint32_t n = (uint32_t)w;
            if (n < 1 || n > 16) return corrupt(what, index, slot_at, "DECIMAL byte length outside 1..16");
            rc = var_range(&p, len, fixed_end, w >> 32, n, what, index, slot_at);
            if (rc) return rc;
            if (!fits_precision(big_to_i128(p, n), type->precision))
                return corrupt(what, index, slot_at, "DECIMAL value exceeds its precision");
            out->bytes = p;
            out->len = n;
        }
        break;
    case SC_TYPE_TIMESTAMP:
    case SC_TYPE_TIMESTAMP_LTZ:
        if (timestamp_compact(type)) {
            out->millis = (int64_t)w;
        } else {
            uint32_t nanos = (uint32_t)w;
            if (nanos > 999999) return corrupt(what, index, slot_at, "nanos of millisecond above 999999");
            rc = var_range(&p, len, fixed_end, w >> 32, 8, what, index, slot_at);
            if (rc) return rc;
            out->millis = (int64_t)rd_u64le(p);
            out->nanos = (int32_t)nanos;
        }
        break;
    default: return sc_error_set(SC_EINVAL, "%s: field %zu: nested types cannot be read from a BinaryRow", what ? what : "row", index);
    }
    return 0;
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

int sc_datum_compare(const sc_datum *a, const sc_datum *b, const sc_data_type *type) {
    if (a->is_null || b->is_null) return b->is_null - a->is_null; /* nulls first */
    switch (type->root) {
    case SC_TYPE_FLOAT:
    case SC_TYPE_DOUBLE:
        /* Paimon's generated comparator: (a > b ? 1 : a < b ? -1 : 0); NaN compares equal. */
        return a->f > b->f ? 1 : a->f < b->f ? -1 : 0;
    case SC_TYPE_CHAR:
    case SC_TYPE_VARCHAR:
    case SC_TYPE_BINARY:
    case SC_TYPE_VARBINARY: {
        size_t n = a->len < b->len ? a->len : b->len;
        int c = n ? memcmp(a->bytes, b->bytes, n) : 0; /* memcmp compares unsigned bytes */
        if (c) return c < 0 ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    case SC_TYPE_DECIMAL:
        if (decimal_compact(type)) return cmp_i64(a->unscaled, b->unscaled);
        {
            i128 x = big_to_i128(a->bytes, a->len), y = big_to_i128(b->bytes, b->len);
            return x < y ? -1 : x > y;
        }
    case SC_TYPE_TIMESTAMP:
    case SC_TYPE_TIMESTAMP_LTZ: {
        int c = cmp_i64(a->millis, b->millis);
        return c ? c : cmp_i64(a->nanos, b->nanos);
    }
    default: return cmp_i64(a->i, b->i); /* integers, DATE, TIME, BOOLEAN (false < true) */
    }
}

int sc_row_compare(int *out, const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                   const sc_data_type *types, size_t arity, const char *what) {
    *out = 0;
    for (size_t i = 0; i < arity; i++) {
        sc_datum x, y;
        int rc = sc_row_get(&x, a, a_len, &types[i], i, what);
        if (rc == 0) rc = sc_row_get(&y, b, b_len, &types[i], i, what);
        if (rc) return rc;
        int c = sc_datum_compare(&x, &y, &types[i]);
        if (c) {
            *out = c;
            return 0;
        }
    }
    return 0;
}

int sc_row_validate(const uint8_t *row, size_t len, const sc_data_type *types, size_t arity, const char *what) {
    uint32_t n = 0; /* set by sc_row_arity on success; -O3 cannot see it */
    int rc = sc_row_arity(&n, row, len, what);
    if (rc) return rc;
    if (n != arity)
        return sc_error_set(SC_ECORRUPT, "%s: BinaryRow arity %" PRIu32 ", expected %zu", what ? what : "row", n, arity);
    for (size_t i = 0; i < arity; i++) {
        sc_datum d;
        rc = sc_row_get(&d, row, len, &types[i], i, what);
        if (rc) return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------- text */

/* Days since 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's civil_from_days). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* java.time.LocalDate.toString: 4-digit years, a sign outside 0..9999. */
static int append_date(sc_buf *out, int64_t days) {
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    int rc;
    if (y < 0 && y > -1000) rc = sc_buf_printf(out, "-%04" PRId64, -y);
    else if (y > 9999) rc = sc_buf_printf(out, "+%" PRId64, y);
    else rc = sc_buf_printf(out, "%04" PRId64, y);
    return rc ? rc : sc_buf_printf(out, "-%02d-%02d", m, d);
}

/* java.time.LocalTime.toString: HH:mm, then :ss and a 3/6/9-digit fraction only when non-zero. */
static int append_time(sc_buf *out, int64_t millis_of_day, int64_t nano_extra) {
    int64_t nano = (millis_of_day % 1000) * 1000000 + nano_extra;
    int64_t secs = millis_of_day / 1000;
    int rc = sc_buf_printf(out, "%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60));
    if (rc || (secs % 60 == 0 && nano == 0)) return rc;
    rc = sc_buf_printf(out, ":%02d", (int)(secs % 60));
    if (rc || nano == 0) return rc;
    if (nano % 1000000 == 0) return sc_buf_printf(out, ".%03d", (int)(nano / 1000000));
    if (nano % 1000 == 0) return sc_buf_printf(out, ".%06d", (int)(nano / 1000));
    return sc_buf_printf(out, ".%09d", (int)nano);
}

static int append_i128(sc_buf *out, i128 v, int scale) {
    char digits[48];
    size_t n = 0;
    u128 u = v < 0 ? (u128)0 - (u128)v : (u128)v;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= (size_t)scale) digits[n++] = '0'; /* at least one digit before the point */
    int rc = v < 0 ? sc_buf_append_byte(out, '-') : 0;
    for (size_t i = n; rc == 0 && i-- > 0;) {
        rc = sc_buf_append_byte(out, (uint8_t)digits[i]);
        if (rc == 0 && scale > 0 && i == (size_t)scale) rc = sc_buf_append_byte(out, '.');
    }
    return rc;
}

/* Java's Float/Double.toString: shortest round-trip digits, plain for 1e-3 <= |x| < 1e7, else d.dddEn. */
static int append_java_float(sc_buf *out, double x, int is_float) {
    if (isnan(x)) return sc_buf_append_str(out, "NaN");
    if (isinf(x)) return sc_buf_append_str(out, x < 0 ? "-Infinity" : "Infinity");
    if (x == 0) return sc_buf_append_str(out, signbit(x) ? "-0.0" : "0.0");
    char sci[64];
    int maxp = is_float ? 9 : 17;
    for (int p = 1; p <= maxp; p++) {
        snprintf(sci, sizeof sci, "%.*e", p - 1, x);
        double back = strtod(sci, NULL);
        if (is_float ? (float)back == (float)x : back == x) break;
    }
    /* sci = [-]d[.ddd]e[+-]XX */
    char digits[32];
    size_t nd = 0;
    const char *q = sci;
    int neg = *q == '-';
    if (neg) q++;
    for (; *q && *q != 'e'; q++)
        if (*q != '.') digits[nd++] = *q;
    int exp10 = atoi(q + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    int rc = neg ? sc_buf_append_byte(out, '-') : 0;
    double ax = fabs(x);
    if (ax >= 1e-3 && ax < 1e7) {
        if (exp10 < 0) {
            rc = rc ? rc : sc_buf_append_str(out, "0.");
            for (int i = 0; rc == 0 && i < -exp10 - 1; i++) rc = sc_buf_append_byte(out, '0');
            return rc ? rc : sc_buf_append(out, digits, nd);
        }
        size_t int_digits = (size_t)exp10 + 1;
        for (size_t i = 0; rc == 0 && i < int_digits; i++) rc = sc_buf_append_byte(out, i < nd ? (uint8_t)digits[i] : '0');
        rc = rc ? rc : sc_buf_append_byte(out, '.');
        if (nd > int_digits) return rc ? rc : sc_buf_append(out, digits + int_digits, nd - int_digits);
        return rc ? rc : sc_buf_append_byte(out, '0');
    }
    rc = rc ? rc : sc_buf_append_byte(out, (uint8_t)digits[0]);
    rc = rc ? rc : sc_buf_append_byte(out, '.');
    rc = rc ? rc : (nd > 1 ? sc_buf_append(out, digits + 1, nd - 1) : sc_buf_append_byte(out, '0'));
    return rc ? rc : sc_buf_printf(out, "E%d", exp10);
}

int sc_datum_to_text(sc_buf *out, const sc_datum *value, const sc_data_type *type) {
    if (value->is_null) return sc_error_set(SC_EINVAL, "a null value has no text (the partition default name stands for it)");
    switch (type->root) {
    case SC_TYPE_BOOLEAN: return sc_buf_append_str(out, value->i ? "true" : "false");
    case SC_TYPE_TINYINT:
    case SC_TYPE_SMALLINT:
    case SC_TYPE_INT:
    case SC_TYPE_BIGINT:
    case SC_TYPE_DATE: /* legacy partition names show the internal day number */
    case SC_TYPE_TIME: return sc_buf_printf(out, "%" PRId64, value->i);
    case SC_TYPE_FLOAT: return append_java_float(out, value->f, 1);
    case SC_TYPE_DOUBLE: return append_java_float(out, value->f, 0);
    case SC_TYPE_CHAR:
    case SC_TYPE_VARCHAR: return sc_buf_append(out, value->bytes, value->len);
    case SC_TYPE_DECIMAL:
        if (decimal_compact(type)) return append_i128(out, value->unscaled, type->scale);
        if (!value->bytes || value->len < 1 || value->len > 16) return sc_error_set(SC_EINVAL, "DECIMAL value without its bytes");
        return append_i128(out, big_to_i128(value->bytes, value->len), type->scale);
    case SC_TYPE_TIMESTAMP:
    case SC_TYPE_TIMESTAMP_LTZ: {
        int64_t days = floor_div(value->millis, MILLIS_PER_DAY);
        /* The millis of the day as a floor modulo: days * MILLIS_PER_DAY overflows
         * for millis near INT64_MIN. */
        int64_t of_day = value->millis % MILLIS_PER_DAY;
        if (of_day < 0) of_day += MILLIS_PER_DAY;
        int rc = append_date(out, days);
        rc = rc ? rc : sc_buf_append_byte(out, 'T');
        return rc ? rc : append_time(out, of_day, value->nanos);
    }
    default: return sc_error_set(SC_EINVAL, "values of type root %d have no partition text", (int)type->root);
    }
}

static int text_bad(const char *what, const char *text, const char *why) {
    return sc_error_set(SC_EINVAL, "%s: \"%.200s\": %s", what ? what : "value", text, why);
}

/* Decimal integer with optional sign, within [lo, hi]. */
static int parse_int(int64_t *out, const char *s, int64_t lo, int64_t hi) {
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    if (*p < '0' || *p > '9') return -1;
    u128 v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (u128)(*p - '0');
        if (v > (u128)1 << 64) return -1;
    }
    if (*p) return -1;
    i128 x = neg ? -(i128)v : (i128)v;
    if (x < lo || x > hi) return -1;
    *out = (int64_t)x;
    return 0;
}

/* Exactly `n` digits at *p. */
static int digits(const char **p, int n, int *out) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if ((*p)[i] < '0' || (*p)[i] > '9') return -1;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

static int days_in_month(int64_t y, int m) {
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 ? 28 + leap : dm[m - 1];
}

/* [-]yyyy-mm-dd; advances *p. */
static int parse_date(const char **p, int64_t *days) {
    int neg = **p == '-';
    if (neg || **p == '+') (*p)++;
    int y, m, d;
    if (digits(p, 4, &y) || *(*p)++ != '-' || digits(p, 2, &m) || *(*p)++ != '-' || digits(p, 2, &d)) return -1;
    int64_t yy = neg ? -y : y;
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(yy, m)) return -1;
    *days = days_from_civil(yy, m, d);
    return 0;
}

/* HH:mm[:ss[.fraction]] to millis of day and the nanos below the milli; `precision` bounds the fraction. */
static int parse_time(const char **p, int precision, int64_t *millis, int32_t *nanos) {
    int h, mi, s = 0;
    if (digits(p, 2, &h) || *(*p)++ != ':' || digits(p, 2, &mi)) return -1;
    int64_t frac = 0; /* nanoseconds */
    if (**p == ':') {
        (*p)++;
        if (digits(p, 2, &s)) return -1;
        if (**p == '.') {
            (*p)++;
            int n = 0;
            int64_t scale = 100000000;
            while (**p >= '0' && **p <= '9') {
                if (n == 9) return -1;
                int dgt = *(*p)++ - '0';
                if (n >= precision && dgt != 0) return -1; /* digits the type cannot hold */
                frac += dgt * scale;
                scale /= 10;
                n++;
            }
            if (n == 0) return -1;
        }
    }
    if (h > 23 || mi > 59 || s > 59) return -1;
    *millis = ((int64_t)h * 3600 + mi * 60 + s) * 1000 + frac / 1000000;
    *nanos = (int32_t)(frac % 1000000);
    return 0;
}

/* v = v * 10 + d unless that reaches 10^38 (DECIMAL's widest). */
static int push_digit(i128 *v, int d) {
    static const i128 limit = (i128)100000000000000000LL * 100000000000000000LL * 10000; /* 10^38 */
    if (*v > (limit - 1 - d) / 10) return -1;
    *v = *v * 10 + d;
    return 0;
}

static int parse_decimal(i128 *out, const char *s, const sc_data_type *t) {
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    i128 v = 0;
    int any_digit = 0, frac_digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, any_digit = 1)
        if (push_digit(&v, *p - '0')) return -1;
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++) {
            any_digit = 1;
            if (frac_digits == t->scale) {
                if (*p != '0') return -1; /* would need rounding: refuse rather than change the value */
                continue;
            }
            if (push_digit(&v, *p - '0')) return -1;
            frac_digits++;
        }
    }
    if (*p || !any_digit) return -1;
    for (; frac_digits < t->scale; frac_digits++)
        if (push_digit(&v, 0)) return -1;
    if (!fits_precision(v, t->precision)) return -1;
    *out = neg ? -v : v;
    return 0;
}

static int parse_float(double *out, const char *s) {
    if (!strcmp(s, "NaN")) return *out = NAN, 0;
    if (!strcmp(s, "Infinity") || !strcmp(s, "+Infinity")) return *out = INFINITY, 0;
    if (!strcmp(s, "-Infinity")) return *out = -INFINITY, 0;
    if (!*s || strspn(s, "0123456789+-.eE") != strlen(s)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || end == s) return -1;
    *out = v;
    return 0;
}

int sc_datum_from_text(sc_datum *out, uint8_t **out_owned, const char *text, const sc_data_type *type,
                       const char *what) {
    memset(out, 0, sizeof *out);
    *out_owned = NULL;
    const char *p = text;
    switch (type->root) {
    case SC_TYPE_BOOLEAN:
        if (!strcasecmp(text, "true")) out->i = 1;
        else if (strcasecmp(text, "false")) return text_bad(what, text, "not true or false");
        return 0;
    case SC_TYPE_TINYINT:
        return parse_int(&out->i, text, INT8_MIN, INT8_MAX) ? text_bad(what, text, "not a TINYINT") : 0;
    case SC_TYPE_SMALLINT:
        return parse_int(&out->i, text, INT16_MIN, INT16_MAX) ? text_bad(what, text, "not a SMALLINT") : 0;
    case SC_TYPE_INT: return parse_int(&out->i, text, INT32_MIN, INT32_MAX) ? text_bad(what, text, "not an INT") : 0;
    case SC_TYPE_BIGINT:
        return parse_int(&out->i, text, INT64_MIN, INT64_MAX) ? text_bad(what, text, "not a BIGINT") : 0;
    case SC_TYPE_DATE:
        if (parse_int(&out->i, text, INT32_MIN, INT32_MAX) == 0) return 0;
        if (parse_date(&p, &out->i) || *p || out->i < INT32_MIN || out->i > INT32_MAX)
            return text_bad(what, text, "not a DATE (day number or yyyy-mm-dd)");
        return 0;
    case SC_TYPE_TIME: {
        if (parse_int(&out->i, text, 0, MILLIS_PER_DAY - 1) == 0) return 0;
        int64_t ms;
        int32_t ns;
        if (parse_time(&p, type->precision < 3 ? type->precision : 3, &ms, &ns) || *p)
            return text_bad(what, text, "not a TIME (millis of day or HH:mm[:ss[.fff]])");
        out->i = ms;
        return 0;
    }
    case SC_TYPE_FLOAT:
    case SC_TYPE_DOUBLE:
        if (parse_float(&out->f, text)) return text_bad(what, text, "not a number");
        if (type->root == SC_TYPE_FLOAT && isfinite(out->f) && !isfinite((float)out->f))
            return text_bad(what, text, "out of the FLOAT range");
        if (type->root == SC_TYPE_FLOAT) out->f = (float)out->f;
        return 0;
    case SC_TYPE_CHAR:
    case SC_TYPE_VARCHAR: {
        size_t n = strlen(text);
        if (n > INT32_MAX) return text_bad(what, "", "string above 2 GiB");
        if (n) {
            *out_owned = malloc(n);
            if (!*out_owned) return sc_error_set(SC_ENOMEM, "out of memory copying a partition value");
            memcpy(*out_owned, text, n);
        }
        out->bytes = *out_owned;
        out->len = n;
        return 0;
    }
    case SC_TYPE_DECIMAL: {
        i128 v;
        if (parse_decimal(&v, text, type)) return text_bad(what, text, "not a DECIMAL of this precision and scale");
        if (decimal_compact(type)) {
            out->unscaled = (int64_t)v;
            return 0;
        }
        uint8_t big[16];
        size_t n = i128_to_big(big, v);
        *out_owned = malloc(n);
        if (!*out_owned) return sc_error_set(SC_ENOMEM, "out of memory copying a partition value");
        memcpy(*out_owned, big, n);
        out->bytes = *out_owned;
        out->len = n;
        return 0;
    }
    case SC_TYPE_TIMESTAMP:
    case SC_TYPE_TIMESTAMP_LTZ: {
        int64_t days, ms = 0;
        int32_t ns = 0;
        if (parse_date(&p, &days)) return text_bad(what, text, "not a TIMESTAMP (yyyy-MM-ddTHH:mm[:ss[.f]])");
        if (*p == 'T' || *p == ' ') {
            p++;
            if (parse_time(&p, type->precision, &ms, &ns))
                return text_bad(what, text, "not a TIMESTAMP time of day (HH:mm[:ss[.f]] within the precision)");
        }
        if (*p) return text_bad(what, text, "trailing characters after the TIMESTAMP");
        out->millis = days * MILLIS_PER_DAY + ms;
        out->nanos = ns;
        return 0;
    }
    default: return text_bad(what, text, "this type cannot be a partition value");
    }
}
