/* Reading a user's input file (--changes, --schema) with its size limit enforced while reading. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_read_input(char **out, size_t *out_len, const char *command, const char *flag, const char *path, size_t limit,
                   const char *what, const char *limit_text) {
    int is_stdin = strcmp(path, "-") == 0;
    const char *shown = is_stdin ? "- (stdin)" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cli_input_error(command, "SC_EINVAL", "%s %s: cannot open: %s", flag, shown, strerror(errno));
    struct stat st;
    int code = 0;
    if (fstat(fd, &st) != 0) code = cli_input_error(command, "SC_EINVAL", "%s %s: %s", flag, shown, strerror(errno));
    else if (S_ISDIR(st.st_mode)) code = cli_input_error(command, "SC_EINVAL", "%s %s: is a directory", flag, shown);
    else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > limit)
        code = cli_input_error(command, "SC_ELIMIT", "%s %s: %" PRIu64 " bytes, more than the %s limit of %zu bytes (%s)",
                               flag, shown, (uint64_t)st.st_size, what, limit, limit_text);
    size_t cap = 0, len = 0;
    char *buf = NULL;
    while (!code) {
        if (len == cap) {
            /* Grow by doubling, but never past limit + 1: one byte over is enough to refuse. */
            size_t ncap = cap ? (cap > (limit + 1) / 2 ? limit + 1 : cap * 2) : 1 << 16;
            if (ncap <= cap) {
                code = cli_input_error(command, "SC_ELIMIT", "%s %s: more than the %s limit of %zu bytes (%s)",
                                       flag, shown, what, limit, limit_text);
                break;
            }
            char *grown = realloc(buf, ncap);
            if (!grown) {
                fprintf(stderr, "snapcommit %s: out of memory reading %s (SC_ENOMEM)\n", command, flag);
                code = EXIT_ERROR;
                break;
            }
            buf = grown;
            cap = ncap;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) code = cli_input_error(command, "SC_EINVAL", "%s %s: read failed: %s", flag, shown, strerror(errno));
        if (n <= 0) break;
        len += (size_t)n;
        if (len > limit)
            code = cli_input_error(command, "SC_ELIMIT", "%s %s: more than the %s limit of %zu bytes (%s)",
                                   flag, shown, what, limit, limit_text);
    }
    if (!is_stdin) close(fd);
    if (code) {
        free(buf);
        return code;
    }
    *out = buf;
    *out_len = len;
    return 0;
}
