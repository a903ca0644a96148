/* Recording detailed error messages (internal). */
#ifndef SC_ERROR_INTERNAL_H
#define SC_ERROR_INTERNAL_H

#include "snapcommit/error.h"

/* Record a formatted message for `code` on this thread and return `code`. */
int sc_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefix the current message with context ("reading snapshot 7: ...") and return code. */
int sc_error_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when a message is recorded on this thread. */
int sc_error_has_message(void);

#endif
