/* Decoder limits (limits.h). */
#include "format/limits.h"

void sc_decode_limits_default(sc_decode_limits *out) {
    out->max_entries = 16777216;
    out->max_field_len = 65536;
    out->max_object_len = (size_t)1 << 30;
}
