/*
 * Damage under the record-at-a-time paths (issue 20). A manifest of more than
 * SC_STATE_KEEP_RECORDS records is walked one record at a time and never
 * kept; these tests put such a manifest into a published snapshot on a posix
 * store and check, through sc_table_files_each, `snapcommit files --json`,
 * sc_table_fsck and sc_table_commit, that a sound one streams to the same
 * answers and that a damaged one (bytes that no longer match the pinned hash,
 * or records that add a file twice or delete one that is not live) fails
 * closed with SC_ECORRUPT naming what is damaged: nothing handed over, no
 * snapshot added. Then fsck's once-per-run manifest check: a later list that
 * carries the same manifest (name and hash) but declares other counts or
 * partition statistics is damage although the earlier declaration was sound.
 */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "engine/state.h"
#include "format/paimon_manifest.h"
#include "format/partition.h"
#include "format/snapshot.h"
#include "sc_test_util.h"

/* One manifest above the threshold: every walk of it is the unkept one. */
#define BIG (SC_STATE_KEEP_RECORDS + 8)
_Static_assert(BIG > SC_STATE_KEEP_RECORDS, "the big manifest must be above the keep threshold");
/* Files of snapshot 1 (real commits), before the spliced snapshot 2. */
#define SEEDS 3

static void add_entry(sc_entry_vec *v, sc_entry_kind kind, const char *part, int bucket, const char *file) {
    sc_file_entry f = tu_file(part, bucket, TU_BUCKETS, 0, file, 1, NULL, NULL);
    cr_assert_eq(sc_entry_vec_push(v, kind, &f), 0, "%s", sc_error_message());
}

/* BIG adds data/big-<i> in partition p0, in order. */
static void big_adds(sc_entry_vec *v) {
    char name[32];
    for (int i = 0; i < BIG; i++) {
        snprintf(name, sizeof name, "data/big-%d", i);
        add_entry(v, SC_ENTRY_ADD, "p0", i % TU_BUCKETS, name);
    }
}

static void put_object(sc_table *t, const char *key, const uint8_t *data, size_t len) {
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, data, len), 0, "%s: %s", key, sc_error_message());
}

/* Write `body` as manifest/<name> and return the reference to it (name owned by the caller). */
static sc_object_ref put_manifest_object(sc_table *t, const char *name, const sc_buf *body) {
    char key[256];
    sc_manifest_key(key, sizeof key, name);
    put_object(t, key, body->data, body->len);
    sc_object_ref r = {.name = strdup(name), .has_sha256 = 1, .length = body->len};
    sc_sha256(r.sha256, body->data, body->len);
    return r;
}

/* A list entry for manifest `ref` holding `entries`: its counts, partition statistics and pin,
 * as the library declares them. Borrows ref's name, `min`, `max` and `nulls` (the caller's). */
static sc_manifest_file meta_of(sc_table *t, const sc_object_ref *ref, const sc_entry_vec *entries, sc_buf *min,
                                sc_buf *max, int64_t *nulls) {
    sc_manifest_file m = {0};
    m.name = ref->name;
    m.size = (int64_t)ref->length;
    m.has_sha256 = 1;
    memcpy(m.sha256, ref->sha256, SC_SHA256_LEN);
    m.schema_id = t->schema.id;
    sc_bytes *parts = calloc(entries->count, sizeof *parts);
    cr_assert_not_null(parts);
    for (size_t i = 0; i < entries->count; i++) {
        parts[i] = entries->items[i].file.partition;
        if (entries->items[i].kind == SC_ENTRY_ADD) m.added++;
        else m.deleted++;
    }
    cr_assert_eq(sc_partition_stats(min, max, nulls, &t->schema, parts, entries->count, "test"), 0, "%s",
                 sc_error_message());
    free(parts);
    m.partition_min = min->data;
    m.partition_min_len = min->len;
    m.partition_max = max->data;
    m.partition_max_len = max->len;
    m.partition_null_counts = nulls;
    m.partition_null_count_len = t->schema.partition_key_count;
    m.has_partition_null_counts = 1;
    return m;
}

/* Encode `metas` as manifest/<name>; the reference a snapshot pins. */
static sc_object_ref put_list(sc_table *t, const char *name, const sc_manifest_file_vec *metas) {
    sc_buf body = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_list_encode(&body, metas), 0, "%s", sc_error_message());
    sc_object_ref r = put_manifest_object(t, name, &body);
    sc_buf_free(&body);
    return r;
}

/* Write snapshot `s` over snapshot/snapshot-<s->id> (sealed again by the encoder). */
static void put_snapshot(sc_table *t, const sc_snapshot *s) {
    sc_buf body = SC_BUF_INIT;
    cr_assert_eq(sc_snapshot_encode(&body, s), 0, "%s", sc_error_message());
    char key[64];
    sc_snapshot_key(key, s->id);
    put_object(t, key, body.data, body.len);
    sc_buf_free(&body);
}

/*
 * The table every streaming test starts from, on a posix store in a fresh temp dir:
 * snapshot 1 (a real commit of SEEDS files in p1), then snapshot 2, a real commit whose
 * delta is replaced by one manifest, manifest/<big_name>, holding `entries`; its fileCount
 * and record counts follow from them, as a writer's would. Returns no handle: each check
 * opens its own, so that nothing is read from a writer's cache.
 */
typedef struct stream_table {
    char dir[64];
    char big_name[64];
    char big_key[128];
} stream_table;

static void stream_table_make(stream_table *st, const sc_entry_vec *entries) {
    snprintf(st->dir, sizeof st->dir, "/tmp/sc-stream.XXXXXX");
    cr_assert_not_null(mkdtemp(st->dir));
    sc_table *t = tu_table_at(st->dir, (tu_table_opts){0});
    sc_file_entry seeds[SEEDS];
    char name[32];
    for (int i = 0; i < SEEDS; i++) {
        snprintf(name, sizeof name, "data/seed-%d", i);
        seeds[i] = tu_file("p1", i % TU_BUCKETS, TU_BUCKETS, 0, name, 1, NULL, NULL);
    }
    cr_assert_eq(tu_commit(NULL, t, "seed", 1, SC_KIND_APPEND, 0, seeds, SEEDS, NULL, 0), 0, "%s", sc_error_message());
    sc_file_entry tail = tu_file("p0", 0, TU_BUCKETS, 0, "data/replaced", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "seed", 2, SC_KIND_APPEND, 0, &tail, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 2);

    sc_snapshot prev, s;
    cr_assert_eq(sc_table_read_snapshot(&prev, NULL, t, 1), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, 2), 0, "%s", sc_error_message());
    sc_buf body = SC_BUF_INIT;
    cr_assert_eq(sc_paimon_manifest_encode(&body, entries), 0, "%s", sc_error_message());
    snprintf(st->big_name, sizeof st->big_name, "manifest-stream-big-0");
    sc_manifest_key(st->big_key, sizeof st->big_key, st->big_name);
    sc_object_ref big = put_manifest_object(t, st->big_name, &body);
    sc_buf_free(&body);

    sc_buf min = SC_BUF_INIT, max = SC_BUF_INIT;
    int64_t nulls[4] = {0};
    sc_manifest_file m = meta_of(t, &big, entries, &min, &max, nulls);
    sc_manifest_file_vec metas = {0};
    cr_assert_eq(sc_manifest_file_vec_push(&metas, &m), 0);
    sc_object_ref delta = put_list(t, "manifest-list-stream-delta-0", &metas);
    int64_t rows = 0;
    for (size_t i = 0; i < entries->count; i++)
        rows += entries->items[i].kind == SC_ENTRY_ADD ? entries->items[i].file.rows : -entries->items[i].file.rows;
    free(s.delta_manifest_list.name);
    s.delta_manifest_list = delta;
    s.file_count = (uint64_t)((int64_t)prev.file_count + m.added - m.deleted);
    s.delta_record_count = rows;
    s.total_record_count = prev.total_record_count + rows;
    put_snapshot(t, &s);
    sc_manifest_file_vec_free(&metas);
    sc_buf_free(&min);
    sc_buf_free(&max);
    free(big.name);
    sc_snapshot_clear(&s);
    sc_snapshot_clear(&prev);
    sc_table_free(t);
}

static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
    (void)sb, (void)type, (void)ftw;
    return remove(path);
}

/* Remove the table's directory (left in place when an assertion stopped the test before). */
static void stream_table_remove(const stream_table *st) {
    cr_assert_eq(nftw(st->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0, "removing %s", st->dir);
}

static sc_table *stream_open(const stream_table *st) { return tu_open(st->dir, (tu_table_opts){0}); }

/* Flip one byte of the big manifest, or cut its last 100 bytes; its list still pins the old
 * length and hash. */
static void damage_big(const stream_table *st, int truncate) {
    sc_table *t = stream_open(st);
    uint8_t *data;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &data, &len, NULL, st->big_key), 0, "%s", sc_error_message());
    if (truncate) len -= 100;
    else data[len / 2] ^= 0x01;
    put_object(t, st->big_key, data, len);
    free(data);
    sc_table_free(t);
}

/* ---- observation: what a walk handed over, how often the big manifest was read ---- */

typedef struct seen_files {
    size_t calls;
    size_t big, seed, other;
} seen_files;

static int see_file(void *ctx, const sc_file_entry *f) {
    seen_files *s = ctx;
    s->calls++;
    if (strncmp(f->file, "data-big-", 9) == 0) s->big++;
    else if (strncmp(f->file, "data-seed-", 10) == 0) s->seed++;
    else s->other++;
    return 0;
}

typedef struct get_counter {
    const char *key;
    unsigned gets;
} get_counter;

static int count_gets(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    get_counter *c = ctx;
    if (op == SC_OP_GET && strcmp(key, c->key) == 0) c->gets++;
    return 0;
}

/* sc_table_files_each of the latest snapshot on a fresh handle; *gets the GETs of the big manifest. */
static int files_each_fresh(seen_files *seen, unsigned *gets, const stream_table *st) {
    sc_table *t = stream_open(st);
    get_counter c = {st->big_key, 0};
    sc_store_set_fault_hook(sc_table_store(t), count_gets, &c);
    memset(seen, 0, sizeof *seen);
    int rc = sc_table_files_each(t, 0, see_file, seen);
    *gets = c.gets;
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    sc_table_free(t);
    return rc;
}

/* Run `snapcommit <args>`: exit status, stdout and stderr (both malloc'd). */
static int run_cli(char **out, char **err, const char *args) {
    const char *cli = getenv("SC_CLI");
    cr_assert_not_null(cli, "SC_CLI must name the snapcommit binary (set by ctest)");
    char errpath[] = "/tmp/sc-stream-err.XXXXXX";
    int fd = mkstemp(errpath);
    cr_assert_geq(fd, 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "SNAPCOMMIT_LOG=off '%s' %s 2>'%s'", cli, args, errpath);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    sc_buf b = SC_BUF_INIT;
    uint8_t chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) cr_assert_eq(sc_buf_append(&b, chunk, n), 0);
    cr_assert_eq(sc_buf_append_byte(&b, 0), 0);
    int st = pclose(p);
    *out = (char *)b.data;
    FILE *e = fdopen(fd, "r");
    cr_assert_not_null(e);
    char *text = calloc(1, 1 << 16);
    size_t got = fread(text, 1, (1 << 16) - 1, e);
    text[got] = '\0';
    fclose(e);
    unlink(errpath);
    *err = text;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Occurrences of `needle` in `text` (a scan of its own: strstr from each match is quadratic
 * under ASan, whose interceptor measures the rest of a 2 MB output every call). */
static size_t occurrences(const char *text, const char *needle) {
    size_t n = 0, len = strlen(text), nlen = strlen(needle);
    for (size_t i = 0; i + nlen <= len; i++)
        if (text[i] == needle[0] && memcmp(text + i, needle, nlen) == 0) {
            n++;
            i += nlen - 1;
        }
    return n;
}

/* Entries of <dir>/manifest: a failed commit leaves none of its objects behind. */
static size_t manifest_objects(const stream_table *st) {
    char path[128];
    snprintf(path, sizeof path, "%s/manifest", st->dir);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* ---- a sound big manifest streams to the answers of the whole-table read ---- */

Test(stream_damage, a_sound_manifest_above_the_threshold_streams_and_commits) {
    sc_entry_vec entries = {0};
    big_adds(&entries);
    stream_table st;
    stream_table_make(&st, &entries);
    cr_assert_gt(entries.count, SC_STATE_KEEP_RECORDS);

    /* Every live file, once; the big manifest read once per pass and never kept (a kept one
     * is read once: see the control test below). */
    seen_files seen;
    unsigned gets;
    cr_assert_eq(files_each_fresh(&seen, &gets, &st), 0, "%s", sc_error_message());
    cr_assert_eq(seen.big, (size_t)BIG);
    cr_assert_eq(seen.seed, (size_t)SEEDS);
    cr_assert_eq(seen.other, 0, "the replaced delta's file is not live");
    cr_assert_geq(gets, 2, "the big manifest was read %u time(s): kept, not streamed", gets);

    /* The whole-table read (sc_table_files) agrees in count. */
    sc_table *t = stream_open(&st);
    cr_assert_eq(tu_file_count(t), (size_t)BIG + SEEDS);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);

    char args[256], *out, *err;
    snprintf(args, sizeof args, "files '%s' --json", st.dir);
    int status = run_cli(&out, &err, args);
    cr_assert_eq(status, 0, "files --json: %d: %s", status, err);
    cr_assert_eq(occurrences(out, "\"file\": \"data-big-"), (size_t)BIG);
    cr_assert_eq(occurrences(out, "\"file\": "), (size_t)BIG + SEEDS);
    free(out);
    free(err);

    /* Commits into p0 on a cold handle: an append, then a compaction that deletes one of the
     * big manifest's files (its check streams the manifest to find that file live). */
    t = stream_open(&st);
    sc_file_entry after = tu_file("p0", 1, TU_BUCKETS, 0, "data/after", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, &after, 1, NULL, 0), 0, "%s", sc_error_message());
    sc_table_free(t);
    t = stream_open(&st);
    sc_file_entry gone = tu_file("p0", 4321 % TU_BUCKETS, TU_BUCKETS, 0, "data/big-4321", 1, NULL, NULL);
    sc_file_entry merged = tu_file("p0", 4321 % TU_BUCKETS, TU_BUCKETS, 0, "data/merged", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "w", 2, SC_KIND_COMPACT, 0, &merged, 1, &gone, 1), 0, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 4);
    sc_table_free(t);
    cr_assert_eq(files_each_fresh(&seen, &gets, &st), 0, "%s", sc_error_message());
    cr_assert_eq(seen.big, (size_t)BIG - 1);
    cr_assert_eq(seen.other, 2, "data/after and data/merged");
    sc_entry_vec_free(&entries);
    stream_table_remove(&st);
}

/* The GET count above tells the paths apart: the same table at or below the threshold keeps
 * the manifest after its first read. */
Test(stream_damage, control_a_manifest_at_the_threshold_is_read_once) {
    sc_entry_vec entries = {0};
    char name[32];
    for (int i = 0; i < SC_STATE_KEEP_RECORDS - SEEDS; i++) {
        snprintf(name, sizeof name, "data/big-%d", i);
        add_entry(&entries, SC_ENTRY_ADD, "p0", i % TU_BUCKETS, name);
    }
    stream_table st;
    stream_table_make(&st, &entries);
    seen_files seen;
    unsigned gets;
    cr_assert_eq(files_each_fresh(&seen, &gets, &st), 0, "%s", sc_error_message());
    cr_assert_eq(seen.big, entries.count);
    cr_assert_eq(gets, 1, "a kept manifest is read once, not %u times", gets);
    sc_entry_vec_free(&entries);
    stream_table_remove(&st);
}

/* ---- damage: every reader and a commit fail closed ---- */

/*
 * The damaged table at st: sc_table_files_each hands nothing over and fails with
 * SC_ECORRUPT whose message holds `needle` (and `needle2`, unless NULL); so do fsck and
 * `snapcommit files --json` (exit 1, no file printed); and the commit of `adds` and `dels`
 * fails with SC_ECORRUPT, adding no snapshot and leaving no object behind.
 */
static void fails_closed(const stream_table *st, const char *needle, const char *needle2, sc_commit_kind kind,
                         const sc_file_entry *adds, size_t nadds, const sc_file_entry *dels, size_t ndels) {
    seen_files seen;
    unsigned gets;
    int rc = files_each_fresh(&seen, &gets, st);
    cr_assert_eq(rc, SC_ECORRUPT, "files_each: %s: %s", sc_error_name(rc), sc_error_message());
    cr_assert_eq(seen.calls, 0, "a damaged table hands nothing over (%zu files were)", seen.calls);
    /* Damage in records is found by the walk's second pass over the big manifest, read again
     * because it was not kept; damage in bytes by its first read. */
    cr_assert_geq(gets, strstr(needle, "manifests") ? 2u : 1u, "the big manifest was read %u time(s)", gets);
    cr_assert(strstr(sc_error_message(), needle), "files_each: %s", sc_error_message());
    if (needle2) cr_assert(strstr(sc_error_message(), needle2), "files_each: %s", sc_error_message());

    sc_table *t = stream_open(st);
    rc = sc_table_fsck(t, NULL, NULL);
    cr_assert_eq(rc, SC_ECORRUPT, "fsck: %s: %s", sc_error_name(rc), sc_error_message());
    cr_assert(strstr(sc_error_message(), needle), "fsck: %s", sc_error_message());
    if (needle2) cr_assert(strstr(sc_error_message(), needle2), "fsck: %s", sc_error_message());
    sc_table_free(t);

    char args[256], *out, *err;
    snprintf(args, sizeof args, "files '%s' --json", st->dir);
    int status = run_cli(&out, &err, args);
    cr_assert_eq(status, 1, "files --json exited %d: %s", status, err);
    cr_assert_eq(occurrences(out, "\"file\""), 0, "printed: %.200s", out);
    cr_assert(strstr(err, needle) && strstr(err, "SC_ECORRUPT"), "stderr: %s", err);
    free(out);
    free(err);

    size_t objects = manifest_objects(st);
    t = stream_open(st);
    rc = tu_commit(NULL, t, "w", 1, kind, 0, adds, nadds, dels, ndels);
    cr_assert_eq(rc, SC_ECORRUPT, "commit: %s: %s", sc_error_name(rc), sc_error_message());
    cr_assert(strstr(sc_error_message(), needle), "commit: %s", sc_error_message());
    if (needle2) cr_assert(strstr(sc_error_message(), needle2), "commit: %s", sc_error_message());
    sc_table_free(t);
    char key[64], path[256];
    sc_snapshot_key(key, 3);
    snprintf(path, sizeof path, "%s/%s", st->dir, key);
    struct stat sb;
    cr_assert_neq(stat(path, &sb), 0, "the failed commit claimed snapshot 3");
    t = stream_open(st);
    cr_assert_eq(tu_latest(t), 2);
    sc_table_free(t);
    cr_assert_eq(manifest_objects(st), objects, "the failed commit left objects under manifest/");
}

Test(stream_damage, a_flipped_byte_in_the_big_manifest_fails_closed) {
    sc_entry_vec entries = {0};
    big_adds(&entries);
    stream_table st;
    stream_table_make(&st, &entries);
    damage_big(&st, 0);
    sc_file_entry after = tu_file("p0", 1, TU_BUCKETS, 0, "data/after", 1, NULL, NULL);
    fails_closed(&st, st.big_name, "SHA-256", SC_KIND_APPEND, &after, 1, NULL, 0);
    sc_entry_vec_free(&entries);
    stream_table_remove(&st);
}

Test(stream_damage, a_truncated_big_manifest_fails_closed) {
    sc_entry_vec entries = {0};
    big_adds(&entries);
    stream_table st;
    stream_table_make(&st, &entries);
    damage_big(&st, 1);
    sc_file_entry after = tu_file("p0", 1, TU_BUCKETS, 0, "data/after", 1, NULL, NULL);
    fails_closed(&st, st.big_name, "truncated", SC_KIND_APPEND, &after, 1, NULL, 0);
    sc_entry_vec_free(&entries);
    stream_table_remove(&st);
}

/* Valid Avro, pinned correctly, declared counts true: a file added a second time after the
 * first 8,192 records. A commit that compacts that file away must not build on it. */
Test(stream_damage, a_big_manifest_adding_a_file_twice_fails_closed) {
    sc_entry_vec entries = {0};
    big_adds(&entries);
    add_entry(&entries, SC_ENTRY_ADD, "p0", 4321 % TU_BUCKETS, "data/big-4321");
    stream_table st;
    stream_table_make(&st, &entries);
    sc_file_entry gone = tu_file("p0", 4321 % TU_BUCKETS, TU_BUCKETS, 0, "data/big-4321", 1, NULL, NULL);
    sc_file_entry merged = tu_file("p0", 4321 % TU_BUCKETS, TU_BUCKETS, 0, "data/merged", 1, NULL, NULL);
    fails_closed(&st, "snapshot 2: manifests add data-big-4321 twice", NULL, SC_KIND_COMPACT, &merged, 1, &gone, 1);
    sc_entry_vec_free(&entries);
    stream_table_remove(&st);
}

/* A DELETE of a file no record added, after the adds: a commit adding that file must not
 * take the table's word that it is free. */
Test(stream_damage, a_big_manifest_deleting_a_file_that_is_not_live_fails_closed) {
    sc_entry_vec entries = {0};
    big_adds(&entries);
    add_entry(&entries, SC_ENTRY_DELETE, "p0", 0, "data/ghost");
    stream_table st;
    stream_table_make(&st, &entries);
    sc_file_entry ghost = tu_file("p0", 0, TU_BUCKETS, 0, "data/ghost", 1, NULL, NULL);
    fails_closed(&st, "snapshot 2: manifests delete data-ghost, which is not live", NULL, SC_KIND_APPEND, &ghost, 1, NULL,
                 0);
    sc_entry_vec_free(&entries);
    stream_table_remove(&st);
}

/*
 * A bulk delta whose list pins a manifest's hash but gives its length as 0 (no Avro file is
 * empty, no snapcommit writer pins so): not taken on that pin, whose length would bound
 * nothing. Here the pinned bytes are no Avro at all; the next commit, in another partition
 * (the conflict check reads nothing of p0), decodes them and stops.
 */
Test(stream_damage, a_bulk_delta_pinned_without_a_length_is_decoded) {
    sc_entry_vec entries = {0};
    big_adds(&entries);
    stream_table st;
    stream_table_make(&st, &entries);
    sc_table *t = stream_open(&st);
    static const char junk[] = "these bytes hash to the pin but are not an Avro file";
    sc_buf body = SC_BUF_INIT;
    cr_assert_eq(sc_buf_append(&body, junk, sizeof junk - 1), 0);
    sc_object_ref ref = put_manifest_object(t, "manifest-stream-unsized-0", &body);
    sc_buf_free(&body);
    sc_buf min = SC_BUF_INIT, max = SC_BUF_INIT;
    int64_t nulls[4] = {0};
    sc_manifest_file m = meta_of(t, &ref, &entries, &min, &max, nulls); /* BIG records declared */
    m.size = 0;
    sc_manifest_file_vec metas = {0};
    cr_assert_eq(sc_manifest_file_vec_push(&metas, &m), 0);
    sc_object_ref delta = put_list(t, "manifest-list-stream-unsized-0", &metas);
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, 2), 0, "%s", sc_error_message());
    free(s.delta_manifest_list.name);
    s.delta_manifest_list = delta;
    put_snapshot(t, &s);
    sc_snapshot_clear(&s);
    sc_manifest_file_vec_free(&metas);
    sc_buf_free(&min);
    sc_buf_free(&max);
    free(ref.name);
    sc_table_free(t);

    t = stream_open(&st);
    sc_file_entry after = tu_file("p1", 0, TU_BUCKETS, 0, "data/after", 1, NULL, NULL);
    int rc = tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, &after, 1, NULL, 0);
    cr_assert_eq(rc, SC_ECORRUPT, "commit: %s: %s", sc_error_name(rc), sc_error_message());
    cr_assert(strstr(sc_error_message(), "the delta of snapshot 2") &&
                  strstr(sc_error_message(), "manifest-stream-unsized-0"),
              "commit: %s", sc_error_message());
    cr_assert_eq(tu_latest(t), 2, "nothing claimed");
    sc_table_free(t);
    sc_entry_vec_free(&entries);
    stream_table_remove(&st);
}

/* ---- fsck: one manifest, two lists, two declarations ---- */

/*
 * Table mem://<name>: snapshot 1 adds SEEDS files in p0 (its delta list declares manifest
 * M), snapshot 2 adds one in p1 and carries M forward in its base list. Then `edit` changes
 * what snapshot 2's base list declares of M (M itself, its name and hash stay), the list is
 * written under a new name and snapshot 2 is written again naming it. Out: M's name and the
 * new list's name.
 */
static void redeclared(const char *name, void (*edit)(sc_manifest_file *m), char *carried, size_t carried_cap,
                       char *list, size_t list_cap) {
    sc_table *t = tu_mem_table(name);
    sc_file_entry seeds[SEEDS];
    char file[32];
    for (int i = 0; i < SEEDS; i++) {
        snprintf(file, sizeof file, "data/s-%d", i);
        seeds[i] = tu_file("p0", i % TU_BUCKETS, TU_BUCKETS, 0, file, 1, NULL, NULL);
    }
    cr_assert_eq(tu_commit(NULL, t, "w", 1, SC_KIND_APPEND, 0, seeds, SEEDS, NULL, 0), 0, "%s", sc_error_message());
    sc_file_entry next = tu_file("p1", 0, TU_BUCKETS, 0, "data/n", 1, NULL, NULL);
    cr_assert_eq(tu_commit(NULL, t, "w", 2, SC_KIND_APPEND, 0, &next, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());

    sc_snapshot s1, s2;
    cr_assert_eq(sc_table_read_snapshot(&s1, NULL, t, 1), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_read_snapshot(&s2, NULL, t, 2), 0, "%s", sc_error_message());
    sc_manifest_file_vec first = {0}, base = {0};
    cr_assert_eq(sc_state_load_list(&first, t, &s1.delta_manifest_list), 0, "%s", sc_error_message());
    cr_assert_eq(sc_state_load_list(&base, t, &s2.base_manifest_list), 0, "%s", sc_error_message());
    cr_assert_eq(first.count, 1);
    const sc_manifest_file *m1 = &first.items[0];
    sc_manifest_file *m2 = NULL;
    for (size_t i = 0; i < base.count; i++)
        if (strcmp(base.items[i].name, m1->name) == 0) m2 = &base.items[i];
    cr_assert_not_null(m2, "snapshot 2's base list carries %s", m1->name);
    /* The same manifest, declared alike by both lists until the edit. */
    cr_assert(m1->has_sha256 && m2->has_sha256 && memcmp(m1->sha256, m2->sha256, SC_SHA256_LEN) == 0);
    cr_assert_eq(m1->size, m2->size);
    cr_assert_eq(m1->added, SEEDS);
    cr_assert_eq(m2->added, m1->added);
    cr_assert_eq(m2->deleted, m1->deleted);
    edit(m2);

    snprintf(carried, carried_cap, "%s", m1->name);
    snprintf(list, list_cap, "manifest-list-redeclared-%s", name);
    sc_object_ref ref = put_list(t, list, &base);
    free(s2.base_manifest_list.name);
    s2.base_manifest_list = ref;
    put_snapshot(t, &s2);
    sc_manifest_file_vec_free(&first);
    sc_manifest_file_vec_free(&base);
    sc_snapshot_clear(&s1);
    sc_snapshot_clear(&s2);
    sc_table_free(t);
}

static void one_more_add(sc_manifest_file *m) { m->added++; }
static void a_delete_too(sc_manifest_file *m) { m->deleted = 1; }

/* Statistics [p9, p9]: the records (p0) lie outside what the list now declares. */
static void other_partitions(sc_manifest_file *m) {
    sc_bytes p9 = tu_string_row("p9");
    free(m->partition_min);
    free(m->partition_max);
    m->partition_min = malloc(p9.len);
    m->partition_max = malloc(p9.len);
    cr_assert(m->partition_min && m->partition_max);
    memcpy(m->partition_min, p9.data, p9.len);
    memcpy(m->partition_max, p9.data, p9.len);
    m->partition_min_len = m->partition_max_len = p9.len;
}

/* Two records with a null partition field, where every record of M has "p0". */
static void other_null_counts(sc_manifest_file *m) {
    cr_assert(m->has_partition_null_counts && m->partition_null_count_len == 1, "one partition field, counted");
    cr_assert_eq(m->partition_null_counts[0], 0);
    m->partition_null_counts[0] = 2;
}

/* fsck of the redeclared table on a fresh handle: SC_ECORRUPT naming the manifest and what
 * is wrong (`needle`); with `list_named`, the message names the list that declares it too. */
static void redeclared_is_damage(const char *name, void (*edit)(sc_manifest_file *m), const char *needle,
                                 int list_named) {
    char carried[128], list[128];
    redeclared(name, edit, carried, sizeof carried, list, sizeof list);
    sc_table *t = tu_reopen(name);
    int rc = sc_table_fsck(t, NULL, NULL);
    char message[1024];
    snprintf(message, sizeof message, "%s", sc_error_message());
    sc_table_free(t); /* before the assertions: a failed one leaks nothing under ASan */
    cr_assert_eq(rc, SC_ECORRUPT, "%s: fsck %s: %s", name, sc_error_name(rc), message);
    cr_assert(strstr(message, carried), "%s: names the manifest: %s", name, message);
    cr_assert(strstr(message, needle), "%s: %s", name, message);
    if (list_named) cr_assert(strstr(message, list), "%s: names the list that declares it (%s): %s", name, list, message);
}

Test(stream_damage, fsck_checks_a_manifest_again_when_a_later_list_declares_other_counts) {
    redeclared_is_damage("sd-decl-added", one_more_add, "its list declares 4 and 0", 0);
    redeclared_is_damage("sd-decl-deleted", a_delete_too, "its list declares 3 and 1", 0);
}

Test(stream_damage, fsck_checks_a_manifest_again_when_a_later_list_declares_other_partitions) {
    redeclared_is_damage("sd-decl-parts", other_partitions, "outside the partition statistics", 0);
}

Test(stream_damage, fsck_checks_the_null_counts_a_list_declares) {
    redeclared_is_damage("sd-decl-nulls", other_null_counts,
                         "0 records have a null partition field \"part\", its list declares 2", 1);
}

/* The manifest is sound and two lists name it: "its list" alone does not say which one is
 * wrong. The report must name the list (snapshot 2's base list here). */
Test(stream_damage, fsck_names_the_list_whose_declaration_is_wrong) {
    redeclared_is_damage("sd-name-added", one_more_add, "its list declares 4 and 0", 1);
    redeclared_is_damage("sd-name-parts", other_partitions, "outside the partition statistics", 1);
}
