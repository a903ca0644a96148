/*
 * Decoder limits (internal): the bounds every metadata decoder takes along
 * with (pointer, length). Anything above them is SC_ELIMIT when the data is
 * well formed but bigger than the reader allows, SC_ECORRUPT otherwise.
 */
#ifndef SC_LIMITS_H
#define SC_LIMITS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sc_decode_limits {
    uint64_t max_entries;    /* default 16,777,216 records per manifest or list */
    size_t max_field_len;    /* default 65,536 bytes per string/bytes field */
    size_t max_object_len;   /* default 1 GiB (also caps a decompressed Avro block) */
} sc_decode_limits;

void sc_decode_limits_default(sc_decode_limits *out);

#endif
