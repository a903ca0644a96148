/*
 * cli_watermarks.sh's helper: commit one file each for `count` users
 * "<prefix>-0000".. (identifier 1) to the table at `location`, in one
 * process, through the public API. A CLI process per commit would take
 * minutes for the thousands of users the test needs.
 *
 *   cli_watermarks_seed LOCATION PREFIX COUNT     exit 0 when every commit succeeded
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapcommit/snapcommit.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: cli_watermarks_seed LOCATION PREFIX COUNT\n");
        return 2;
    }
    long count = strtol(argv[3], NULL, 10);
    sc_table *t;
    if (sc_table_open_location(&t, argv[1]) != 0) {
        fprintf(stderr, "open %s: %s\n", argv[1], sc_error_message());
        return 1;
    }
    for (long i = 0; i < count; i++) {
        char user[128], file[160];
        snprintf(user, sizeof user, "%s-%04ld", argv[2], i);
        snprintf(file, sizeof file, "%s.parquet", user);
        sc_file_entry f = {.bucket = 0, .total_buckets = 0, .level = 0, .file = file, .rows = 1, .size = 10};
        sc_changes *c;
        int rc = sc_changes_new(&c);
        if (!rc) rc = sc_changes_add(c, &f);
        sc_commit_request req = {user, 1, SC_KIND_APPEND, 0, c};
        if (!rc) rc = sc_table_commit(NULL, t, &req);
        sc_changes_free(c);
        if (rc) {
            fprintf(stderr, "commit of %s: %s (%s)\n", user, sc_error_name(rc), sc_error_message());
            sc_table_free(t);
            return 1;
        }
    }
    sc_table_free(t);
    return 0;
}
