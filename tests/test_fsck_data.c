/*
 * fsck's data pass (engine/fsck_data.c, sc_table_check_data_files): every
 * data file and extra file a retained snapshot names is in storage. A missing
 * one is SC_ECORRUPT naming its key and the snapshot; files of expired
 * snapshots and objects nothing names are not its business; an expiration
 * moving EARLIEST under a pass starts it again, three times at most.
 */
#include "sc_test_util.h"
#include "sc_test_assert.h"

#include <inttypes.h>

#include "snapcommit/upkeep.h"

/*
 * Snapshot 1 adds data/keep (never deleted) and data/f1; snapshot i > 1 adds data/f<i> and,
 * as a compaction, deletes data/f<i-1>. Every file is written to the store first.
 */
static sc_table *chain_table(const char *name, int n) {
    sc_table *t = tu_mem_table(name);
    tu_put_data(t, "data/keep");
    sc_file_entry keep = tu_file("p", 0, 0, 0, "data/keep", 1, NULL, NULL);
    for (int i = 1; i <= n; i++) {
        char add[32], del[32];
        snprintf(add, sizeof add, "data/f%d", i);
        snprintf(del, sizeof del, "data/f%d", i - 1);
        tu_put_data(t, add);
        sc_file_entry adds[2] = {tu_file("p", 0, 0, 0, add, 1, NULL, NULL), keep};
        sc_file_entry d = tu_file("p", 0, 0, 0, del, 1, NULL, NULL);
        int rc = tu_commit(NULL, t, "job", i, i > 1 ? SC_KIND_COMPACT : SC_KIND_APPEND, 0, adds, i > 1 ? 1 : 2, &d,
                           i > 1);
        cr_assert_eq(rc, 0, "commit %d: %s", i, sc_error_message());
    }
    return t;
}

/* Expire through another handle so that exactly `keep` snapshots remain. */
static void expire_to(const char *name, uint64_t keep) {
    sc_table *other = tu_reopen(name);
    sc_expire_options o;
    sc_expire_options_init(&o);
    o.retain_min = 1;
    o.retain_max = keep;
    o.older_than_ms = 3600 * 1000; /* the snapshots are seconds old: only retain_max expires them */
    o.limit = 1000;
    OK(sc_table_expire(NULL, other, &o));
    sc_table_free(other);
}

typedef struct progress_log {
    uint64_t calls, last_done, last_total;
} progress_log;

static void on_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    progress_log *p = ctx;
    cr_assert_str_eq(phase, "data files");
    p->calls++;
    p->last_done = done;
    p->last_total = total;
}

Test(fsck_data, an_empty_table_passes_with_nothing_checked) {
    sc_table *t = tu_mem_table("fd-empty");
    sc_data_check_result r;
    OK(sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert_eq(r.earliest, 0);
    cr_assert_eq(r.latest, 0);
    cr_assert_eq(r.files_checked, 0);
    sc_table_free(t);
}

/* Earliest's live files (keep, f1) and each later snapshot's added file: all present. */
Test(fsck_data, present_files_pass_and_are_counted) {
    sc_table *t = chain_table("fd-present", 4);
    sc_data_check_result r;
    progress_log p = {0};
    OK(sc_table_check_data_files(&r, t, on_progress, &p));
    cr_assert_eq(r.earliest, 1);
    cr_assert_eq(r.latest, 4);
    cr_assert_eq(r.files_checked, 5, "keep and f1 (snapshot 1), f2..f4: %" PRIu64, r.files_checked);
    cr_assert_eq(r.skipped, 0);
    cr_assert_eq(r.rechecks, 0);
    cr_assert_geq(r.objects_listed, 6, "at least the five data files and a snapshot");
    cr_assert_eq(p.calls, 4, "one progress report per snapshot");
    cr_assert_eq(p.last_done, 4);
    cr_assert_eq(p.last_total, 4);
    sc_table_free(t);
}

/* A file a later snapshot added is missing: named with its key and that snapshot. */
Test(fsck_data, a_missing_added_file_is_named_with_its_snapshot) {
    sc_table *t = chain_table("fd-missing", 4);
    tu_drop_data(t, "data/f3");
    char *k = tu_data_key(t, "data/f3");
    char want[256];
    snprintf(want, sizeof want, "%s: named by snapshot 3 (added by it) but missing from storage", k);
    free(k);
    sc_data_check_result r;
    CORRUPT(sc_table_check_data_files(&r, t, NULL, NULL), want);
    /* The metadata pass does not look at data files. */
    OK(sc_table_fsck(t, NULL, NULL));
    sc_table_free(t);
}

/* A file deleted by a later retained snapshot is still named by the one that added it. */
Test(fsck_data, a_missing_file_a_retained_snapshot_deleted_later_is_still_reported) {
    sc_table *t = chain_table("fd-deleted-later", 4);
    tu_drop_data(t, "data/f2"); /* added by 2, deleted by 3: snapshot 2 is retained */
    sc_data_check_result r;
    CORRUPT(sc_table_check_data_files(&r, t, NULL, NULL), "named by snapshot 2 (added by it)");
    sc_table_free(t);
}

/*
 * After an expiration, EARLIEST's live set names files that expired snapshots added (data/keep,
 * from snapshot 1); the files only expired snapshots named are gone and are not reported.
 */
Test(fsck_data, expired_snapshots_files_are_not_checked_but_their_live_files_are) {
    sc_table *t = chain_table("fd-expired", 5);
    expire_to("fd-expired", 2);
    sc_data_check_result r;
    OK(sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert_eq(r.earliest, 4);
    cr_assert_eq(r.latest, 5);
    cr_assert_eq(r.files_checked, 3, "keep and f4 (snapshot 4), f5: %" PRIu64, r.files_checked);
    /* data/f1..f3 are gone (expired with their snapshots) and nobody asks for them. */
    char *k = tu_data_key(t, "data/f1");
    sc_object_info info;
    FAILS(SC_ENOTFOUND, sc_store_head(sc_table_store(t), &info, k));
    free(k);
    tu_drop_data(t, "data/keep");
    CORRUPT(sc_table_check_data_files(&r, t, NULL, NULL),
            "named by snapshot 4 (a live file of the earliest retained snapshot) but missing");
    sc_table_free(t);
}

/* Objects nothing names (a stray data file, an unknown key) are remove-orphans' business. */
Test(fsck_data, extra_objects_in_storage_are_ignored) {
    sc_table *t = chain_table("fd-extra", 2);
    sc_data_check_result before, after;
    OK(sc_table_check_data_files(&before, t, NULL, NULL));
    tu_put_data(t, "data/stray");
    OK(sc_store_put(sc_table_store(t), NULL, "elsewhere/unknown", TEXT("x")));
    OK(sc_table_check_data_files(&after, t, NULL, NULL));
    cr_assert_eq(after.objects_listed, before.objects_listed + 2);
    cr_assert_eq(after.files_checked, before.files_checked);
    sc_table_free(t);
}

/* Extra files (an index next to the data file) are checked too; external paths are skipped. */
Test(fsck_data, extra_files_are_checked_and_external_paths_skipped) {
    sc_table *t = tu_mem_table("fd-extra-files");
    tu_put_data(t, "data/main");
    tu_put_data(t, "data/main.index");
    sc_file_entry f = tu_file("p", 0, 0, 0, "data/main", 1, NULL, NULL);
    const char *extras[] = {tu_name("data/main.index")};
    f.extra_files = extras;
    f.extra_file_count = 1;
    sc_file_entry ext = tu_file("p", 0, 0, 0, "data/far", 1, NULL, NULL);
    ext.external_path = "s3://other-bucket/far";
    sc_file_entry adds[] = {f, ext};
    cr_assert_eq(tu_commit(NULL, t, "job", 1, SC_KIND_APPEND, 0, adds, 2, NULL, 0), 0, "%s", sc_error_message());
    sc_data_check_result r;
    OK(sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert_eq(r.files_checked, 2, "the file and its extra file: %" PRIu64, r.files_checked);
    cr_assert_eq(r.skipped, 1, "the external file");
    tu_drop_data(t, "data/main.index");
    CORRUPT(sc_table_check_data_files(&r, t, NULL, NULL), "main.index: named by snapshot 1");
    sc_table_free(t);
}

/* A hook on the checking handle: when its pass lists the table, another handle expires. */
typedef struct expire_in_listing {
    const char *name;
    int left;      /* expirations still to run */
    uint64_t keep; /* retained by the next one (then one fewer) */
} expire_in_listing;

static int expire_when_listing(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    expire_in_listing *c = p;
    if (op != SC_OP_LIST || (key && *key) || c->left <= 0) return 0;
    c->left--;
    expire_to(c->name, c->keep--);
    return 0;
}

/* EARLIEST moves while the pass runs: what it then finds missing was expired, so it looks again. */
Test(fsck_data, an_expiration_moving_earliest_meanwhile_starts_the_pass_again) {
    sc_table *t = chain_table("fd-moving", 6);
    expire_in_listing c = {"fd-moving", 1, 3};
    sc_store_set_fault_hook(sc_table_store(t), expire_when_listing, &c);
    sc_data_check_result r;
    int rc = sc_table_check_data_files(&r, t, NULL, NULL);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(rc, 0, "%s: %s", sc_error_name(rc), sc_error_message());
    cr_assert_eq(c.left, 0, "the expiration ran inside the pass");
    cr_assert_eq(r.rechecks, 1);
    cr_assert_eq(r.earliest, 4, "the second pass starts at the new EARLIEST");
    cr_assert_eq(r.latest, 6);
    sc_table_free(t);
}

/* Expirations under every pass: after three passes it gives up with SC_ETRANSIENT, reporting nothing missing. */
Test(fsck_data, expirations_under_every_pass_are_etransient) {
    sc_table *t = chain_table("fd-churn", 8);
    expire_in_listing c = {"fd-churn", 3, 6};
    sc_store_set_fault_hook(sc_table_store(t), expire_when_listing, &c);
    sc_data_check_result r;
    int rc = sc_table_check_data_files(&r, t, NULL, NULL);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(rc, SC_ETRANSIENT, "%s: %s", sc_error_name(rc), sc_error_message());
    cr_assert(strstr(sc_error_message(), "expirations moved EARLIEST during 3 passes; run it again"), "%s",
              sc_error_message());
    cr_assert_eq(r.rechecks, 2);
    /* Once they stop, it passes. */
    OK(sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert_eq(r.earliest, 5);
    sc_table_free(t);
}

/* A hook on the checking handle: once its pass has listed the table, the pass's read of
 * snapshot `at` first lets another handle expire (retaining `keep`, then one fewer). */
typedef struct expire_after_listing {
    const char *name;
    const char *at; /* the snapshot key whose read sets the expiration off */
    int armed, left;
    uint64_t keep;
} expire_after_listing;

static int expire_when_reading(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    expire_after_listing *c = p;
    if (op == SC_OP_LIST && key && !*key) c->armed = 1;
    if (!c->armed || c->left <= 0 || op != SC_OP_GET || !key || strcmp(key, c->at) != 0) return 0;
    c->armed = 0;
    c->left--;
    expire_to(c->name, c->keep--);
    return 0;
}

/*
 * A file of a snapshot that stays retained is missing while expirations move EARLIEST under
 * every pass (never past that snapshot): damage, SC_ECORRUPT naming it, not "run it again".
 * Expiration never deletes what a retained snapshot names, whatever it did to the pass's start.
 */
Test(fsck_data, a_file_missing_from_a_retained_snapshot_stays_corrupt_while_earliest_moves) {
    sc_table *t = chain_table("fd-damage-moving", 8);
    tu_drop_data(t, "data/f8"); /* added by 8, the latest: retained throughout */
    expire_after_listing c = {"fd-damage-moving", "snapshot/snapshot-7", 0, 3, 6};
    sc_store_set_fault_hook(sc_table_store(t), expire_when_reading, &c);
    sc_data_check_result r;
    int rc = sc_table_check_data_files(&r, t, NULL, NULL);
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_lt(c.left, 3, "an expiration ran inside the pass");
    cr_assert_eq(rc, SC_ECORRUPT, "%s: %s", sc_error_name(rc), sc_error_message());
    cr_assert(strstr(sc_error_message(), "named by snapshot 8 (added by it) but missing from storage"), "%s",
              sc_error_message());
    sc_table_free(t);
}

/* ---- Paimon's changelog and index files (the golden pk_dv table of tests/vectors/paimon-1.4.2/index:
 * deletion vectors, a lookup changelog producer) ---- */

#include "engine/state.h"  /* sc_table_read_snapshot */
#include "engine/index_state.h" /* sc_index_state_load */
#include "engine/upkeep.h"

/* A copy of golden table `name` of tests/vectors/paimon-1.4.2/index in a fresh directory, adopted. */
static sc_table *golden(char dir[64], const char *name) {
    const char *src = getenv("SC_SOURCE_DIR");
    cr_assert_not_null(src, "SC_SOURCE_DIR is set by ctest");
    snprintf(dir, 64, "/tmp/sc-fsck-golden.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp -R '%s/tests/vectors/paimon-1.4.2/index/warehouse/golden.db/%s/.' '%s/'", src, name, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    sc_store *s;
    OK(sc_store_open(&s, dir));
    cr_assert_eq(sc_table_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
    return tu_open(dir, (tu_table_opts){0});
}

static sc_table *golden_pk_dv(char dir[64]) { return golden(dir, "pk_dv"); }

static void rm_dir(const char *dir) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The latest snapshot's index manifest, its first index file, and one changelog file it adds. */
static void latest_objects(sc_table *t, char index_manifest[256], char index_file[256], char changelog[256]) {
    sc_snapshot s;
    OK(sc_table_read_snapshot(&s, NULL, t, tu_latest(t)));
    cr_assert_not_null(s.index_manifest);
    cr_assert_not_null(s.changelog_manifest_list.name);
    snprintf(index_manifest, 256, "manifest/%s", s.index_manifest);
    sc_index_vec v = {0};
    OK(sc_index_state_load(&v, t, s.index_manifest));
    cr_assert_gt(v.count, 0);
    snprintf(index_file, 256, "index/%s", v.items[0].entry.file);
    sc_index_vec_free(&v);
    sc_manifest_file_vec metas = {0};
    OK(sc_state_load_list(&metas, t, &s.changelog_manifest_list));
    sc_entry_vec records = {0};
    OK(sc_state_load_manifest(&records, t, &metas.items[0]));
    char *k;
    OK(sc_table_file_path(&k, t, &records.items[0].file));
    snprintf(changelog, 256, "%s", k);
    free(k);
    sc_entry_vec_free(&records);
    sc_manifest_file_vec_free(&metas);
    sc_snapshot_clear(&s);
}

Test(fsck_data, paimon_index_and_changelog_files_are_checked) {
    char dir[64], im[256], idx[256], log[256];
    sc_table *t = golden_pk_dv(dir);
    latest_objects(t, im, idx, log);
    sc_data_check_result r;
    OK(sc_table_check_data_files(&r, t, NULL, NULL));
    uint64_t checked = r.files_checked;
    OK(sc_table_fsck(t, NULL, NULL));
    sc_store *s = sc_table_store(t);
    uint8_t *data;
    size_t len;
    /* An index file of another size than its manifest records. */
    OK(sc_store_get(s, &data, &len, NULL, idx));
    uint8_t *longer = calloc(1, len + 1);
    memcpy(longer, data, len);
    OK(sc_store_put(s, NULL, idx, longer, len + 1));
    free(longer);
    FAILS(SC_ECORRUPT, sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert(strstr(sc_error_message(), idx) && strstr(sc_error_message(), "bytes"), "%s", sc_error_message());
    /* Missing. */
    OK(sc_store_delete(s, idx));
    FAILS(SC_ECORRUPT, sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert(strstr(sc_error_message(), idx) && strstr(sc_error_message(), "missing"), "%s", sc_error_message());
    OK(sc_store_put(s, NULL, idx, data, len));
    free(data);
    OK(sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert_eq(r.files_checked, checked);
    /* A changelog file of the latest snapshot. */
    OK(sc_store_get(s, &data, &len, NULL, log));
    OK(sc_store_delete(s, log));
    FAILS(SC_ECORRUPT, sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert(strstr(sc_error_message(), log), "%s", sc_error_message());
    OK(sc_store_put(s, NULL, log, data, len));
    free(data);
    /* fsck's metadata pass decodes the index manifest. */
    OK(sc_store_get(s, &data, &len, NULL, im));
    OK(sc_store_put(s, NULL, im, data, len / 2));
    sc_table *u = tu_open(dir, (tu_table_opts){0});
    FAILS(SC_ECORRUPT, sc_table_fsck(u, NULL, NULL));
    cr_assert(strstr(sc_error_message(), "index-manifest-"), "%s", sc_error_message());
    OK(sc_store_delete(s, im));
    FAILS(SC_ECORRUPT, sc_table_fsck(u, NULL, NULL));
    cr_assert(strstr(sc_error_message(), "missing from storage"), "%s", sc_error_message());
    free(data);
    sc_table_free(u);
    sc_table_free(t);
    rm_dir(dir);
}

/* The golden pk_hash table: a dynamic-bucket primary-key table (bucket -1) Paimon wrote, with HASH index
 * files: adopted, its files listed with their buckets, checked, and committed to. */
Test(fsck_data, paimon_dynamic_bucket_table_is_adopted_listed_checked_and_committed_to) {
    char dir[64];
    sc_table *t = golden(dir, "pk_hash");
    sc_file_list *files;
    OK(sc_table_files(&files, t, 0));
    cr_assert_gt(files->count, 0);
    int buckets = 0;
    for (size_t i = 0; i < files->count; i++) {
        cr_assert_eq(files->entries[i].total_buckets, -1, "Paimon's _TOTAL_BUCKETS for a dynamic-bucket table");
        buckets |= 1 << files->entries[i].bucket;
    }
    cr_assert_eq(buckets, 3, "files in buckets 0 and 1");
    sc_index_list *index;
    OK(sc_table_index_files(&index, t, 0));
    cr_assert_gt(index->count, 0);
    for (size_t i = 0; i < index->count; i++) cr_assert_str_eq(index->entries[i].index_type, "HASH");
    char idx[256];
    snprintf(idx, sizeof idx, "index/%s", index->entries[0].file);
    sc_data_check_result r;
    OK(sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert_geq(r.files_checked, files->count + index->count, "every retained snapshot's data and index files");
    OK(sc_table_fsck(t, NULL, NULL));
    /* A HASH index file missing: found. */
    sc_store *s = sc_table_store(t);
    uint8_t *data;
    size_t len;
    OK(sc_store_get(s, &data, &len, NULL, idx));
    OK(sc_store_delete(s, idx));
    FAILS(SC_ECORRUPT, sc_table_check_data_files(&r, t, NULL, NULL));
    cr_assert(strstr(sc_error_message(), idx) && strstr(sc_error_message(), "missing"), "%s", sc_error_message());
    OK(sc_store_put(s, NULL, idx, data, len));
    free(data);
    /* A commit in bucket 1 replacing its HASH file, as Paimon's writer does. */
    const sc_index_entry *old = NULL;
    for (size_t i = 0; i < index->count; i++)
        if (index->entries[i].bucket == 1) old = &index->entries[i];
    cr_assert_not_null(old);
    sc_file_entry f = files->entries[0];
    f.bucket = 1;
    f.file = "data-dynamic-new-0.parquet";
    sc_index_entry fresh = *old;
    fresh.file = "index-dynamic-new-0";
    sc_changes *c;
    OK(sc_changes_new(&c));
    OK(sc_changes_add(c, &f));
    OK(sc_changes_add_index(c, &fresh));
    OK(sc_changes_delete_index(c, old));
    sc_checkpoint_request req = {.commit_user = "job", .identifier = 1, .append = c};
    sc_checkpoint_result cr;
    uint64_t before = files->count;
    OK(sc_table_commit_checkpoint(&cr, t, &req));
    cr_assert_gt(cr.append.snapshot_id, 0);
    sc_changes_free(c);
    OK(sc_table_fsck(t, NULL, NULL));
    sc_index_list *after;
    OK(sc_table_index_files(&after, t, 0));
    cr_assert_eq(after->count, index->count, "bucket 1's HASH file replaced, the others carried");
    int found = 0;
    for (size_t i = 0; i < after->count; i++) found += strcmp(after->entries[i].file, "index-dynamic-new-0") == 0;
    cr_assert_eq(found, 1);
    sc_file_list *now;
    OK(sc_table_files(&now, t, 0));
    cr_assert_eq(now->count, before + 1);
    sc_file_list_free(now);
    sc_index_list_free(after);
    sc_index_list_free(index);
    sc_file_list_free(files);
    sc_table_free(t);
    rm_dir(dir);
}
