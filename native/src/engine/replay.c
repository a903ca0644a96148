/* The replay rule (replay.h): the check, the filter, the inline watermarks and the archive. */
#include "engine/replay.h"
#include "engine/state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cache.h"
#include "base/error_internal.h"
#include "base/log.h"
#include "base/vec.h"
#include "strategy/strategy.h"

/* ---- the archive, read through the handle's cache ---- */

/* An archive in hand: the cache's (borrowed until the next cache put) or our own. */
typedef struct archive_hold {
    sc_watermark_archive *a;
    int owned;
} archive_hold;

static void archive_free(void *object) {
    sc_watermark_archive_clear(object);
    free(object);
}

/*
 * Read and check the archive snapshot `s` references (which must have one).
 * Pinned by length and by the hash its name carries; every failure names the
 * object and the snapshot, and a missing one is damage, not "never committed".
 */
static int archive_open(archive_hold *h, sc_table *t, const sc_snapshot *s, int use_cache) {
    const sc_object_ref *ref = &s->watermark_archive;
    char key[SC_WATERMARK_ARCHIVE_KEY_MAX];
    sc_watermark_archive_key(key, ref->name);
    /* Tagged as an archive: the cache also holds lists and manifests ("L:", "M:", state.c),
     * and a manifest may carry any name. */
    char ckey[SC_WATERMARK_ARCHIVE_NAME_LEN + 3];
    snprintf(ckey, sizeof ckey, "A:%s", ref->name);
    h->a = use_cache && t->cache ? sc_cache_get(t->cache, ckey, ref->sha256) : NULL;
    h->owned = 0;
    if (h->a) {
        /* Decoded before against an older referencing snapshot: the bound still holds. */
        if (h->a->max_snapshot > s->id)
            return sc_error_set(SC_ECORRUPT, "%s (referenced by snapshot %" PRIu64 ") names snapshot %" PRIu64 ", above it",
                                key, s->id, h->a->max_snapshot);
        return 0;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_WATERMARK_ARCHIVE_MAX_BYTES);
    if (rc == SC_ENOTFOUND)
        return sc_error_wrap(SC_ECORRUPT, "%s, the watermark archive of snapshot %" PRIu64 ", is missing", key, s->id);
    if (rc) return sc_error_wrap(rc, "reading %s, the watermark archive of snapshot %" PRIu64, key, s->id);
    uint8_t got[SC_SHA256_LEN];
    if (len != ref->length) {
        rc = sc_error_set(SC_ECORRUPT, "%s: %zu bytes, snapshot %" PRIu64 " pins %" PRIu64 " (truncated or replaced)", key, len,
                          s->id, ref->length);
    } else {
        sc_sha256(got, data, len);
        if (memcmp(got, ref->sha256, SC_SHA256_LEN) != 0)
            rc = sc_error_set(SC_ECORRUPT, "%s: its bytes do not hash to its name (damaged)", key);
    }
    sc_watermark_archive *a = NULL;
    if (!rc && !(a = calloc(1, sizeof *a))) rc = sc_error_set(SC_ENOMEM, "out of memory");
    if (!rc) rc = sc_watermark_archive_decode(a, data, len, s->id, key);
    free(data);
    if (rc) {
        free(a);
        return rc;
    }
    h->a = a;
    h->owned = 1;
    return 0;
}

/* Done with the archive: a fresh one goes to the cache (immutable, pinned by its hash). */
static void archive_close(archive_hold *h, sc_table *t, const sc_snapshot *s, int use_cache) {
    if (h->owned) {
        char ckey[SC_WATERMARK_ARCHIVE_NAME_LEN + 3];
        snprintf(ckey, sizeof ckey, "A:%s", s->watermark_archive.name);
        if (use_cache && t->cache) sc_cache_put(t->cache, ckey, s->watermark_archive.sha256, h->a, h->a->count + 1, archive_free);
        else archive_free(h->a);
    }
    h->a = NULL;
    h->owned = 0;
}

/* ---- the rule ---- */

int sc_replay_lookup(sc_watermark *out, int *found, sc_table *t, const sc_snapshot *latest, const char *user) {
    memset(out, 0, sizeof *out);
    *found = 0;
    if (!latest) return 0;
    const sc_watermark *w = sc_snapshot_watermark(latest, user);
    if (!w && latest->watermark_archive.name) {
        archive_hold h;
        int rc = archive_open(&h, t, latest, 1);
        if (rc) return rc;
        w = sc_watermark_archive_find(h.a, user);
        if (w) *out = *w;
        archive_close(&h, t, latest, 1);
    } else if (w) {
        *out = *w;
    }
    if (out->user) {
        out->user = (char *)user;
        *found = 1;
    }
    return 0;
}

int sc_replay_committed(const sc_watermark *w, int64_t identifier) {
    /* Identifiers only grow per user, so everything up to the watermark has landed. */
    return w && identifier <= w->identifier;
}

int sc_replay_check(uint64_t *out_existing, sc_table *t, const sc_snapshot *latest, const char *user,
                    int64_t identifier) {
    *out_existing = 0;
    sc_watermark w;
    int found;
    int rc = sc_replay_lookup(&w, &found, t, latest, user);
    if (rc) return rc;
    if (!found || !sc_replay_committed(&w, identifier)) return 0;
    int replay = w.identifier == identifier;
    if (replay) *out_existing = w.snapshot_id;
    return sc_error_set(SC_ECOMMITTED,
                        "user \"%s\" already committed identifier %" PRId64
                        " (snapshot %" PRIu64 "); identifier %" PRId64 " is %s: nothing written",
                        user, w.identifier, w.snapshot_id, identifier,
                        replay ? "a replay" : "not above the watermark");
}

size_t sc_replay_filter(int64_t *out_ids, const sc_watermark *w, const int64_t *ids, size_t count) {
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (!sc_replay_committed(w, ids[i])) out_ids[n++] = ids[i];
    return n;
}

/* ---- the next snapshot's watermarks ---- */

static int watermark_by_user(const void *a, const void *b) {
    return strcmp(((const sc_watermark *)a)->user, ((const sc_watermark *)b)->user);
}

/* Most recently active first (the committing user has the newest snapshot id); ties by user. */
static int watermark_by_recency(const void *pa, const void *pb) {
    const sc_watermark *a = pa, *b = pb;
    if (a->snapshot_id != b->snapshot_id) return a->snapshot_id > b->snapshot_id ? -1 : 1;
    return strcmp(a->user, b->user);
}

static void watermarks_free(sc_watermark *w, size_t n) {
    for (size_t i = 0; i < n; i++) free(w[i].user);
    free(w);
}

static size_t inline_bound(const sc_table *t) {
    size_t b = t && t->watermark_inline_users ? t->watermark_inline_users : SC_WATERMARK_INLINE_USERS;
    return b < SC_WATERMARK_MAX_USERS ? b : SC_WATERMARK_MAX_USERS;
}

/*
 * The archive after moving `out` (sorted by user) out of the inline table:
 * the old archive's entries, less the users that stay inline (`kept`, sorted
 * by user; theirs are newer) and those moving now (theirs are newer too),
 * merged in user order. Written under its hash before any snapshot names it;
 * PUT is idempotent for a content-addressed object, so a retry or a twin
 * writing the same archive does no harm.
 */
static int write_archive(sc_object_ref *ref, sc_table *t, const sc_snapshot *prev, const sc_watermark *kept,
                         size_t kept_n, const sc_watermark *out, size_t out_n) {
    archive_hold h = {0};
    int rc = prev && prev->watermark_archive.name ? archive_open(&h, t, prev, 1) : 0;
    if (rc) return rc;
    size_t old_n = h.a ? h.a->count : 0;
    sc_watermark *merged = malloc((old_n + out_n) * sizeof *merged + 1);
    sc_buf body = SC_BUF_INIT;
    if (!merged) rc = sc_error_set(SC_ENOMEM, "out of memory merging the watermark archive");
    size_t n = 0, i = 0, j = 0;
    while (!rc && (i < old_n || j < out_n)) {
        const sc_watermark *o = i < old_n ? &h.a->items[i] : NULL;
        int c = !o ? 1 : j >= out_n ? -1 : strcmp(o->user, out[j].user);
        if (c < 0) {
            i++;
            if (!bsearch(o, kept, kept_n, sizeof *kept, watermark_by_user)) merged[n++] = *o;
        } else {
            /* The one moving out is the newer (or the same): it replaces the archived one. */
            merged[n++] = out[j++];
            if (c == 0) i++;
        }
    }
    if (!rc) rc = sc_watermark_archive_encode(&body, merged, n);
    char name[SC_WATERMARK_ARCHIVE_NAME_LEN + 1], key[SC_WATERMARK_ARCHIVE_KEY_MAX];
    uint8_t sha[SC_SHA256_LEN];
    if (!rc) {
        sc_sha256(sha, body.data, body.len);
        sc_watermark_archive_name(name, sha);
        sc_watermark_archive_key(key, name);
        rc = sc_store_put(t->store, NULL, key, body.data, body.len);
        if (rc) rc = sc_error_wrap(rc, "writing the watermark archive %s", key);
    }
    if (!rc) {
        memset(ref, 0, sizeof *ref);
        ref->name = strdup(name);
        if (!ref->name) rc = sc_error_set(SC_ENOMEM, "out of memory");
        ref->has_sha256 = 1;
        memcpy(ref->sha256, sha, SC_SHA256_LEN);
        ref->length = body.len;
        sc_log(SC_LOG_INFO, "moved %zu watermarks to %s (%zu users, %zu bytes)", out_n, key, n, body.len);
    }
    free(merged);
    sc_buf_free(&body);
    if (h.a) archive_close(&h, t, prev, 1);
    return rc;
}

int sc_replay_next_watermarks(sc_snapshot *next, sc_table *t, const sc_snapshot *prev, const char *user,
                              int64_t identifier, uint64_t snapshot_id) {
    size_t prev_count = prev ? prev->watermark_count : 0;
    sc_watermark *w = calloc(prev_count + 1, sizeof *w);
    sc_object_ref ref = {0};
    int rc = w ? 0 : sc_error_set(SC_ENOMEM, "out of memory copying watermarks");
    size_t n = 0;
    for (size_t i = 0; !rc && i < prev_count; i++) {
        if (strcmp(prev->watermarks[i].user, user) == 0) continue;
        w[n] = prev->watermarks[i];
        if (!(w[n].user = strdup(prev->watermarks[i].user))) rc = sc_error_set(SC_ENOMEM, "out of memory copying watermarks");
        else n++;
    }
    if (!rc) {
        if (!(w[n].user = strdup(user))) rc = sc_error_set(SC_ENOMEM, "out of memory copying watermarks");
        else {
            w[n].identifier = identifier;
            w[n].snapshot_id = snapshot_id;
            n++;
        }
    }
    size_t bound = inline_bound(t);
    if (!rc && n > bound) {
        /* Keep the most recent half inline (the committing user first), so the archive
         * is rewritten once per bound/2 users that go quiet, not on every commit. */
        size_t keep = bound / 2 ? bound / 2 : 1;
        qsort(w, n, sizeof *w, watermark_by_recency);
        qsort(w, keep, sizeof *w, watermark_by_user);
        qsort(w + keep, n - keep, sizeof *w, watermark_by_user);
        rc = write_archive(&ref, t, prev, w, keep, w + keep, n - keep);
        if (!rc) {
            for (size_t i = keep; i < n; i++) free(w[i].user);
            n = keep;
        }
    } else if (!rc && prev && prev->watermark_archive.name) {
        ref = prev->watermark_archive;
        if (!(ref.name = strdup(prev->watermark_archive.name))) rc = sc_error_set(SC_ENOMEM, "out of memory");
    }
    if (rc) {
        if (w) watermarks_free(w, n);
        free(ref.name);
        return rc;
    }
    /* Sorted by user: the codec writes it canonically and readers search it. */
    qsort(w, n, sizeof *w, watermark_by_user);
    watermarks_free(next->watermarks, next->watermark_count);
    free(next->watermark_archive.name);
    next->watermarks = w;
    next->watermark_count = n;
    next->watermark_archive = ref;
    return 0;
}

/* Set `user` inline in `s` (sorted; no bound: sc_replay_next_watermarks applies it). */
static int upsert_inline(sc_snapshot *s, const char *user, int64_t identifier, uint64_t snapshot_id) {
    size_t lo = 0, hi = s->watermark_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->watermarks[mid].user, user);
        if (c == 0) {
            s->watermarks[mid].identifier = identifier;
            s->watermarks[mid].snapshot_id = snapshot_id;
            return 0;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    sc_watermark *grown = realloc(s->watermarks, (s->watermark_count + 1) * sizeof *grown);
    if (!grown) return sc_error_set(SC_ENOMEM, "out of memory adding a watermark");
    s->watermarks = grown;
    char *copy = strdup(user);
    if (!copy) return sc_error_set(SC_ENOMEM, "out of memory adding a watermark");
    memmove(grown + lo + 1, grown + lo, (s->watermark_count - lo) * sizeof *grown);
    grown[lo] = (sc_watermark){copy, identifier, snapshot_id};
    s->watermark_count++;
    return 0;
}

/* ---- snapshots Paimon wrote ---- */

typedef struct foreign_commit {
    char *user;
    int64_t identifier;
    uint64_t id;
} foreign_commit;

/* Paimon's identifier of batch commits (BatchWriteBuilder.COMMIT_IDENTIFIER): not a checkpoint. */
#define PAIMON_BATCH_IDENTIFIER INT64_MAX

/*
 * sc_replay_complete; *out_cut (may be NULL) 1 when a snapshot of the walk expired under it
 * before it reached one of ours. Expiration keeps the newest snapshot of ours below the latest
 * it sees (expire.c keep_newest_of_ours), so that one went only because a newer one of ours
 * lies above `latest`: `latest` is no longer the latest, and its completed watermarks lack
 * those of our users. A commit claims above `latest` and loses that claim anyway; a reader
 * must read the latest again.
 */
static int complete(sc_table *t, sc_snapshot *latest, int *out_cut) {
    if (out_cut) *out_cut = 0;
    if (!latest || !latest->foreign) return 0;
    uint64_t earliest = 1;
    int rc = t->strategy->earliest(t, &earliest);
    if (rc) return rc;
    if (earliest == 0) earliest = 1;
    foreign_commit *chain = NULL;
    size_t n = 0, cap = 0;
    sc_snapshot base = {0}, acc = {0};
    /* Walk back over Paimon's snapshots to the newest one of ours (or the start). */
    for (uint64_t id = latest->id;; id--) {
        sc_snapshot s;
        const sc_snapshot *cur = latest;
        if (id != latest->id) {
            if ((rc = sc_table_read_snapshot(&s, NULL, t, id)) != 0) {
                uint64_t now_first;
                /* Expired under the walk: history starts above `id` now, as if the walk had stopped there. */
                if (sc_state_expired_under(&now_first, t, id, &rc)) {
                    sc_error_clear();
                    rc = 0;
                    if (out_cut) *out_cut = 1;
                }
                break;
            }
            if (!s.foreign) {
                base = s;
                break;
            }
            cur = &s;
        }
        SC_VEC_RESERVE(rc, chain, cap, n + 1, 16, "the commits of Paimon's snapshots");
        if (!rc && !(chain[n].user = strdup(cur->commit_user))) rc = sc_error_set(SC_ENOMEM, "out of memory");
        if (!rc) {
            chain[n].identifier = cur->commit_identifier;
            chain[n].id = cur->id;
            n++;
        }
        if (cur != latest) sc_snapshot_clear(&s);
        if (rc || id <= earliest) break;
    }
    /* Oldest first, so a user's later identifier wins. `acc` is the base's
     * watermarks (inline and archive) as seen from the latest snapshot. */
    acc.id = latest->id;
    acc.watermarks = base.watermarks;
    acc.watermark_count = base.watermark_count;
    acc.watermark_archive = base.watermark_archive;
    base.watermarks = NULL;
    base.watermark_count = 0;
    memset(&base.watermark_archive, 0, sizeof base.watermark_archive);
    for (size_t i = n; !rc && i-- > 0;) {
        if (chain[i].identifier < 0 || chain[i].identifier == PAIMON_BATCH_IDENTIFIER) continue;
        /* A watermark never goes down: a Paimon commit of one of our users with a lower
         * identifier (Paimon's API commits without filtering) must not re-open the
         * identifiers between it and ours to replays. */
        sc_watermark had;
        int found;
        rc = sc_replay_lookup(&had, &found, t, &acc, chain[i].user);
        if (rc || (found && had.identifier > chain[i].identifier)) continue;
        rc = upsert_inline(&acc, chain[i].user, chain[i].identifier, chain[i].id);
    }
    if (!rc) {
        for (size_t i = 0; i < latest->watermark_count; i++) free(latest->watermarks[i].user);
        free(latest->watermarks);
        free(latest->watermark_archive.name);
        latest->watermarks = acc.watermarks;
        latest->watermark_count = acc.watermark_count;
        latest->watermark_archive = acc.watermark_archive;
        acc.watermarks = NULL;
        acc.watermark_count = 0;
        memset(&acc.watermark_archive, 0, sizeof acc.watermark_archive);
    }
    for (size_t i = 0; i < n; i++) free(chain[i].user);
    free(chain);
    sc_snapshot_clear(&base);
    sc_snapshot_clear(&acc);
    return rc;
}

int sc_replay_complete(sc_table *t, sc_snapshot *latest) { return complete(t, latest, NULL); }

/* ---- the table-level questions a restarted committer asks (snapcommit/table.h) ---- */

typedef struct latest_read {
    uint64_t id;
    sc_snapshot *snap;
    int *have;
    const char *user;
    sc_watermark *w;
    int *have_w;
} latest_read;

/* Snapshot `id`, its watermarks completed, and the user's watermark there (*have 0 for no snapshot). */
static int read_watermark(void *ctx, sc_table *t, uint64_t id) {
    latest_read *r = ctx;
    r->id = id;
    memset(r->snap, 0, sizeof *r->snap);
    *r->have = *r->have_w = 0;
    if (id == 0) return 0;
    int rc = sc_table_read_snapshot(r->snap, NULL, t, id);
    if (rc) return rc;
    int cut = 0;
    rc = complete(t, r->snap, &cut);
    if (!rc && cut) { /* a newer snapshot of ours exists: its watermarks, not these */
        sc_snapshot_clear(r->snap);
        return SC_STATE_READ_AGAIN;
    }
    if (!rc) rc = sc_replay_lookup(r->w, r->have_w, t, r->snap, r->user);
    if (rc) sc_snapshot_clear(r->snap);
    else *r->have = 1;
    return rc;
}

/* The latest snapshot into *out (*have 1; 0 and *out zeroed when the table has none) and the
 * user's watermark there, read again should an expiration remove it meanwhile. */
static int read_latest(sc_snapshot *out, int *have, sc_watermark *w, int *have_w, sc_table *t, const char *user,
                       const char *what) {
    memset(out, 0, sizeof *out);
    *have = *have_w = 0;
    if (!user || !*user) return sc_error_set(SC_EINVAL, "commit user must be non-empty");
    latest_read r = {0, out, have, user, w, have_w};
    return sc_state_read_retained(t, 0, what, read_watermark, &r);
}

int sc_replay_latest_watermark(uint64_t *out_latest, sc_watermark *out, int *found, sc_table *t, const char *user,
                               const char *what) {
    sc_snapshot s;
    int have;
    latest_read r = {0, &s, &have, user, out, found};
    *out_latest = 0;
    int rc = sc_state_read_retained(t, 0, what, read_watermark, &r);
    if (rc) return rc;
    *out_latest = r.id;
    if (have) sc_snapshot_clear(&s);
    return 0;
}

int sc_table_last_committed(int64_t *out, int *found, sc_table *t, const char *user) {
    *found = 0;
    sc_snapshot s;
    sc_watermark w;
    int have, have_w;
    int rc = read_latest(&s, &have, &w, &have_w, t, user, "last-committed");
    if (rc || !have) return rc;
    if (have_w) {
        *found = 1;
        *out = w.identifier;
    }
    sc_snapshot_clear(&s);
    return 0;
}

int sc_table_filter_committed(int64_t *out_ids, size_t *out_count, sc_table *t, const char *user,
                              const int64_t *ids, size_t count) {
    sc_snapshot s;
    sc_watermark w;
    int have, have_w;
    t->discovery_rechecked = 1; /* strategy.h: a stale answer is only ever "not yet" */
    int rc = read_latest(&s, &have, &w, &have_w, t, user, "filter committed");
    t->discovery_rechecked = 0;
    if (rc) return rc;
    *out_count = sc_replay_filter(out_ids, have_w ? &w : NULL, ids, count);
    sc_snapshot_clear(&s);
    return 0;
}

/* ---- what expiration, orphan removal and fsck need ---- */

size_t sc_replay_snapshot_objects(char out[][SC_WATERMARK_ARCHIVE_KEY_MAX], size_t cap, const sc_snapshot *s) {
    if (!s->watermark_archive.name) return 0;
    if (cap > 0) sc_watermark_archive_key(out[0], s->watermark_archive.name);
    return 1;
}

int sc_replay_check_archive(sc_table *t, const sc_snapshot *s) {
    if (!s->watermark_archive.name) return 0;
    archive_hold h;
    /* From the store, not the handle's cache: fsck judges what is stored. */
    int rc = archive_open(&h, t, s, 0);
    if (rc) return rc;
    for (size_t i = 0; !rc && i < s->watermark_count; i++) {
        const sc_watermark *a = sc_watermark_archive_find(h.a, s->watermarks[i].user);
        if (a && a->identifier > s->watermarks[i].identifier)
            rc = sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 ": user \"%s\" is inline at identifier %" PRId64
                                           " but archived at %" PRId64 " in " SC_WATERMARK_ARCHIVE_DIR "%s (a watermark went down)",
                              s->id, s->watermarks[i].user, s->watermarks[i].identifier, a->identifier,
                              s->watermark_archive.name);
    }
    archive_close(&h, t, s, 0);
    return rc;
}
