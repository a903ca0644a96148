/*
 * Snapshot expiration with Paimon's meanings (ExpireSnapshotsImpl at 1.4.2),
 * and what orphan removal shares with it (engine/upkeep.h).
 *
 * Safety rests on three rules (docs/protocols.md "Upkeep"):
 *  - nothing a retained snapshot (EARLIEST after the run .. the latest seen)
 *    references is deleted: the keep sets are built from every retained
 *    snapshot before anything is deleted;
 *  - snapshot/EARLIEST moves first, durably: from then on no reader starts
 *    at an expired snapshot, and discovery treats those still present as an
 *    expiration in progress;
 *  - objects go in the order data files, manifests, manifest lists, snapshot
 *    files, so a snapshot file that is still present below EARLIEST may have
 *    lost its objects (a re-run tolerates that), never the other way round.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"
#include "base/log.h"
#include "engine/index_state.h"
#include "engine/replay.h"
#include "engine/state.h"
#include "engine/table.h"
#include "engine/upkeep.h"
#include "snapcommit/upkeep.h"

/* ---- key sets ---- */

int sc_keyset_add(sc_keyset *s, const char *key, uint64_t size) {
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        sc_keyset_item *items = cap > SIZE_MAX / sizeof *items ? NULL : realloc(s->items, cap * sizeof *items);
        if (!items) return sc_error_set(SC_ENOMEM, "out of memory (a set of %zu keys)", s->count);
        s->items = items;
        s->cap = cap;
    }
    char *copy = strdup(key);
    if (!copy) return sc_error_set(SC_ENOMEM, "out of memory");
    s->items[s->count++] = (sc_keyset_item){copy, size};
    s->sealed = 0;
    return 0;
}

static int item_cmp(const void *a, const void *b) {
    return strcmp(((const sc_keyset_item *)a)->key, ((const sc_keyset_item *)b)->key);
}

void sc_keyset_seal(sc_keyset *s) {
    if (s->count > 1) {
        /* qsort is not stable: the size kept for a duplicate is any of its sizes, which
         * are the same object's size as two references record it. */
        qsort(s->items, s->count, sizeof *s->items, item_cmp);
        size_t w = 1;
        for (size_t r = 1; r < s->count; r++) {
            if (strcmp(s->items[r].key, s->items[w - 1].key) == 0) free(s->items[r].key);
            else s->items[w++] = s->items[r];
        }
        s->count = w;
    }
    s->sealed = 1;
}

int sc_keyset_has(const sc_keyset *s, const char *key) {
    sc_keyset_item probe = {(char *)key, 0};
    return s->count && bsearch(&probe, s->items, s->count, sizeof *s->items, item_cmp) != NULL;
}

void sc_keyset_free(sc_keyset *s) {
    for (size_t i = 0; i < s->count; i++) free(s->items[i].key);
    free(s->items);
    *s = (sc_keyset){0};
}

/* ---- what a snapshot references ---- */

static int add_manifest_key(sc_keyset *set, const char *name, uint64_t size) {
    char key[SC_MANIFEST_PATH_MAX + 16];
    sc_manifest_key(key, sizeof key, name);
    return sc_keyset_add(set, key, size);
}

int sc_upkeep_extra_refs(sc_keyset *keep, sc_keyset *expired, sc_table *t, const sc_snapshot *s) {
    /* The watermark archive a snapshot depends on. A snapshot Paimon wrote names none
     * itself: its users' watermarks come from the newest snapshot of ours below it
     * (sc_replay_complete), whose archive must stay while the Paimon snapshot is retained. */
    sc_keyset *into = keep ? keep : expired; /* a retained snapshot's, or an expired one's */
    if (!into) return 0;
    sc_snapshot completed;
    const sc_snapshot *use = s;
    int rc = 0;
    if (s->foreign) {
        if ((rc = sc_table_read_snapshot(&completed, NULL, t, s->id)) != 0) return rc;
        if ((rc = sc_replay_complete(t, &completed)) != 0) {
            sc_snapshot_clear(&completed);
            return rc;
        }
        use = &completed;
    }
    char keys[SC_REPLAY_MAX_OBJECTS][SC_WATERMARK_ARCHIVE_KEY_MAX];
    size_t n = sc_replay_snapshot_objects(keys, SC_REPLAY_MAX_OBJECTS, use);
    for (size_t i = 0; !rc && i < n; i++) rc = sc_keyset_add(into, keys[i], 0);
    if (use == &completed) sc_snapshot_clear(&completed);
    return rc;
}

int sc_upkeep_meta_refs(sc_keyset *lists, sc_keyset *manifests, sc_table *t, const sc_snapshot *s) {
    const sc_object_ref *refs[2] = {&s->base_manifest_list, &s->delta_manifest_list};
    int rc = 0;
    for (int i = 0; !rc && i < 2; i++) {
        rc = add_manifest_key(lists, refs[i]->name, refs[i]->length);
        sc_manifest_file_vec metas = {0};
        if (!rc) rc = sc_state_load_list(&metas, t, refs[i]);
        for (size_t j = 0; !rc && j < metas.count; j++)
            rc = add_manifest_key(manifests, metas.items[j].name, metas.items[j].size > 0 ? (uint64_t)metas.items[j].size : 0);
        sc_manifest_file_vec_free(&metas);
    }
    return rc;
}

int sc_upkeep_index_key(char **out, sc_table *t, const sc_index_entry *e) {
    /* Paimon's FileStorePathFactory.indexFileFactory: IndexInDataFileDirPathFactory puts them
     * beside the bucket's data files. */
    const char *in_data_dir = sc_schema_option(&t->schema, "index-file-in-data-file-dir");
    if (in_data_dir && strcasecmp(in_data_dir, "true") == 0) {
        sc_file_entry f = {.partition = e->partition, .bucket = e->bucket, .file = e->file};
        return sc_table_file_path(out, t, &f);
    }
    size_t n = strlen("index/") + strlen(e->file) + 1;
    if (!(*out = malloc(n))) return sc_error_set(SC_ENOMEM, "out of memory");
    snprintf(*out, n, "index/%s", e->file);
    return 0;
}

int sc_upkeep_paimon_refs(sc_keyset *lists, sc_keyset *manifests, sc_keyset *files, sc_keyset *extra,
                          uint64_t *out_skipped, sc_table *t, const sc_snapshot *s) {
    int rc = 0;
    if (s->changelog_manifest_list.name)
        rc = add_manifest_key(lists, s->changelog_manifest_list.name, s->changelog_manifest_list.length);
    if (!rc && s->index_manifest) rc = add_manifest_key(manifests, s->index_manifest, 0);
    if (!rc && s->statistics) {
        char key[SC_MANIFEST_PATH_MAX + 16];
        snprintf(key, sizeof key, "statistics/%s", s->statistics);
        rc = sc_keyset_add(extra, key, 0);
    }
    /* Changelog files: every ADD of the changelog list's manifests (Paimon deletes them
     * with the snapshot that names them, unless the changelog lifecycle is decoupled). */
    sc_manifest_file_vec metas = {0};
    if (!rc && s->changelog_manifest_list.name) rc = sc_state_load_list(&metas, t, &s->changelog_manifest_list);
    for (size_t i = 0; !rc && i < metas.count; i++) {
        rc = add_manifest_key(manifests, metas.items[i].name, metas.items[i].size > 0 ? (uint64_t)metas.items[i].size : 0);
        sc_entry_vec records = {0};
        if (!rc) rc = sc_state_load_manifest(&records, t, &metas.items[i]);
        for (size_t j = 0; !rc && j < records.count; j++)
            if (records.items[j].kind == SC_ENTRY_ADD) rc = sc_upkeep_data_keys(files, out_skipped, t, &records.items[j].file);
        sc_entry_vec_free(&records);
    }
    sc_manifest_file_vec_free(&metas);
    sc_index_vec index = {0};
    if (!rc && s->index_manifest) rc = sc_index_state_load(&index, t, s->index_manifest);
    for (size_t i = 0; !rc && i < index.count; i++) {
        const sc_index_entry *e = &index.items[i].entry;
        if (index.items[i].kind != SC_ENTRY_ADD) continue; /* a snapshot's index manifest lists the live files */
        if (e->external_path) {
            (*out_skipped)++;
            continue;
        }
        char *key = NULL;
        rc = sc_upkeep_index_key(&key, t, e);
        if (!rc) rc = sc_keyset_add(files, key, e->size > 0 ? (uint64_t)e->size : 0);
        free(key);
    }
    sc_index_vec_free(&index);
    return rc;
}

int sc_upkeep_collect_record(void *ctx, sc_entry_kind kind, const sc_file_entry *f) {
    sc_upkeep_collect *c = ctx;
    return c->one_kind && kind != c->kind ? 0 : sc_upkeep_data_keys(c->into, c->skipped, c->t, f);
}

int sc_upkeep_data_keys(sc_keyset *out, uint64_t *out_skipped, sc_table *t, const sc_file_entry *f) {
    if (f->external_path) {
        (*out_skipped)++;
        return 0;
    }
    char *path = NULL;
    int rc = sc_table_file_path(&path, t, f);
    if (rc) return rc;
    rc = sc_keyset_add(out, path, f->size > 0 ? (uint64_t)f->size : 0);
    size_t dir = strlen(path) - strlen(f->file); /* the path ends with the file name */
    for (size_t i = 0; !rc && i < f->extra_file_count; i++) {
        const char *extra = f->extra_files[i];
        if (!extra || !*extra || strchr(extra, '/')) { /* not a name in the same directory */
            (*out_skipped)++;
            continue;
        }
        size_t n = dir + strlen(extra) + 1;
        char *key = malloc(n);
        if (!key) {
            rc = sc_error_set(SC_ENOMEM, "out of memory");
            break;
        }
        snprintf(key, n, "%.*s%s", (int)dir, path, extra);
        rc = sc_keyset_add(out, key, 0);
        free(key);
    }
    free(path);
    return rc;
}

/* Reads of the latest after one found below EARLIEST, before that is taken as damage. */
#define RANGE_REREADS 3

int sc_upkeep_read_range(uint64_t *out_latest, uint64_t *out_earliest, sc_table *t, const char *what) {
    uint64_t latest = 0, earliest = 0;
    int rc = t->strategy->latest(t, &latest);
    if (!rc && latest) rc = t->strategy->earliest(t, &earliest);
    for (int i = 0; !rc && latest && latest < earliest && i < RANGE_REREADS; i++)
        rc = t->strategy->latest(t, &latest); /* commits landed meanwhile: EARLIEST only follows them */
    *out_latest = rc ? 0 : latest;
    *out_earliest = rc ? 0 : earliest;
    if (rc) return rc;
    if (latest && latest < earliest)
        return sc_error_set(SC_ECORRUPT, "%s: the latest snapshot found, %" PRIu64 ", is below EARLIEST %" PRIu64
                                         " (snapshot/LATEST names a leftover below EARLIEST?)",
                            what, latest, earliest);
    return 0;
}

int sc_upkeep_refuse_unprotected(sc_table *t, const char *what) {
    /* changelog/: Paimon's long-lived changelogs (a decoupled changelog lifecycle) name the
     * manifests, changelog and index files of snapshots already expired. */
    static const char *const prefixes[] = {"tag/", "branch/", "consumer/", "changelog/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        sc_list_page page;
        int rc = sc_store_list(t->store, &page, prefixes[i], NULL, 1);
        if (rc) return sc_error_wrap(rc, "listing %s", prefixes[i]);
        size_t n = page.count;
        char first[256] = "";
        if (n) snprintf(first, sizeof first, "%s", page.keys[0]);
        sc_list_page_free(&page);
        if (n)
            return sc_error_set(SC_EUNSUPPORTED,
                                "%s refused: the table has Paimon %.*s (%s), which pin snapshots and files this "
                                "build does not protect; use Paimon's own procedures on it",
                                what, (int)strlen(prefixes[i]) - 1, prefixes[i], first);
    }
    return 0;
}

/* ---- options ---- */

void sc_expire_options_init(sc_expire_options *opt) {
    *opt = (sc_expire_options){.retain_min = SC_EXPIRE_DEFAULT_RETAIN_MIN,
                               .retain_max = SC_EXPIRE_DEFAULT_RETAIN_MAX,
                               .older_than_ms = SC_EXPIRE_DEFAULT_OLDER_THAN_MS,
                               .limit = SC_EXPIRE_DEFAULT_LIMIT};
}

int sc_duration_parse(int64_t *out_ms, const char *text) {
    static const struct {
        const char *unit;
        int64_t ms;
    } units[] = {{"", 1},          {"ms", 1},        {"milli", 1},        {"millis", 1},     {"millisecond", 1},
                 {"milliseconds", 1}, {"s", 1000},   {"sec", 1000},       {"secs", 1000},    {"second", 1000},
                 {"seconds", 1000}, {"m", 60000},    {"min", 60000},      {"mins", 60000},   {"minute", 60000},
                 {"minutes", 60000}, {"h", 3600000}, {"hour", 3600000},   {"hours", 3600000}, {"d", 86400000},
                 {"day", 86400000}, {"days", 86400000}};
    if (!out_ms || !text) return sc_error_set(SC_EINVAL, "duration: NULL argument");
    const char *p = text;
    while (*p == ' ') p++;
    if (*p < '0' || *p > '9')
        return sc_error_set(SC_EINVAL, "duration \"%.40s\": expected a number and a unit (500ms, 30s, 30min, 1h, 1d)", text);
    int64_t n = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (n > (INT64_MAX - (*p - '0')) / 10) return sc_error_set(SC_EINVAL, "duration \"%.40s\": too large", text);
        n = n * 10 + (*p - '0');
    }
    while (*p == ' ') p++;
    size_t len = strlen(p);
    while (len && p[len - 1] == ' ') len--;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        if (strlen(units[i].unit) != len || strncmp(units[i].unit, p, len) != 0) continue;
        if (n > INT64_MAX / units[i].ms) return sc_error_set(SC_EINVAL, "duration \"%.40s\": too large", text);
        *out_ms = n * units[i].ms;
        return 0;
    }
    return sc_error_set(SC_EINVAL, "duration \"%.40s\": unknown unit (ms, s, min, h, d)", text);
}

static int option_count(uint64_t *out, const sc_table *t, const char *key, uint64_t min) {
    const char *v = sc_schema_option(&t->schema, key);
    if (!v) return 0;
    char *end = NULL;
    if (*v < '0' || *v > '9') return sc_error_set(SC_EINVAL, "table option %s = \"%.40s\": not a count", key, v);
    unsigned long long n = strtoull(v, &end, 10);
    if (*end || n < min) return sc_error_set(SC_EINVAL, "table option %s = \"%.40s\": not a count >= %" PRIu64, key, v, min);
    *out = n;
    return 0;
}

int sc_expire_options_from_table(sc_expire_options *opt, sc_table *t) {
    if (!opt || !t) return sc_error_set(SC_EINVAL, "expire options: NULL argument");
    sc_expire_options_init(opt);
    int rc = option_count(&opt->retain_min, t, "snapshot.num-retained.min", 1);
    if (!rc) rc = option_count(&opt->retain_max, t, "snapshot.num-retained.max", 1);
    if (!rc) rc = option_count(&opt->limit, t, "snapshot.expire.limit", 1);
    const char *v = sc_schema_option(&t->schema, "snapshot.time-retained");
    if (!rc && v && sc_duration_parse(&opt->older_than_ms, v) != 0)
        rc = sc_error_wrap(SC_EINVAL, "table option snapshot.time-retained");
    return rc;
}

/*
 * Paimon's CoreOptions.changelogLifecycleDecoupled: changelog.num-retained.min/max and
 * changelog.time-retained (each defaulting to its snapshot.* option) retaining more than the
 * snapshot options. Paimon then keeps the changelog of expired snapshots (changelog/ metadata,
 * its own expiration) and their data manifest lists, which this build does not do: refused.
 */
static int refuse_decoupled_changelog(sc_table *t) {
    sc_expire_options snap, log;
    int rc = sc_expire_options_from_table(&snap, t);
    if (rc) return rc;
    log = snap;
    rc = option_count(&log.retain_min, t, "changelog.num-retained.min", 1);
    if (!rc) rc = option_count(&log.retain_max, t, "changelog.num-retained.max", 1);
    const char *v = sc_schema_option(&t->schema, "changelog.time-retained");
    if (!rc && v && sc_duration_parse(&log.older_than_ms, v) != 0) rc = sc_error_wrap(SC_EINVAL, "table option changelog.time-retained");
    if (rc) return rc;
    if (log.retain_max > snap.retain_max || log.older_than_ms > snap.older_than_ms || log.retain_min > snap.retain_min)
        return sc_error_set(SC_EUNSUPPORTED,
                            "expire refused: the table's changelog.num-retained.min/max or changelog.time-retained "
                            "retain more than its snapshot.* options (Paimon's decoupled changelog lifecycle), which this "
                            "build does not implement; use Paimon's own expiration");
    return 0;
}

static int check_options(const sc_expire_options *o) {
    if (o->retain_min < 1) return sc_error_set(SC_EINVAL, "expire: retain-min must be at least 1 (the latest snapshot is always kept)");
    if (o->retain_max < o->retain_min)
        return sc_error_set(SC_EINVAL, "expire: retain-max %" PRIu64 " is below retain-min %" PRIu64, o->retain_max, o->retain_min);
    if (o->limit < 1) return sc_error_set(SC_EINVAL, "expire: limit must be at least 1");
    if (o->older_than_ms < 0) return sc_error_set(SC_EINVAL, "expire: older-than must not be negative");
    return 0;
}

/* ---- the plan ---- */

typedef struct expire_plan {
    uint64_t earliest, latest, lowest; /* lowest: the first snapshot file present */
    uint64_t end;                      /* the first retained snapshot */
    uint64_t *ids;                     /* snapshot files present, sorted */
    size_t id_count;
    sc_keyset keep_lists, keep_manifests, keep_data, keep_extra;
    sc_keyset gone_lists, gone_manifests, gone_data, gone_extra;
} expire_plan;

static void plan_free(expire_plan *p) {
    free(p->ids);
    sc_keyset *sets[] = {&p->keep_lists, &p->keep_manifests, &p->keep_data, &p->keep_extra,
                         &p->gone_lists, &p->gone_manifests, &p->gone_data,  &p->gone_extra};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) sc_keyset_free(sets[i]);
}

static void progress(const sc_expire_options *o, const char *phase, uint64_t done, uint64_t total) {
    if (o->progress) o->progress(o->progress_ctx, phase, done, total);
}

/* Paimon's choice of the first retained snapshot: below latest-retain_max+1 all go; then
 * in order while older than the cutoff, keeping retain_min, at most `limit` past earliest. */
static int choose_end(uint64_t *out_end, sc_table *t, const sc_expire_options *o, uint64_t earliest, uint64_t latest,
                      int64_t cutoff) {
    uint64_t min_id = earliest;
    if (latest >= o->retain_max && latest - o->retain_max + 1 > min_id) min_id = latest - o->retain_max + 1;
    uint64_t max_excl = latest >= o->retain_min ? latest - o->retain_min + 1 : earliest;
    if (max_excl < earliest) max_excl = earliest;
    if (o->limit < UINT64_MAX - earliest && earliest + o->limit < max_excl) max_excl = earliest + o->limit;
    for (uint64_t id = min_id; id < max_excl; id++) {
        sc_snapshot s;
        int rc = sc_table_read_snapshot(&s, NULL, t, id);
        if (rc) return sc_error_wrap(rc == SC_ENOTFOUND ? SC_ECORRUPT : rc, "expire: reading retained snapshot %" PRIu64, id);
        int young = cutoff <= s.time_millis;
        sc_snapshot_clear(&s);
        if (young) {
            *out_end = id;
            return 0;
        }
    }
    *out_end = max_excl;
    return 0;
}

/*
 * When every snapshot from `end` to the latest is Paimon's, the watermarks of
 * our users come from the newest snapshot of ours below them
 * (sc_replay_complete walks back to it, never below EARLIEST): that one is
 * retained too, or a restarted committer would find its identifiers
 * uncommitted and commit them again. Moves *end down to it (no snapshot of
 * ours at all: unchanged).
 */
static int keep_newest_of_ours(uint64_t *end, sc_table *t, uint64_t earliest, uint64_t latest) {
    for (uint64_t id = latest; id >= earliest && id >= 1; id--) {
        sc_snapshot s;
        int rc = sc_table_read_snapshot(&s, NULL, t, id);
        if (rc) return sc_error_wrap(rc == SC_ENOTFOUND ? SC_ECORRUPT : rc, "expire: reading snapshot %" PRIu64, id);
        int ours = !s.foreign;
        sc_snapshot_clear(&s);
        if (ours) {
            if (id < *end) {
                sc_log(SC_LOG_INFO, "expire: snapshots %" PRIu64 "..%" PRIu64 " are Paimon's; snapshot %" PRIu64
                                    ", the newest of ours, holds the watermarks and is retained",
                       id + 1, latest, id);
                *end = id;
            }
            return 0;
        }
        if (id == earliest) break;
    }
    return 0;
}

/* A leftover below EARLIEST whose objects a previous run already deleted: go on without them. */
static int tolerate(int rc, uint64_t id, const char *what) {
    if (rc != SC_ECORRUPT && rc != SC_ENOTFOUND) return rc;
    sc_log(SC_LOG_INFO, "expire: snapshot %" PRIu64 " (below EARLIEST, a previous run's): %s: %s; going on", id, what,
           sc_error_message());
    sc_error_clear();
    return 0;
}

/*
 * Data files the expired deltas delete that a retained snapshot still names: the plan's
 * gone set is small (what the expired snapshots deleted), the retained snapshots' live
 * files are many. Each retained file is looked up in the gone set as it streams by, so
 * memory follows what expires, not the table (holding the first retained snapshot's live
 * files took 400 MB at 250,000 of them).
 */
typedef struct keep_probe {
    sc_table *t;
    const sc_keyset *gone;
    sc_keyset *keep;
    uint64_t *skipped;
} keep_probe;

static int probe_file(void *ctx, const sc_file_entry *f) {
    keep_probe *k = ctx;
    sc_keyset keys = {0};
    int rc = sc_upkeep_data_keys(&keys, k->skipped, k->t, f);
    for (size_t i = 0; !rc && i < keys.count; i++)
        if (sc_keyset_has(k->gone, keys.items[i].key)) rc = sc_keyset_add(k->keep, keys.items[i].key, keys.items[i].size);
    sc_keyset_free(&keys);
    return rc;
}

static int probe_record(void *ctx, sc_entry_kind kind, const sc_file_entry *f) {
    return kind == SC_ENTRY_ADD ? probe_file(ctx, f) : 0;
}

static int build_plan(expire_plan *p, sc_expire_result *r, sc_table *t, const sc_expire_options *o) {
    int rc;
    uint64_t step = 0, total = p->latest - p->end + 1;
    for (size_t i = 0; i < p->id_count && p->ids[i] <= p->end; i++) total++;
    /* Expired: every snapshot file present below end. Data files: those the deltas of
     * (lowest, end] delete (Paimon's range: a file a snapshot's delta deletes was live only
     * before it). Manifests and lists: those of the expired snapshots. */
    for (size_t i = 0; i < p->id_count && p->ids[i] <= p->end; i++) {
        uint64_t id = p->ids[i];
        int leftover = id < p->earliest;
        sc_snapshot s;
        rc = sc_table_read_snapshot(&s, NULL, t, id);
        if (rc && leftover) {
            if ((rc = tolerate(rc, id, "its snapshot file")) != 0) return rc;
            continue;
        }
        if (rc) return sc_error_wrap(rc == SC_ENOTFOUND ? SC_ECORRUPT : rc, "expire: reading snapshot %" PRIu64, id);
        if (id > p->lowest) {
            /* The files an expired snapshot's delta deletes go to the gone set. */
            sc_upkeep_collect gone = {t, &p->gone_data, &r->skipped, 1, SC_ENTRY_DELETE};
            rc = sc_state_delta_each(t, &s, sc_upkeep_collect_record, &gone);
            if (rc && leftover) rc = tolerate(rc, id, "its delta");
        }
        if (!rc && id < p->end) {
            rc = sc_upkeep_meta_refs(&p->gone_lists, &p->gone_manifests, t, &s);
            if (rc && leftover) {
                /* A partial answer is still safe to delete (the keep sets win); the rest is gone. */
                rc = tolerate(rc, id, "its manifests");
                if (!rc) { /* the lists themselves are named by the snapshot */
                    rc = add_manifest_key(&p->gone_lists, s.base_manifest_list.name, s.base_manifest_list.length);
                    if (!rc) rc = add_manifest_key(&p->gone_lists, s.delta_manifest_list.name, s.delta_manifest_list.length);
                }
            }
            if (!rc) rc = sc_upkeep_extra_refs(NULL, &p->gone_extra, t, &s);
            /* Paimon's SnapshotDeletion: the changelog list, its manifests and changelog files, the
             * index manifest and the index files it lists, the statistics file, each unless a
             * retained snapshot names it too (the keep sets win when deleting). */
            if (!rc) {
                rc = sc_upkeep_paimon_refs(&p->gone_lists, &p->gone_manifests, &p->gone_data, &p->gone_extra, &r->skipped, t, &s);
                if (rc && leftover) rc = tolerate(rc, id, "its changelog or index objects");
            }
        }
        sc_snapshot_clear(&s);
        if (rc) return rc;
        progress(o, "reading", ++step, total);
    }
    sc_keyset_seal(&p->gone_data); /* looked up by the probe below */
    /* Retained: end .. latest. Every object must load: planning fails closed. */
    keep_probe probe = {t, &p->gone_data, &p->keep_data, &r->skipped};
    for (uint64_t id = p->end; id <= p->latest; id++) {
        sc_snapshot s;
        if ((rc = sc_table_read_snapshot(&s, NULL, t, id)) != 0)
            return sc_error_wrap(rc == SC_ENOTFOUND ? SC_ECORRUPT : rc, "expire: reading retained snapshot %" PRIu64, id);
        rc = sc_upkeep_meta_refs(&p->keep_lists, &p->keep_manifests, t, &s);
        if (!rc) rc = sc_upkeep_extra_refs(&p->keep_extra, NULL, t, &s);
        if (!rc)
            rc = sc_upkeep_paimon_refs(&p->keep_lists, &p->keep_manifests, &p->keep_data, &p->keep_extra, &r->skipped, t, &s);
        /* Files live in any retained snapshot: those of the first, and every file a later one adds. */
        if (!rc && id == p->end) rc = sc_state_live_each(NULL, t, &s, NULL, probe_file, &probe);
        else if (!rc) rc = sc_state_delta_each(t, &s, probe_record, &probe);
        sc_snapshot_clear(&s);
        if (rc) return rc;
        progress(o, "reading", ++step, total);
    }
    sc_keyset *sets[] = {&p->keep_lists, &p->keep_manifests, &p->keep_data, &p->keep_extra,
                         &p->gone_lists, &p->gone_manifests, &p->gone_data,  &p->gone_extra};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) sc_keyset_seal(sets[i]);
    return 0;
}

/* ---- deleting ---- */

/* Delete every key of `gone` that no keep set holds. Counts into *count and r. */
static int delete_set(sc_expire_result *r, uint64_t *count, sc_table *t, const sc_expire_options *o, const char *phase,
                      const sc_keyset *gone, const sc_keyset *keep, const sc_keyset *keep2) {
    uint64_t total = 0, done = 0;
    for (size_t i = 0; i < gone->count; i++)
        if (!sc_keyset_has(keep, gone->items[i].key) && !(keep2 && sc_keyset_has(keep2, gone->items[i].key))) total++;
    for (size_t i = 0; i < gone->count; i++) {
        const sc_keyset_item *it = &gone->items[i];
        if (sc_keyset_has(keep, it->key) || (keep2 && sc_keyset_has(keep2, it->key))) continue;
        if (!o->dry_run) {
            int rc = sc_store_delete(t->store, it->key);
            if (rc == SC_ENOTFOUND) {
                sc_error_clear();
                r->already_gone++;
                progress(o, phase, ++done, total);
                continue;
            }
            if (rc) return sc_error_wrap(rc, "expire: deleting %s (re-run expire to finish)", it->key);
        }
        (*count)++;
        r->bytes_deleted += it->size;
        progress(o, phase, ++done, total);
    }
    return 0;
}

int sc_upkeep_read_earliest(uint64_t *out, int *out_present, sc_object_info *out_info, sc_table *t) {
    uint8_t *data = NULL;
    size_t len = 0;
    sc_object_info info = {0};
    *out = 0;
    if (out_present) *out_present = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, &info, SC_EARLIEST_HINT_KEY, SC_HINT_MAX_BYTES);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return 0;
    }
    if (rc) return sc_error_wrap(rc, "reading %s", SC_EARLIEST_HINT_KEY);
    if (out_present) *out_present = 1;
    if (out_info) *out_info = info;
    if (sc_hint_parse(out, data, len) != 0) {
        sc_error_clear();
        *out = 0; /* damaged: rewritten by the next expiration */
    }
    free(data);
    return 0;
}

/*
 * EARLIEST := id, unless it is already at or past it; durable before anything is deleted.
 * Conditional where the store can: a put of ours or of another run that is still in flight
 * (its answer lost) and lands later must not move EARLIEST back below deleted snapshots.
 * A put_if_match on the version read, or put_if_absent when there is none, fails when it
 * lands after a newer value; the value is then read again.
 */
static int move_earliest(sc_table *t, uint64_t id) {
    uint32_t caps = sc_store_caps(t->store);
    for (int tries = 0; tries < 8; tries++) {
        uint64_t now;
        int present;
        sc_object_info info;
        int rc = sc_upkeep_read_earliest(&now, &present, &info, t);
        if (rc || now >= id) return rc;
        char text[24];
        int n = snprintf(text, sizeof text, "%" PRIu64, id);
        if (present && (caps & SC_CAP_COMPARE_AND_SWAP) && info.etag[0])
            rc = sc_store_put_if_match(t->store, NULL, SC_EARLIEST_HINT_KEY, (const uint8_t *)text, (size_t)n, info.etag);
        else if (!present && (caps & (SC_CAP_ATOMIC_NOREPLACE | SC_CAP_CONDITIONAL_CREATE)))
            rc = sc_store_put_if_absent(t->store, NULL, SC_EARLIEST_HINT_KEY, (const uint8_t *)text, (size_t)n);
        else
            rc = sc_store_put(t->store, NULL, SC_EARLIEST_HINT_KEY, (const uint8_t *)text, (size_t)n);
        if (rc == SC_EMODIFIED || rc == SC_EEXISTS) { /* changed since read: look again */
            sc_error_clear();
            continue;
        }
        if (!rc) rc = sc_store_sync(t->store);
        return rc ? sc_error_wrap(rc, "expire: moving %s to %" PRIu64 " (nothing deleted yet)", SC_EARLIEST_HINT_KEY, id) : 0;
    }
    return sc_error_set(SC_EMODIFIED, "expire: %s changed under every attempt to move it to %" PRIu64
                                      " (another expirer running?); nothing deleted",
                        SC_EARLIEST_HINT_KEY, id);
}

int sc_table_expire(sc_expire_result *out, sc_table *t, const sc_expire_options *opt_in) {
    sc_expire_result r = {0};
    sc_expire_options o;
    expire_plan p = {0};
    int rc = 0;
    if (!t) return sc_error_set(SC_EINVAL, "expire: NULL table");
    if (sc_table_check_adopted(t) != 0) return sc_error_wrap(SC_ENOTABLE, "expire");
    if (opt_in) o = *opt_in;
    else rc = sc_expire_options_from_table(&o, t);
    if (!rc) rc = check_options(&o);
    if (!rc && !t->strategy->snapshot_files_are_history)
        rc = sc_error_set(SC_EUNSUPPORTED, "expire: not implemented for %s tables (their authority records keep every "
                                           "version)", sc_strategy_name(t->strategy->kind));
    if (!rc) rc = sc_upkeep_refuse_unprotected(t, "expire");
    if (!rc) rc = refuse_decoupled_changelog(t);
    /* Below EARLIEST the keep sets would be empty: sc_upkeep_read_range refuses it, nothing deleted. */
    if (!rc) rc = sc_upkeep_read_range(&p.latest, &p.earliest, t, "expire");
    if (!rc && p.latest) rc = sc_snapshot_ids_list(&p.ids, &p.id_count, t);
    if (rc || !p.latest) goto done;
    r.latest = p.latest;
    r.earliest_before = r.earliest_after = p.earliest;
    p.lowest = p.id_count ? p.ids[0] : p.earliest;
    if (p.lowest > p.earliest) p.lowest = p.earliest;
    int64_t now = t->env.now_ms(t->env.ctx);
    int64_t cutoff = now < INT64_MIN + o.older_than_ms ? INT64_MIN : now - o.older_than_ms;
    if ((rc = choose_end(&p.end, t, &o, p.earliest, p.latest, cutoff)) != 0) goto done;
    if (p.end < p.earliest) p.end = p.earliest;
    if ((rc = keep_newest_of_ours(&p.end, t, p.earliest, p.latest)) != 0) goto done;
    if (p.lowest >= p.end) goto done; /* nothing below the first retained snapshot */
    if ((rc = build_plan(&p, &r, t, &o)) != 0) goto done;
    r.earliest_after = p.end;
    if (!o.dry_run && (rc = move_earliest(t, p.end)) != 0) goto done;
    rc = delete_set(&r, &r.data_files_deleted, t, &o, "data files", &p.gone_data, &p.keep_data, NULL);
    if (!rc) rc = delete_set(&r, &r.manifests_deleted, t, &o, "manifests", &p.gone_manifests, &p.keep_manifests, &p.keep_lists);
    if (!rc) rc = delete_set(&r, &r.manifests_deleted, t, &o, "extensions", &p.gone_extra, &p.keep_extra, NULL);
    if (!rc) rc = delete_set(&r, &r.manifest_lists_deleted, t, &o, "manifest lists", &p.gone_lists, &p.keep_lists,
                             &p.keep_manifests);
    /* Snapshot files last, oldest first: one still present keeps a prefix of history readable. */
    uint64_t total = 0, done = 0;
    for (size_t i = 0; i < p.id_count && p.ids[i] < p.end; i++) total++;
    for (size_t i = 0; !rc && i < p.id_count && p.ids[i] < p.end; i++) {
        char key[64];
        sc_snapshot_key(key, p.ids[i]);
        if (!o.dry_run) {
            rc = sc_store_delete(t->store, key);
            if (rc == SC_ENOTFOUND) {
                sc_error_clear();
                rc = 0;
                r.already_gone++;
                progress(&o, "snapshots", ++done, total);
                continue;
            }
            if (rc) {
                rc = sc_error_wrap(rc, "expire: deleting %s (re-run expire to finish)", key);
                break;
            }
        }
        r.snapshots_expired++;
        progress(&o, "snapshots", ++done, total);
    }
    /* Another expirer's late hint write may have moved EARLIEST back: put it forward again. */
    if (!rc && !o.dry_run) rc = move_earliest(t, p.end);
    if (!rc)
        sc_log(SC_LOG_INFO, "expire: snapshots %" PRIu64 "..%" PRIu64 " expired%s; %" PRIu64 " data files, %" PRIu64
                            " manifests, %" PRIu64 " manifest lists, %" PRIu64 " bytes",
               p.lowest, p.end - 1, o.dry_run ? " (dry run)" : "", r.data_files_deleted, r.manifests_deleted,
               r.manifest_lists_deleted, r.bytes_deleted);
done:
    plan_free(&p);
    if (out) *out = r;
    return rc;
}
