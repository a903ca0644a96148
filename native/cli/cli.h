/* snapcommit CLI: shared helpers between the command files. */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "snapcommit/snapcommit.h"

/* The exit-code contract (docs/operations.md). */
enum {
    EXIT_OK = 0,
    EXIT_ERROR = 1,
    EXIT_USAGE = 2,
    EXIT_COMMITTED = 3,
    EXIT_CONFLICT = 4,
    EXIT_RETRIES = 5,
};

/* Map a library code to an exit code, printing the detailed message to stderr. */
int cli_fail(const char *command, int rc);
/* Print "snapcommit CMD: message" and the command's usage hint; returns EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse a non-negative decimal integer; 0 on success. */
int cli_parse_u64(const char *text, unsigned long long *out);
/* Open the table at a location, reporting failures. Returns an exit code (0 ok). */
int cli_open_table(sc_table **out, const char *command, const char *location);

int cmd_init(int argc, char **argv);
int cmd_commit(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_files(int argc, char **argv);
int cmd_last_committed(int argc, char **argv);
int cmd_fsck(int argc, char **argv);

#endif
