/* snapcommit — inspect and operate snapcommit tables. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static const char usage[] =
    "usage: snapcommit COMMAND TABLE [options]\n"
    "\n"
    "Commands:\n"
    "  init TABLE [--strategy auto|rename|conditional|head|tracker]   create an empty table\n"
    "  commit TABLE --user U --identifier N --changes FILE [--kind append|compact|overwrite]\n"
    "         [--base-snapshot S] [--max-retries N] [--timeout-ms MS] [--stats] [--json]\n"
    "                                                                publish one snapshot\n"
    "  log TABLE [--json]                                            list snapshots\n"
    "  files TABLE [--snapshot N] [--json]                           list live data files\n"
    "  last-committed TABLE --user U                                 last identifier of a user\n"
    "  fsck TABLE                                                    verify the table\n"
    "\n"
    "TABLE is a directory path or a file:// URI.\n"
    "Run 'snapcommit COMMAND --help' for a command's options.\n"
    "Exit codes: 0 ok, 1 error, 2 bad usage or input, 3 already committed, 4 conflict,\n"
    "            5 retries exhausted or timeout.\n"
    "Environment: SNAPCOMMIT_LOG=debug|info|warn|error|off (default warn) for log lines on stderr.\n";

int cli_fail(const char *command, int rc) {
    fprintf(stderr, "snapcommit %s: %s (%s)\n", command, sc_error_message(), sc_error_name(rc));
    switch (rc) {
    case SC_EINVAL: return EXIT_USAGE;
    case SC_ECOMMITTED: return EXIT_COMMITTED;
    case SC_ECONFLICT: return EXIT_CONFLICT;
    case SC_ERETRIES:
    case SC_ETIMEOUT: return EXIT_RETRIES;
    default: return EXIT_ERROR;
    }
}

int cli_usage_error(const char *command, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "snapcommit %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'snapcommit %s --help'.\n", command);
    return EXIT_USAGE;
}

int cli_parse_u64(const char *text, unsigned long long *out) {
    if (!text || !*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 19) return -1;
    *out = strtoull(text, NULL, 10);
    return 0;
}

int cli_open_table(sc_table **out, const char *command, const char *location) {
    int rc = sc_table_open_location(out, location);
    return rc ? cli_fail(command, rc) : 0;
}

static sc_log_level min_level = SC_LOG_WARN;

static void log_to_stderr(void *ctx, sc_log_level level, const char *message) {
    (void)ctx;
    static const char *const names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    if (level >= min_level) fprintf(stderr, "snapcommit: %s %s\n", names[level], message);
}

static void setup_logging(void) {
    const char *env = getenv("SNAPCOMMIT_LOG");
    if (env && strcasecmp(env, "off") == 0) return;
    if (env && strcasecmp(env, "debug") == 0) min_level = SC_LOG_DEBUG;
    else if (env && strcasecmp(env, "info") == 0) min_level = SC_LOG_INFO;
    else if (env && strcasecmp(env, "error") == 0) min_level = SC_LOG_ERROR;
    sc_log_set_handler(log_to_stderr, NULL);
}

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {
        {"init", cmd_init},   {"commit", cmd_commit}, {"log", cmd_log},
        {"files", cmd_files}, {"last-committed", cmd_last_committed}, {"fsck", cmd_fsck},
    };
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("snapcommit %s\n", SC_VERSION_STRING);
        return EXIT_OK;
    }
    setup_logging();
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "snapcommit: unknown command \"%s\"\n\n%s", argv[1], usage);
    return EXIT_USAGE;
}
