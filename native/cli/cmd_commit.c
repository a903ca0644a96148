/* CLI: snapcommit commit — publish one snapshot from a changes file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char help[] =
    "usage: snapcommit commit TABLE --user U --identifier N --changes FILE\n"
    "                         [--kind append|compact|overwrite] [--base-snapshot S]\n"
    "                         [--max-retries N] [--min-retry-wait-ms MS] [--max-retry-wait-ms MS]\n"
    "                         [--timeout-ms MS] [--stats] [--json]\n"
    "Publish the changes in FILE ('-' reads stdin) as the next snapshot, exactly once.\n"
    "FILE holds {\"add\":[ENTRY...],\"delete\":[ENTRY...]}, ENTRY = {\"partition\":\"dt=1\",\n"
    "\"bucket\":0,\"totalBuckets\":4,\"level\":0,\"file\":\"data/f1\",\"rows\":10,\"size\":100,\n"
    "\"minKey\":\"a\",\"maxKey\":\"k\"} (totalBuckets, minKey, maxKey optional).\n"
    "The checkpoint form adds \"changelog\":[ENTRY...], \"index\":{\"add\":[INDEX...],\"delete\":[...]},\n"
    "\"compact\":{\"add\",\"delete\",\"changelog\",\"index\"} (the compact part) and \"watermark\":N\n"
    "(docs/format.md section 8): then the append part and the compact part are committed as two\n"
    "snapshots of the same identifier (Paimon's checkpoint commit; the append part is labelled\n"
    "OVERWRITE when it deletes a data file or touches deletion vectors), and both ids are printed\n"
    "(\"APPEND_ID COMPACT_ID\", 0 for a part that wrote nothing; --json: snapshot, kind, compactSnapshot).\n"
    "Prints the new snapshot id. --stats adds the storage requests spent, and those of the claim\n"
    "window (from reading the latest snapshot to the claim's answer), to stderr or in --json.\n"
    "Lost claims are retried until --timeout-ms (default 60000) would be exceeded; --max-retries N\n"
    "bounds their count as well.\n"
    "Exit: 0 committed, 3 already committed (nothing written), 4 conflict, 5 retries exhausted\n"
    "or timeout, 2 bad usage or input, 1 other errors.\n";


int cmd_commit(int argc, char **argv) {
    static const struct option opts[] = {
        {"user", required_argument, NULL, 'u'},         {"identifier", required_argument, NULL, 'i'},
        {"kind", required_argument, NULL, 'k'},         {"base-snapshot", required_argument, NULL, 'b'},
        {"changes", required_argument, NULL, 'c'},      {"max-retries", required_argument, NULL, 'r'},
        {"min-retry-wait-ms", required_argument, NULL, 'm'}, {"max-retry-wait-ms", required_argument, NULL, 'M'},
        {"timeout-ms", required_argument, NULL, 't'},   {"stats", no_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},               {"help", no_argument, NULL, 'h'},
        {0}};
    const char *user = NULL, *changes_path = NULL, *identifier_text = NULL;
    unsigned long long identifier = 0, base = 0, value;
    sc_commit_kind kind = SC_KIND_APPEND;
    int stats = 0, as_json = 0, kind_given = 0;
    sc_retry_policy policy;
    sc_retry_policy_default(&policy);
    optind = 1;
    opterr = 0;
    int opt, index = -1;
    /* ':' first: a missing value is reported as ':' so the message can name the flag. */
    while ((index = -1, opt = getopt_long(argc, argv, ":h", opts, &index)) != -1) {
        switch (opt) {
        case 'h': fputs(help, stdout); return EXIT_OK;
        case 'u': user = optarg; break;
        case 'i': identifier_text = optarg; break;
        case 'c': changes_path = optarg; break;
        case 's': stats = 1; break;
        case 'j': as_json = 1; break;
        case 'k':
            kind_given = 1;
            if (sc_commit_kind_parse(&kind, optarg) != 0)
                return cli_usage_error("commit", "unknown kind \"%s\" (append, compact, overwrite)", optarg);
            break;
        case 'b':
            if (cli_parse_u64(optarg, &base) != 0) return cli_usage_error("commit", "--base-snapshot needs a snapshot id, got \"%s\"", optarg);
            break;
        case 'r': case 'm': case 'M': case 't':
            if (cli_parse_u64(optarg, &value) != 0 || value > INT32_MAX)
                return cli_usage_error("commit", "--%s needs a number from 0 to %d, got \"%s\"",
                                       index >= 0 ? opts[index].name : "?", INT32_MAX, optarg);
            if (opt == 'r') policy.max_retries = (int)value;
            else if (opt == 'm') policy.min_wait_ms = (int64_t)value;
            else if (opt == 'M') policy.max_wait_ms = (int64_t)value;
            else policy.timeout_ms = (int64_t)value;
            break;
        default: return cli_option_error("commit", opt, opts, argv);
        }
    }
    if (optind >= argc) return cli_usage_error("commit", "TABLE is required");
    if (optind + 1 < argc) return cli_usage_error("commit", "unexpected argument \"%s\"", argv[optind + 1]);
    const char *location = argv[optind];
    if (!user || !*user) return cli_usage_error("commit", "--user is required");
    if (!identifier_text) return cli_usage_error("commit", "--identifier is required");
    if (cli_parse_u64(identifier_text, &identifier) != 0 || identifier > INT64_MAX)
        return cli_usage_error("commit", "--identifier needs a non-negative integer, got \"%s\"", identifier_text);
    if (!changes_path) return cli_usage_error("commit", "--changes is required ('-' for stdin)");

    char *text = NULL;
    size_t len = 0;
    int rc = cli_read_input(&text, &len, "commit", "--changes", changes_path, SC_CHANGES_MAX_JSON_BYTES, "change-set", "64 MiB");
    if (rc) return rc;
    /* The table first: its schema says what a partition spec and a key mean. */
    sc_table *t;
    if ((rc = cli_open_table(&t, "commit", location)) != 0) {
        free(text);
        return rc;
    }
    sc_changes *changes = NULL, *compact = NULL;
    int has_watermark = 0;
    int64_t watermark = 0;
    sc_overwrite_scope overwrite = SC_OVERWRITE_NONE;
    char *overwrite_partition = NULL;
    rc = sc_table_parse_checkpoint_request(&changes, &compact, &has_watermark, &watermark, &overwrite,
                                           &overwrite_partition, t, text, len);
    free(text);
    if (rc) {
        /* Everything the parser refuses is bad input (exit 2), the size limit included. */
        int code = cli_fail("commit", rc);
        sc_table_free(t);
        return rc == SC_ENOMEM ? code : EXIT_USAGE;
    }
    /* Any section only a checkpoint has makes it one (two snapshots, Paimon's labels). */
    int is_checkpoint = has_watermark || overwrite != SC_OVERWRITE_NONE || sc_changes_changelog_count(changes) || sc_changes_index_add_count(changes) ||
                        sc_changes_index_delete_count(changes) || sc_changes_add_count(compact) ||
                        sc_changes_delete_count(compact) || sc_changes_changelog_count(compact) ||
                        sc_changes_index_add_count(compact) || sc_changes_index_delete_count(compact);
    if (is_checkpoint && kind_given) {
        sc_table_free(t);
        sc_changes_free(changes);
        sc_changes_free(compact);
        free(overwrite_partition);
        return cli_usage_error("commit", "--kind applies to a plain change set; a checkpoint (changelog, index, compact, "
                                         "watermark or overwrite given) commits its append part and its compact part");
    }
    sc_table_set_retry_policy(t, &policy);
    sc_commit_result res;
    sc_checkpoint_result cp;
    memset(&cp, 0, sizeof cp);
    if (is_checkpoint) {
        sc_checkpoint_request req = {user, (int64_t)identifier, base, has_watermark, watermark, changes, compact,
                                     overwrite, overwrite_partition};
        rc = sc_table_commit_checkpoint(&cp, t, &req);
        /* One result for the counts: both parts' together. */
        res = cp.append;
        res.snapshot_id = cp.append.snapshot_id;
        res.existing_snapshot = cp.append.existing_snapshot ? cp.append.existing_snapshot : cp.compact.existing_snapshot;
        res.attempts += cp.compact.attempts;
        res.lost_claims += cp.compact.lost_claims;
        res.unknown_outcomes += cp.compact.unknown_outcomes;
        res.elapsed_ms += cp.compact.elapsed_ms;
        for (int op = 0; op < SC_OP_COUNT; op++) {
            res.stats.ops[op] += cp.compact.stats.ops[op];
            res.window_stats.ops[op] += cp.compact.window_stats.ops[op];
        }
        res.stats.bytes_read += cp.compact.stats.bytes_read;
        res.stats.bytes_written += cp.compact.stats.bytes_written;
        res.round_trips += cp.compact.round_trips;
    } else {
        sc_commit_request req = {user, (int64_t)identifier, kind, base, changes};
        rc = sc_table_commit(&res, t, &req);
    }
    if (as_json) {
        json_t *o = json_pack("{s:s, s:I, s:i, s:i, s:i, s:I}", "result", rc ? sc_error_name(rc) : "SC_OK",
                              "snapshot", (json_int_t)(rc && !res.snapshot_id ? res.existing_snapshot : res.snapshot_id),
                              "attempts", res.attempts, "lostClaims", res.lost_claims,
                              "unknownOutcomes", res.unknown_outcomes, "elapsedMs", (json_int_t)res.elapsed_ms);
        if (is_checkpoint) {
            json_object_set_new(o, "kind", json_string(sc_commit_kind_name(cp.append_kind)));
            json_object_set_new(o, "compactSnapshot", json_integer((json_int_t)cp.compact.snapshot_id));
        }
        if (stats) {
            json_t *s = json_object();
            for (int op = 0; op < SC_OP_COUNT; op++)
                json_object_set_new(s, sc_store_op_name((sc_store_op)op), json_integer((json_int_t)res.stats.ops[op]));
            json_object_set_new(s, "bytesRead", json_integer((json_int_t)res.stats.bytes_read));
            json_object_set_new(s, "bytesWritten", json_integer((json_int_t)res.stats.bytes_written));
            json_object_set_new(s, "roundTrips", json_integer((json_int_t)res.round_trips));
            json_object_set_new(o, "stats", s);
            json_t *w = json_object(); /* the claim window of the attempt that won */
            for (int op = 0; op < SC_OP_COUNT; op++)
                json_object_set_new(w, sc_store_op_name((sc_store_op)op), json_integer((json_int_t)res.window_stats.ops[op]));
            json_object_set_new(o, "window", w);
        }
        if (rc) json_object_set_new(o, "message", json_string(sc_error_message()));
        json_dumpf(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII);
        putchar('\n');
        json_decref(o);
    } else if (!rc && is_checkpoint) {
        printf("%" PRIu64 " %" PRIu64 "\n", cp.append.snapshot_id, cp.compact.snapshot_id);
    } else if (!rc) {
        printf("%" PRIu64 "\n", res.snapshot_id);
    } else if (is_checkpoint && cp.append.snapshot_id) {
        /* The append part landed, the compact part failed: say what is in the table. */
        fprintf(stderr, "snapcommit commit: the append part landed as snapshot %" PRIu64 "; the compact part failed\n",
                cp.append.snapshot_id);
    }
    if (stats && !as_json) {
        fprintf(stderr, "stats: attempts=%d lost_claims=%d unknown_outcomes=%d elapsed_ms=%" PRId64, res.attempts,
                res.lost_claims, res.unknown_outcomes, res.elapsed_ms);
        for (int op = 0; op < SC_OP_COUNT; op++)
            fprintf(stderr, " %s=%" PRIu64, sc_store_op_name((sc_store_op)op), res.stats.ops[op]);
        fprintf(stderr, " bytes_read=%" PRIu64 " bytes_written=%" PRIu64 " round_trips=%" PRIu64, res.stats.bytes_read,
                res.stats.bytes_written, res.round_trips);
        uint64_t window = 0;
        for (int op = 0; op < SC_OP_COUNT; op++) window += res.window_stats.ops[op];
        fprintf(stderr, " window=%" PRIu64 "\n", window);
    }
    int code = rc ? cli_fail("commit", rc) : EXIT_OK;
    sc_table_free(t);
    sc_changes_free(changes);
    free(overwrite_partition);
    sc_changes_free(compact);
    return code;
}
