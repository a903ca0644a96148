/* The error setter for store backend authors (snapcommit/backend.h). */
#include <stdarg.h>
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
