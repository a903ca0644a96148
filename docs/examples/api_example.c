/*
 * api_example — the C API of snapcommit in one small program (docs/api.md).
 *
 * Creates a Paimon table in DIR (default: a new directory under /tmp) with a
 * schema partitioned by dt, commits two checkpoints of a streaming job (their
 * files described as change-set JSON, parsed against the table's schema),
 * shows that replaying checkpoint 2 is filtered (SC_ECOMMITTED, nothing
 * written), prints the snapshot log and the live files with their paths,
 * verifies the table with fsck, and frees everything.
 *
 *   api_example [DIR]
 *
 * Exit status 0 on success, 1 on any unexpected result.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkdtemp() under -std=c11 */
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapcommit/snapcommit.h"

/* Print a failed call with the library's code name and detailed message. */
static int report(const char *what, int rc) {
    fprintf(stderr, "api_example: %s: %s (%s)\n", what, sc_error_message(), sc_error_name(rc));
    return rc;
}

/* Library log lines (lost claims, hint failures, ...) go to stderr. */
static void log_line(void *ctx, sc_log_level level, const char *message) {
    static const char *const names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    (void)ctx;
    fprintf(stderr, "[snapcommit %s] %s\n", names[level], message);
}

/*
 * The table's schema (Paimon's, or this short form): an append table partitioned
 * by dt, bucket-unaware (Paimon's default bucket = -1). Stored as schema/schema-0.
 */
static const char schema[] =
    "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"order_id\",\"type\":\"BIGINT\"},"
    "{\"name\":\"amount\",\"type\":\"DECIMAL(10, 2)\"}],\"partitionKeys\":[\"dt\"],\"primaryKeys\":[],\"options\":{}}";

/*
 * Commit the files written during one checkpoint, all in partition dt=2026-11-29,
 * bucket 0 (a bucket-unaware table writes bucket 0; totalBuckets is the table's).
 * The change-set JSON is the CLI's: partitions are Hive-style specs of the
 * schema's partition keys, and the library encodes them as Paimon's BinaryRows.
 * A file is named alone: it lives at dt=2026-11-29/bucket-0/<file>.
 * Returns the library's code.
 */
static int commit_checkpoint(sc_table *table, const char *user, int64_t checkpoint, const char *const *files,
                             size_t count, sc_commit_result *res) {
    char json[1024];
    size_t len = (size_t)snprintf(json, sizeof json, "{\"add\":[");
    for (size_t i = 0; i < count && len < sizeof json; i++)
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"partition\":\"dt=2026-11-29\",\"bucket\":0,\"level\":0,\"file\":\"%s\","
                                "\"rows\":%" PRId64 ",\"size\":%" PRId64 "}",
                                i ? "," : "", files[i], 100 * checkpoint, 6400 * checkpoint);
    if (len < sizeof json) len += (size_t)snprintf(json + len, sizeof json - len, "]}");
    if (len >= sizeof json) {
        fprintf(stderr, "api_example: change set too long\n");
        return SC_EINVAL;
    }
    sc_changes *changes = NULL;
    int rc = sc_table_parse_changes(&changes, table, json, len); /* checked against the schema */
    if (rc == 0) {
        sc_commit_request req;
        memset(&req, 0, sizeof req);
        req.commit_user = user;        /* stable across restarts of the job */
        req.identifier = checkpoint;   /* strictly increasing per user */
        req.kind = SC_KIND_APPEND;
        req.base_snapshot = 0;         /* unknown: check conflicts against the latest state */
        req.changes = changes;
        rc = sc_table_commit(res, table, &req);
    }
    sc_changes_free(changes);
    return rc;
}

static void print_log(sc_table *table) {
    uint64_t first = 0, last = 0;
    int rc = sc_table_earliest_id(&first, table);
    if (rc == 0) rc = sc_table_latest_id(&last, table);
    if (rc != 0) {
        report("finding the snapshot range", rc);
        return;
    }
    printf("snapshot log (%" PRIu64 "..%" PRIu64 "):\n", first, last);
    for (uint64_t id = first; first != 0 && id <= last; id++) {
        sc_snapshot_info *info = NULL;
        rc = sc_table_snapshot_info(&info, table, id);
        if (rc != 0) {
            report("reading a snapshot", rc);
            return;
        }
        printf("  #%" PRIu64 " %-6s user=%s identifier=%" PRId64 " records=%" PRId64 " files=%" PRIu64
               " parent=%.12s%s\n",
               info->id, sc_commit_kind_name(info->commit_kind), info->commit_user, info->commit_identifier,
               info->total_record_count, info->file_count, info->parent_hash[0] ? info->parent_hash : "(none)",
               info->parent_hash[0] ? "..." : "");
        sc_snapshot_info_free(info);
    }
}

int main(int argc, char **argv) {
    char tmp[] = "/tmp/snapcommit-example.XXXXXX";
    const char *dir = argc > 1 ? argv[1] : mkdtemp(tmp);
    if (!dir) {
        perror("api_example: mkdtemp");
        return 1;
    }
    sc_log_set_handler(log_line, NULL); /* process-wide; set before committing */

    sc_store *store = NULL;
    sc_table *table = NULL;
    int ok = 0, rc;
    if ((rc = sc_store_open(&store, dir)) != 0) {
        report("opening the store", rc);
        goto done;
    }
    /* AUTO picks the claim strategy from the store's capabilities: rename on posix.
     * (sc_table_create, without a schema, makes an unpartitioned bucket-unaware table
     * without fields, or adopts the Paimon table already at the location.) */
    if ((rc = sc_table_create_with_schema(store, SC_STRATEGY_AUTO, schema, strlen(schema))) != 0) {
        report("creating the table", rc); /* SC_ETABLEEXISTS when DIR already holds one */
        goto done;
    }
    if ((rc = sc_table_open(&table, store)) != 0) { /* the store is borrowed */
        report("opening the table", rc);
        goto done;
    }
    printf("table %s at %s, strategy %s\n", sc_table_uuid(table), dir, sc_strategy_name(sc_table_strategy(table)));

    sc_retry_policy policy;
    sc_retry_policy_default(&policy); /* no count limit, 10 ms .. 10 s, a 60 s budget */
    policy.timeout_ms = 30000;        /* give up on lost claims after 30 s */
    sc_table_set_retry_policy(table, &policy);

    /* Two checkpoints of job "orders-job". */
    static const char *const cp1[] = {"data-orders-1-a.parquet", "data-orders-1-b.parquet"};
    static const char *const cp2[] = {"data-orders-2-a.parquet"};
    sc_commit_result res;
    if ((rc = commit_checkpoint(table, "orders-job", 1, cp1, 2, &res)) != 0) {
        report("committing checkpoint 1", rc);
        goto done;
    }
    printf("checkpoint 1 -> snapshot %" PRIu64 " (%d attempt(s), %" PRIu64 " puts, %" PRIu64 " gets)\n",
           res.snapshot_id, res.attempts, res.stats.ops[SC_OP_PUT] + res.stats.ops[SC_OP_PUT_IF_ABSENT],
           res.stats.ops[SC_OP_GET]);
    if ((rc = commit_checkpoint(table, "orders-job", 2, cp2, 1, &res)) != 0) {
        report("committing checkpoint 2", rc);
        goto done;
    }
    printf("checkpoint 2 -> snapshot %" PRIu64 "\n", res.snapshot_id);

    /* After a failover the job replays checkpoint 2: filtered, nothing written. */
    rc = commit_checkpoint(table, "orders-job", 2, cp2, 1, &res);
    if (rc != SC_ECOMMITTED) {
        fprintf(stderr, "api_example: replay returned %s, expected SC_ECOMMITTED\n", sc_error_name(rc));
        goto done;
    }
    printf("replay of checkpoint 2: %s, already in snapshot %" PRIu64 "\n", sc_error_name(rc),
           res.existing_snapshot);

    /* The same answer without building a change set: one read of the latest snapshot. */
    const int64_t pending[] = {1, 2, 3};
    int64_t keep[3];
    size_t kept = 0;
    if ((rc = sc_table_filter_committed(keep, &kept, table, "orders-job", pending, 3)) != 0) {
        report("filtering checkpoints", rc);
        goto done;
    }
    int64_t last = -1;
    int found = 0;
    if ((rc = sc_table_last_committed(&last, &found, table, "orders-job")) != 0) {
        report("reading the watermark", rc);
        goto done;
    }
    printf("last committed checkpoint: %" PRId64 "; of {1,2,3} still to commit: %zu%s", found ? last : -1,
           kept, kept ? " (" : "\n");
    for (size_t i = 0; i < kept; i++) printf("%" PRId64 "%s", keep[i], i + 1 < kept ? ", " : ")\n");

    print_log(table);

    sc_file_list *files = NULL;
    if ((rc = sc_table_files(&files, table, 0)) != 0) { /* 0 = latest snapshot */
        report("listing live files", rc);
        goto done;
    }
    printf("live files:\n");
    for (size_t i = 0; rc == 0 && i < files->count; i++) {
        /* Partitions are BinaryRows: the table turns them into specs and paths. */
        char *spec = NULL, *path = NULL;
        if ((rc = sc_table_partition_spec(&spec, table, files->entries[i].partition)) == 0 &&
            (rc = sc_table_file_path(&path, table, &files->entries[i])) == 0)
            printf("  %s bucket %d: %s (%" PRId64 " rows) at %s\n", spec, files->entries[i].bucket,
                   files->entries[i].file, files->entries[i].rows, path);
        free(spec);
        free(path);
    }
    sc_file_list_free(files);
    if (rc != 0) {
        report("describing a live file", rc);
        goto done;
    }

    if ((rc = sc_table_fsck(table, NULL, NULL)) != 0) {
        report("fsck", rc);
        goto done;
    }
    printf("fsck: ok\n");
    ok = 1;

done:
    sc_table_free(table); /* NULL is fine; the borrowed store stays open */
    sc_store_free(store);
    sc_log_set_handler(NULL, NULL);
    return ok ? 0 : 1;
}
