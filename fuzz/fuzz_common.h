/*
 * Shared by the fuzz targets (fuzz/README.md). Each target is a function
 * sc_fuzz_<name>(data, size) that decodes one input every way its decoders
 * are used and abort()s on a property violation; a sanitizer report aborts
 * by itself (-fno-sanitize-recover). The same functions serve libFuzzer
 * (fuzz_<name>.c built with -DSC_FUZZ_LIBFUZZER) and the corpus replay
 * driver run by ctest (replay.c), so CI checks them without libFuzzer.
 */
#ifndef SC_FUZZ_COMMON_H
#define SC_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "snapcommit/types.h"

int sc_fuzz_manifest(const uint8_t *data, size_t size);
int sc_fuzz_snapshot(const uint8_t *data, size_t size);
int sc_fuzz_schema(const uint8_t *data, size_t size);
int sc_fuzz_row(const uint8_t *data, size_t size);
int sc_fuzz_index_manifest(const uint8_t *data, size_t size);

#ifdef SC_FUZZ_LIBFUZZER
#define SC_FUZZ_ENTRY(fn)                                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);      \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fn(data, size); }
#else
#define SC_FUZZ_ENTRY(fn)
#endif

static inline void sc_fuzz_fail(const char *target, const char *what, int rc) {
    fprintf(stderr, "fuzz %s: %s (rc %d %s: %s)\n", target, what, rc, sc_error_name(rc),
            sc_error_has_message() ? sc_error_message() : "<no message>");
    abort();
}

/* A failure must carry one of the allowed codes (a 0-terminated list) and a message. */
static inline void sc_fuzz_check_failure(const char *target, const char *call, int rc, const int *allowed) {
    int ok = 0;
    for (const int *a = allowed; *a; a++) ok |= rc == *a;
    if (!ok) {
        char what[160];
        snprintf(what, sizeof what, "%s: undocumented error code", call);
        sc_fuzz_fail(target, what, rc);
    }
    if (!sc_error_has_message() || !sc_error_message()[0]) {
        char what[160];
        snprintf(what, sizeof what, "%s: failure without a message", call);
        sc_fuzz_fail(target, what, rc);
    }
}

/* An exact-size heap copy, so ASan sees a read one past the end. */
static inline uint8_t *sc_fuzz_copy(const uint8_t *data, size_t size) {
    uint8_t *c = malloc(size ? size : 1);
    if (!c) abort();
    if (size) memcpy(c, data, size);
    return c;
}

static inline int sc_fuzz_bytes_eq(sc_bytes a, sc_bytes b) {
    if (!a.data || !b.data) return !a.data && !b.data;
    return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

static inline int sc_fuzz_str_eq(const char *a, const char *b) {
    if (!a || !b) return !a && !b;
    return strcmp(a, b) == 0;
}

#endif
