/* Assertion helpers shared by the store suites: a call's code with its name and message. */
#ifndef SC_TEST_ASSERT_H
#define SC_TEST_ASSERT_H

#include <criterion/criterion.h>
#include <string.h>

#include "snapcommit/error.h"

#define OK(expr)                                                                              \
    do {                                                                                      \
        int rc_ = (expr);                                                                     \
        cr_assert_eq(rc_, 0, "%s -> %s: %s", #expr, sc_error_name(rc_), sc_error_message()); \
    } while (0)

#define FAILS(code, expr)                                                                  \
    do {                                                                                   \
        int rc_ = (expr);                                                                  \
        cr_assert_eq(rc_, (code), "%s -> %s, expected %s (%s)", #expr, sc_error_name(rc_), \
                     sc_error_name(code), sc_error_message());                             \
    } while (0)

/* A call fails with SC_ECORRUPT and its message contains `needle`. */
#define CORRUPT(call, needle)                                                                                  \
    do {                                                                                                       \
        int rc_ = (call);                                                                                      \
        cr_assert_eq(rc_, SC_ECORRUPT, "%s: got %s: %s", #call, sc_error_name(rc_), sc_error_message());       \
        cr_assert(strstr(sc_error_message(), needle), "%s: message \"%s\" lacks \"%s\"", #call,                \
                  sc_error_message(), needle);                                                                 \
    } while (0)

/* A string literal as (data, len) arguments. */
#define TEXT(s) (const uint8_t *)(s), strlen(s)

/* NULL-terminated key lists for list expectations. */
#define KEYS(...) ((const char *[]){__VA_ARGS__, NULL})
#define NO_KEYS ((const char *[]){NULL})

#endif
