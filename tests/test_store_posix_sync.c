/*
 * The posix store's write barrier (store_posix.c, sc_posix_sync in store.h):
 * plain puts wait unsynced, and the next conditional write makes every one of
 * them durable, with the claim's own bytes, before the claim's name appears;
 * a failing sync publishes nothing and is never forgotten by the handle.
 *
 * A crash cannot be staged here, so the store's sync hook stands in for it:
 * it sees each fsync()/syncfs() before it is made (and can fail it), and at
 * that moment the test looks at what is already published.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapcommit/error.h"
#include "snapcommit/store.h"
#include "snapcommit/table.h"
#include "store/store_backends.h"
#include "store/store_internal.h"

#include "sc_test_assert.h"

#define MAX_EVENTS 256

/* What the hook saw, and what it is told to fail. */
typedef struct recorder {
    const char *root;
    const char *watch;  /* a key that must not be published while a sync of the barrier runs */
    int watch_seen;     /* syncs made while `watch` was already there */
    char call[MAX_EVENTS][8];
    char path[MAX_EVENTS][256];
    int count;
    const char *fail_call; /* fail the fail_nth call of this kind ("file", "dir", "fs") */
    int fail_nth, seen_of_kind;
    int fail_errno;
    int fail_fs; /* errno for every "fs" call, 0 none */
} recorder;

static int record(void *ctx, const char *call, const char *path) {
    recorder *r = ctx;
    if (r->count < MAX_EVENTS) {
        snprintf(r->call[r->count], sizeof r->call[0], "%s", call);
        snprintf(r->path[r->count], sizeof r->path[0], "%s", path);
        r->count++;
    }
    if (r->watch) {
        char full[512];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", r->root, r->watch);
        if (stat(full, &st) == 0) r->watch_seen++;
    }
    if (r->fail_fs && strcmp(call, "fs") == 0) return r->fail_fs;
    if (r->fail_call && strcmp(call, r->fail_call) == 0 && ++r->seen_of_kind == r->fail_nth) return r->fail_errno;
    return 0;
}

/* Index of the first event (call, path starting with prefix) at or after `from`, -1 when none. */
static int find_event(const recorder *r, int from, const char *call, const char *prefix) {
    for (int i = from; i < r->count; i++)
        if (strcmp(r->call[i], call) == 0 && strncmp(r->path[i], prefix, strlen(prefix)) == 0) return i;
    return -1;
}

static char root[128];
static sc_store *store;
static void *backend; /* the posix store behind `store` */
static recorder rec;

static void make_root(void) {
    snprintf(root, sizeof root, "/tmp/sc-posix-sync-XXXXXX");
    cr_assert_not_null(mkdtemp(root), "mkdtemp: %s", strerror(errno));
    memset(&rec, 0, sizeof rec);
    rec.root = root;
}

/* A posix store on a fresh directory in `mode`, with the recorder hooked in. */
static void open_mode(int mode) {
    make_root();
    const sc_store_ops *ops;
    OK(sc_posix_store_create(&ops, &backend, root, mode));
    OK(sc_store_wrap(&store, ops, backend));
    sc_posix_store_set_sync_hook(backend, record, &rec);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void teardown(void) {
    sc_store_free(store);
    store = NULL;
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static sc_posix_sync_stats stats(void) {
    sc_posix_sync_stats st;
    sc_posix_store_sync_stats(&st, backend);
    return st;
}

static int exists(const char *key) {
    char full[512];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", root, key);
    return stat(full, &st) == 0;
}

/* Temp files left in directory `dir` of the root. */
static int temp_files(const char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -a %s/%s 2>/dev/null | grep -c '^\\.tmp-'", root, dir);
    FILE *p = popen(cmd, "r");
    int n = 0;
    cr_assert_not_null(p);
    if (fscanf(p, "%d", &n) != 1) n = 0;
    pclose(p);
    return n;
}

/* Three manifests put, then the claim: the barrier's syncs all come before the claim's name. */
static void put_three_then_claim(void) {
    OK(sc_store_put(store, NULL, "manifest/m-1", TEXT("one")));
    OK(sc_store_put(store, NULL, "manifest/m-2", TEXT("two")));
    OK(sc_store_put(store, NULL, "manifest/list-1", TEXT("list")));
    sc_posix_sync_stats st = stats();
    cr_assert_eq(st.pending_files, 3, "puts wait for the barrier: %u pending", st.pending_files);
    cr_assert_eq(st.pending_dirs, 1);
    cr_assert_eq(st.barriers, 0);
    rec.watch = "snapshot/snapshot-1";
    OK(sc_store_put_if_absent(store, NULL, "snapshot/snapshot-1", TEXT("{\"id\":1}")));
    cr_assert(exists("snapshot/snapshot-1"));
}

Test(posix_sync, files_mode_syncs_each_pending_put_before_the_claim, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    cr_assert_eq(stats().mode, SC_POSIX_SYNC_FILES);
    put_three_then_claim();
    /* Each pending file, the claim's temp file and manifest/ were synced, in that order,
     * and none of it once the claim's name was there. */
    int a = find_event(&rec, 0, "file", "manifest/m-1");
    int b = find_event(&rec, 0, "file", "manifest/m-2");
    int c = find_event(&rec, 0, "file", "manifest/list-1");
    int t = find_event(&rec, 0, "file", "snapshot/.tmp-");
    int d = find_event(&rec, 0, "dir", "manifest");
    int snap = find_event(&rec, 0, "dir", "snapshot");
    cr_assert(a >= 0 && b > a && c > b && t > c && d > t, "barrier order: %d %d %d %d %d", a, b, c, t, d);
    cr_assert_gt(snap, d, "the claim's directory is synced after the barrier");
    /* Only the final directory sync may see the published claim. */
    cr_assert_eq(rec.watch_seen, 1, "%d syncs ran with the claim already published", rec.watch_seen);
    sc_posix_sync_stats st = stats();
    cr_assert_eq(st.pending_files, 0);
    cr_assert_eq(st.pending_dirs, 0);
    cr_assert_eq(st.barriers, 1);
    cr_assert_eq(st.file_syncs, 4, "three puts and the claim: %llu file syncs", (unsigned long long)st.file_syncs);
    cr_assert_eq(st.fs_syncs, 0);
}

Test(posix_sync, fs_mode_is_one_syncfs_then_the_claims_directory, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FS);
    put_three_then_claim();
    int fs = find_event(&rec, 0, "fs", "");
    int snap = find_event(&rec, 0, "dir", "snapshot");
    cr_assert(fs >= 0 && snap > fs);
    cr_assert_eq(rec.watch_seen, 1, "%d syncs ran with the claim already published", rec.watch_seen);
    sc_posix_sync_stats st = stats();
    cr_assert_eq(st.fs_syncs, 1);
    cr_assert_eq(st.file_syncs, 0, "syncfs covers every file");
    cr_assert_eq(st.pending_files, 0);
    cr_assert_eq(st.pending_dirs, 0);
    /* A second commit's barrier: again one syncfs, and the directory sync after the rename. */
    uint64_t dirs = st.dir_syncs;
    OK(sc_store_put(store, NULL, "manifest/m-3", TEXT("three")));
    OK(sc_store_put_if_absent(store, NULL, "snapshot/snapshot-2", TEXT("{\"id\":2}")));
    st = stats();
    cr_assert_eq(st.fs_syncs, 2);
    cr_assert_eq(st.dir_syncs, dirs + 1, "one directory sync per claim once the directories exist");
}

Test(posix_sync, fs_mode_falls_back_to_each_file_when_syncfs_fails, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FS);
    rec.fail_call = "fs";
    rec.fail_nth = 1;
    rec.fail_errno = EIO;
    put_three_then_claim();
    int fs = find_event(&rec, 0, "fs", "");
    int a = find_event(&rec, fs, "file", "manifest/m-1");
    int t = find_event(&rec, fs, "file", "snapshot/.tmp-");
    int d = find_event(&rec, fs, "dir", "manifest");
    cr_assert(fs >= 0 && a > fs && t > a && d > t, "fallback order: %d %d %d %d", fs, a, t, d);
    cr_assert_eq(rec.watch_seen, 1);
    cr_assert_eq(stats().file_syncs, 4);
    /* The failed syncfs is not held against the handle: the next claim goes through. */
    OK(sc_store_put_if_absent(store, NULL, "snapshot/snapshot-2", TEXT("{\"id\":2}")));
}

/* A barrier that fails: nothing published, no temp file left, and every later barrier refused. */
static void expect_failed_claim(void) {
    OK(sc_store_put(store, NULL, "manifest/m-1", TEXT("one")));
    OK(sc_store_put(store, NULL, "manifest/m-2", TEXT("two")));
    FAILS(SC_EIO, sc_store_put_if_absent(store, NULL, "snapshot/snapshot-1", TEXT("{\"id\":1}")));
    cr_assert(strstr(sc_error_message(), "syncing"), "message: %s", sc_error_message());
    cr_assert(!exists("snapshot/snapshot-1"), "a failed barrier must publish nothing");
    cr_assert_eq(temp_files("snapshot"), 0, "the claim's temp file is removed");
    uint8_t *data = NULL;
    size_t len = 0;
    FAILS(SC_ENOTFOUND, sc_store_get(store, &data, &len, NULL, "snapshot/snapshot-1"));
    /* Sticky: a retried fsync may succeed without the lost bytes, so no later claim or sync
     * of this handle may vouch for them, even with the fault gone. */
    rec.fail_call = NULL;
    rec.fail_fs = 0;
    FAILS(SC_EIO, sc_store_put_if_absent(store, NULL, "snapshot/snapshot-2", TEXT("{\"id\":2}")));
    cr_assert(strstr(sc_error_message(), "an earlier sync of this store failed"), "message: %s", sc_error_message());
    cr_assert(!exists("snapshot/snapshot-2"));
    FAILS(SC_EIO, sc_store_sync(store));
    /* Reads and plain puts still work (synced on the spot: no barrier would ever come);
     * a new handle starts clean. */
    uint64_t files = stats().file_syncs;
    for (int i = 0; i < 20; i++) {
        char key[32];
        snprintf(key, sizeof key, "manifest/late-%d", i);
        OK(sc_store_put(store, NULL, key, TEXT("late")));
    }
    cr_assert_eq(stats().pending_files, 0);
    cr_assert_eq(stats().file_syncs, files + 20);
    sc_store *fresh;
    OK(sc_store_open(&fresh, root));
    OK(sc_store_put_if_absent(fresh, NULL, "snapshot/snapshot-1", TEXT("{\"id\":1}")));
    sc_store_free(fresh);
}

Test(posix_sync, files_mode_failing_file_sync_fails_the_claim, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    rec.fail_call = "file";
    rec.fail_nth = 2; /* the second pending manifest */
    rec.fail_errno = EIO;
    expect_failed_claim();
}

Test(posix_sync, files_mode_failing_claim_temp_sync_fails_the_claim, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    rec.fail_call = "file";
    rec.fail_nth = 3; /* after the two manifests: the claim's own temp file */
    rec.fail_errno = ENOSPC;
    OK(sc_store_put(store, NULL, "manifest/m-1", TEXT("one")));
    OK(sc_store_put(store, NULL, "manifest/m-2", TEXT("two")));
    FAILS(SC_EIO, sc_store_put_if_absent(store, NULL, "snapshot/snapshot-1", TEXT("{\"id\":1}")));
    cr_assert(!exists("snapshot/snapshot-1"));
    cr_assert_eq(temp_files("snapshot"), 0);
}

Test(posix_sync, files_mode_failing_directory_sync_fails_the_claim, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    /* Both directories exist first, so that no mkdir syncs a parent during the test. */
    OK(sc_store_put(store, NULL, "snapshot/keep", TEXT("x")));
    OK(sc_store_put(store, NULL, "manifest/keep", TEXT("x")));
    OK(sc_store_sync(store));
    rec.fail_call = "dir";
    rec.fail_nth = 1; /* manifest/, pending since the puts */
    rec.fail_errno = EIO;
    expect_failed_claim();
}

Test(posix_sync, fs_mode_fails_when_syncfs_and_the_fallback_fail, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FS);
    rec.fail_fs = EIO; /* every syncfs fails, and the fallback's first file sync too */
    rec.fail_call = "file";
    rec.fail_nth = 1;
    rec.fail_errno = EIO;
    expect_failed_claim();
}

Test(posix_sync, failed_claim_directory_sync_is_unknown_and_sticky, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    OK(sc_store_put(store, NULL, "snapshot/keep", TEXT("x")));
    OK(sc_store_sync(store));
    rec.fail_call = "dir";
    rec.fail_nth = 1; /* the only directory sync of this claim: snapshot/, after the rename */
    rec.fail_errno = EIO;
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(store, NULL, "snapshot/snapshot-1", TEXT("{\"id\":1}")));
    cr_assert(exists("snapshot/snapshot-1"), "visible, durable maybe");
    rec.fail_call = NULL;
    FAILS(SC_EIO, sc_store_sync(store));
}

Test(posix_sync, replacing_put_is_synced_before_its_rename, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    OK(sc_store_put(store, NULL, "metadata/history", TEXT("first")));
    cr_assert_eq(stats().file_syncs, 0);
    cr_assert_eq(stats().pending_files, 1);
    OK(sc_store_put(store, NULL, "metadata/history", TEXT("second")));
    /* The new version replaces a key: its bytes are synced before the rename, not deferred. */
    cr_assert_eq(stats().file_syncs, 1);
    cr_assert_eq(stats().pending_files, 1);
    int e = find_event(&rec, 0, "file", "metadata/.tmp-");
    cr_assert_geq(e, 0, "the temp file of the replacing put was synced");
    uint8_t *data = NULL;
    size_t len = 0;
    OK(sc_store_get(store, &data, &len, NULL, "metadata/history"));
    cr_assert(len == 6 && memcmp(data, "second", 6) == 0);
    free(data);
}

Test(posix_sync, eager_mode_syncs_each_put_before_its_name_appears, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_EAGER);
    OK(sc_store_put(store, NULL, "manifest/m-1", TEXT("one")));
    OK(sc_store_put(store, NULL, "manifest/m-2", TEXT("two")));
    sc_posix_sync_stats st = stats();
    cr_assert_eq(st.file_syncs, 2);
    cr_assert_eq(st.pending_files, 0);
    cr_assert_eq(st.pending_dirs, 1, "the directory sync still waits for the barrier");
    OK(sc_store_put_if_absent(store, NULL, "snapshot/snapshot-1", TEXT("{\"id\":1}")));
    st = stats();
    cr_assert_eq(st.file_syncs, 3);
    cr_assert_eq(st.pending_dirs, 0);
    cr_assert_eq(st.fs_syncs, 0);
}

Test(posix_sync, pending_files_are_bounded, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    char key[64];
    for (int i = 0; i < 16; i++) {
        snprintf(key, sizeof key, "manifest/m-%02d", i);
        OK(sc_store_put(store, NULL, key, TEXT("x")));
    }
    cr_assert_eq(stats().pending_files, 16);
    cr_assert_eq(stats().barriers, 0);
    OK(sc_store_put(store, NULL, "manifest/m-16", TEXT("x")));
    sc_posix_sync_stats st = stats();
    cr_assert_eq(st.barriers, 1, "a full list runs the barrier first");
    cr_assert_eq(st.file_syncs, 16);
    cr_assert_eq(st.pending_files, 1);
}

Test(posix_sync, sync_and_close_are_barriers, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    OK(sc_store_put(store, NULL, "manifest/m-1", TEXT("one")));
    OK(sc_store_sync(store));
    cr_assert_eq(stats().file_syncs, 1);
    cr_assert_eq(stats().pending_files, 0);
    cr_assert_eq(stats().pending_dirs, 0);
    OK(sc_store_put(store, NULL, "manifest/m-2", TEXT("two")));
    int before = rec.count;
    sc_store_free(store); /* close: the barrier runs, then the handle is gone */
    store = NULL;
    cr_assert_geq(find_event(&rec, before, "file", "manifest/m-2"), 0, "close syncs the pending put");
    OK(sc_store_open(&store, root));
    uint8_t *data = NULL;
    size_t len = 0;
    OK(sc_store_get(store, &data, &len, NULL, "manifest/m-2"));
    free(data);
}

Test(posix_sync, auto_mode_is_resolved_when_the_root_opens, .fini = teardown) {
    make_root();
    char missing[256];
    snprintf(missing, sizeof missing, "%s/table", root);
    const sc_store_ops *ops;
    OK(sc_posix_store_create(&ops, &backend, missing, SC_POSIX_SYNC_AUTO));
    OK(sc_store_wrap(&store, ops, backend));
    cr_assert_eq(stats().mode, SC_POSIX_SYNC_AUTO, "no root yet, no file system to judge");
    OK(sc_store_put(store, NULL, "manifest/m-1", TEXT("one")));
    int mode = stats().mode;
    cr_assert(mode == SC_POSIX_SYNC_FS || mode == SC_POSIX_SYNC_FILES || mode == SC_POSIX_SYNC_EAGER,
              "mode %d after the root was created", mode);
    OK(sc_store_put_if_absent(store, NULL, "snapshot/snapshot-1", TEXT("{}")));
    cr_assert_eq(stats().pending_files, 0);
}

Test(posix_sync, config_selects_the_mode_and_rejects_others, .fini = teardown) {
    make_root();
    sc_store_config cfg;
    sc_store_config_init(&cfg);
    cr_assert_eq(cfg.posix_sync, SC_POSIX_SYNC_AUTO);
    cfg.posix_sync = 4;
    FAILS(SC_EINVAL, sc_store_open_with_config(&store, root, &cfg));
    cr_assert(strstr(sc_error_message(), "posix_sync"), "message: %s", sc_error_message());
    cfg.posix_sync = -1;
    FAILS(SC_EINVAL, sc_store_open_with_config(&store, root, &cfg));
    cfg.posix_sync = SC_POSIX_SYNC_FILES;
    OK(sc_store_open_with_config(&store, root, &cfg));
    backend = sc_store_backend_self(store);
    cr_assert_eq(stats().mode, SC_POSIX_SYNC_FILES);
    sc_store_free(store);
    /* A version-1 configuration ends before posix_sync: accepted, the field is not read. */
    cfg.version = 1;
    cfg.posix_sync = 99;
    OK(sc_store_open_with_config(&store, root, &cfg));
    backend = sc_store_backend_self(store);
    cr_assert_neq(stats().mode, SC_POSIX_SYNC_AUTO);
    cfg.version = 3;
    sc_store *bad;
    FAILS(SC_EINVAL, sc_store_open_with_config(&bad, root, &cfg));
}

/* ---- through the engine: a commit's metadata is durable before its snapshot's name ---- */

static void commit_one(sc_table *t, int i, int expect_rc) {
    char file[64];
    snprintf(file, sizeof file, "data-f-%d", i);
    sc_file_entry e = {.file = file, .rows = 100, .size = 4096};
    sc_changes *c;
    OK(sc_changes_new(&c));
    OK(sc_changes_add(c, &e));
    sc_commit_request req = {"sync-test", i, SC_KIND_APPEND, 0, c};
    sc_commit_result r;
    int rc = sc_table_commit(&r, t, &req);
    cr_assert_eq(rc, expect_rc, "commit %d: %s (%s)", i, sc_error_name(rc), sc_error_message());
    sc_changes_free(c);
}

Test(posix_sync, commit_syncs_every_manifest_before_the_claim, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FILES);
    OK(sc_table_create(store, SC_STRATEGY_RENAME));
    sc_table *t;
    OK(sc_table_open(&t, store));
    commit_one(t, 1, 0);
    rec.count = 0;
    rec.watch = "snapshot/snapshot-2";
    commit_one(t, 2, 0);
    cr_assert_eq(rec.watch_seen, 1, "only the claim's directory sync follows its rename");
    /* Every manifest object on disk now was either durable before this commit (synced at
     * commit 1's barrier) or synced by this commit's barrier: count this commit's ones. */
    int manifests = 0;
    for (int i = 0; i < rec.count; i++)
        if (strcmp(rec.call[i], "file") == 0 && strncmp(rec.path[i], "manifest/manifest-", 18) == 0) manifests++;
    cr_assert_geq(manifests, 2, "a delta manifest and its lists: %d synced", manifests);
    cr_assert_geq(find_event(&rec, 0, "dir", "manifest"), 0);
    cr_assert_eq(stats().pending_files, 0, "nothing of commit 2 waits after its claim");
    /* A failing barrier fails the commit, and no snapshot 3 appears. */
    rec.fail_call = "file";
    rec.fail_nth = rec.seen_of_kind + 1;
    rec.fail_errno = EIO;
    commit_one(t, 3, SC_EIO);
    cr_assert(!exists("snapshot/snapshot-3"));
    uint64_t latest = 0;
    sc_table_free(t);
    sc_store *fresh;
    OK(sc_store_open(&fresh, root));
    sc_table *t2;
    OK(sc_table_open(&t2, fresh));
    OK(sc_table_latest_id(&latest, t2));
    cr_assert_eq(latest, 2);
    sc_table_free(t2);
    sc_store_free(fresh);
}

Test(posix_sync, commit_in_fs_mode_is_one_syncfs_and_one_directory_sync, .fini = teardown) {
    open_mode(SC_POSIX_SYNC_FS);
    OK(sc_table_create(store, SC_STRATEGY_RENAME));
    sc_table *t;
    OK(sc_table_open(&t, store));
    commit_one(t, 1, 0);
    commit_one(t, 2, 0);
    sc_posix_sync_stats a = stats();
    commit_one(t, 3, 0);
    sc_posix_sync_stats b = stats();
    cr_assert_eq(b.fs_syncs - a.fs_syncs, 1);
    cr_assert_eq(b.dir_syncs - a.dir_syncs, 1);
    cr_assert_eq(b.file_syncs - a.file_syncs, 0);
    sc_table_free(t);
}
