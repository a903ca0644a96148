/* CLI commands of table upkeep: expire, remove-orphans. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* ---- progress: one line on stderr, only once a run has taken a while ---- */

typedef struct progress_state {
    const char *command;
    double start, last; /* seconds, monotonic */
    int shown;
} progress_state;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* After 2 s, at most once a second (and at the end of a phase): "COMMAND: PHASE done/total". */
static void on_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    progress_state *p = ctx;
    double now = now_s();
    if (now - p->start < 2.0 || (now - p->last < 1.0 && done != total)) return;
    p->last = now;
    p->shown = 1;
    fprintf(stderr, "\r%s: %s %" PRIu64 "/%" PRIu64 "\033[K", p->command, phase, done, total);
    if (done == total) fputc('\n', stderr);
}

static void progress_end(progress_state *p) {
    if (p->shown) fputc('\n', stderr);
}

/* ---- options ---- */

enum { OPT_RETAIN_MIN = 1000, OPT_RETAIN_MAX, OPT_OLDER_THAN, OPT_LIMIT, OPT_DRY_RUN, OPT_JSON, OPT_FORCE };

typedef struct upkeep_opts {
    const char *command;
    unsigned long long retain_min, retain_max, limit;
    int has_retain_min, has_retain_max, has_limit, has_older_than;
    int64_t older_than_ms;
    int dry_run, json, force;
} upkeep_opts;

static int parse(int argc, char **argv, upkeep_opts *u, const char *help, const struct option *longopts,
                 const char **table) {
    *table = NULL;
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': fputs(help, stdout); return EXIT_OK;
        case '?':
        case ':': return cli_option_error(u->command, opt, longopts, argv);
        case OPT_RETAIN_MIN:
        case OPT_RETAIN_MAX:
        case OPT_LIMIT: {
            unsigned long long v;
            const char *flag = opt == OPT_RETAIN_MIN ? "--retain-min" : opt == OPT_RETAIN_MAX ? "--retain-max" : "--limit";
            if (cli_parse_u64(optarg, &v) != 0 || v < 1)
                return cli_usage_error(u->command, "%s needs a whole number >= 1", flag);
            if (opt == OPT_RETAIN_MIN) u->retain_min = v, u->has_retain_min = 1;
            else if (opt == OPT_RETAIN_MAX) u->retain_max = v, u->has_retain_max = 1;
            else u->limit = v, u->has_limit = 1;
            break;
        }
        case OPT_OLDER_THAN:
            if (sc_duration_parse(&u->older_than_ms, optarg) != 0)
                return cli_usage_error(u->command, "--older-than needs a duration such as 500ms, 30s, 30m, 1h or 1d");
            u->has_older_than = 1;
            break;
        case OPT_DRY_RUN: u->dry_run = 1; break;
        case OPT_JSON: u->json = 1; break;
        case OPT_FORCE: u->force = 1; break;
        default: return cli_usage_error(u->command, "option not known");
        }
    }
    if (optind >= argc) return cli_usage_error(u->command, "TABLE is required");
    if (optind + 1 < argc) return cli_usage_error(u->command, "unexpected argument \"%s\"", argv[optind + 1]);
    *table = argv[optind];
    return -1;
}

static void print_json(json_t *obj) {
    char *text = json_dumps(obj, JSON_COMPACT);
    if (text) puts(text);
    free(text);
    json_decref(obj);
}

/* ---- expire ---- */

int cmd_expire(int argc, char **argv) {
    static const struct option opts[] = {{"retain-min", required_argument, NULL, OPT_RETAIN_MIN},
                                         {"retain-max", required_argument, NULL, OPT_RETAIN_MAX},
                                         {"older-than", required_argument, NULL, OPT_OLDER_THAN},
                                         {"limit", required_argument, NULL, OPT_LIMIT},
                                         {"dry-run", no_argument, NULL, OPT_DRY_RUN},
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    static const char help[] =
        "usage: snapcommit expire TABLE [--retain-min N] [--retain-max N] [--older-than DURATION]\n"
        "                        [--limit N] [--dry-run] [--json]\n"
        "Expire old snapshots as Paimon does and delete the data files, manifests and manifest\n"
        "lists that no retained snapshot references; move snapshot/EARLIEST. Snapshots younger\n"
        "than --older-than are kept (unless --retain-max forces them out), at least --retain-min\n"
        "are kept, at most --limit expire per run. Defaults: the table's snapshot.num-retained.min,\n"
        "snapshot.num-retained.max, snapshot.time-retained, snapshot.expire.limit, else Paimon's\n"
        "(10, 2147483647, 1h, 50). DURATION: 500ms, 30s, 30m, 1h, 1d. --dry-run deletes nothing.\n"
        "Exit 0 when done (also when nothing expired); 1 on an error (re-run to finish); 2 bad usage.\n";
    upkeep_opts u = {.command = "expire"};
    const char *location = NULL;
    int rc = parse(argc, argv, &u, help, opts, &location);
    if (rc >= 0) return rc;
    sc_table *t;
    if ((rc = cli_open_table(&t, "expire", location)) != 0) return rc;
    sc_expire_options o;
    if ((rc = sc_expire_options_from_table(&o, t)) != 0) {
        sc_table_free(t);
        return cli_fail("expire", rc);
    }
    if (u.has_retain_min) o.retain_min = u.retain_min;
    if (u.has_retain_max) o.retain_max = u.retain_max;
    if (u.has_limit) o.limit = u.limit;
    if (u.has_older_than) o.older_than_ms = u.older_than_ms;
    if (o.retain_max < o.retain_min) {
        sc_table_free(t);
        return cli_usage_error("expire", "retain-max %" PRIu64 " is below retain-min %" PRIu64, o.retain_max, o.retain_min);
    }
    o.dry_run = u.dry_run;
    progress_state ps = {"expire", now_s(), 0, 0};
    o.progress = on_progress;
    o.progress_ctx = &ps;
    sc_expire_result r;
    rc = sc_table_expire(&r, t, &o);
    progress_end(&ps);
    sc_table_free(t);
    if (rc) return cli_fail("expire", rc);
    if (u.json) {
        print_json(json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "dryRun", u.dry_run,
                             "earliestBefore", (json_int_t)r.earliest_before, "earliestAfter", (json_int_t)r.earliest_after,
                             "latest", (json_int_t)r.latest, "snapshotsExpired", (json_int_t)r.snapshots_expired,
                             "dataFilesDeleted", (json_int_t)r.data_files_deleted, "manifestsDeleted",
                             (json_int_t)r.manifests_deleted, "manifestListsDeleted", (json_int_t)r.manifest_lists_deleted,
                             "bytesDeleted", (json_int_t)r.bytes_deleted, "alreadyGone", (json_int_t)r.already_gone,
                             "skipped", (json_int_t)r.skipped));
        return EXIT_OK;
    }
    if (r.earliest_after == r.earliest_before && r.snapshots_expired == 0)
        printf("nothing to expire: snapshots %" PRIu64 "..%" PRIu64 " retained\n", r.earliest_before, r.latest);
    else
        printf("%s: %" PRIu64 " snapshots (retained now %" PRIu64 "..%" PRIu64 "), %" PRIu64 " data files, %" PRIu64
               " manifests, %" PRIu64 " manifest lists, %" PRIu64 " bytes\n",
               u.dry_run ? "expire (dry run)" : "expired", r.snapshots_expired, r.earliest_after, r.latest,
               r.data_files_deleted, r.manifests_deleted, r.manifest_lists_deleted, r.bytes_deleted);
    if (r.already_gone) printf("%" PRIu64 " objects were already gone (an earlier run's)\n", r.already_gone);
    if (r.skipped) printf("%" PRIu64 " objects not understood were left in place\n", r.skipped);
    return EXIT_OK;
}

/* ---- remove-orphans ---- */

int cmd_remove_orphans(int argc, char **argv) {
    static const struct option opts[] = {{"older-than", required_argument, NULL, OPT_OLDER_THAN},
                                         {"dry-run", no_argument, NULL, OPT_DRY_RUN},
                                         {"force", no_argument, NULL, OPT_FORCE},
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    static const char help[] =
        "usage: snapcommit remove-orphans TABLE [--older-than DURATION] [--dry-run] [--force] [--json]\n"
        "Delete manifests, manifest lists, index manifests, index files, statistics files, data and\n"
        "changelog files that no snapshot references and whose storage time is older than DURATION\n"
        "(default 1d), as Paimon's orphan cleaner: objects of lost or unknown claim attempts and of\n"
        "checkpoints that never completed. DURATION must exceed the longest\n"
        "a writer can take between writing a file and committing it. A DURATION below the commit\n"
        "budget (60s) is refused: younger objects may be a commit's in flight. --force accepts it;\n"
        "use it only when no writer is running. --dry-run deletes nothing.\n"
        "Exit 0 when done; 1 on an error; 2 bad usage (also a DURATION refused).\n";
    upkeep_opts u = {.command = "remove-orphans"};
    const char *location = NULL;
    int rc = parse(argc, argv, &u, help, opts, &location);
    if (rc >= 0) return rc;
    sc_table *t;
    if ((rc = cli_open_table(&t, "remove-orphans", location)) != 0) return rc;
    sc_orphans_options o;
    sc_orphans_options_init(&o);
    if (u.has_older_than) o.older_than_ms = u.older_than_ms;
    o.dry_run = u.dry_run;
    o.force = u.force;
    progress_state ps = {"remove-orphans", now_s(), 0, 0};
    o.progress = on_progress;
    o.progress_ctx = &ps;
    sc_orphans_result r;
    rc = sc_table_remove_orphans(&r, t, &o);
    progress_end(&ps);
    sc_table_free(t);
    if (rc) return cli_fail("remove-orphans", rc);
    uint64_t deleted = r.data_files_deleted + r.manifests_deleted + r.index_files_deleted + r.other_deleted;
    if (u.json) {
        print_json(json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "dryRun", u.dry_run, "objectsListed",
                             (json_int_t)r.objects_listed, "orphansFound", (json_int_t)r.orphans_found, "tooYoung",
                             (json_int_t)r.too_young, "dataFilesDeleted", (json_int_t)r.data_files_deleted,
                             "manifestsDeleted", (json_int_t)r.manifests_deleted, "indexFilesDeleted",
                             (json_int_t)r.index_files_deleted, "otherDeleted", (json_int_t)r.other_deleted,
                             "bytesDeleted", (json_int_t)r.bytes_deleted));
        return EXIT_OK;
    }
    printf("%s %" PRIu64 " orphans (%" PRIu64 " data files, %" PRIu64 " manifests, %" PRIu64 " index files, %" PRIu64
           " other), %" PRIu64 " bytes; %" PRIu64 " objects listed, %" PRIu64 " unreferenced but too young\n",
           u.dry_run ? "would delete" : "deleted", deleted, r.data_files_deleted, r.manifests_deleted,
           r.index_files_deleted, r.other_deleted, r.bytes_deleted, r.objects_listed, r.too_young);
    return EXIT_OK;
}
