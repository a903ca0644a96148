/*
 * Publication for Paimon's readers (docs/protocols.md "Publication"): the
 * head and tracker strategies claim through their own authority record
 * (head/CURRENT, tracker/ + COMMIT-HINT), which stays the truth for
 * snapcommit; Paimon's readers know only snapshot/snapshot-<id> and the
 * LATEST / EARLIEST hints. After a won claim the snapshot's bytes are
 * copied there, in id order: a reader that finds snapshot-N can rely on
 * snapshot-(N-1) being there too (no gap that Paimon would read as damage or
 * skip), so before N is published an unpublished N-1 is copied from the
 * authority first, which also repairs a crash between a claim and its
 * publication. Nothing here fails a commit: the claim decided it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "strategy/strategy.h"

/* Unpublished predecessors one publication copies at most; beyond that it
 * publishes nothing (keeping the published ids contiguous) and leaves the
 * repair to fsck, so that a commit never costs O(history). */
#define PUBLISH_BACKFILL 16

static const char *authority_name(const sc_table *t) {
    return t->strategy->kind == SC_STRATEGY_HEAD ? "head/CURRENT" : "tracker/";
}

/* 1 when snapshot/snapshot-<id> exists. */
static int published(int *out, sc_table *t, uint64_t id) {
    char key[64];
    sc_snapshot_key(key, id);
    sc_object_info info;
    int rc = sc_store_head(t->store, &info, key);
    *out = rc == 0;
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return 0;
    }
    return rc;
}

/* *out_same: 1 when snapshot/snapshot-<id> holds exactly data/len, 0 when
 * other bytes, -1 when it is absent. */
static int compare_published(int *out_same, sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    char key[64];
    sc_snapshot_key(key, id);
    uint8_t *have = NULL;
    size_t have_len = 0;
    int rc = sc_store_get_bounded(t->store, &have, &have_len, NULL, key, SC_SNAPSHOT_MAX_BYTES);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        *out_same = -1;
        return 0;
    }
    if (rc) return rc;
    *out_same = have_len == len && memcmp(have, data, len) == 0;
    free(have);
    return 0;
}

/*
 * Make snapshot/snapshot-<id> hold data/len. Only where nothing is: an
 * exclusive create when the store has one, else HEAD, then a plain put
 * (every publisher of id writes the same bytes, the authority's). Something
 * else already there is SC_ECORRUPT naming it: never overwritten, because
 * only an operator can tell whose it is.
 */
static int publish_one(sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    char key[64];
    sc_snapshot_key(key, id);
    int rc, same;
    if (sc_store_caps(t->store) & (SC_CAP_CONDITIONAL_CREATE | SC_CAP_ATOMIC_NOREPLACE)) {
        rc = sc_store_put_if_absent(t->store, NULL, key, data, len);
        if (rc == 0) return 0;
        if (rc != SC_EEXISTS && rc != SC_EUNKNOWN) return sc_error_wrap(rc, "publishing %s", key);
        sc_error_clear();
    } else {
        if ((rc = compare_published(&same, t, id, data, len)) != 0) return rc;
        if (same < 0) {
            rc = sc_store_put(t->store, NULL, key, data, len);
            return rc ? sc_error_wrap(rc, "publishing %s", key) : 0;
        }
        if (same) return 0;
        return sc_error_set(SC_ECORRUPT, "%s: holds other bytes than snapshot %" PRIu64 " of %s (written by another "
                                         "writer, or damaged): not overwritten",
                            key, id, authority_name(t));
    }
    /* Refused or unknown: someone's bytes are there (or ours landed). */
    if ((rc = compare_published(&same, t, id, data, len)) != 0) return rc;
    if (same > 0) return 0;
    if (same < 0) return sc_error_set(SC_EUNKNOWN, "publishing %s: the answer was lost and nothing is there", key);
    return sc_error_set(SC_ECORRUPT, "%s: holds other bytes than snapshot %" PRIu64 " of %s (written by another "
                                     "writer, or damaged): not overwritten",
                        key, id, authority_name(t));
}

/* Copy snapshot `id` from the authority to snapshot/snapshot-<id>. */
static int copy_from_authority(sc_table *t, uint64_t id) {
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = t->strategy->read(t, &data, &len, id);
    if (rc) return sc_error_wrap(rc, "reading snapshot %" PRIu64 " from %s", id, authority_name(t));
    rc = publish_one(t, id, data, len);
    free(data);
    return rc;
}

void sc_publish_snapshot(sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    /* The highest published id below `id` (0: none), at most PUBLISH_BACKFILL down. */
    uint64_t below = id - 1;
    int rc = 0, present = 0;
    while (below >= 1) {
        if ((rc = published(&present, t, below)) != 0) goto failed;
        if (present) break;
        if (id - below >= PUBLISH_BACKFILL && below > 1) {
            sc_log(SC_LOG_WARN, "snapshot %" PRIu64 " not published for Paimon's readers: more than %d snapshots below it "
                                "are unpublished (run 'snapcommit fsck' to publish them)", id, PUBLISH_BACKFILL);
            return;
        }
        below--;
    }
    for (uint64_t k = below + 1; k < id; k++) {
        if ((rc = copy_from_authority(t, k)) != 0) goto failed;
        sc_log(SC_LOG_WARN, "snapshot %" PRIu64 " had not been published for Paimon's readers (a crash after its claim?): "
                            "published it before snapshot %" PRIu64, k, id);
    }
    rc = data ? publish_one(t, id, data, len) : copy_from_authority(t, id);
    if (rc) goto failed;
    sc_hint_write(t, SC_LATEST_HINT_KEY, id);
    if (below == 0) sc_hint_write(t, SC_EARLIEST_HINT_KEY, 1);
    return;
failed:
    sc_log(SC_LOG_WARN, "snapshot %" PRIu64 " is committed in %s but not published for Paimon's readers: %s (the next "
                        "commit or 'snapcommit fsck' publishes it)", id, authority_name(t), sc_error_message());
    sc_error_clear();
}

/* fsck of one hint of a head or tracker table: only Paimon's readers use it. */
static int fsck_published_hint(sc_table *t, const char *key, uint64_t want, uint64_t latest) {
    uint8_t *data = NULL;
    size_t len = 0;
    uint64_t id = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_HINT_MAX_BYTES);
    if (rc && rc != SC_ENOTFOUND) return sc_error_wrap(rc, "reading %s", key);
    int usable = rc == 0 && sc_hint_parse(&id, data, len) == 0;
    free(data);
    sc_error_clear();
    if (usable && id > latest) {
        /* Written after its snapshot was claimed and published: a commit since fsck's look? */
        uint64_t now;
        if ((rc = t->strategy->latest(t, &now)) != 0) return rc;
        if (id > now)
            return sc_error_set(SC_ECORRUPT, "%s names snapshot %" PRIu64 ", but %s is at %" PRIu64
                                             " (rolled back, or written by another writer)",
                                key, id, authority_name(t), now);
    }
    /* LATEST lagging behind what fsck just published is brought forward (a
     * commit's own hint may later move it on); EARLIEST is left when usable. */
    if (usable && (id >= want || strcmp(key, SC_LATEST_HINT_KEY) != 0)) return 0;
    if (usable) sc_log(SC_LOG_INFO, "fsck: %s named %" PRIu64 ": moved to %" PRIu64, key, id, want);
    else sc_log(SC_LOG_WARN, "fsck: %s was %s: rewriting it to %" PRIu64 " for Paimon's readers", key,
                rc == SC_ENOTFOUND ? "missing" : "damaged", want);
    char text[32];
    int n = snprintf(text, sizeof text, "%" PRIu64, want);
    if ((rc = sc_store_put_hint(t->store, key, (const uint8_t *)text, (size_t)n)) != 0)
        return sc_error_wrap(rc, "fsck: rewriting %s", key);
    return 0;
}

int sc_publish_fsck(sc_table *t, uint64_t earliest, uint64_t latest) {
    int rc = 0;
    for (uint64_t id = earliest; !rc && id && id <= latest; id++) {
        uint8_t *data = NULL;
        size_t len = 0;
        int same;
        if ((rc = t->strategy->read(t, &data, &len, id)) != 0) {
            rc = sc_error_wrap(rc, "reading snapshot %" PRIu64 " from %s", id, authority_name(t));
            break;
        }
        rc = compare_published(&same, t, id, data, len);
        if (!rc && same < 0) {
            rc = publish_one(t, id, data, len);
            if (!rc)
                sc_log(SC_LOG_WARN, "fsck: snapshot/snapshot-%" PRIu64 " was not published for Paimon's readers (a crash "
                                    "after its claim, or a failed publication): published it", id);
        } else if (!rc && !same) {
            rc = sc_error_set(SC_ECORRUPT, "snapshot/snapshot-%" PRIu64 ": holds other bytes than snapshot %" PRIu64
                                           " of %s (written by another writer, or damaged)",
                              id, id, authority_name(t));
        }
        free(data);
    }
    if (rc) return rc;
    /* Nothing may be published above the authority: re-read it once, since a
     * commit that landed after fsck's look publishes its snapshot. */
    uint64_t *ids = NULL;
    size_t n = 0;
    if ((rc = sc_snapshot_ids_list(&ids, &n, t)) != 0) return rc;
    uint64_t top = n ? ids[n - 1] : 0;
    free(ids);
    if (top > latest) {
        uint64_t now;
        if ((rc = t->strategy->latest(t, &now)) != 0) return rc;
        if (top > now)
            return sc_error_set(SC_ECORRUPT, "snapshot/snapshot-%" PRIu64 ": published, but %s is at snapshot %" PRIu64
                                             " (rolled back, or written by another writer)",
                                top, authority_name(t), now);
    }
    if ((rc = fsck_published_hint(t, SC_LATEST_HINT_KEY, latest, latest)) != 0) return rc;
    return fsck_published_hint(t, SC_EARLIEST_HINT_KEY, earliest, latest);
}
