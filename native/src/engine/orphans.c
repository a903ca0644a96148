/*
 * Orphan-file removal (Paimon's RemoveOrphanFiles): objects of the table's
 * own shapes that no snapshot references and that are older than a limit.
 *
 * The listing comes first and the snapshots are read after it, so a commit
 * that landed before the listing ended is seen; so is a claim that another
 * writer may still publish (the tracker's undecided versions). What a commit
 * still in flight wrote is protected by its age alone: older_than must
 * exceed the longest a commit takes from its first write to its claim.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"
#include "base/log.h"
#include "engine/state.h"
#include "engine/table.h"
#include "engine/upkeep.h"
#include "snapcommit/upkeep.h"

void sc_orphans_options_init(sc_orphans_options *opt) {
    *opt = (sc_orphans_options){.older_than_ms = SC_ORPHANS_DEFAULT_OLDER_THAN_MS};
}

typedef enum key_kind { KEY_OTHER = 0, KEY_MANIFEST, KEY_DATA, KEY_INDEX, KEY_PROBE, KEY_ARCHIVE, KEY_STATISTICS } key_kind;

/* 1 when `seg` (len bytes) is "<name>=<anything>". */
static int is_partition_segment(const char *seg, size_t len, const char *name) {
    size_t n = strlen(name);
    return len > n && strncmp(seg, name, n) == 0 && seg[n] == '=';
}

/* 1 when `key` is "<dir><name>": one file right under dir, its name not hidden. */
static int is_file_in(const char *key, const char *dir) {
    size_t n = strlen(dir);
    return strncmp(key, dir, n) == 0 && key[n] && key[n] != '.' && !strchr(key + n, '/');
}

/* What a key is, by its shape; anything not recognised is KEY_OTHER and never touched. As
 * Paimon's orphan cleaner (OrphanFilesClean.listPaimonFileDirs), every file in manifest/,
 * index/, statistics/ and the bucket directories is a candidate; ours keeps to Paimon's
 * manifest names there and adds snapcommit's own objects. */
static key_kind classify(const sc_table *t, const char *key, int index_in_data_dir) {
    /* manifest-<uuid>-<n> and manifest-list-<uuid>-<n> (data and changelog), index-manifest-<uuid>-<n> */
    if (is_file_in(key, "manifest/") && (strncmp(key + 9, "manifest-", 9) == 0 || strncmp(key + 9, "index-manifest-", 15) == 0))
        return KEY_MANIFEST;
    if (is_file_in(key, "index/")) return KEY_INDEX;
    if (is_file_in(key, "statistics/")) return KEY_STATISTICS;
    if (strncmp(key, "metadata/probe-", 15) == 0) return KEY_PROBE;
    /* Watermark archives (replay.h): content-addressed, kept while a retained snapshot names one. */
    if (strncmp(key, "metadata/watermarks/watermarks-", 31) == 0 && !strchr(key + 20, '/')) return KEY_ARCHIVE;
    /* <k1>=<v1>/.../bucket-<b>/<file>, the partition keys in the schema's order */
    const char *p = key;
    for (size_t i = 0; i < t->schema.partition_key_count; i++) {
        const char *slash = strchr(p, '/');
        if (!slash || !is_partition_segment(p, (size_t)(slash - p), t->schema.partition_keys[i])) return KEY_OTHER;
        p = slash + 1;
    }
    if (strncmp(p, "bucket-", 7) != 0) return KEY_OTHER;
    p += 7;
    if (*p < '0' || *p > '9') return KEY_OTHER;
    while (*p >= '0' && *p <= '9') p++;
    if (*p != '/' || !p[1] || p[1] == '.' || strchr(p + 1, '/')) return KEY_OTHER;
    /* index-file-in-data-file-dir: Paimon's index files (index-<uuid>-<n>) beside the data files */
    if (index_in_data_dir && strncmp(p + 1, "index-", 6) == 0) return KEY_INDEX;
    return KEY_DATA;
}

static void progress(const sc_orphans_options *o, const char *phase, uint64_t done, uint64_t total) {
    if (o->progress) o->progress(o->progress_ctx, phase, done, total);
}

/* 1 when snapshot `id` lies below EARLIEST now (read again): an expiration running at the
 * same time may have deleted it or its objects. *retained moves to the new EARLIEST. */
static int expired_meanwhile(sc_table *t, uint64_t id, uint64_t *retained, int *code) {
    if (id < *retained) return 1;
    uint64_t e = 0;
    if (!sc_state_expired_under(&e, t, id, code)) return 0; /* the reason (*code) stays, for the caller */
    *retained = e;
    return 1;
}

/*
 * Paimon's rule (OrphanFilesClean.collectWithoutDataFile and the data files of every manifest
 * entry): a data file that any record of a snapshot's base or delta manifests names, ADD or
 * DELETE, is in use — a delta's DELETE names a file that a read of that snapshot's changes (an
 * overwrite read as a diff) still opens. Each manifest is read once: `read` holds those done
 * (sealed between snapshots).
 */
static int keep_named_files(sc_keyset *keep, sc_keyset *read, uint64_t *skipped, sc_table *t, const sc_snapshot *s) {
    const sc_object_ref *lists[2] = {&s->base_manifest_list, &s->delta_manifest_list};
    sc_upkeep_collect named = {t, keep, skipped, 0, SC_ENTRY_ADD}; /* ADD or DELETE: named either way */
    int rc = 0;
    for (int i = 0; !rc && i < 2; i++) {
        sc_manifest_file_vec metas = {0};
        rc = sc_state_load_list(&metas, t, lists[i]);
        for (size_t j = 0; !rc && j < metas.count; j++) {
            if (read->sealed && sc_keyset_has(read, metas.items[j].name)) continue;
            /* One record at a time, never held: a big manifest decoded whole took 100 MB. */
            rc = sc_state_each_record(t, &metas.items[j], 0, sc_upkeep_collect_record, &named);
            if (!rc) rc = sc_keyset_add(read, metas.items[j].name, 0);
        }
        sc_manifest_file_vec_free(&metas);
    }
    if (!rc) sc_keyset_seal(read);
    return rc;
}

/* Everything snapshot (or claim) `s` names: lists, manifests, data files, the extension's
 * objects, Paimon's changelog, index and statistics objects. */
static int keep_snapshot(sc_keyset *keep, sc_keyset *read, uint64_t *skipped, sc_table *t, const sc_snapshot *s) {
    int rc = sc_upkeep_meta_refs(keep, keep, t, s);
    if (!rc) rc = sc_upkeep_extra_refs(keep, NULL, t, s);
    if (!rc) rc = sc_upkeep_paimon_refs(keep, keep, keep, keep, skipped, t, s);
    if (!rc) rc = keep_named_files(keep, read, skipped, t, s);
    return rc;
}

typedef struct undecided_ctx {
    sc_keyset *keep, *read;
    uint64_t *skipped;
    sc_table *t;
} undecided_ctx;

/*
 * What a claim that another party may still publish names (strategy.h
 * `undecided`): whatever a retained snapshot's would (keep_snapshot). A
 * document that does not decode is kept out of the decision: publishing it
 * would fail the same way.
 */
static int keep_undecided(void *ctx, uint64_t id, const uint8_t *doc, size_t len) {
    undecided_ctx *u = ctx;
    sc_snapshot s;
    char object[64];
    snprintf(object, sizeof object, "undecided claim of snapshot %" PRIu64, id);
    int rc = sc_snapshot_decode(&s, doc, len, object);
    if (rc) {
        sc_log(SC_LOG_WARN, "remove-orphans: %s", sc_error_message());
        sc_error_clear();
        return 0;
    }
    rc = keep_snapshot(u->keep, u->read, u->skipped, u->t, &s);
    sc_snapshot_clear(&s);
    if (rc == SC_ENOTFOUND) { /* the claim names an object that is gone: it can never be published whole */
        sc_log(SC_LOG_WARN, "remove-orphans: the undecided claim of snapshot %" PRIu64 " names a missing object: %s", id,
               sc_error_message());
        sc_error_clear();
        rc = 0;
    }
    return rc ? sc_error_wrap(rc, "remove-orphans: the undecided claim of snapshot %" PRIu64, id) : 0;
}

/* Every undecided claim above `latest` (strategy.h `undecided`), when the strategy has them. */
static int keep_undecided_claims(sc_keyset *keep, sc_keyset *read, uint64_t *out_skipped, sc_table *t, uint64_t latest) {
    if (!t->strategy->undecided) return 0;
    undecided_ctx u = {.keep = keep, .read = read, .skipped = out_skipped, .t = t};
    return t->strategy->undecided(t, latest, keep_undecided, &u);
}

/* Everything a snapshot from the first present one (below EARLIEST too: an interrupted
 * expiration's leftovers) to the latest references, each read whole (keep_snapshot). */
static int referenced(sc_keyset *keep, sc_keyset *read, uint64_t *out_skipped, sc_table *t, const sc_orphans_options *o) {
    uint64_t latest = 0, first = 0, retained = 0;
    int rc = sc_upkeep_read_range(&latest, &first, t, "remove-orphans");
    if (rc) return rc;
    /* No version decided yet: the first one may still be published from an undecided claim. */
    if (!latest) return keep_undecided_claims(keep, read, out_skipped, t, 0);
    retained = first;
    if (t->strategy->snapshot_files_are_history) { /* an interrupted expiration's snapshots below EARLIEST stay referenced: expire finishes them */
        uint64_t *ids = NULL;
        size_t n = 0;
        if ((rc = sc_snapshot_ids_list(&ids, &n, t)) != 0) return rc;
        if (n && ids[0] < first) first = ids[0];
        free(ids);
    }
    int have_live = 0;
    for (uint64_t id = first; !rc && id <= latest; id++) {
        sc_snapshot s;
        rc = sc_table_read_snapshot(&s, NULL, t, id);
        int have_s = rc == 0;
        if (rc == SC_ENOTFOUND && !have_live) { /* a leftover deleted meanwhile */
            sc_error_clear();
            rc = 0;
            continue;
        }
        if (rc && rc != SC_ECORRUPT && rc != SC_ENOTFOUND) return sc_error_wrap(rc, "remove-orphans: reading snapshot %" PRIu64, id);
        if (!rc) rc = keep_snapshot(keep, read, out_skipped, t, &s);
        if (have_s) sc_snapshot_clear(&s);
        if ((rc == SC_ENOTFOUND || rc == SC_ECORRUPT) && expired_meanwhile(t, id, &retained, &rc)) {
            /* Below EARLIEST, or passed by an expiration running now: what only this snapshot
             * names is that expiration's to delete; the snapshots from EARLIEST on are read whole. */
            sc_log(SC_LOG_INFO, "remove-orphans: snapshot %" PRIu64 " is below EARLIEST %" PRIu64 " and being expired: %s",
                   id, retained, sc_error_message());
            sc_error_clear();
            rc = 0;
            continue;
        }
        if (rc == SC_ENOTFOUND && !have_s) return sc_error_wrap(SC_ECORRUPT, "remove-orphans: reading snapshot %" PRIu64, id);
        if (rc) return rc;
        have_live = 1;
        progress(o, "reading", id - first + 1, latest - first + 1);
    }
    if (!rc) rc = keep_undecided_claims(keep, read, out_skipped, t, latest);
    return rc;
}

int sc_table_remove_orphans(sc_orphans_result *out, sc_table *t, const sc_orphans_options *opt_in) {
    sc_orphans_result r = {0};
    sc_orphans_options o;
    if (!t) return sc_error_set(SC_EINVAL, "remove-orphans: NULL table");
    if (sc_table_check_adopted(t) != 0) return sc_error_wrap(SC_ENOTABLE, "remove-orphans");
    if (opt_in) o = *opt_in;
    else sc_orphans_options_init(&o);
    if (o.older_than_ms < 0) return sc_error_set(SC_EINVAL, "remove-orphans: older-than must not be negative");
    /* An unreferenced object younger than a commit can take may be that commit's in flight:
     * deleting its manifest list leaves the snapshot it then claims unreadable, and every
     * later command fails. The commit budget is the longest a commit runs. */
    int64_t budget = t->retry.timeout_ms > SC_COMMIT_DEFAULT_TIMEOUT_MS ? t->retry.timeout_ms : SC_COMMIT_DEFAULT_TIMEOUT_MS;
    if (o.older_than_ms < budget && !o.force)
        return sc_error_set(SC_EINVAL, "remove-orphans: older-than %" PRId64 " ms is below the commit budget of %" PRId64
                                       " ms: an unreferenced object that young may belong to a commit in flight, whose "
                                       "snapshot would then name a deleted object; give a longer age, or force it (CLI "
                                       "--force) only when no writer is running",
                            o.older_than_ms, budget);
    sc_list_page all = {0};
    sc_keyset keep = {0}, read = {0};
    uint64_t skipped = 0;
    int rc = sc_upkeep_refuse_unprotected(t, "remove-orphans");
    if (!rc) rc = sc_store_list_all(t->store, &all, "");
    if (rc && !sc_error_has_message()) rc = sc_error_wrap(rc, "remove-orphans: listing the table");
    if (!rc) rc = referenced(&keep, &read, &skipped, t, &o);
    if (!rc) sc_keyset_seal(&keep);
    r.objects_listed = all.count;
    const char *in_data_dir = sc_schema_option(&t->schema, "index-file-in-data-file-dir");
    int index_in_data_dir = in_data_dir && strcasecmp(in_data_dir, "true") == 0;
    int64_t now = t->env.now_ms(t->env.ctx);
    int64_t cutoff = now < INT64_MIN + o.older_than_ms ? INT64_MIN : now - o.older_than_ms;
    for (size_t i = 0; !rc && i < all.count; i++) {
        const char *key = all.keys[i];
        key_kind kind = classify(t, key, index_in_data_dir);
        progress(&o, "orphans", i + 1, all.count);
        if (kind == KEY_OTHER || sc_keyset_has(&keep, key)) continue;
        r.orphans_found++;
        sc_object_info info;
        rc = sc_store_head(t->store, &info, key);
        if (rc == SC_ENOTFOUND) { /* removed meanwhile */
            sc_error_clear();
            rc = 0;
            continue;
        }
        if (rc) {
            rc = sc_error_wrap(rc, "remove-orphans: reading %s", key);
            break;
        }
        /* Age by the storage's clock; an unknown age is never old enough. */
        if (info.mtime_ms <= 0 || info.mtime_ms >= cutoff) {
            r.too_young++;
            continue;
        }
        if (!o.dry_run) {
            rc = sc_store_delete(t->store, key);
            if (rc == SC_ENOTFOUND) {
                sc_error_clear();
                rc = 0;
                continue;
            }
            if (rc) {
                rc = sc_error_wrap(rc, "remove-orphans: deleting %s", key);
                break;
            }
        }
        if (kind == KEY_MANIFEST) r.manifests_deleted++;
        else if (kind == KEY_DATA) r.data_files_deleted++;
        else if (kind == KEY_INDEX) r.index_files_deleted++;
        else r.other_deleted++;
        r.bytes_deleted += info.size;
    }
    sc_list_page_free(&all);
    sc_keyset_free(&keep);
    sc_keyset_free(&read);
    if (!rc)
        sc_log(SC_LOG_INFO, "remove-orphans: %" PRIu64 " keys listed, %" PRIu64 " unreferenced, %" PRIu64
                            " too young, %" PRIu64 " deleted%s (%" PRIu64 " bytes)",
               r.objects_listed, r.orphans_found, r.too_young, r.data_files_deleted + r.manifests_deleted + r.index_files_deleted + r.other_deleted,
               o.dry_run ? " (dry run)" : "", r.bytes_deleted);
    if (out) *out = r;
    return rc;
}
