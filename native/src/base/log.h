/*
 * Logging inside the library (internal): messages go to the process-wide
 * handler set with sc_log_set_handler() (snapcommit/log.h), or nowhere.
 */
#ifndef SC_LOG_H
#define SC_LOG_H

#include "snapcommit/log.h"

/* Format and hand one line (at most 1023 bytes) to the handler, if any. */
void sc_log(sc_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
