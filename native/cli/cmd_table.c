/* CLI commands that create and inspect tables: init, log, files, last-committed, fsck. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Parse options; leaves the single positional TABLE in *table. Returns -1 to go on, or an exit code. */
typedef int (*option_fn)(void *ctx, int opt, const char *arg);

static int parse(int argc, char **argv, const char *command, const char *help,
                 const struct option *longopts, option_fn on_option, void *ctx, const char **table) {
    *table = NULL; /* set on every path: callers read it only after -1, which the optimiser cannot see */
    optind = 1;
    opterr = 0;
    int opt;
    /* The leading ':' makes a missing value ':' rather than '?', so the message can say which. */
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs(help, stdout);
            return EXIT_OK;
        }
        if (opt == '?' || opt == ':') return cli_option_error(command, opt, longopts, argv);
        int rc = on_option(ctx, opt, optarg);
        if (rc >= 0) return rc;
    }
    if (optind >= argc) return cli_usage_error(command, "TABLE is required");
    if (optind + 1 < argc) return cli_usage_error(command, "unexpected argument \"%s\"", argv[optind + 1]);
    *table = argv[optind];
    return -1;
}

/* ---- init ---- */

typedef struct init_opts {
    sc_strategy_kind strategy;
    const char *schema_path;
} init_opts;

static int init_option(void *ctx, int opt, const char *arg) {
    init_opts *o = ctx;
    if (opt == 's' && sc_strategy_parse(&o->strategy, arg) != 0)
        return cli_usage_error("init", "unknown strategy \"%s\" (auto, rename, conditional, head, tracker)", arg);
    if (opt == 'S') o->schema_path = arg;
    return -1;
}

/* The largest schema file read (Paimon's schema JSON of thousands of fields stays far below). */
#define SCHEMA_FILE_MAX ((size_t)4 << 20)

int cmd_init(int argc, char **argv) {
    static const struct option opts[] = {{"strategy", required_argument, NULL, 's'},
                                         {"schema", required_argument, NULL, 'S'},
                                         {"help", no_argument, NULL, 'h'}, {0}};
    static const char help[] =
        "usage: snapcommit init TABLE [--strategy auto|rename|conditional|head|tracker] [--schema FILE]\n"
        "Create an empty Apache Paimon table. 'auto' (default) picks the claim strategy from what\n"
        "the storage supports. FILE ('-' = stdin) is Paimon's schema JSON or the short form\n"
        "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},...],\"partitionKeys\":[...],\n"
        "\"primaryKeys\":[...],\"options\":{...}}; without it the table has no fields and no\n"
        "partition keys. Without --schema, a Paimon table already at TABLE (schema/schema-0\n"
        "present) is adopted as it is. Fails with exit 1, changing nothing, when TABLE already\n"
        "holds a snapcommit table; a bad schema is exit 2.\n";
    init_opts o = {SC_STRATEGY_AUTO, NULL};
    const char *location = NULL;
    int rc = parse(argc, argv, "init", help, opts, init_option, &o, &location);
    if (rc >= 0) return rc;
    char *schema = NULL;
    size_t schema_len = 0;
    if (o.schema_path && (rc = cli_read_input(&schema, &schema_len, "init", "--schema", o.schema_path, SCHEMA_FILE_MAX,
                                              "schema", "4 MiB")) != 0)
        return rc;
    if (o.schema_path && !schema) schema = calloc(1, 1); /* an empty file: refused by the parser, not read as "none" */
    sc_store *store;
    if ((rc = sc_store_open(&store, location)) != 0) {
        free(schema);
        return cli_fail("init", rc);
    }
    rc = sc_table_create_with_schema(store, o.strategy, schema, schema_len);
    free(schema);
    if (rc == SC_EINVAL) {
        sc_store_free(store);
        cli_fail("init", rc);
        return EXIT_USAGE; /* the schema (or an option) is bad input */
    }
    sc_table *t = NULL;
    if (!rc) rc = sc_table_open(&t, store);
    if (rc) {
        sc_store_free(store);
        return cli_fail("init", rc);
    }
    printf("initialized table %s at ", sc_table_uuid(t));
    cli_put_str(stdout, location, 0);
    printf(" (strategy %s)\n", sc_strategy_name(sc_table_strategy(t)));
    sc_table_free(t);
    sc_store_free(store);
    return EXIT_OK;
}

/* ---- log ---- */

static int json_option(void *ctx, int opt, const char *arg) {
    (void)arg;
    if (opt == 'j') *(int *)ctx = 1;
    return -1;
}

static void format_time(char *out, size_t cap, int64_t ms) {
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int cmd_log(int argc, char **argv) {
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0}};
    static const char help[] =
        "usage: snapcommit log TABLE [--json]\n"
        "List the retained snapshots, oldest first. --json prints an array of objects with id,\n"
        "commitUser, commitIdentifier, commitKind, timeMillis, totalRecordCount,\n"
        "deltaRecordCount, fileCount, parentHash, schemaId, and watermark and changelogRecordCount\n"
        "when the snapshot has them (text: WATERMARK and CHANGELOG are - when absent).\n";
    int as_json = 0;
    const char *location = NULL;
    int rc = parse(argc, argv, "log", help, opts, json_option, &as_json, &location);
    if (rc >= 0) return rc;
    sc_table *t;
    if ((rc = cli_open_table_to_read(&t, "log", location)) != 0) return rc;
    uint64_t first = 0, last = 0;
    char failed[1024] = ""; /* why a snapshot could not be read, kept across the EARLIEST look */
    rc = sc_table_earliest_id(&first, t);
    if (!rc) rc = sc_table_latest_id(&last, t);
    json_t *arr = json_array();
    if (!rc && !as_json)
        printf("%-8s %-9s %19s %-20s %12s %8s %6s %20s %10s %s\n", "ID", "KIND", "IDENTIFIER", "TIME (UTC)", "RECORDS",
               "FILES", "SCHEMA", "WATERMARK", "CHANGELOG", "USER");
    for (uint64_t id = first; !rc && first && id <= last; id++) {
        sc_snapshot_info *s;
        if ((rc = sc_table_snapshot_info(&s, t, id)) != 0) {
            /* An expiration running meanwhile moved EARLIEST past `id` and deleted it: go on
             * from where history starts now. A snapshot missing above EARLIEST is damage. */
            uint64_t now_first = 0;
            snprintf(failed, sizeof failed, "%s", sc_error_message());
            if ((rc == SC_ENOTFOUND || rc == SC_ECORRUPT) && sc_table_earliest_id(&now_first, t) == 0 && now_first > id) {
                sc_error_clear();
                failed[0] = '\0';
                rc = 0;
                id = now_first - 1;
                continue;
            }
            break;
        }
        if (as_json) {
            json_array_append_new(arr, json_pack("{s:I, s:s, s:I, s:s, s:I, s:I, s:I, s:I, s:o}",
                "id", (json_int_t)s->id, "commitUser", s->commit_user, "commitIdentifier", (json_int_t)s->commit_identifier,
                "commitKind", sc_commit_kind_name(s->commit_kind), "timeMillis", (json_int_t)s->time_millis,
                "totalRecordCount", (json_int_t)s->total_record_count, "deltaRecordCount", (json_int_t)s->delta_record_count,
                "fileCount", (json_int_t)s->file_count, "parentHash", s->parent_hash[0] ? json_string(s->parent_hash) : json_null()));
            json_t *entry = json_array_get(arr, json_array_size(arr) - 1);
            json_object_set_new(entry, "schemaId", json_integer((json_int_t)s->schema_id));
            if (s->has_watermark) json_object_set_new(entry, "watermark", json_integer((json_int_t)s->watermark));
            if (s->has_changelog_record_count)
                json_object_set_new(entry, "changelogRecordCount", json_integer((json_int_t)s->changelog_record_count));
        } else {
            char when[32];
            format_time(when, sizeof when, s->time_millis);
            /* The user comes last, unpadded: users run from a short name to a Flink job's
             * 36-character UUID and beyond, and a wide one would push every later column.
             * IDENTIFIER holds any non-negative int64 (Paimon's batch commits use
             * Long.MAX_VALUE). The user is escaped: a table written before users were
             * checked may hold newlines or terminal escapes that would forge rows. */
            char watermark[24] = "-", changelog[24] = "-";
            if (s->has_watermark) snprintf(watermark, sizeof watermark, "%" PRId64, s->watermark);
            if (s->has_changelog_record_count) snprintf(changelog, sizeof changelog, "%" PRId64, s->changelog_record_count);
            printf("%-8" PRIu64 " %-9s %19" PRId64 " %-20s %12" PRId64 " %8" PRIu64 " %6" PRId64 " %20s %10s ", s->id,
                   sc_commit_kind_name(s->commit_kind), s->commit_identifier, when, s->total_record_count, s->file_count,
                   s->schema_id, watermark, changelog);
            cli_put_str(stdout, s->commit_user, 0);
            putchar('\n');
        }
        sc_snapshot_info_free(s);
    }
    if (!rc && as_json) {
        /* ASCII only: C1 controls in a user become \u0080..\u009f, never raw bytes. */
        json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
        putchar('\n');
    } else if (!rc && !first) {
        printf("(no snapshots)\n");
    }
    json_decref(arr);
    sc_table_free(t);
    if (rc && failed[0]) return cli_fail_with("log", rc, failed);
    return rc ? cli_fail("log", rc) : EXIT_OK;
}

/* ---- files ---- */

typedef struct files_opts {
    int as_json;
    int changelog; /* --changelog: the snapshot's changelog files instead of the live data files */
    int index;     /* --index: its live index files */
    unsigned long long snapshot;
} files_opts;

static int files_option(void *ctx, int opt, const char *arg) {
    files_opts *o = ctx;
    if (opt == 'j') o->as_json = 1;
    if (opt == 'c') o->changelog = 1;
    if (opt == 'x') o->index = 1;
    if (opt == 's' && (cli_parse_u64(arg, &o->snapshot) != 0 || o->snapshot == 0))
        return cli_usage_error("files", "--snapshot needs a snapshot id >= 1, got \"%s\"", arg);
    return -1;
}

/* A key row as a JSON array of its values (typed: numbers, booleans and strings), or NULL. */
static json_t *key_json(sc_table *t, sc_bytes key) {
    char *text = NULL;
    if (sc_table_key_json(&text, t, key) != 0) return NULL;
    json_error_t err;
    json_t *v = json_loads(text, 0, &err);
    free(text);
    return v;
}

/* files --index: the live index files of a snapshot. */
static int print_index_files(sc_table *t, uint64_t snapshot, int as_json) {
    sc_index_list *list;
    int rc = sc_table_index_files(&list, t, snapshot);
    if (rc) return cli_fail("files", rc);
    json_t *arr = json_array();
    if (!as_json) printf("%-24s %6s %-18s %-48s %10s %12s\n", "PARTITION", "BUCKET", "TYPE", "FILE", "ROWS", "SIZE");
    for (size_t i = 0; !rc && i < list->count; i++) {
        const sc_index_entry *e = &list->entries[i];
        char *spec = NULL;
        if ((rc = sc_table_partition_spec(&spec, t, e->partition)) != 0) {
            rc = cli_fail("files", rc);
            break;
        }
        if (as_json) {
            char path[1100];
            snprintf(path, sizeof path, "index/%s", e->file);
            json_t *obj = json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:I}", "partition", spec, "bucket", e->bucket, "type",
                                    e->index_type, "file", e->file, "path", path, "size", (json_int_t)e->size, "rows",
                                    (json_int_t)e->rows);
            if (obj && e->has_dv_ranges) {
                json_t *dv = json_array();
                for (size_t k = 0; k < e->dv_range_count; k++) {
                    const sc_dv_range *r = &e->dv_ranges[k];
                    json_t *one = json_pack("{s:s, s:i, s:i}", "file", r->data_file, "offset", r->offset, "length", r->length);
                    if (one && r->has_cardinality) json_object_set_new(one, "cardinality", json_integer((json_int_t)r->cardinality));
                    if (one) json_array_append_new(dv, one);
                }
                json_object_set_new(obj, "dv", dv);
            }
            if (obj && e->external_path) json_object_set_new(obj, "externalPath", json_string(e->external_path));
            if (!obj) obj = json_pack("{s:s%, s:i, s:s%}", "partition", spec, strlen(spec), "bucket", e->bucket, "file",
                                      "(not UTF-8)", (size_t)11);
            json_array_append_new(arr, obj);
        } else {
            cli_put_str(stdout, spec, 24);
            printf(" %6d ", e->bucket);
            cli_put_str(stdout, e->index_type, 18);
            putchar(' ');
            cli_put_str(stdout, e->file, 48);
            printf(" %10" PRId64 " %12" PRId64 "\n", e->rows, e->size);
        }
        free(spec);
    }
    if (!rc && as_json) {
        char *text = json_dumps(arr, JSON_INDENT(2) | JSON_ENSURE_ASCII);
        if (text) printf("%s\n", text);
        else rc = EXIT_ERROR;
        free(text);
    }
    json_decref(arr);
    sc_index_list_free(list);
    return rc;
}

/*
 * Printing data files as they come (files): the table header or the opening
 * bracket with the first file, so that nothing is printed for a table whose
 * check fails before it. The JSON is exactly what jansson prints for the
 * whole array (JSON_INDENT(2)): each element dumped alone, its lines shifted
 * by one level.
 */
typedef struct file_printer {
    sc_table *t;
    int as_json;
    size_t printed;
    int rc; /* the exit code once a file could not be printed */
} file_printer;

static void printer_open(file_printer *p) {
    if (!p->as_json) printf("%-24s %6s %5s %-48s %10s %12s\n", "PARTITION", "BUCKET", "LEVEL", "FILE", "ROWS", "SIZE");
}

static int printer_close(file_printer *p) {
    if (p->printed == 0) printer_open(p);
    if (p->as_json) fputs(p->printed ? "\n]\n" : "[]\n", stdout);
    return p->rc;
}

/* One element, indented as the array's: every line after the first one level deeper
 * (a JSON string holds no raw newline, so every newline is between lines). */
static void put_element(const char *text, int first) {
    fputs(first ? "[\n  " : ",\n  ", stdout);
    for (const char *nl; (nl = strchr(text, '\n')) != NULL; text = nl + 1) {
        fwrite(text, 1, (size_t)(nl - text) + 1, stdout);
        fputs("  ", stdout);
    }
    fputs(text, stdout);
}

static int print_file(void *ctx, const sc_file_entry *e) {
    file_printer *p = ctx;
    char *spec = NULL, *path = NULL;
    int rc = sc_table_partition_spec(&spec, p->t, e->partition);
    if (!rc) rc = sc_table_file_path(&path, p->t, e);
    if (rc) {
        free(spec);
        p->rc = cli_fail("files", rc);
        return 1;
    }
    if (p->printed == 0 && !p->as_json) printer_open(p);
    if (p->as_json) {
        json_t *obj = json_pack("{s:s, s:i, s:i, s:i, s:s, s:s, s:I, s:I}", "partition", spec, "bucket", e->bucket,
                                "totalBuckets", e->total_buckets, "level", e->level, "file", e->file, "path", path,
                                "rows", (json_int_t)e->rows, "size", (json_int_t)e->size);
        json_t *min = obj ? key_json(p->t, e->min_key) : NULL, *max = min ? key_json(p->t, e->max_key) : NULL;
        if (min && max) {
            json_object_set_new(obj, "minKey", min);
            json_object_set_new(obj, "maxKey", max);
        } else {
            json_decref(min);
            json_decref(max);
        }
        /* A name that is not UTF-8 (a table written by another tool) cannot be a JSON string. */
        if (!obj) obj = json_pack("{s:s%, s:i, s:s%}", "partition", spec, strlen(spec), "bucket", e->bucket, "file",
                                  "(not UTF-8)", (size_t)11);
        /* ASCII only (C1 controls escaped), unless a partition or key is not UTF-8:
         * such bytes cannot be \u-escaped and are written through as documented. */
        char *text = obj ? json_dumps(obj, JSON_INDENT(2) | JSON_ENSURE_ASCII) : NULL;
        if (obj && !text) text = json_dumps(obj, JSON_INDENT(2));
        json_decref(obj);
        if (!text) {
            fprintf(stderr, "snapcommit files: out of memory formatting the JSON output (SC_ENOMEM)\n");
            p->rc = EXIT_ERROR;
        } else {
            put_element(text, p->printed == 0);
            p->printed++;
        }
        free(text);
    } else {
        cli_put_str(stdout, spec, 24);
        printf(" %6d %5d ", e->bucket, e->level);
        cli_put_str(stdout, e->file, 48);
        printf(" %10" PRId64 " %12" PRId64 "\n", e->rows, e->size);
        p->printed++;
    }
    free(spec);
    free(path);
    return p->rc ? 1 : 0;
}

int cmd_files(int argc, char **argv) {
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'}, {"snapshot", required_argument, NULL, 's'},
                                         {"changelog", no_argument, NULL, 'c'}, {"index", no_argument, NULL, 'x'},
                                         {"help", no_argument, NULL, 'h'}, {0}};
    static const char help[] =
        "usage: snapcommit files TABLE [--snapshot N] [--changelog | --index] [--json]\n"
        "List the live data files of snapshot N (default: the latest). --json prints an array of\n"
        "entries with partition (a spec: dt=2024-01-01/h=3, \"\" when unpartitioned), bucket,\n"
        "totalBuckets, level, file, path (relative to the table), rows, size, and on a\n"
        "primary-key table minKey and maxKey (arrays of the key's values). --changelog lists the\n"
        "changelog files snapshot N itself added instead (none when it has no changelog); --index its\n"
        "live index files (hash indexes, deletion vectors: partition, bucket, type, file, path, size,\n"
        "rows, dv ranges, externalPath).\n";
    files_opts o = {0, 0, 0, 0};
    const char *location = NULL;
    int rc = parse(argc, argv, "files", help, opts, files_option, &o, &location);
    if (rc >= 0) return rc;
    sc_table *t;
    if (o.changelog && o.index) return cli_usage_error("files", "--changelog and --index exclude each other");
    if ((rc = cli_open_table_to_read(&t, "files", location)) != 0) return rc;
    if (o.index) {
        rc = print_index_files(t, o.snapshot, o.as_json);
        sc_table_free(t);
        return rc;
    }
    file_printer p = {t, o.as_json, 0, 0};
    if (o.changelog) {
        /* One snapshot's own changelog: small, listed whole. */
        sc_file_list *list;
        if ((rc = sc_table_changelog_files(&list, t, o.snapshot)) != 0) {
            sc_table_free(t);
            return cli_fail("files", rc);
        }
        for (size_t i = 0; !p.rc && i < list->count; i++) print_file(&p, &list->entries[i]);
        sc_file_list_free(list);
    } else if ((rc = sc_table_files_each(t, o.snapshot, print_file, &p)) < 0) {
        /* Nothing printed unless files were: then the listing stops where it failed, and a
         * JSON array is left open, so that a reader that ignores the exit code cannot take
         * the part for the whole. */
        if (p.printed && !p.as_json) printer_close(&p);
        if (p.printed && p.as_json) fputc('\n', stdout);
        sc_table_free(t);
        return cli_fail("files", rc);
    }
    rc = printer_close(&p);
    sc_table_free(t);
    return rc;
}

/* ---- last-committed ---- */

static int user_option(void *ctx, int opt, const char *arg) {
    if (opt == 'u') *(const char **)ctx = arg;
    return -1;
}

int cmd_last_committed(int argc, char **argv) {
    static const struct option opts[] = {{"user", required_argument, NULL, 'u'}, {"help", no_argument, NULL, 'h'}, {0}};
    static const char help[] =
        "usage: snapcommit last-committed TABLE --user U\n"
        "Print the last identifier committed by user U, or nothing when U has no commit.\n"
        "Reads the latest snapshot only.\n";
    const char *user = NULL, *location = NULL;
    int rc = parse(argc, argv, "last-committed", help, opts, user_option, &user, &location);
    if (rc >= 0) return rc;
    if (!user || !*user) return cli_usage_error("last-committed", "--user is required");
    sc_table *t;
    if ((rc = cli_open_table_to_read(&t, "last-committed", location)) != 0) return rc;
    int64_t ident;
    int found;
    rc = sc_table_last_committed(&ident, &found, t, user);
    sc_table_free(t);
    if (rc) return cli_fail("last-committed", rc);
    if (found) printf("%" PRId64 "\n", ident);
    return EXIT_OK;
}

/* ---- fsck ---- */

static void fsck_progress(void *ctx, uint64_t done, uint64_t total) {
    (void)ctx;
    if (done == total || done % 100 == 0)
        fprintf(stderr, "\rfsck: %" PRIu64 "/%" PRIu64 " snapshots verified%s", done, total, done == total ? "\n" : "");
}

static void fsck_data_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    (void)ctx;
    if (done == total || done % 100 == 0)
        fprintf(stderr, "\rfsck: %" PRIu64 "/%" PRIu64 " snapshots' %s found%s", done, total, phase,
                done == total ? "\n" : "");
}

static int fsck_option(void *ctx, int opt, const char *arg) {
    (void)arg;
    if (opt == 'd') *(int *)ctx = 1;
    return -1;
}

int cmd_fsck(int argc, char **argv) {
    static const struct option opts[] = {{"data", no_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'}, {0}};
    static const char help[] =
        "usage: snapcommit fsck TABLE [--data]\n"
        "Verify the table metadata, the snapshot hash chain (every snapshot names the SHA-256 of\n"
        "its parent), every manifest list and manifest (pinned by SHA-256 and length), and the\n"
        "live-file state of the latest snapshot; history starts at EARLIEST (snapshot expiration).\n"
        "With --data, also check that every data file a retained snapshot (EARLIEST .. latest)\n"
        "names is present, against one listing of the table. Exit 0 when sound;\n"
        "otherwise exit 1 with a message naming the damaged or missing object.\n";
    const char *location = NULL;
    int data_pass = 0;
    int rc = parse(argc, argv, "fsck", help, opts, fsck_option, &data_pass, &location);
    if (rc >= 0) return rc;
    sc_table *t;
    if ((rc = cli_open_table_to_read(&t, "fsck", location)) != 0) return rc;
    rc = sc_table_fsck(t, isatty(2) ? fsck_progress : NULL, NULL);
    sc_data_check_result data = {0};
    if (!rc && data_pass) rc = sc_table_check_data_files(&data, t, isatty(2) ? fsck_data_progress : NULL, NULL);
    uint64_t latest = 0;
    if (!rc) rc = sc_table_latest_id(&latest, t);
    sc_table_free(t);
    if (rc) return cli_fail("fsck", rc);
    printf("ok: table at ");
    cli_put_str(stdout, location, 0);
    printf(" is sound (latest snapshot %" PRIu64 ")", latest);
    if (data_pass)
        printf("; %" PRIu64 " data files of snapshots %" PRIu64 "..%" PRIu64 " present%s", data.files_checked,
               data.earliest, data.latest, data.skipped ? " (files with an external path not checked)" : "");
    printf("\n");
    return EXIT_OK;
}
