/*
 * Tables and stores in odd or damaged states: backend error messages, hints
 * ahead of or over lost snapshots, fsck racing commits, odd objects and links
 * on posix, inits that fail, and the history marker.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sc_test_util.h"
#include "sc_test_assert.h"
#include "snapcommit/backend.h"
#include "engine/state.h" /* sc_table_read_snapshot */
#include "format/paimon_manifest.h"
#include "format/snapshot.h"
#include "store/store_backends.h"
#include "strategy/strategy.h"

/* ---- a custom backend sets its own messages through the public API ---- */

static int refusing_get(void *self, uint8_t **d, size_t *n, sc_object_info *i, const char *key) {
    (void)self, (void)d, (void)n, (void)i;
    return sc_backend_error(SC_EAUTH, "vault backend: token for %s expired", key);
}
static int refusing_head(void *self, sc_object_info *i, const char *key) {
    (void)self, (void)i, (void)key;
    return sc_backend_error(SC_EIO, NULL);
}

static int no_put(void *self, sc_object_info *i, const char *key, const uint8_t *d, size_t n) {
    (void)self, (void)i, (void)key, (void)d, (void)n;
    return SC_EIO;
}
static int no_list(void *self, sc_list_page *out, const char *p, const char *a, size_t m) {
    (void)self, (void)out, (void)p, (void)a, (void)m;
    return SC_EIO;
}
static int no_del(void *self, const char *key) {
    (void)self, (void)key;
    return SC_EIO;
}

Test(damaged_tables, backend_sets_error_message) {
    static sc_store_ops ops = {.version = SC_STORE_OPS_VERSION, .name = "vault", .get = refusing_get,
                               .head = refusing_head, .put = no_put, .put_if_absent = no_put, .list = no_list,
                               .del = no_del};
    sc_store *s;
    cr_assert_eq(sc_store_wrap(&s, &ops, NULL), 0, "%s", sc_error_message());
    uint8_t *d;
    size_t n;
    cr_assert_eq(sc_store_get(s, &d, &n, NULL, "metadata/table.json"), SC_EAUTH);
    cr_assert_str_eq(sc_error_message(), "vault backend: token for metadata/table.json expired");
    sc_object_info info;
    cr_assert_eq(sc_store_head(s, &info, "k"), SC_EIO);
    cr_assert_str_eq(sc_error_message(), sc_strerror(SC_EIO));
    sc_store_free(s);
}

/* ---- shared helpers ---- */

static sc_table *mem_table(const char *name, sc_strategy_kind kind) {
    char loc[256];
    snprintf(loc, sizeof loc, "mem://%s", name);
    sc_mem_store_reset(name);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0, "%s", sc_error_message());
    cr_assert_eq(tu_create(s, kind), 0, "%s", sc_error_message());
    sc_store_free(s);
    return tu_reopen(name);
}

static int commit_one(sc_table *t, const char *user, int64_t ident, const char *file) {
    sc_file_entry e = tu_file("dt=1", 0, 4, 0, file, 10, NULL, NULL);
    sc_commit_result res;
    return tu_commit(&res, t, user, ident, SC_KIND_APPEND, 0, &e, 1, NULL, 0);
}

static void fill(sc_table *t, int n) {
    for (int i = 1; i <= n; i++) {
        char name[32];
        snprintf(name, sizeof name, "data/f%d", i);
        cr_assert_eq(commit_one(t, "u", i, name), 0, "%s", sc_error_message());
    }
}

static void put_text(sc_table *t, const char *key, const char *text) {
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, (const uint8_t *)text, strlen(text)), 0, "%s",
                 sc_error_message());
}

static void del_key(sc_table *t, const char *key) {
    cr_assert_eq(sc_store_delete(sc_table_store(t), key), 0, "%s: %s", key, sc_error_message());
}

static void del_snapshot(sc_table *t, uint64_t id) {
    char key[64];
    sc_snapshot_key(key, id);
    del_key(t, key);
}

/* ---- EARLIEST ahead of the oldest snapshot (expiration in progress) ---- */

Test(damaged_tables, earliest_ahead_of_oldest_snapshot) {
    sc_table *t = mem_table("h-early", SC_STRATEGY_CONDITIONAL);
    fill(t, 4);
    put_text(t, "snapshot/EARLIEST", "3\n"); /* moved forward; 1 and 2 not deleted yet */
    uint64_t id;
    cr_assert_eq(sc_table_earliest_id(&id, t), 0, "%s", sc_error_message());
    cr_assert_eq(id, 3);
    del_key(t, "snapshot/LATEST"); /* discovery from EARLIEST */
    cr_assert_eq(tu_latest(t), 4);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(commit_one(t, "v", 1, "data/g1"), 0, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 5);
    /* A hint lagging behind EARLIEST after the expiration finished. */
    put_text(t, "snapshot/LATEST", "1\n");
    del_snapshot(t, 1);
    del_snapshot(t, 2);
    cr_assert_eq(tu_latest(t), 5);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    /* ... but snapshot EARLIEST itself missing is still damage. */
    del_snapshot(t, 3);
    CORRUPT(sc_table_latest_id(&id, t), "snapshot 3 is missing");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot 3 is missing");
    sc_table_free(t);
}

/* ---- fsck while commits run ---- */

typedef struct race_ctx {
    const char *name;
    int mode;   /* 1: commit when fsck HEADs the next id; 2: hide snapshot 3 from fsck's LIST */
    int step;
    uint8_t *saved;
    size_t saved_len;
} race_ctx;

static int race_hook(void *p, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    race_ctx *c = p;
    char k3[64], k5[64];
    sc_snapshot_key(k3, 3);
    sc_snapshot_key(k5, 5);
    if (c->mode == 1 && c->step == 0 && op == SC_OP_HEAD && strcmp(key, k5) == 0) {
        c->step = 1;
        sc_table *other = tu_reopen(c->name); /* another writer, between fsck's LIST and its HEAD */
        cr_assert_eq(commit_one(other, "w", 1, "data/race"), 0, "%s", sc_error_message());
        sc_table_free(other);
    } else if (c->mode == 2 && c->step == 0 && op == SC_OP_LIST && strncmp(key, "snapshot/snapshot-", 18) == 0) {
        /* A directory read that misses an entry a concurrent claim made. */
        c->step = 1;
        sc_table *other = tu_reopen(c->name);
        cr_assert_eq(sc_store_get(sc_table_store(other), &c->saved, &c->saved_len, NULL, k3), 0);
        cr_assert_eq(sc_store_delete(sc_table_store(other), k3), 0);
        sc_table_free(other);
    } else if (c->mode == 2 && c->step == 1 && op != SC_OP_LIST) {
        c->step = 2;
        sc_table *other = tu_reopen(c->name);
        cr_assert_eq(sc_store_put(sc_table_store(other), NULL, k3, c->saved, c->saved_len), 0);
        sc_table_free(other);
        free(c->saved);
    }
    return 0;
}

Test(damaged_tables, fsck_tolerates_commit_between_list_and_head) {
    sc_table *t = mem_table("h-race1", SC_STRATEGY_CONDITIONAL);
    fill(t, 4);
    race_ctx c = {"h-race1", 1, 0, NULL, 0};
    sc_store_set_fault_hook(sc_table_store(t), race_hook, &c);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(c.step, 1, "the race was not staged");
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(tu_latest(t), 5);
    sc_table_free(t);
}

Test(damaged_tables, fsck_relists_a_gap_that_was_a_race) {
    sc_table *t = mem_table("h-race2", SC_STRATEGY_CONDITIONAL);
    fill(t, 5);
    race_ctx c = {"h-race2", 2, 0, NULL, 0};
    sc_store_set_fault_hook(sc_table_store(t), race_hook, &c);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(c.step, 2, "the race was not staged");
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    /* A gap that stays is still damage. */
    del_snapshot(t, 3);
    CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot 3 is missing");
    sc_table_free(t);
}

/* ---- a damaged LATEST over a lost newest snapshot ---- */

Test(damaged_tables, damaged_hint_commit_fails_closed) {
    sc_table *t = mem_table("h-hint", SC_STRATEGY_CONDITIONAL);
    fill(t, 5);
    del_snapshot(t, 5);
    put_text(t, "snapshot/LATEST", "5x\n");
    cr_assert_eq(tu_latest(t), 4, "reads warn and go on");
    CORRUPT(commit_one(t, "v", 1, "data/new"), "snapshot/LATEST: damaged hint");
    sc_object_info info;
    char key[64];
    sc_snapshot_key(key, 5);
    cr_assert_eq(sc_store_head(sc_table_store(t), &info, key), SC_ENOTFOUND, "the commit reused id 5");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot/LATEST: damaged hint");
    sc_table_free(t);
}

/* ---- a missing or damaged delta manifest of the latest snapshot ---- */

/* The key of the (one) manifest in snapshot `id`'s delta list. */
static void delta_manifest_key(char *out, size_t cap, sc_table *t, uint64_t id) {
    sc_snapshot s;
    sc_manifest_file_vec metas = {0};
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, id), 0, "%s", sc_error_message());
    cr_assert_eq(sc_state_load_list(&metas, t, &s.delta_manifest_list), 0, "%s", sc_error_message());
    cr_assert_eq(metas.count, 1);
    sc_manifest_key(out, cap, metas.items[0].name);
    sc_manifest_file_vec_free(&metas);
    sc_snapshot_clear(&s);
}

/* A commit on `t` is refused naming `key`, and leaves the table as it was: no snapshot 4,
 * nothing it wrote left under manifest/. */
static void commit_refused(sc_table *t, const char *store, const char *key, int64_t ident) {
    int before = tu_count_keys(store, "manifest/", NULL);
    CORRUPT(commit_one(t, "v", ident, "data/new"), key + strlen("manifest/"));
    cr_assert_eq(tu_latest(t), 3, "a snapshot was built on the damaged one");
    cr_assert_eq(tu_count_keys(store, "manifest/", NULL), before, "the refused commit left objects behind");
}

Test(damaged_tables, commit_refuses_a_missing_or_damaged_delta_manifest_of_the_latest) {
    sc_table *writer = mem_table("h-delta", SC_STRATEGY_CONDITIONAL);
    sc_table *warm = tu_reopen("h-delta"); /* has read the table before the damage */
    fill(writer, 3);
    cr_assert_eq(tu_latest(warm), 3);
    char key[SC_MANIFEST_PATH_MAX + 16];
    delta_manifest_key(key, sizeof key, writer, 3);
    uint8_t *good = NULL;
    size_t len = 0;
    OK(sc_store_get(sc_table_store(writer), &good, &len, NULL, key));

    /* Missing: a fresh handle (the CLI), and a handle that last saw snapshot 2. */
    del_key(writer, key);
    sc_table *cold = tu_reopen("h-delta");
    commit_refused(cold, "h-delta", key, 1);
    sc_table_free(cold);
    commit_refused(warm, "h-delta", key, 1);

    /* Damaged: one byte changed, the length unchanged (the digest its list records). */
    good[len - 24] ^= 1;
    OK(sc_store_put(sc_table_store(writer), NULL, key, good, len));
    cold = tu_reopen("h-delta");
    commit_refused(cold, "h-delta", key, 1);
    sc_table_free(cold);
    /* Cut short. */
    good[len - 24] ^= 1;
    OK(sc_store_put(sc_table_store(writer), NULL, key, good, len / 2));
    cold = tu_reopen("h-delta");
    commit_refused(cold, "h-delta", key, 1);
    sc_table_free(cold);

    /* Restored: the same commit goes through. */
    OK(sc_store_put(sc_table_store(writer), NULL, key, good, len));
    cold = tu_reopen("h-delta");
    OK(commit_one(cold, "v", 1, "data/new"));
    cr_assert_eq(tu_latest(cold), 4);
    OK(sc_table_fsck(cold, NULL, NULL));
    free(good);
    sc_table_free(cold);
    sc_table_free(warm);
    sc_table_free(writer);
}

/* ---- posix odd objects and links ---- */

static char root[256];

static void posix_setup(void) {
    snprintf(root, sizeof root, "/tmp/sc-hard-%d", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s-elsewhere", root, root);
    cr_assert_eq(system(cmd), 0);
}

static void posix_teardown(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s-elsewhere", root, root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
}

static sc_table *posix_table(int n) {
    char loc[300];
    snprintf(loc, sizeof loc, "%s/t", root);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0, "%s", sc_error_message());
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
    sc_table *t;
    cr_assert_eq(sc_table_open_location(&t, loc), 0, "%s", sc_error_message());
    sc_retry_policy p;
    sc_retry_policy_default(&p);
    p.min_wait_ms = 1;
    p.max_wait_ms = 2;
    p.max_retries = 2;
    sc_table_set_retry_policy(t, &p);
    fill(t, n);
    return t;
}

static void path_of(char *out, size_t cap, const char *key) { snprintf(out, cap, "%s/t/%s", root, key); }

/* A link at the next snapshot key: commits and fsck refuse it by name (never "lost claims"). */
static void link_at_next(const char *target, const char *needle) {
    sc_table *t = posix_table(2);
    char p[512], key[64];
    sc_snapshot_key(key, 3);
    path_of(p, sizeof p, key);
    cr_assert_eq(symlink(target, p), 0, "%s", strerror(errno));
    CORRUPT(commit_one(t, "v", 1, "data/new"), needle);
    CORRUPT(commit_one(t, "v", 1, "data/new"), key);
    CORRUPT(sc_table_fsck(t, NULL, NULL), needle);
    struct stat st;
    cr_assert_eq(lstat(p, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
    sc_table_free(t);
}

Test(damaged_tables_posix, dangling_link_at_next_snapshot, .init = posix_setup, .fini = posix_teardown, .timeout = 30) {
    link_at_next("snapshot-nowhere", "is a dangling symbolic link");
}

Test(damaged_tables_posix, looping_link_at_next_snapshot, .init = posix_setup, .fini = posix_teardown, .timeout = 30) {
    link_at_next("snapshot-3", "is a looping symbolic link");
}

Test(damaged_tables_posix, link_to_table_directory_at_next_snapshot, .init = posix_setup, .fini = posix_teardown,
     .timeout = 30) {
    link_at_next("../metadata", "is a symbolic link to a directory");
}

Test(damaged_tables_posix, parent_directory_linked_out_of_table, .init = posix_setup, .fini = posix_teardown,
     .timeout = 30) {
    sc_table *t = posix_table(2);
    char p[512], cmd[2400];
    path_of(p, sizeof p, "snapshot");
    snprintf(cmd, sizeof cmd, "mv %s %s-elsewhere && ln -s %s-elsewhere %s", p, root, root, p);
    cr_assert_eq(system(cmd), 0);
    uint64_t id;
    CORRUPT(sc_table_latest_id(&id, t), "leading out of the table");
    CORRUPT(commit_one(t, "v", 1, "data/new"), "leading out of the table");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "leading out of the table");
    snprintf(p, sizeof p, "%s-elsewhere/snapshot-3", root);
    struct stat st;
    cr_assert_neq(stat(p, &st), 0, "a commit wrote outside the table");
    /* A link inside the table is followed, like a link at a key. */
    path_of(p, sizeof p, "snapshot");
    snprintf(cmd, sizeof cmd, "rm %s && mv %s-elsewhere %s/t/snap-real && ln -s snap-real %s", p, root, root, p);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(tu_latest(t), 2);
    sc_table_free(t);
}

Test(damaged_tables_posix, socket_at_hint, .init = posix_setup, .fini = posix_teardown, .timeout = 30) {
    sc_table *t = posix_table(2);
    char p[512];
    path_of(p, sizeof p, "snapshot/LATEST");
    cr_assert_eq(unlink(p), 0);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    cr_assert(strlen(p) < sizeof a.sun_path);
    strcpy(a.sun_path, p);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0, "%s", strerror(errno));
    uint64_t id;
    CORRUPT(sc_table_latest_id(&id, t), "snapshot/LATEST: is a socket");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "snapshot/LATEST: is a socket");
    close(fd);
    sc_table_free(t);
}

Test(damaged_tables_posix, snapshot_directory_is_a_fifo, .init = posix_setup, .fini = posix_teardown, .timeout = 30) {
    sc_table *t = posix_table(2);
    char p[512], cmd[600];
    path_of(p, sizeof p, "snapshot");
    snprintf(cmd, sizeof cmd, "rm -rf %s", p);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(mkfifo(p, 0666), 0);
    uint64_t id;
    CORRUPT(sc_table_latest_id(&id, t), "/t/snapshot: is a FIFO");
    CORRUPT(commit_one(t, "v", 1, "data/new"), "/t/snapshot: is a FIFO");
    CORRUPT(sc_table_fsck(t, NULL, NULL), "/t/snapshot: is a FIFO");
    sc_table_free(t);
}

Test(damaged_tables_posix, metadata_directory_is_a_fifo, .init = posix_setup, .fini = posix_teardown, .timeout = 30) {
    sc_table *t = posix_table(1);
    sc_table_free(t);
    char p[512], cmd[600], loc[300];
    path_of(p, sizeof p, "metadata");
    snprintf(cmd, sizeof cmd, "rm -rf %s", p);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(mkfifo(p, 0666), 0);
    snprintf(loc, sizeof loc, "%s/t", root);
    CORRUPT(sc_table_open_location(&t, loc), "/t/metadata: is a FIFO");
}

/* ---- an init the store cannot serve leaves nothing behind ---- */

Test(damaged_tables_posix, init_with_undeclared_strategy_writes_nothing, .init = posix_setup, .fini = posix_teardown) {
    char loc[400];
    snprintf(loc, sizeof loc, "%s/nonexist/deep/t", root);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0, "%s", sc_error_message());
    int rc = tu_create(s, SC_STRATEGY_HEAD); /* needs compare-and-swap: posix has none */
    cr_assert_eq(rc, SC_EUNSUPPORTED, "%s: %s", sc_error_name(rc), sc_error_message());
    cr_assert(strstr(sc_error_message(), "compare-and-swap"), "%s", sc_error_message());
    sc_store_free(s);
    struct stat st;
    cr_assert_neq(stat(root, &st), 0, "a refused init created %s", root);
}

/* ---- the history marker is backfilled ---- */

static int marker_present(sc_table *t) {
    sc_object_info info;
    int rc = sc_store_head(sc_table_store(t), &info, "metadata/history");
    sc_error_clear();
    return rc == 0;
}

Test(damaged_tables, history_marker_backfilled_by_commit_and_fsck) {
    sc_table *t = mem_table("h-marker", SC_STRATEGY_CONDITIONAL);
    fill(t, 3);
    del_key(t, "metadata/history"); /* a table from before the marker */
    sc_table_free(t);
    t = tu_reopen("h-marker"); /* a new process */
    cr_assert_eq(commit_one(t, "v", 1, "data/g"), 0, "%s", sc_error_message());
    cr_assert(marker_present(t), "a commit on a table without the marker did not write it");
    del_key(t, "metadata/history");
    sc_table_free(t);
    t = tu_reopen("h-marker");
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    cr_assert(marker_present(t), "fsck did not write the missing marker");
    /* ... and now the loss of every snapshot is detected. */
    for (uint64_t id = 1; id <= 4; id++) del_snapshot(t, id);
    del_key(t, "snapshot/LATEST");
    del_key(t, "snapshot/EARLIEST");
    CORRUPT(commit_one(t, "w", 1, "data/h"), "metadata/history");
    sc_table_free(t);
}

Test(damaged_tables_posix, fifo_at_history_marker, .init = posix_setup, .fini = posix_teardown, .timeout = 30) {
    sc_table *t = posix_table(2);
    char p[512];
    path_of(p, sizeof p, "metadata/history");
    cr_assert_eq(unlink(p), 0);
    cr_assert_eq(mkfifo(p, 0666), 0);
    CORRUPT(sc_table_fsck(t, NULL, NULL), "metadata/history: is a FIFO");
    sc_table_free(t);
}

/* ---- a failed init takes back what it created, and only that ---- */

/* Fails every read of a probe key, after the probe has written (and so created directories). */
static int fail_probe_reads(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx, (void)call;
    return op == SC_OP_GET && strstr(key, "metadata/probe-") ? SC_EIO : 0;
}

static int failed_init(const char *loc) {
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, loc), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(s, fail_probe_reads, NULL);
    int rc = tu_create(s, SC_STRATEGY_AUTO);
    cr_assert_eq(rc, SC_EIO, "%s: %s", sc_error_name(rc), sc_error_message());
    /* The failure's own message survives the clean-up. */
    cr_assert(strstr(sc_error_message(), "probing the posix store under metadata/probe-"), "%s", sc_error_message());
    sc_store_free(s);
    return rc;
}

static int exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

Test(damaged_tables_posix, failed_init_removes_what_it_created, .init = posix_setup, .fini = posix_teardown) {
    char loc[400], p[512];
    /* 1. Nothing existed: the root, its parents, metadata/ and the probe directory all go. */
    snprintf(loc, sizeof loc, "%s/new/deep/t", root);
    failed_init(loc);
    cr_assert(!exists(root), "a failed init left %s behind", root);
    /* 2. The root existed with other content, and an empty metadata/ of someone else's:
     *    both stay, and nothing of the probe is left. */
    cr_assert_eq(mkdir(root, 0777), 0);
    snprintf(p, sizeof p, "%s/keep", root);
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    cr_assert_geq(fd, 0);
    close(fd);
    snprintf(p, sizeof p, "%s/metadata", root);
    cr_assert_eq(mkdir(p, 0777), 0);
    failed_init(root);
    snprintf(p, sizeof p, "%s/keep", root);
    cr_assert(exists(p), "a failed init removed %s", p);
    snprintf(p, sizeof p, "%s/metadata", root);
    cr_assert(exists(p), "a failed init removed %s, which it did not create", p);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s/metadata')\"", root);
    cr_assert_eq(system(cmd), 0, "a failed init left something in %s/metadata", root);
    /* 3. A root with content and no metadata/: metadata/ was this init's and goes. */
    cr_assert_eq(rmdir(p), 0);
    failed_init(root);
    cr_assert(!exists(p), "a failed init left %s", p);
    /* 4. A successful init leaves no probe directory either. */
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, root), 0, "%s", sc_error_message());
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s/metadata')\" = table.json", root);
    cr_assert_eq(system(cmd), 0, "init left more than table.json in %s/metadata", root);
}

/* ---- a manifest list that names another kind of object as a manifest ---- */

/*
 * A crafted (or badly damaged) manifest list whose entry names, with the right
 * length and hash, the delta list a handle wrote and cached: read as a manifest,
 * those bytes are not one, so the table is corrupt. The handle's cache of decoded
 * lists and manifests must not hand the cached list over as a decoded manifest.
 */
Test(damaged_tables, a_list_named_as_a_manifest_is_corrupt_even_when_cached) {
    sc_table *t = tu_mem_table("dt-kinds");
    sc_file_entry f = tu_file("p", 0, 1, 0, "data/a", 1, NULL, NULL);
    OK(tu_commit(NULL, t, "u", 1, SC_KIND_APPEND, 0, &f, 1, NULL, 0));
    sc_snapshot s;
    OK(sc_table_read_snapshot(&s, NULL, t, 1));
    sc_manifest_file m = {0};
    m.name = s.delta_manifest_list.name;
    m.size = (int64_t)s.delta_manifest_list.length;
    m.added = 1;
    m.has_sha256 = 1;
    memcpy(m.sha256, s.delta_manifest_list.sha256, SC_SHA256_LEN);
    sc_manifest_file_vec v = {0};
    OK(sc_manifest_file_vec_push(&v, &m));
    sc_buf body = SC_BUF_INIT;
    OK(sc_paimon_list_encode(&body, &v));
    sc_manifest_file_vec_free(&v);
    OK(sc_store_put(sc_table_store(t), NULL, "manifest/manifest-list-crafted-0", body.data, body.len));
    /* Snapshot 2: snapshot 1 with the crafted list as its base. */
    s.id = 2;
    s.has_parent = 1; /* any hash: only fsck follows the chain */
    free(s.base_manifest_list.name);
    s.base_manifest_list.name = strdup("manifest-list-crafted-0");
    cr_assert_not_null(s.base_manifest_list.name);
    s.base_manifest_list.length = body.len;
    sc_sha256(s.base_manifest_list.sha256, body.data, body.len);
    sc_buf doc = SC_BUF_INIT;
    OK(sc_snapshot_encode(&doc, &s));
    OK(sc_store_put(sc_table_store(t), NULL, "snapshot/snapshot-2", doc.data, doc.len));
    sc_buf_free(&doc);
    sc_buf_free(&body);
    sc_snapshot_clear(&s);
    sc_file_list *files = NULL;
    int rc = sc_table_files(&files, t, 2);
    if (rc == 0) sc_file_list_free(files);
    cr_assert_eq(rc, SC_ECORRUPT, "rc %d: %s", rc, sc_error_message());
    sc_table_free(t);
}
