/* The error table's names and messages, and the per-thread detailed message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error_internal.h"

#define SC_MESSAGE_MAX 2048

static _Thread_local char tls_message[SC_MESSAGE_MAX];
static _Thread_local int tls_code;

const char *sc_error_name(int code) {
    switch (code) {
#define SC_X_NAME(name, value, msg) \
    case value:                     \
        return #name;
        SC_ERROR_TABLE(SC_X_NAME)
#undef SC_X_NAME
    default:
        return "SC_E?";
    }
}

const char *sc_strerror(int code) {
    switch (code) {
#define SC_X_MSG(name, value, msg) \
    case value:                    \
        return msg;
        SC_ERROR_TABLE(SC_X_MSG)
#undef SC_X_MSG
    default:
        return "unknown error code";
    }
}

const char *sc_error_message(void) {
    if (tls_message[0] != '\0') return tls_message;
    return sc_strerror(tls_code);
}

void sc_error_clear(void) {
    tls_message[0] = '\0';
    tls_code = 0;
}

int sc_error_has_message(void) { return tls_message[0] != '\0'; }

int sc_error_set(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_message, sizeof tls_message, fmt, ap);
    va_end(ap);
    tls_code = code;
    return code;
}

int sc_error_wrap(int code, const char *fmt, ...) {
    char prefix[512];
    char previous[SC_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* The previous message may be the generic one for the code. */
    snprintf(previous, sizeof previous, "%s", sc_error_message());
    /* Truncation is fine for a message; assemble by hand so the compiler
     * need not prove the two parts fit. */
    size_t n = strnlen(prefix, sizeof tls_message - 3);
    memcpy(tls_message, prefix, n);
    memcpy(tls_message + n, ": ", 2);
    n += 2;
    size_t rest = strnlen(previous, sizeof tls_message - n - 1);
    memcpy(tls_message + n, previous, rest);
    tls_message[n + rest] = '\0';
    tls_code = code;
    return code;
}
