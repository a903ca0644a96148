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

/* A string literal as (data, len) arguments. */
#define TEXT(s) (const uint8_t *)(s), strlen(s)

/* NULL-terminated key lists for list expectations. */
#define KEYS(...) ((const char *[]){__VA_ARGS__, NULL})
#define NO_KEYS ((const char *[]){NULL})

#endif
