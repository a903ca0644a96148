/*
 * fsck: verify table metadata, the snapshot hash chain, the schema each
 * snapshot claims, manifest lists and manifests (their records read against
 * the schema: state.c). Stops at the first damage with SC_ECORRUPT naming the
 * object.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/fileset.h"
#include "base/log.h"
#include "base/vec.h"
#include "engine/replay.h"
#include "engine/state.h"
#include "engine/index_state.h"
#include "format/binary_row.h"
#include "format/partition.h"
#include "strategy/strategy.h"


/*
 * Manifests already checked, by name and pin (SHA-256 when pinned, else the
 * recorded size): a snapshot carries most of its base forward from the one
 * before, so each manifest is read once per fsck, not once per snapshot,
 * without holding its records. The counts are kept for the delta checks.
 */
typedef struct checked_manifests {
    sc_fileset *seen; /* identity: (pin bytes, bucket 0, name) -> index in counts */
    uint64_t (*counts)[2];
    size_t count, cap;
} checked_manifests;

/* A manifest as one list declares it: its pin (name, hash, size) and what the list says of
 * it (counts and partition statistics, hashed). Another list declaring other counts or
 * statistics for the same manifest is checked again: the conflict checks trust them. */
#define CHECKED_KEY_LEN (SC_SHA256_LEN + 8 + SC_SHA256_LEN)
static sc_file_entry checked_key(const sc_manifest_file *m, uint8_t pin[CHECKED_KEY_LEN]) {
    sc_file_entry k = {0};
    size_t n = 0;
    if (m->has_sha256) {
        memcpy(pin, m->sha256, SC_SHA256_LEN);
        n = SC_SHA256_LEN;
    }
    int64_t size = m->size;
    memcpy(pin + n, &size, sizeof size);
    n += sizeof size;
    sc_buf said = SC_BUF_INIT;
    int64_t counts[2] = {m->added, m->deleted};
    int rc = sc_buf_append(&said, (const uint8_t *)counts, sizeof counts);
    if (!rc && m->partition_min_len) rc = sc_buf_append(&said, m->partition_min, m->partition_min_len);
    if (!rc) rc = sc_buf_append_byte(&said, 0xff); /* min and max kept apart */
    if (!rc && m->partition_max_len) rc = sc_buf_append(&said, m->partition_max, m->partition_max_len);
    if (!rc && m->has_partition_null_counts && m->partition_null_count_len)
        rc = sc_buf_append(&said, (const uint8_t *)m->partition_null_counts,
                           m->partition_null_count_len * sizeof *m->partition_null_counts);
    if (!rc) sc_sha256(pin + n, said.data, said.len);
    sc_buf_free(&said);
    k.partition = (sc_bytes){pin, n + SC_SHA256_LEN};
    k.file = rc ? NULL : m->name; /* out of memory: no key, the manifest is checked (again) */
    return k;
}

/* What check_list counts of one manifest's records, one at a time. */
typedef struct list_counts {
    const sc_table *t;
    const sc_manifest_file *m;
    uint64_t index, adds, dels;
    uint64_t *nulls; /* per partition field; NULL when the list's null counts are not checked */
} list_counts;

/* Null partition fields of one record, counted when the row has the current schema's shape
 * (a row of an older schema, or one that does not decode, stops the count: the record
 * checks of state.c report what is damaged, and the statistics are then not compared). */
static void count_nulls(list_counts *c, sc_bytes row) {
    const sc_table_schema *schema = &c->t->schema;
    uint32_t arity;
    if (!row.data || sc_row_arity(&arity, row.data, row.len, "partition") || arity != schema->partition_key_count) {
        sc_error_clear();
        free(c->nulls);
        c->nulls = NULL;
        return;
    }
    for (size_t f = 0; f < arity; f++) {
        sc_datum v;
        if (sc_row_get(&v, row.data, row.len, &schema->partition_types[f], f, "partition")) {
            sc_error_clear();
            free(c->nulls);
            c->nulls = NULL;
            return;
        }
        c->nulls[f] += v.is_null != 0;
    }
}

static int count_record(void *ctx, sc_entry_kind kind, const sc_file_entry *f) {
    list_counts *c = ctx;
    if (kind == SC_ENTRY_ADD) c->adds++;
    else c->dels++;
    sc_bytes min = {c->m->partition_min, c->m->partition_min_len}, max = {c->m->partition_max, c->m->partition_max_len};
    int may;
    sc_partition_stats_may_hold(&may, &c->t->schema, min, max, f->partition);
    if (!may)
        return sc_error_set(SC_ECORRUPT, "manifest/%s: record %" PRIu64 " lies outside the partition statistics its list declares",
                            c->m->name, c->index);
    if (c->nulls) count_nulls(c, f->partition);
    c->index++;
    return 0;
}

/*
 * The null counts a list declares for the partition fields of a manifest, against its
 * records: both writers (Paimon's SimpleStatsCollector and ours) count every record, add or
 * delete, so a difference is damage, and a reader pruning `IS NULL` on it would skip rows.
 * Lists of another arity (an older schema) and null elements are not compared.
 */
static int nulls_begin(list_counts *c) {
    const sc_manifest_file *m = c->m;
    size_t arity = c->t->schema.partition_key_count;
    if (!arity || !m->has_partition_null_counts || m->partition_null_count_len != arity) return 0;
    c->nulls = calloc(arity, sizeof *c->nulls);
    return c->nulls ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
}

static int nulls_verdict(const list_counts *c) {
    const sc_manifest_file *m = c->m;
    for (size_t f = 0; c->nulls && f < m->partition_null_count_len; f++) {
        int64_t said = m->partition_null_counts[f];
        if (said >= 0 && (uint64_t)said != c->nulls[f])
            return sc_error_set(SC_ECORRUPT,
                                "manifest/%s: %" PRIu64 " records have a null partition field \"%s\", its list declares %" PRId64,
                                m->name, c->nulls[f], c->t->schema.partition_keys[f], said);
    }
    return 0;
}

/* Every manifest of a list must exist with the pinned size (and hash), hold only partitions
 * its statistics admit, and hold the counts its list declares. */
static int check_list(sc_table *t, checked_manifests *done, const sc_object_ref *ref, uint64_t *out_adds,
                      uint64_t *out_deletes) {
    sc_manifest_file_vec metas = {0};
    int rc = sc_state_load_list(&metas, t, ref);
    for (size_t i = 0; !rc && i < metas.count; i++) {
        const sc_manifest_file *m = &metas.items[i];
        uint8_t pin[CHECKED_KEY_LEN];
        sc_file_entry key = checked_key(m, pin);
        size_t at;
        list_counts c = {t, m, 0, 0, 0, NULL};
        if (key.file && sc_fileset_get(done->seen, &key, &at) == 0) {
            c.adds = done->counts[at][0];
            c.dels = done->counts[at][1];
        } else {
            rc = nulls_begin(&c);
            if (!rc) rc = sc_state_each_record(t, m, 0, count_record, &c);
            if (!rc && ((int64_t)c.adds != m->added || (int64_t)c.dels != m->deleted))
                rc = sc_error_set(SC_ECORRUPT, "manifest/%s: holds %" PRIu64 " adds and %" PRIu64 " deletes, its list declares %" PRId64 " and %" PRId64,
                                  m->name, c.adds, c.dels, m->added, m->deleted);
            if (!rc) rc = nulls_verdict(&c);
            free(c.nulls);
            /* The manifest may be sound and another list's declaration of it too: name this list. */
            if (rc) rc = sc_error_wrap(rc, "manifest list %s", ref->name);
            if (!rc && key.file) SC_VEC_RESERVE(rc, done->counts, done->cap, done->count + 1, 64, "manifests checked");
            if (!rc && key.file) rc = sc_fileset_put(done->seen, &key, done->count, NULL);
            if (!rc && key.file) {
                done->counts[done->count][0] = c.adds;
                done->counts[done->count][1] = c.dels;
                done->count++;
            }
        }
        if (out_adds) *out_adds += c.adds;
        if (out_deletes) *out_deletes += c.dels;
    }
    sc_manifest_file_vec_free(&metas);
    return rc;
}

/* A snapshot's changelog list (every manifest, records only added, within its partition
 * statistics) and its index manifest (decoded, once per name). */
static int check_paimon_objects(sc_table *t, checked_manifests *done, const sc_snapshot *s, char **index_checked) {
    uint64_t adds = 0, dels = 0;
    int rc = s->changelog_manifest_list.name ? check_list(t, done, &s->changelog_manifest_list, &adds, &dels) : 0;
    if (!rc && dels)
        rc = sc_error_set(SC_ECORRUPT, "manifest/%s: the changelog list of snapshot %" PRIu64 " deletes %" PRIu64
                                       " files (changelog files are only added)",
                          s->changelog_manifest_list.name, s->id, dels);
    if (rc || !s->index_manifest || (*index_checked && strcmp(*index_checked, s->index_manifest) == 0)) return rc;
    sc_index_vec index = {0};
    rc = sc_index_state_load(&index, t, s->index_manifest);
    sc_index_vec_free(&index);
    if (rc) return sc_error_wrap(rc, "snapshot %" PRIu64, s->id);
    free(*index_checked);
    *index_checked = strdup(s->index_manifest);
    return *index_checked ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
}

/* 1 when two schemas partition alike: the same key names, of the same types (nullability
 * aside: a BinaryRow carries a null bit for every field either way). */
static int same_partitioning(const sc_table_schema *a, const sc_table_schema *b) {
    if (a->partition_key_count != b->partition_key_count) return 0;
    for (size_t i = 0; i < a->partition_key_count; i++) {
        const sc_data_type *x = &a->partition_types[i], *y = &b->partition_types[i];
        if (strcmp(a->partition_keys[i], b->partition_keys[i]) != 0 || x->root != y->root || x->length != y->length ||
            x->precision != y->precision || x->scale != y->scale)
            return 0;
    }
    return 1;
}

/*
 * The schema a snapshot claims (its schemaId) must be one of the table's and
 * partition as the current one does: every record was read with the current
 * schema's partition fields (state.c check_records), and Paimon never changes
 * a table's partition keys, so that is each record read against the schema
 * its snapshot claims. `*checked` is the last id found sound (-1: none), so a
 * run of snapshots of one schema reads it once.
 */
static int check_claimed_schema(sc_table *t, const sc_snapshot *s, int64_t *checked) {
    const sc_table_schema *cur = &t->schema;
    if (s->schema_id == *checked) return 0;
    if (s->schema_id < 0)
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": schemaId %" PRId64 " names no schema of the table", s->id, s->schema_id);
    if (s->schema_id != cur->id) {
        /* A schema above the handle's may have been added since it opened (an ALTER by Paimon). */
        sc_table_schema old;
        int rc = sc_table_read_schema(&old, t, s->schema_id);
        if (rc == SC_ENOTFOUND)
            return sc_error_wrap(SC_ECORRUPT, "snapshot %" PRIu64 ": schemaId %" PRId64 " names no schema of the table", s->id,
                                 s->schema_id);
        if (rc) return sc_error_wrap(rc, "snapshot %" PRIu64 " claims schema %" PRId64, s->id, s->schema_id);
        int same = same_partitioning(&old, cur);
        sc_schema_clear(&old);
        if (!same)
            return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " claims schema/schema-%" PRId64 ", whose partition keys differ from "
                                             "schema/schema-%" PRId64 "'s (a table's partition keys never change)",
                                s->id, s->schema_id, cur->id);
    }
    *checked = s->schema_id;
    return 0;
}

/*
 * Read hint `key` strictly: *out 0 when absent; SC_ECORRUPT when present but
 * not a decimal snapshot id (discovery ignores such a hint; fsck reports it).
 */
static int fsck_hint(uint64_t *out, sc_table *t, const char *key) {
    uint8_t *data = NULL;
    size_t len = 0;
    *out = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_HINT_MAX_BYTES);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return 0;
    }
    if (rc) return sc_error_wrap(rc, "reading %s", key);
    if (sc_hint_parse(out, data, len) != 0) {
        char shown[48] = "";
        size_t n = 0;
        for (size_t i = 0; i < len && n + 5 < sizeof shown; i++) /* printable, bounded */
            n += (size_t)snprintf(shown + n, sizeof shown - n, data[i] >= 0x20 && data[i] < 0x7f && data[i] != '"' ? "%c" : "\\x%02x", data[i]);
        rc = sc_error_set(SC_ECORRUPT, "%s: damaged hint \"%s%s\" (a hint is a decimal snapshot id >= 1)", key, shown,
                          len > 16 ? "..." : "");
    }
    free(data);
    return rc;
}

/* How often fsck looks again at a chain whose shape is wrong before it calls
 * it damage: commits (and expiration) running concurrently change the chain
 * between the hints, the LIST and the HEADs, and a directory read need not
 * show entries added while it runs. Damage stays; a race does not. */
#define FSCK_RECHECKS 3

/* 1 when snapshot `id` exists now; an odd object there is an error. */
static int snapshot_present(int *out, sc_table *t, uint64_t id) {
    char key[64];
    sc_object_info info;
    sc_snapshot_key(key, id);
    int rc = sc_store_head(t->store, &info, key);
    *out = rc == 0;
    if (rc == SC_ENOTFOUND) sc_error_clear();
    return rc == SC_ENOTFOUND ? 0 : rc;
}

/*
 * One look at a snapshot-file chain: hints, then every snapshot key. 0 with
 * *out_earliest, *out_latest when its shape is sound; SC_ECORRUPT naming the
 * damage otherwise, with *out_retry set when a later look may see it sound
 * (a snapshot it missed exists now).
 */
static int fsck_file_look(sc_table *t, uint64_t *out_earliest, uint64_t *out_latest, uint64_t *out_expirable,
                          int *out_retry) {
    uint64_t earliest = 0, latest = 0, hint = 0, start = 0, below = 0, gap = 0, gap_next = 0;
    *out_retry = 0;
    int rc = fsck_hint(&hint, t, SC_LATEST_HINT_KEY);
    if (!rc) rc = fsck_hint(&start, t, SC_EARLIEST_HINT_KEY);
    if (rc) return rc;
    uint64_t floor = start ? start : 1; /* without EARLIEST, retained history starts at 1 */
    uint64_t *ids = NULL;
    size_t count = 0;
    if ((rc = sc_snapshot_ids_list(&ids, &count, t)) != 0) return rc; /* sorted numerically */
    /* Every snapshot from EARLIEST to the last listed must be there; those
     * below EARLIEST are left by an expiration in progress: allowed, expirable. */
    for (size_t i = 0; i < count; i++) {
        uint64_t id = ids[i];
        if (id < floor) {
            below++;
            continue;
        }
        if (!earliest) earliest = id;
        else if (id != latest + 1 && !gap) {
            gap = latest + 1;
            gap_next = id;
        }
        latest = id;
    }
    free(ids);
    int present = 0;
    if (gap) {
        if ((rc = snapshot_present(&present, t, gap)) != 0) return rc;
        *out_retry = present;
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " is missing: the chain jumps from %" PRIu64 " to %" PRIu64,
                            gap, gap - 1, gap_next);
    }
    if (!latest) {
        /* No snapshot from EARLIEST on: a new table, unless something says there were some. */
        if (hint || start) {
            uint64_t named = hint ? hint : start;
            if ((rc = snapshot_present(&present, t, named)) != 0) return rc;
            *out_retry = present;
            return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " named by %s is missing, and no snapshot is left (history lost)",
                                named, hint ? SC_LATEST_HINT_KEY : SC_EARLIEST_HINT_KEY);
        }
        if (below == 0) {
            int marked;
            if ((rc = sc_table_history_marked(&marked, t)) != 0) return rc;
            if (marked) {
                *out_retry = 1; /* the first commit may have landed since the LIST */
                return sc_table_no_history_error();
            }
        }
    }
    if (latest && earliest != floor) {
        if ((rc = snapshot_present(&present, t, floor)) != 0) return rc;
        *out_retry = 1; /* present now, or EARLIEST moved meanwhile: look again */
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " is missing: retained history starts there (%s) but the oldest snapshot is %" PRIu64,
                            floor, start ? "named by snapshot/EARLIEST" : "no snapshot/EARLIEST: history starts at 1", earliest);
    }
    /* A hint may lag; one ahead of the chain means snapshots were lost or rolled
     * back, unless it was written after the LIST (then its snapshot exists). */
    if (hint > latest && hint >= floor) {
        if ((rc = snapshot_present(&present, t, hint)) != 0) return rc;
        *out_retry = present;
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " named by %s is missing (lost or rolled back): the last snapshot is %" PRIu64,
                            hint, SC_LATEST_HINT_KEY, latest);
    }
    /* Something the store refuses where the next snapshot goes would block
     * every commit. A regular snapshot there was committed since the LIST:
     * not damage, and the chain checked ends at `latest`. */
    if ((rc = snapshot_present(&present, t, latest + 1)) != 0) return rc;
    *out_earliest = earliest;
    *out_latest = latest;
    *out_expirable = below;
    return 0;
}

/* Snapshot-file tables: list every snapshot and check the chain's shape. */
static int fsck_file_chain(sc_table *t, uint64_t *out_earliest, uint64_t *out_latest) {
    for (int attempt = 0;; attempt++) {
        int retry;
        uint64_t expirable = 0;
        int rc = fsck_file_look(t, out_earliest, out_latest, &expirable, &retry);
        if (rc == SC_ECORRUPT && retry && attempt < FSCK_RECHECKS) {
            sc_log(SC_LOG_DEBUG, "fsck: %s; looking again (a commit may have run meanwhile)", sc_error_message());
            sc_error_clear();
            continue;
        }
        if (!rc && expirable)
            sc_log(SC_LOG_INFO, "fsck: %" PRIu64 " snapshot(s) below %s remain (an expiration in progress): ignored by reads, expirable",
                   expirable, SC_EARLIEST_HINT_KEY);
        return rc;
    }
}

/*
 * The check of snapshot *id failed with *rc. When an expiration removed that snapshot
 * meanwhile (sc_state_expired_under), what went missing was expired, not lost: the walk
 * goes on from the new EARLIEST (*earliest, and *id one below it), with the latest found
 * again when it expired too. Returns 1 then, *rc cleared.
 */
static int expired_meanwhile(int *rc, uint64_t *id, uint64_t *earliest, uint64_t *latest, sc_table *t) {
    uint64_t now_first = 0;
    if (!sc_state_expired_under(&now_first, t, *id, rc)) return 0;
    sc_log(SC_LOG_INFO, "fsck: snapshot %" PRIu64 " expired while it was checked; going on from EARLIEST %" PRIu64, *id,
           now_first);
    sc_error_clear();
    *rc = 0;
    if (now_first > *latest && (*rc = t->strategy->latest(t, latest)) != 0)
        *rc = sc_error_wrap(*rc, "fsck: finding the latest snapshot again");
    *earliest = now_first;
    *id = now_first - 1;
    return 1;
}

int sc_table_fsck(sc_table *t, sc_progress_fn progress, void *ctx) {
    uint64_t earliest = 0, latest = 0;
    int rc = 0;
    sc_strategy_forget_found(t); /* every snapshot is read from the store */
    if (!t->strategy->snapshot_files_are_history) {
        /* Snapshots not stored as snapshot/snapshot-N files: walk what the strategy reaches. */
        rc = t->strategy->earliest(t, &earliest);
        if (!rc) rc = t->strategy->latest(t, &latest);
        if (rc) return sc_error_wrap(rc, "finding the snapshots");
    } else if ((rc = fsck_file_chain(t, &earliest, &latest)) != 0) {
        return rc;
    }
    /* A table not adopted is read as it is: its marker is written once it is adopted. */
    if (latest && !t->unadopted && (rc = sc_table_fsck_history(t)) != 0) return rc;

    uint8_t prev_hash[SC_SHA256_LEN];
    /* The watermark archive is carried unchanged from snapshot to snapshot: check each once. */
    uint8_t archive_checked[SC_SHA256_LEN] = {0};
    int any_archive_checked = 0;
    uint64_t prev_files = 0;
    int64_t prev_records = 0;
    int64_t schema_checked = -1;
    char *index_checked = NULL; /* carried unchanged from snapshot to snapshot: each decoded once */
    checked_manifests done = {0};
    rc = sc_fileset_new(&done.seen);
    for (uint64_t id = earliest; !rc && id && id <= latest; id++) {
        sc_snapshot s;
        uint8_t hash[SC_SHA256_LEN];
        if ((rc = sc_table_read_snapshot(&s, hash, t, id)) != 0) {
            if (expired_meanwhile(&rc, &id, &earliest, &latest, t)) continue;
            if (rc == SC_ENOTFOUND) rc = sc_error_wrap(SC_ECORRUPT, "snapshot %" PRIu64 " is missing", id);
            break;
        }
        /* A snapshot Paimon wrote pins no parent; ours pin theirs as any other. */
        if (id > earliest && !s.foreign && memcmp(s.parent_hash, prev_hash, SC_SHA256_LEN) != 0)
            rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": parent hash does not match snapshot %" PRIu64 " (rewritten or replaced)",
                              id, id - 1);
        uint64_t adds = 0, dels = 0;
        if (!rc) rc = check_claimed_schema(t, &s, &schema_checked);
        if (!rc && s.watermark_archive.name &&
            (!any_archive_checked || memcmp(archive_checked, s.watermark_archive.sha256, SC_SHA256_LEN) != 0)) {
            rc = sc_replay_check_archive(t, &s);
            memcpy(archive_checked, s.watermark_archive.sha256, SC_SHA256_LEN);
            any_archive_checked = 1;
        }
        if (!rc) rc = check_list(t, &done, &s.base_manifest_list, NULL, NULL);
        if (!rc) rc = check_list(t, &done, &s.delta_manifest_list, &adds, &dels);
        if (!rc) rc = check_paimon_objects(t, &done, &s, &index_checked);
        /* Paimon records no count: derive it from the snapshot before, or count the live files of
         * the first one (after an expiration, history may start at a snapshot of Paimon's). */
        if (s.foreign && id > earliest) s.file_count = prev_files + adds - dels;
        if (!rc && s.foreign && id == earliest) rc = sc_state_live_each(&s.file_count, t, &s, NULL, NULL, NULL);
        if (!rc && id > earliest && s.file_count != prev_files + adds - dels)
            rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": fileCount %" PRIu64 " does not follow from snapshot %" PRIu64 " and its delta",
                              id, s.file_count, id - 1);
        if (!rc && id > earliest && s.total_record_count != prev_records + s.delta_record_count)
            rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": totalRecordCount does not follow from snapshot %" PRIu64, id, id - 1);
        memcpy(prev_hash, hash, sizeof hash);
        prev_files = s.file_count;
        prev_records = s.total_record_count;
        if (!rc && id == latest) {
            /* The live state must merge cleanly and match the declared count. */
            uint64_t live = 0;
            rc = sc_state_live_each(&live, t, &s, NULL, NULL, NULL);
            if (!rc && live != s.file_count)
                rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": %" PRIu64 " live files, fileCount says %" PRIu64, id, live, s.file_count);
        }
        sc_snapshot_clear(&s);
        if (rc && expired_meanwhile(&rc, &id, &earliest, &latest, t)) continue;
        if (progress) progress(ctx, id - earliest + 1, latest - earliest + 1);
    }
    free(index_checked);
    sc_fileset_free(done.seen);
    free(done.counts);
    if (!rc && latest && t->strategy->fsck) rc = t->strategy->fsck(t);
    /* head and tracker: the copies Paimon's readers see must be the authority's. */
    if (!rc && latest && !t->strategy->snapshot_files_are_history) rc = sc_publish_fsck(t, earliest, latest);
    return rc;
}
