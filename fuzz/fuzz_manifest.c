/*
 * libFuzzer target for the manifest and manifest-list decoders.
 *
 * Each input is decoded by both decoders three ways: as is with default
 * limits; with tight limits (to reach the SC_ELIMIT paths); and "repaired" —
 * body length and checksum recomputed — because a random mutation almost
 * never survives the SHA-256, and the record parser behind it is what needs
 * fuzzing. Properties checked beyond "no crash, no sanitizer report":
 *   - failures are SC_ECORRUPT or SC_ELIMIT, with a message, and leave the
 *     output vector empty;
 *   - a successful decode re-encodes to exactly the input (the encoding is
 *     canonical).
 * See fuzz/README.md for how to build and run it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/hash.h"
#include "format/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, int rc) {
    fprintf(stderr, "fuzz_manifest: %s (rc %d %s: %s)\n", what, rc, sc_error_name(rc),
            sc_error_message());
    abort();
}

static void check_failure(int rc, size_t count) {
    if (rc != SC_ECORRUPT && rc != SC_ELIMIT) fail("unexpected error code", rc);
    if (!sc_error_has_message()) fail("failure without a message", rc);
    if (count != 0) fail("failed decode left records behind", rc);
}

static void decode_both(const uint8_t *data, size_t size, const sc_decode_limits *limits) {
    sc_entry_vec v = {0};
    sc_error_clear();
    int rc = sc_manifest_decode(&v, data, size, limits, "manifest/fuzz");
    if (rc) {
        check_failure(rc, v.count);
    } else {
        sc_buf again = SC_BUF_INIT;
        rc = sc_manifest_encode(&again, &v);
        if (rc) fail("decoded manifest does not re-encode", rc);
        if (again.len != size || memcmp(again.data, data, size) != 0)
            fail("manifest re-encodes to different bytes", 0);
        sc_buf_free(&again);
    }
    sc_entry_vec_free(&v);

    sc_meta_vec m = {0};
    sc_error_clear();
    rc = sc_manifest_list_decode(&m, data, size, limits, "manifest/fuzz-list");
    if (rc) {
        check_failure(rc, m.count);
    } else {
        sc_buf again = SC_BUF_INIT;
        rc = sc_manifest_list_encode(&again, &m);
        if (rc) fail("decoded manifest list does not re-encode", rc);
        if (again.len != size || memcmp(again.data, data, size) != 0)
            fail("manifest list re-encodes to different bytes", 0);
        sc_buf_free(&again);
    }
    sc_meta_vec_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sc_decode_limits limits;
    sc_decode_limits_default(&limits);
    decode_both(data, size, &limits);

    sc_decode_limits tight = {.max_entries = 4, .max_field_len = 8, .max_object_len = 512};
    decode_both(data, size, &tight);

    if (size >= SC_MANIFEST_HEADER_LEN + SC_SHA256_LEN) {
        /* An exact-size copy, so ASan still sees reads past the end. */
        uint8_t *copy = malloc(size);
        if (!copy) return 0;
        memcpy(copy, data, size);
        uint64_t body = size - SC_MANIFEST_HEADER_LEN - SC_SHA256_LEN;
        for (int i = 0; i < 8; i++) copy[12 + i] = (uint8_t)(body >> (56 - 8 * i));
        sc_sha256(copy + size - SC_SHA256_LEN, copy, size - SC_SHA256_LEN);
        decode_both(copy, size, &limits);
        decode_both(copy, size, &tight);
        free(copy);
    }
    return 0;
}
