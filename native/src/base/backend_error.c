/* The error setter for store backend authors (snapcommit/backend.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error_internal.h"
#include "snapcommit/backend.h"

int sc_backend_error(int code, const char *fmt, ...) {
    char text[1024];
    /* An empty message: sc_error_message() then gives the generic text of `code`. */
    if (!fmt) return sc_error_set(code, "%s", "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* Through sc_error_set, so the message reaches sc_error_message() like the engine's own. */
    return sc_error_set(code, "%s", text);
}

int sc_backend_too_large(const char *object, uint64_t size, int size_known, size_t max_len) {
    /* Damage rather than a limit of this call: every bound is a decoder's limit for
     * what snapcommit itself writes there, so a larger object is not one of its own. */
    if (size_known)
        return sc_error_set(SC_ECORRUPT,
                            "%s: %llu bytes, more than the %zu this object may hold (refused "
                            "unread: damaged or not written by snapcommit)",
                            object, (unsigned long long)size, max_len);
    return sc_error_set(SC_ECORRUPT,
                        "%s: more than the %zu bytes this object may hold (refused; reading "
                        "stopped there: damaged or not written by snapcommit)",
                        object, max_len);
}
