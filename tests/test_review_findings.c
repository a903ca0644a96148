/*
 * Reproductions of bugs found in review of the native core. Every test here
 * failed against the code as reviewed and passes since the fix; each names
 * the defect (lines as they were then) and the schedule or input.
 */
#include <jansson.h>
#include <stdint.h>

#include "sc_test_util.h"

#include "format/snapshot.h"

/* A file entry with an explicit row count (tu_file computes size = rows * 100). */
static sc_file_entry rows_file(const char *file, int64_t rows) {
    sc_file_entry e = {tu_bytes("p"), 0, 1, 0, file, rows, 1, {NULL, 0}, {NULL, 0}};
    return e;
}

/*
 * BUG commit.c:196-197 (build_snapshot): the record counts are summed in
 * int64_t without an overflow check (signed overflow, UB). Rows up to
 * INT64_MAX are accepted per file (sc_file_entry_validate, the CLI's JSON),
 * so two ordinary commits wrap totalRecordCount negative. The snapshot is
 * still claimed, but sc_snapshot_decode rejects a negative totalRecordCount
 * ("is out of range"): the latest snapshot is unreadable and every later
 * commit, log, files and fsck fails with SC_ECORRUPT until someone deletes
 * the snapshot by hand. Same for one commit whose adds sum past INT64_MAX.
 * The engine must refuse (SC_EINVAL/SC_ELIMIT) before claiming, never write a
 * snapshot it cannot read back.
 */
Test(review, record_count_overflow_must_not_brick_the_table) {
    sc_table *t = tu_mem_table("rv-overflow");
    sc_file_entry big = rows_file("data/big", INT64_MAX);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &big, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_file_entry one = rows_file("data/one", 1);
    int rc = tu_commit(NULL, t, "u", 2, SC_KIND_APPEND, 0, &one, 1, NULL, 0);
    cr_assert_eq(rc, SC_EINVAL, "a commit whose record count would overflow is refused: %s", sc_error_name(rc));
    uint64_t latest = tu_latest(t);
    sc_snapshot_info *info = NULL;
    int read = sc_table_snapshot_info(&info, t, latest);
    cr_assert_eq(read, 0, "commit returned %s, and now the latest snapshot %lu is unreadable: %s", sc_error_name(rc),
                 (unsigned long)latest, sc_error_message());
    sc_snapshot_info_free(info);
    /* The table stays usable: removing the huge file makes room again. */
    sc_file_entry next = rows_file("data/next", 1);
    cr_assert_eq(tu_commit(NULL, t, "u", 3, SC_KIND_COMPACT, 0, &next, 1, &big, 1), 0,
                 "later commits must still work: %s", sc_error_message());
    sc_table_free(t);
}

/*
 * BUG commit.c:212-222 (validate_request) / snapshot.c:142-153: a commit user
 * that is not valid UTF-8 (JNI passes raw bytes; the CLI takes argv as is) is
 * accepted, the delta and base manifests are written, and then json_pack
 * refuses the string: sc_snapshot_encode reports SC_ENOMEM "out of memory
 * building JSON". An on-call engineer is sent hunting a memory problem; the
 * caller's input is at fault. Should be SC_EINVAL naming the commit user,
 * before anything is written.
 */
Test(review, non_utf8_commit_user_is_reported_as_out_of_memory) {
    sc_table *t = tu_mem_table("rv-utf8");
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    sc_commit_result r;
    int rc = tu_commit(&r, t, "job-\xff\xfe", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    cr_assert_eq(rc, SC_EINVAL, "got %s: %s", sc_error_name(rc), sc_error_message());
    cr_assert_eq(r.stats.ops[SC_OP_PUT], 0, "an invalid request must be rejected before writing");
    sc_table_free(t);
}

/*
 * BUG strategy_file.c:64 and :84 (scan_ids): the LIST continuation key is
 * copied into a 64-byte buffer with snprintf, silently truncating any key of
 * 64 bytes or more. The truncated key sorts before the real one, so the next
 * page starts with the same key again. With want_lowest (max_keys = 1, used by
 * file_earliest when snapshot/EARLIEST is missing) a long non-snapshot key
 * that sorts first under "snapshot/snapshot-" makes the loop re-list the same
 * key forever: `snapcommit log` hangs. (On S3 any stray object such as
 * "snapshot/snapshot-0-backup-…" does it.) Keep the whole key (heap copy, or a
 * buffer of SC_STORE_KEY_MAX + 1).
 */
Test(review, earliest_discovery_loops_forever_on_a_long_stray_key, .timeout = 10) {
    sc_table *t = tu_mem_table("rv-scan");
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_store *s = sc_table_store(t);
    /* '-' sorts before '0': this key comes first under the prefix. 80 bytes long. */
    const char *stray = "snapshot/snapshot-0-copied-by-an-operator-before-a-restore-not-a-snapshot-xyz";
    cr_assert_geq(strlen(stray), 64);
    cr_assert_eq(sc_store_put(s, NULL, stray, (const uint8_t *)"x", 1), 0, "%s", sc_error_message());
    cr_assert_eq(sc_store_delete(s, "snapshot/EARLIEST"), 0, "%s", sc_error_message());
    uint64_t earliest = 0;
    cr_assert_eq(sc_table_earliest_id(&earliest, t), 0, "%s", sc_error_message()); /* hangs today */
    cr_assert_eq(earliest, 1);
    sc_table_free(t);
}

/* Claims of snapshot/…: the first is lost in flight (unknown), the second fails for sure. */
static int unknown_then_eio(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    int *n = ctx;
    (void)call;
    if (op != SC_OP_PUT_IF_ABSENT || strncmp(key, "snapshot/snapshot-", 18) != 0) return 0;
    return (*n)++ == 0 ? SC_EUNKNOWN : SC_EIO;
}

/*
 * BUG commit.c:379: when a claim fails with a definite error (SC_EIO, …) after
 * an earlier claim of the same call had an unknown outcome, the engine
 * correctly returns SC_EUNKNOWN but leaves the thread's message (and
 * internal code) of the I/O error: sc_error_message() says "…failed with
 * SC_EIO", so the CLI prints an I/O failure with the SC_EUNKNOWN code and the
 * operator concludes nothing was committed. The fail: path (line 408) wraps
 * the message ("an earlier claim of snapshot N is unreconciled"); this return
 * does not. Wrap it the same way.
 */
Test(review, unknown_outcome_is_reported_with_an_io_error_message) {
    sc_table *t = tu_mem_table("rv-unknown-msg");
    int n = 0;
    sc_store_set_fault_hook(sc_table_store(t), unknown_then_eio, &n);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    int rc = tu_commit(NULL, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    cr_assert_eq(rc, SC_EUNKNOWN, "%s", sc_error_name(rc));
    const char *m = sc_error_message();
    cr_assert(strstr(m, "unreconciled") || strstr(m, "unknown"),
              "SC_EUNKNOWN returned, but the message describes another failure: %s", m);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    sc_table_free(t);
}

static int claims_unknown(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx, (void)call;
    return op == SC_OP_PUT_IF_ABSENT && strncmp(key, "snapshot/snapshot-", 18) == 0 ? SC_EUNKNOWN : 0;
}

/*
 * BUG commit.c:391-393: when the timeout ends a commit whose claim is still
 * undecided, the code is SC_EUNKNOWN but the message is the plain timeout
 * text "commit timeout of … ms exceeded after N attempts" — the one that
 * docs/protocols.md says means "nothing was committed". The retries path
 * (line 383) has a dedicated unknown-outcome message naming the snapshot; the
 * timeout path must too.
 */
Test(review, unknown_outcome_at_timeout_reads_like_a_plain_timeout) {
    sc_table *t = tu_mem_table("rv-unknown-timeout");
    sc_retry_policy p = {1000, 20, 20, 30};
    sc_table_set_retry_policy(t, &p);
    sc_store_set_fault_hook(sc_table_store(t), claims_unknown, NULL);
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/f", 1, NULL, NULL);
    int rc = tu_commit(NULL, t, "me", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0);
    cr_assert_eq(rc, SC_EUNKNOWN, "%s", sc_error_name(rc));
    const char *m = sc_error_message();
    cr_assert(strstr(m, "snapshot 1") && (strstr(m, "unknown") || strstr(m, "reconcil")),
              "SC_EUNKNOWN returned with a message that does not say the claim of snapshot 1 is undecided: %s", m);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    sc_table_free(t);
}

static long alloc_calls, alloc_fail_at = -1;
static void *failing_malloc(size_t n) {
    if (alloc_calls++ == alloc_fail_at) return NULL;
    return malloc(n);
}

/*
 * BUG snapshot.c:135-139 (sc_snapshot_encode): the result of
 * json_array_append_new(wm, json_pack(...)) is ignored. When one watermark's
 * json_pack (or the array's growth) fails for lack of memory, that user's
 * watermark is silently left out and the snapshot is encoded — and claimed —
 * without it. From then on that user's replays are no longer filtered: a
 * Flink failover re-commits checkpoints that are already in the table
 * (exactly-once broken). Check every append and fail with SC_ENOMEM.
 */
Test(review, out_of_memory_never_drops_a_watermark) {
    sc_snapshot s = {0};
    s.id = 5;
    strcpy(s.table_uuid, "00000000-0000-4000-8000-000000000001");
    strcpy(s.commit_uuid, "00000000-0000-4000-8000-000000000002");
    s.commit_user = "c";
    s.commit_identifier = 9;
    s.commit_kind = SC_KIND_APPEND;
    s.has_parent = 1;
    s.base_manifest_list.name = "manifest/manifest-list-a";
    s.delta_manifest_list.name = "manifest/manifest-list-b";
    sc_watermark w[3] = {{"a", 1, 2}, {"b", 2, 3}, {"c", 9, 5}};
    s.watermarks = w;
    s.watermark_count = 3;
    json_set_alloc_funcs(failing_malloc, free);
    int completed = 0;
    for (long fail = 0; fail < 2000 && !completed; fail++) {
        alloc_calls = 0;
        alloc_fail_at = fail;
        sc_buf out = SC_BUF_INIT;
        int rc = sc_snapshot_encode(&out, &s);
        alloc_fail_at = -1;
        completed = alloc_calls <= fail; /* no allocation failed: every one has been tried */
        if (rc == 0) {
            sc_snapshot d;
            cr_assert_eq(sc_snapshot_decode(&d, out.data, out.len, "encoded"), 0, "%s", sc_error_message());
            cr_assert_eq(d.watermark_count, 3,
                         "allocation %ld failed, yet the snapshot was encoded with %zu of 3 watermarks", fail,
                         d.watermark_count);
            sc_snapshot_clear(&d);
        }
        sc_buf_free(&out);
    }
    json_set_alloc_funcs(malloc, free);
    cr_assert(completed);
}

/* Before our first claim, another writer moves data/y up two levels in two commits. */
static int two_level_moves(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    int *fired = ctx;
    (void)call;
    if (op != SC_OP_PUT_IF_ABSENT || strncmp(key, "snapshot/snapshot-", 18) != 0 || (*fired)++) return 0;
    sc_table *other = tu_reopen("rv-lsm-stale");
    sc_file_entry y0 = tu_file("p", 0, 1, 0, "data/y", 1, "a", "c");
    sc_file_entry y1 = tu_file("p", 0, 1, 1, "data/y", 1, "a", "c");
    sc_file_entry y2 = tu_file("p", 0, 1, 2, "data/y", 1, "a", "c");
    cr_assert_eq(tu_commit(NULL, other, "mover", 1, SC_KIND_COMPACT, 0, &y1, 1, &y0, 1), 0, "%s", sc_error_message());
    cr_assert_eq(tu_commit(NULL, other, "mover", 2, SC_KIND_COMPACT, 0, &y2, 1, &y1, 1), 0, "%s", sc_error_message());
    sc_table_free(other);
    return 0;
}

/*
 * BUG conflict.c:265-273 (sc_conflict_check_since, and check_buckets at :263):
 * the incremental check after a lost claim takes as "their surviving adds"
 * every ADD record whose file identity (partition, bucket, name — no level)
 * is still in their_added, so a file added or moved more than once in the
 * snapshots since contributes each of its stale records. Here data/y went
 * level 0 → 1 → 2 in two snapshots; level 1 is empty at the latest snapshot,
 * yet the stale "ADD data/y@1" record makes our level-1 file a reported "LSM
 * conflict" — a non-retried SC_ECONFLICT for a commit the full check accepts.
 * (Bucket counts: the same with a partition overwritten 2 → 4 → 2 buckets.)
 * Keep, per identity, only the last ADD record (store the record index as the
 * fileset value and use it).
 */
Test(review, stale_records_of_a_twice_moved_file_cause_a_false_lsm_conflict) {
    sc_table *t = tu_mem_table("rv-lsm-stale");
    sc_file_entry y0 = tu_file("p", 0, 1, 0, "data/y", 1, "a", "c");
    cr_assert_eq(tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, &y0, 1, NULL, 0), 0, "%s", sc_error_message());
    int fired = 0;
    sc_store_set_fault_hook(sc_table_store(t), two_level_moves, &fired);
    sc_file_entry z1 = tu_file("p", 0, 1, 1, "data/z", 1, "b", "b");
    sc_commit_result r;
    int rc = tu_commit(&r, t, "me", 1, SC_KIND_COMPACT, 0, &z1, 1, NULL, 0);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(fired, 2, "one lost claim (the mover committed twice meanwhile), then the retry");
    cr_assert_eq(rc, 0, "level 1 holds nothing but data/z at snapshot 3, yet: %s: %s", sc_error_name(rc),
                 sc_error_message());
    cr_assert_eq(r.snapshot_id, 4);
    sc_table_free(t);
}
