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

/*
 * Write `len` bytes of table or user text to `f` so that it cannot drive a
 * terminal or forge lines: C0 controls, DEL, C1 controls (U+0080..U+009F),
 * backslash and bytes that are not UTF-8 are written as \xNN; other UTF-8
 * passes through. Pads with spaces to `width` display columns (0 = no pad).
 * Names written by versions that did not refuse control characters go
 * through here too, so no table can forge output.
 */
void cli_put_text(FILE *f, const void *data, size_t len, int width);
/* cli_put_text of a C string. */
void cli_put_str(FILE *f, const char *s, int width);
/* Print "snapcommit COMMAND: message (CODE)" with the message escaped; returns EXIT_USAGE. */
int cli_input_error(const char *command, const char *code_name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Read `path` ('-' = stdin) given with `flag` to `command`, with the size limit
 * enforced while reading: whatever the input (a huge file, /dev/zero, a pipe
 * that never ends), at most `limit` + 1 bytes are held before it is refused
 * ("... more than the <what> limit of <limit> bytes (<limit_text>)"). *out is
 * malloc()ed. Returns 0, or an exit code after printing a message naming the flag.
 */
int cli_read_input(char **out, size_t *out_len, const char *command, const char *flag, const char *path, size_t limit,
                   const char *what, const char *limit_text);
/* Map a library code to an exit code, printing the detailed message to stderr. */
int cli_fail(const char *command, int rc);
/* cli_fail with the message given (saved before calls that may replace the library's). */
int cli_fail_with(const char *command, int rc, const char *message);
/* Print "snapcommit CMD: message" and the command's usage hint; returns EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The message for an unknown option or a missing value, naming the flag (never its value). */
int cli_option_error(const char *command, int opt, const struct option *longopts, char **argv);
/* Parse a non-negative decimal integer; 0 on success. */
int cli_parse_u64(const char *text, unsigned long long *out);
/* Open the table at a location, reporting failures. Returns an exit code (0 ok). */
int cli_open_table(sc_table **out, const char *command, const char *location);
/* As cli_open_table, for commands that only read: a Paimon table snapcommit has not adopted
 * opens too, and is read as it is (nothing is written to it). */
int cli_open_table_to_read(sc_table **out, const char *command, const char *location);

int cmd_init(int argc, char **argv);
int cmd_commit(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_files(int argc, char **argv);
int cmd_last_committed(int argc, char **argv);
int cmd_fsck(int argc, char **argv);
int cmd_expire(int argc, char **argv);
int cmd_remove_orphans(int argc, char **argv);

#endif
