/* Process-wide log sink; silent unless a handler is set. */
#include <stdarg.h>
#include <stdio.h>

#include "base/log.h"

static sc_log_fn log_fn;
static void *log_ctx;

void sc_log_set_handler(sc_log_fn fn, void *ctx) {
    log_fn = fn;
    log_ctx = ctx;
}

void sc_log(sc_log_level level, const char *fmt, ...) {
    if (!log_fn) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log_fn(log_ctx, level, line);
}
