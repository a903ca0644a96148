/*
 * snapcommit logging: one process-wide sink for the library's messages
 * (claims lost, hints that could not be written, ...). Silent by default.
 * table.h includes this header; so does snapcommit.h.
 */
#ifndef SNAPCOMMIT_LOG_H
#define SNAPCOMMIT_LOG_H

#include "snapcommit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sc_log_level { SC_LOG_DEBUG = 0, SC_LOG_INFO, SC_LOG_WARN, SC_LOG_ERROR } sc_log_level;
typedef void (*sc_log_fn)(void *ctx, sc_log_level level, const char *message);
/* Process-wide log sink (NULL = silent, the default). Set it before committing. */
SC_API void sc_log_set_handler(sc_log_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
