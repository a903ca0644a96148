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
    "  init TABLE [--strategy auto|rename|conditional|head|tracker] [--schema FILE]\n"
    "                                                                  create an empty Paimon table\n"
    "  commit TABLE --user U --identifier N --changes FILE [--kind append|compact|overwrite]\n"
    "         [--base-snapshot S] [--max-retries N] [--timeout-ms MS] [--stats] [--json]\n"
    "                                                                publish one snapshot\n"
    "  log TABLE [--json]                                            list snapshots\n"
    "  files TABLE [--snapshot N] [--json]                           list live data files\n"
    "  last-committed TABLE --user U                                 last identifier of a user\n"
    "  fsck TABLE [--data]                                           verify the table (--data: and its data files)\n"
    "  expire TABLE [--retain-min N] [--retain-max N] [--older-than DURATION] [--limit N]\n"
    "         [--dry-run] [--json]                                   expire old snapshots\n"
    "  remove-orphans TABLE [--older-than DURATION] [--dry-run] [--force] [--json]\n"
    "                                                                delete unreferenced objects\n"
    "\n"
    "TABLE is a directory path or a file:// URI.\n"
    "Run 'snapcommit COMMAND --help' for a command's options.\n"
    "Exit codes: 0 ok, 1 error, 2 bad usage or input, 3 already committed, 4 conflict,\n"
    "            5 retries exhausted or timeout.\n"
    "Environment: SNAPCOMMIT_LOG=debug|info|warn|error|off (default warn) for log lines on stderr.\n";

/* Length of the UTF-8 sequence at p (at most n bytes), or 0 when it is not one. */
static size_t utf8_seq(const unsigned char *p, size_t n, unsigned *out_cp) {
    size_t len = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || len > n) return 0;
    unsigned cp = p[0] & (0x7f >> (len == 1 ? 0 : len));
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    static const unsigned min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    *out_cp = cp;
    return len;
}

/* Escape into `f`; returns the display columns written. */
static size_t put_escaped(FILE *f, const unsigned char *p, size_t n, int escape_backslash) {
    size_t cols = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t len = utf8_seq(p + i, n - i, &cp);
        int escape = len == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
                     (cp == '\\' && escape_backslash);
        if (len == 0) len = 1;
        if (escape) {
            for (size_t k = 0; k < len; k++) fprintf(f, "\\x%02x", p[i + k]);
            cols += 4 * len;
        } else {
            fwrite(p + i, 1, len, f);
            cols += 1; /* one column per character: close enough for alignment */
        }
        i += len;
    }
    return cols;
}

void cli_put_text(FILE *f, const void *data, size_t len, int width) {
    size_t cols = put_escaped(f, data, len, 1);
    for (; width > 0 && cols < (size_t)width; cols++) fputc(' ', f);
}

void cli_put_str(FILE *f, const char *s, int width) { cli_put_text(f, s, s ? strlen(s) : 0, width); }

/* A whole message: library messages already quote names with \xNN, so a
 * backslash is left alone and only what could reach the terminal is escaped. */
static void put_message(FILE *f, const char *text) {
    put_escaped(f, (const unsigned char *)text, strlen(text), 0);
}

int cli_input_error(const char *command, const char *code_name, const char *fmt, ...) {
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fprintf(stderr, "snapcommit %s: ", command);
    put_message(stderr, message);
    fprintf(stderr, " (%s)\n", code_name);
    return EXIT_USAGE;
}

int cli_fail(const char *command, int rc) { return cli_fail_with(command, rc, sc_error_message()); }

int cli_fail_with(const char *command, int rc, const char *message) {
    fprintf(stderr, "snapcommit %s: ", command);
    put_message(stderr, message);
    fprintf(stderr, " (%s)\n", sc_error_name(rc));
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
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap); /* values echoed from argv are escaped below */
    va_end(ap);
    fprintf(stderr, "snapcommit %s: ", command);
    put_message(stderr, message);
    fprintf(stderr, "\nTry 'snapcommit %s --help'.\n", command);
    return EXIT_USAGE;
}

int cli_option_error(const char *command, int opt, const struct option *longopts, char **argv) {
    /* getopt_long reports a long option's problems through its `val` in optopt,
     * so "-s" would be named for "--snapshot": name the long flag instead. */
    const char *name = NULL;
    for (const struct option *o = longopts; optopt && o->name; o++)
        if (o->val == optopt) name = o->name;
    if (opt == ':' && name) return cli_usage_error(command, "option --%s needs a value", name);
    const char *arg = argv[optind - 1];
    if (name && strncmp(arg, "--", 2) == 0) return cli_usage_error(command, "option --%s takes no value", name);
    if (optopt) return cli_usage_error(command, "option -%c is not known", optopt);
    /* An unknown long option: name it without any "=value" part. */
    return cli_usage_error(command, "option %.*s is not known", (int)strcspn(arg, "="), arg);
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

int cli_open_table_to_read(sc_table **out, const char *command, const char *location) {
    int rc = sc_table_open_location_with_flags(out, location, NULL, SC_OPEN_READ_UNADOPTED);
    return rc ? cli_fail(command, rc) : 0;
}

static sc_log_level min_level = SC_LOG_WARN;

static void log_to_stderr(void *ctx, sc_log_level level, const char *message) {
    (void)ctx;
    static const char *const names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    if (level < min_level) return;
    fprintf(stderr, "snapcommit: %s ", names[level]);
    put_message(stderr, message);
    fputc('\n', stderr);
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
        {"expire", cmd_expire}, {"remove-orphans", cmd_remove_orphans},
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
