/*
 * The `head` strategy (docs/head-record.md): snapshot N is an immutable,
 * content-addressed object head/snapshot-<sha256 hex> (the same sealed JSON
 * as the other strategies), and the table's single mutable key head/CURRENT
 * holds a fixed 256-byte head record (head_record.h) naming it. Publishing
 * N+1 installs the object first, then swaps the head by compare-and-swap:
 * put_if_absent for genesis, put_if_match with the ETag observed in the same
 * GET response that returned revision N otherwise. Readers find the latest
 * snapshot with one GET.
 *
 * Outcomes of the swap:
 *   success                      → won
 *   SC_EEXISTS / SC_EMODIFIED    → re-read the head and validate against the
 *                                  intent: ours at revision N+1 → won, else lost
 *   SC_EUNKNOWN (lost response)  → retry the same bytes with the same
 *                                  precondition a bounded number of times,
 *                                  then re-read and decide; still at N → unknown
 * A missing or damaged object the head (or the parent chain) selects is
 * SC_ECORRUPT — never a fallback to an older snapshot.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/head_record.h"
#include "strategy/strategy.h"

#define HEAD_KEY "head/CURRENT"
#define OBJECT_PREFIX "head/snapshot-"
/* Re-sends of one request (same bytes, same precondition) after lost responses. */
#define SAME_BYTES_RETRIES 3
/* Snapshot hashes remembered per handle (32 bytes each), so walks are not repeated. */
#define HASH_CACHE_MAX (1u << 20)

typedef struct head_state {
    int known;   /* head/CURRENT has been read by this handle */
    int present; /* ... and existed then */
    sc_head_record rec;
    uint8_t raw[SC_HEAD_RECORD_LEN];
    char etag[SC_ETAG_MAX]; /* from the same GET (or PUT) response as raw */
    /* hashes[i] is the SHA-256 of snapshot lo + i when have[i] */
    uint64_t lo;
    size_t count;
    uint8_t (*hashes)[SC_SHA256_LEN];
    uint8_t *have;
    /* The bytes of the snapshot this handle's last claim won, for publication. */
    uint64_t won_id;
    uint8_t *won_doc;
    size_t won_len;
} head_state;

/* The handle starts knowing nothing: the first call reads head/CURRENT. */
static int head_open(sc_table *t, void **out_state) {
    (void)t;
    *out_state = calloc(1, sizeof(head_state));
    return *out_state ? 0 : sc_error_set(SC_ENOMEM, "out of memory opening the head strategy");
}

static void head_close(void *p) {
    head_state *st = p;
    if (!st) return;
    free(st->hashes);
    free(st->have);
    free(st->won_doc);
    free(st);
}

static head_state *state_of(sc_table *t) { return t->strategy_state; }

/* ---- the per-handle cache of id → snapshot hash (immutable facts) ---- */

static void cache_drop(head_state *st) {
    free(st->hashes);
    free(st->have);
    st->hashes = NULL;
    st->have = NULL;
    st->lo = 0;
    st->count = 0;
}

static const uint8_t *cache_get(const head_state *st, uint64_t id) {
    if (!st->count || id < st->lo || id - st->lo >= st->count || !st->have[id - st->lo]) return NULL;
    return st->hashes[id - st->lo];
}

/* Best effort: on overflow of the cap or out of memory the cache starts over. */
static void cache_put(head_state *st, uint64_t id, const uint8_t hash[SC_SHA256_LEN]) {
    if (id == 0) return;
    if (!st->count || id < st->lo || id - st->lo >= st->count) {
        uint64_t lo = st->count ? st->lo : id, hi = st->count ? st->lo + st->count - 1 : id;
        uint64_t step = hi - lo + 1;
        uint64_t tight_lo = id < lo ? id : lo, tight_hi = id > hi ? id : hi;
        /* Grow geometrically in the direction of `id`, so walks stay linear. */
        if (id < lo) lo = lo - id > step ? id : (lo > step ? lo - step : 1);
        else hi = id - hi > step ? id : (UINT64_MAX - hi > step ? hi + step : UINT64_MAX);
        if (hi - lo >= HASH_CACHE_MAX) {
            lo = tight_lo;
            hi = tight_hi;
        }
        if (hi - lo >= HASH_CACHE_MAX) {
            cache_drop(st);
            lo = hi = id;
        }
        size_t n = (size_t)(hi - lo + 1);
        uint8_t(*hashes)[SC_SHA256_LEN] = calloc(n, sizeof *hashes);
        uint8_t *have = calloc(n, 1);
        if (!hashes || !have) {
            free(hashes);
            free(have);
            cache_drop(st);
            return;
        }
        if (st->count) {
            size_t at = (size_t)(st->lo - lo);
            memcpy(hashes + at, st->hashes, st->count * sizeof *hashes);
            memcpy(have + at, st->have, st->count);
        }
        free(st->hashes);
        free(st->have);
        st->hashes = hashes;
        st->have = have;
        st->lo = lo;
        st->count = n;
    }
    memcpy(st->hashes[id - st->lo], hash, SC_SHA256_LEN);
    st->have[id - st->lo] = 1;
}

/* ---- reading the head ---- */

static void object_key(char out[96], const uint8_t hash[SC_SHA256_LEN]) {
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_hex_encode(hex, hash, SC_SHA256_LEN);
    snprintf(out, 96, OBJECT_PREFIX "%s", hex);
}

/* GET head/CURRENT and remember record, bytes and the ETag of that same response. */
static int fetch_head(sc_table *t, head_state *st) {
    uint8_t *data = NULL;
    size_t len = 0;
    sc_object_info info;
    /* A head record has a fixed size: anything larger is refused unread. */
    int rc = sc_store_get_bounded(t->store, &data, &len, &info, HEAD_KEY, SC_HEAD_RECORD_LEN);
    if (rc == SC_ENOTFOUND) {
        if (st->known && st->present)
            return sc_error_set(SC_ECORRUPT, "%s: missing, but this handle saw revision %" PRIu64
                                " there: the head was deleted (refusing to treat the table as empty)",
                                HEAD_KEY, st->rec.revision);
        sc_error_clear();
        st->known = 1;
        st->present = 0;
        return 0;
    }
    if (rc) return sc_error_wrap(rc, "reading %s", HEAD_KEY);
    sc_head_record rec;
    rc = sc_head_decode(&rec, data, len, HEAD_KEY);
    if (rc) {
        free(data);
        return rc;
    }
    uint8_t table[SC_UUID_LEN];
    if (sc_uuid_parse(table, t->meta.table_uuid) != 0 || memcmp(table, rec.table_uuid, SC_UUID_LEN) != 0) {
        char text[SC_UUID_TEXT_LEN + 1];
        sc_uuid_format(text, rec.table_uuid);
        free(data);
        return sc_error_set(SC_ECORRUPT, "%s: field \"tableUuid\" at byte offset %d names table %s, not this table (%s)",
                            HEAD_KEY, SC_HEAD_OFF_TABLE_UUID, text, t->meta.table_uuid);
    }
    if (st->known && st->present && rec.revision < st->rec.revision) {
        free(data);
        return sc_error_set(SC_ECORRUPT, "%s: went back from revision %" PRIu64 " to %" PRIu64 " (rolled back)",
                            HEAD_KEY, st->rec.revision, rec.revision);
    }
    if (!info.etag[0]) {
        free(data);
        return sc_error_set(SC_EUNSUPPORTED, "%s: the %s store returned no ETag, so it cannot be swapped",
                            HEAD_KEY, sc_store_backend_name(t->store));
    }
    st->known = 1;
    st->present = 1;
    st->rec = rec;
    memcpy(st->raw, data, SC_HEAD_RECORD_LEN);
    memcpy(st->etag, info.etag, sizeof st->etag);
    free(data);
    cache_put(st, rec.revision, rec.snapshot_sha256);
    return 0;
}

/*
 * GET the snapshot object named by `hash`, checking its bytes against the
 * name (and `length` when non-zero). Missing or mismatching: SC_ECORRUPT,
 * naming `why` (who selected it). *out_missing is set when it was absent.
 */
static int fetch_object(uint8_t **out_data, size_t *out_len, int *out_missing, sc_table *t,
                        const uint8_t hash[SC_SHA256_LEN], uint64_t length, const char *why) {
    char key[96];
    object_key(key, hash);
    *out_data = NULL;
    *out_len = 0;
    if (out_missing) *out_missing = 0;
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_SNAPSHOT_MAX_BYTES);
    if (rc == SC_ENOTFOUND) {
        if (out_missing) *out_missing = 1;
        return sc_error_set(SC_ECORRUPT, "%s: missing, but %s selects it", key, why);
    }
    if (rc) return sc_error_wrap(rc, "reading %s", key);
    uint8_t got[SC_SHA256_LEN];
    sc_sha256(got, data, len);
    if (memcmp(got, hash, SC_SHA256_LEN) != 0) {
        free(data);
        return sc_error_set(SC_ECORRUPT, "%s: content does not match its SHA-256 name (damaged); %s selects it", key, why);
    }
    if (length && len != length) {
        free(data);
        return sc_error_set(SC_ECORRUPT, "%s: %zu bytes, but %s declares %" PRIu64, key, len, why, length);
    }
    *out_data = data;
    *out_len = len;
    return 0;
}

/* Decode the object of snapshot `id` just fetched, learning the hash of id-1. */
static int learn_parent(head_state *st, const uint8_t *data, size_t len, uint64_t id,
                        const uint8_t hash[SC_SHA256_LEN]) {
    char key[96];
    object_key(key, hash);
    sc_snapshot s;
    int rc = sc_snapshot_decode(&s, data, len, key);
    if (rc) return rc;
    if (s.id != id) {
        sc_snapshot_clear(&s);
        return sc_error_set(SC_ECORRUPT, "%s: records id %" PRIu64 " where the chain expects snapshot %" PRIu64, key,
                            s.id, id);
    }
    if (s.has_parent) cache_put(st, id - 1, s.parent_hash);
    sc_snapshot_clear(&s);
    return 0;
}

/* Make sure the head is known and at least at `id`; SC_ENOTFOUND when it is not. */
static int head_covering(sc_table *t, head_state *st, uint64_t id) {
    if (!st->known || !st->present || st->rec.revision < id) {
        int rc = fetch_head(t, st);
        if (rc) return rc;
    }
    if (!st->present || st->rec.revision < id)
        return sc_error_set(SC_ENOTFOUND, "snapshot %" PRIu64 " does not exist (%s is at revision %" PRIu64 ")", id,
                            HEAD_KEY, st->present ? st->rec.revision : 0);
    return 0;
}

/* The SHA-256 of snapshot `id` (1 <= id <= head revision), walking parent hashes down from the nearest known one. */
static int hash_of(uint8_t out[SC_SHA256_LEN], sc_table *t, head_state *st, uint64_t id) {
    const uint8_t *h = cache_get(st, id);
    if (h) {
        memcpy(out, h, SC_SHA256_LEN);
        return 0;
    }
    uint64_t from = id + 1;
    while (from < st->rec.revision && !cache_get(st, from)) from++;
    if (from >= st->rec.revision) {
        from = st->rec.revision;
        cache_put(st, from, st->rec.snapshot_sha256);
    }
    for (uint64_t r = from; r > id; r--) {
        const uint8_t *known = cache_get(st, r);
        uint8_t hash[SC_SHA256_LEN];
        if (!known) return sc_error_set(SC_ENOMEM, "out of memory remembering snapshot hashes");
        memcpy(hash, known, SC_SHA256_LEN);
        uint8_t *data;
        size_t len;
        char why[64];
        snprintf(why, sizeof why, "the chain at snapshot %" PRIu64, r);
        int rc = fetch_object(&data, &len, NULL, t, hash, r == st->rec.revision ? st->rec.snapshot_length : 0, why);
        if (rc) return rc;
        rc = learn_parent(st, data, len, r, hash);
        free(data);
        if (rc) return rc;
        if (!cache_get(st, r - 1))
            return sc_error_set(SC_ENOMEM, "out of memory remembering snapshot hashes");
    }
    memcpy(out, cache_get(st, id), SC_SHA256_LEN);
    return 0;
}

static int head_latest(sc_table *t, uint64_t *out_id) {
    head_state *st = state_of(t);
    *out_id = 0;
    int rc = fetch_head(t, st);
    if (rc || st->present) {
        *out_id = rc ? 0 : st->rec.revision;
        return rc;
    }
    /* No head record: a new table, or one whose head/CURRENT was lost. The
     * marker follows snapshot 1, so after seeing it the head must be there. */
    int marked;
    if ((rc = sc_table_history_marked(&marked, t)) != 0 || !marked) return rc;
    if ((rc = fetch_head(t, st)) != 0) return rc;
    if (!st->present) return sc_table_no_history_error();
    *out_id = st->rec.revision;
    return 0;
}

static int head_read(sc_table *t, uint8_t **out_data, size_t *out_len, uint64_t id) {
    *out_data = NULL;
    *out_len = 0;
    head_state *st = state_of(t);
    if (id == 0) return sc_error_set(SC_ENOTFOUND, "snapshot 0 does not exist");
    int rc = head_covering(t, st, id);
    if (rc) return rc;
    uint8_t hash[SC_SHA256_LEN];
    if ((rc = hash_of(hash, t, st, id)) != 0) return rc;
    char why[96];
    if (id == st->rec.revision) snprintf(why, sizeof why, "%s (revision %" PRIu64 ")", HEAD_KEY, id);
    else snprintf(why, sizeof why, "the parent hash of snapshot %" PRIu64, id + 1);
    return fetch_object(out_data, out_len, NULL, t, hash, id == st->rec.revision ? st->rec.snapshot_length : 0, why);
}

/* Walk down to the first reachable snapshot: the one without parent, or the
 * last before a missing ancestor (history that was removed). */
static int head_earliest(sc_table *t, uint64_t *out_id) {
    *out_id = 0;
    head_state *st = state_of(t);
    int rc = st->known ? 0 : fetch_head(t, st);
    if (rc || !st->present) return rc;
    uint64_t top = st->rec.revision;
    for (uint64_t cur = top;; cur--) {
        uint8_t hash[SC_SHA256_LEN], *data;
        size_t len;
        int missing;
        if ((rc = hash_of(hash, t, st, cur)) != 0) return rc;
        rc = fetch_object(&data, &len, &missing, t, hash, cur == top ? st->rec.snapshot_length : 0,
                          cur == top ? HEAD_KEY : "the parent chain");
        if (rc && missing && cur < top) {
            sc_error_clear();
            sc_log(SC_LOG_DEBUG, "%s: history before snapshot %" PRIu64 " is not retained", HEAD_KEY, cur + 1);
            *out_id = cur + 1;
            return 0;
        }
        if (rc) return rc;
        rc = learn_parent(st, data, len, cur, hash);
        free(data);
        if (rc) return rc;
        if (cur == 1) break;
    }
    *out_id = 1;
    return 0;
}

/* ---- publishing ---- */

/* Install the immutable object; an identical object already there is fine.
 * *created is set when this very call created it (no earlier or lost request did). */
static int install_object(int *created, sc_table *t, const uint8_t *data, size_t len,
                          const uint8_t hash[SC_SHA256_LEN]) {
    char key[96];
    object_key(key, hash);
    *created = 0;
    for (int attempt = 0;; attempt++) {
        int rc = sc_store_put_if_absent(t->store, NULL, key, data, len);
        if (rc == 0) {
            *created = attempt == 0;
            return 0;
        }
        if (rc == SC_EEXISTS) {
            uint8_t *have;
            size_t have_len;
            rc = sc_store_get_bounded(t->store, &have, &have_len, NULL, key, len);
            if (rc) return sc_error_wrap(rc, "verifying the existing %s", key);
            int same = have_len == len && memcmp(have, data, len) == 0;
            free(have);
            if (same) {
                sc_error_clear();
                return 0;
            }
            return sc_error_set(SC_ECORRUPT, "%s: exists with bytes that do not match its SHA-256 name", key);
        }
        if (rc != SC_EUNKNOWN) return sc_error_wrap(rc, "installing %s", key);
        if (attempt == SAME_BYTES_RETRIES)
            /* The head was not touched: this publication certainly did not happen. */
            return sc_error_set(SC_ETRANSIENT, "installing %s: %d responses lost in a row", key, attempt + 1);
    }
}

/*
 * After a lost claim, remove the object this claim created: revision `id`
 * belongs to another publication, so every request of ours that names the
 * object was refused or can no longer pass its precondition (the head has
 * left the ETag it was sent with), and no other publication has these bytes
 * (they hold our commitUuid). Best effort: garbage is harmless.
 */
static void drop_object(sc_table *t, const uint8_t hash[SC_SHA256_LEN]) {
    char key[96], message[1024];
    object_key(key, hash);
    snprintf(message, sizeof message, "%s", sc_error_message());
    if (sc_store_discard(t->store, key) != 0)
        sc_log(SC_LOG_DEBUG, "could not remove the unreferenced %s: %s", key, sc_error_message());
    sc_error_set(SC_EEXISTS, "%s", message); /* the caller reports why the claim was lost */
}

/* The head now shows revision >= id, or our swap met a precondition failure:
 * is snapshot `id` ours? 0 ours, SC_EEXISTS someone else's, or an error. */
static int decide(sc_table *t, head_state *st, uint64_t id, const sc_head_record *intent, int had_unknown) {
    int rc = fetch_head(t, st);
    if (rc) return had_unknown ? sc_error_wrap(SC_EUNKNOWN, "re-reading the head after a lost response") : rc;
    if (!st->present) {
        if (id == 1) return sc_error_set(SC_EEXISTS, "%s: created and gone again while claiming snapshot 1", HEAD_KEY);
        return sc_error_set(had_unknown ? SC_EUNKNOWN : SC_ECORRUPT, "%s: missing while claiming snapshot %" PRIu64, HEAD_KEY, id);
    }
    if (st->rec.revision == id) {
        if (memcmp(st->rec.publication_uuid, intent->publication_uuid, SC_UUID_LEN) == 0 &&
            memcmp(st->rec.snapshot_sha256, intent->snapshot_sha256, SC_SHA256_LEN) == 0) {
            sc_error_clear();
            return 0;
        }
        return sc_error_set(SC_EEXISTS, "snapshot %" PRIu64 " was published by another writer", id);
    }
    if (st->rec.revision > id) {
        uint8_t hash[SC_SHA256_LEN];
        if ((rc = hash_of(hash, t, st, id)) != 0)
            return had_unknown ? sc_error_wrap(SC_EUNKNOWN, "checking snapshot %" PRIu64, id) : rc;
        if (memcmp(hash, intent->snapshot_sha256, SC_SHA256_LEN) == 0) {
            sc_error_clear();
            return 0;
        }
        return sc_error_set(SC_EEXISTS, "snapshot %" PRIu64 " was published by another writer", id);
    }
    if (st->rec.revision + 1 == id) {
        if (had_unknown)
            /* Still at the predecessor: the lost request may yet be applied. */
            return sc_error_set(SC_EUNKNOWN, "%s: still at revision %" PRIu64 " after lost responses to the swap to %" PRIu64,
                                HEAD_KEY, st->rec.revision, id);
        /* Rewritten in place (same revision, new ETag): re-read by the engine, never re-sent with a new token. */
        sc_log(SC_LOG_WARN, "%s: revision %" PRIu64 " was rewritten in place; not rebasing the candidate", HEAD_KEY,
               st->rec.revision);
        return sc_error_set(SC_EEXISTS, "%s: changed without advancing past revision %" PRIu64, HEAD_KEY, st->rec.revision);
    }
    return sc_error_set(SC_ECORRUPT, "%s: at revision %" PRIu64 " while snapshot %" PRIu64 " was being claimed (rolled back)",
                        HEAD_KEY, st->rec.revision, id - 1);
}

static int head_claim_once(sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    head_state *st = state_of(t);
    sc_snapshot s;
    int rc = sc_snapshot_decode(&s, data, len, "candidate snapshot");
    if (rc) return rc;
    sc_head_record intent;
    memset(&intent, 0, sizeof intent);
    if (s.id != id) rc = sc_error_set(SC_EINVAL, "candidate snapshot records id %" PRIu64 ", not %" PRIu64, s.id, id);
    if (!rc && sc_uuid_parse(intent.table_uuid, t->meta.table_uuid) != 0)
        rc = sc_error_set(SC_ECORRUPT, "%s: tableUuid \"%s\" is not a UUID", SC_TABLE_META_KEY, t->meta.table_uuid);
    if (!rc && sc_uuid_parse(intent.publication_uuid, s.commit_uuid) != 0)
        rc = sc_error_set(SC_EINVAL, "candidate snapshot: commitUuid \"%s\" is not a UUID", s.commit_uuid);
    if (!rc) {
        sc_head_publisher_uuid(intent.publisher_uuid, s.commit_user);
        intent.commit_identifier = s.commit_identifier;
    }
    sc_snapshot_clear(&s);
    if (rc) return rc;
    intent.revision = id;
    sc_sha256(intent.snapshot_sha256, data, len);
    intent.snapshot_length = len;

    /* The predecessor: the head this handle saw at revision id-1, with its ETag. */
    char etag[SC_ETAG_MAX] = "";
    if (id > 1) {
        if (!st->known || !st->present || st->rec.revision != id - 1) {
            if ((rc = fetch_head(t, st)) != 0) return rc;
            if (st->present && st->rec.revision >= id) return decide(t, st, id, &intent, 0);
            if (!st->present || st->rec.revision != id - 1)
                return sc_error_set(SC_ECORRUPT, "%s: at revision %" PRIu64 ", but snapshot %" PRIu64 " was seen (rolled back or deleted)",
                                    HEAD_KEY, st->present ? st->rec.revision : 0, id - 1);
        }
        intent.has_predecessor = 1;
        sc_sha256(intent.predecessor_sha256, st->raw, SC_HEAD_RECORD_LEN);
        intent.predecessor_length = SC_HEAD_RECORD_LEN;
        memcpy(etag, st->etag, sizeof etag);
    } else if (st->known && st->present) {
        return decide(t, st, id, &intent, 0); /* genesis is already taken */
    }
    uint8_t record[SC_HEAD_RECORD_LEN];
    if ((rc = sc_head_encode(record, &intent)) != 0) return rc;

    /* Immutable object first: the head never names bytes that are not there. */
    int created;
    if ((rc = install_object(&created, t, data, len, intent.snapshot_sha256)) != 0) return rc;

    int had_unknown = 0;
    for (int attempt = 0; attempt <= SAME_BYTES_RETRIES; attempt++) {
        sc_object_info info;
        rc = id == 1 ? sc_store_put_if_absent(t->store, &info, HEAD_KEY, record, sizeof record)
                     : sc_store_put_if_match(t->store, &info, HEAD_KEY, record, sizeof record, etag);
        if (rc == 0) {
            st->rec = intent;
            memcpy(st->raw, record, sizeof record);
            memcpy(st->etag, info.etag, sizeof st->etag);
            st->known = info.etag[0] != 0; /* without the new ETag, the next claim re-reads */
            st->present = 1;
            cache_put(st, id, intent.snapshot_sha256);
            return 0;
        }
        if (rc == SC_EUNKNOWN) {
            had_unknown = 1;
            sc_log(SC_LOG_WARN, "swap of %s to revision %" PRIu64 ": response lost; re-sending the same record", HEAD_KEY, id);
            continue;
        }
        if (rc == SC_EEXISTS || rc == SC_EMODIFIED || rc == SC_ENOTFOUND) {
            rc = decide(t, st, id, &intent, had_unknown);
            if (rc == SC_EEXISTS && created) drop_object(t, intent.snapshot_sha256);
            return rc;
        }
        if (had_unknown) return sc_error_wrap(SC_EUNKNOWN, "swapping %s after a lost response", HEAD_KEY);
        return sc_error_wrap(rc, "swapping %s to revision %" PRIu64, HEAD_KEY, id);
    }
    rc = decide(t, st, id, &intent, had_unknown);
    if (rc == SC_EEXISTS && created) drop_object(t, intent.snapshot_sha256);
    return rc;
}

/* ---- fsck: installed objects that do not fit the head ---- */

/*
 * A writer installs the object of snapshot N+1 before it swaps the head from
 * N, so while the head is at H the only objects above it are for H+1 (a
 * writer that crashed or lost between the two steps, or is between them
 * now), and each of those has snapshot H as its parent. Two shapes are
 * therefore damage, never a crash:
 *   - an object for revision H+2 or higher: the head was at H+1 or more once
 *     and has been rolled back;
 *   - an object whose parent is not the chain's snapshot before it (at H+1,
 *     or one left by a losing writer at or below H): the head once named a
 *     different snapshot at that revision, i.e. it was rolled back and then
 *     built on again.
 * A rollback by exactly one revision that nothing built on since looks
 * exactly like a writer that crashed before its swap and is NOT detectable
 * (docs/head-record.md). Cost: one LIST of head/snapshot- and one GET per
 * object, fsck only.
 */
static int check_object(sc_table *t, head_state *st, const char *key, uint64_t earliest) {
    const char *hex = key + strlen(OBJECT_PREFIX);
    uint8_t hash[SC_SHA256_LEN];
    if (strlen(hex) != SC_SHA256_HEX_LEN || sc_hex_decode(hash, SC_SHA256_LEN, hex) != 0)
        return sc_error_set(SC_ECORRUPT, "%s: not a snapshot object name (" OBJECT_PREFIX "<64 hex digits>)", key);
    uint8_t *data;
    size_t len;
    int missing;
    int rc = fetch_object(&data, &len, &missing, t, hash, 0, "fsck's listing of " OBJECT_PREFIX);
    if (rc && missing) { /* a losing writer removed its object since the LIST */
        sc_error_clear();
        return 0;
    }
    if (rc) return rc;
    sc_snapshot s;
    rc = sc_snapshot_decode(&s, data, len, key);
    free(data);
    if (rc) return rc;
    uint64_t id = s.id, head = st->rec.revision;
    uint8_t parent[SC_SHA256_LEN];
    int has_parent = s.has_parent;
    memcpy(parent, s.parent_hash, SC_SHA256_LEN);
    sc_snapshot_clear(&s);
    if (id >= head + 2) {
        /* Commits running now move the head on: only a head still below id-1 is damage. */
        if ((rc = fetch_head(t, st)) != 0) return rc;
        head = st->rec.revision;
        if (id >= head + 2)
            return sc_error_set(SC_ECORRUPT,
                                "%s: snapshot %" PRIu64 " is installed, but %s is at revision %" PRIu64
                                " (a writer installs at most revision %" PRIu64 " before swapping): the head was rolled back",
                                key, id, HEAD_KEY, head, head + 1);
        return 0;
    }
    if (id <= head) {
        uint8_t chain[SC_SHA256_LEN];
        if ((rc = hash_of(chain, t, st, id)) != 0) return rc;
        if (memcmp(chain, hash, SC_SHA256_LEN) == 0) return 0; /* on the chain: checked already */
    }
    /* Left by a writer that did not win revision id: built on the chain's id-1. */
    if (id < 2 || id - 1 < earliest || !has_parent) return 0;
    uint8_t expected[SC_SHA256_LEN];
    if ((rc = hash_of(expected, t, st, id - 1)) != 0) return rc;
    if (memcmp(expected, parent, SC_SHA256_LEN) != 0)
        return sc_error_set(SC_ECORRUPT,
                            "%s: snapshot %" PRIu64 " whose parent is not snapshot %" PRIu64 " of the chain %s reaches "
                            "(at revision %" PRIu64 "): the head once named another snapshot %" PRIu64 " (rolled back and built on again)",
                            key, id, id - 1, HEAD_KEY, head, id - 1);
    return 0;
}

static int head_fsck(sc_table *t) {
    head_state *st = state_of(t);
    uint64_t earliest;
    int rc = head_earliest(t, &earliest);
    if (!rc) rc = fetch_head(t, st);
    if (rc || !st->present) return rc;
    sc_list_page page;
    if ((rc = sc_store_list_all(t->store, &page, OBJECT_PREFIX)) != 0)
        return sc_error_wrap(rc, "listing %s", OBJECT_PREFIX);
    for (size_t i = 0; !rc && i < page.count; i++) rc = check_object(t, st, page.keys[i], earliest);
    sc_list_page_free(&page);
    return rc;
}

/* A won claim keeps its bytes for the publication that follows (after_commit). */
static int head_claim(sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    head_state *st = state_of(t);
    free(st->won_doc);
    st->won_doc = NULL;
    st->won_id = 0;
    int rc = head_claim_once(t, id, data, len);
    if (rc == 0 && (st->won_doc = malloc(len ? len : 1)) != NULL) {
        memcpy(st->won_doc, data, len);
        st->won_len = len;
        st->won_id = id;
    }
    return rc;
}

/* The head stays the truth; Paimon's readers get snapshot/snapshot-<id> and
 * the hints (publish.c). A claim reconciled later has no kept bytes: they are
 * read back through the head then. */
static void head_after_commit(sc_table *t, uint64_t id) {
    head_state *st = state_of(t);
    int kept = st->won_id == id;
    sc_publish_snapshot(t, id, kept ? st->won_doc : NULL, kept ? st->won_len : 0);
    free(st->won_doc);
    st->won_doc = NULL;
    st->won_id = 0;
}

const sc_strategy sc_strategy_head = {
    .kind = SC_STRATEGY_HEAD,
    .required_caps = SC_CAP_COMPARE_AND_SWAP | SC_CAP_CONDITIONAL_CREATE,
    .latest = head_latest,
    .read = head_read,
    .claim = head_claim,
    .after_commit = head_after_commit,
    .earliest = head_earliest,
    .open = head_open,
    .close = head_close,
    .fsck = head_fsck,
};
