/* The replay rule (replay.h): the check, the filter, the watermark table and its eviction. */
#include "engine/replay.h"
#include "engine/state.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/vec.h"
#include "strategy/strategy.h"

const sc_watermark *sc_replay_watermark(const sc_snapshot *latest, const char *user) {
    return latest ? sc_snapshot_watermark(latest, user) : NULL;
}

int sc_replay_committed(const sc_watermark *w, int64_t identifier) {
    /* Identifiers only grow per user, so everything up to the watermark has landed. */
    return w && identifier <= w->identifier;
}

int sc_replay_check(uint64_t *out_existing, const sc_snapshot *latest, const char *user,
                    int64_t identifier) {
    *out_existing = 0;
    const sc_watermark *w = sc_replay_watermark(latest, user);
    if (!sc_replay_committed(w, identifier)) return 0;
    int replay = w->identifier == identifier;
    if (replay) *out_existing = w->snapshot_id;
    return sc_error_set(SC_ECOMMITTED,
                        "user \"%s\" already committed identifier %" PRId64
                        " (snapshot %" PRIu64 "); identifier %" PRId64 " is %s: nothing written",
                        user, w->identifier, w->snapshot_id, identifier,
                        replay ? "a replay" : "not above the watermark");
}

size_t sc_replay_filter(int64_t *out_ids, const sc_watermark *w, const int64_t *ids, size_t count) {
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (!sc_replay_committed(w, ids[i])) out_ids[n++] = ids[i];
    return n;
}

/*
 * The eviction policy. The table is bounded so that a snapshot stays small
 * however many users ever committed; when it is full, forget the user whose
 * last commit is oldest (smallest snapshot id). A forgotten user's replays
 * are no longer filtered, so the bound must stay far above the number of
 * committers that are live at once.
 */
static size_t evict_least_recent(sc_watermark *w, size_t n, size_t keep_below) {
    while (n >= keep_below) {
        size_t oldest = 0;
        for (size_t i = 1; i < n; i++)
            if (w[i].snapshot_id < w[oldest].snapshot_id) oldest = i;
        free(w[oldest].user);
        w[oldest] = w[n - 1];
        n--;
    }
    return n;
}

static int watermark_by_user(const void *a, const void *b) {
    return strcmp(((const sc_watermark *)a)->user, ((const sc_watermark *)b)->user);
}

int sc_replay_set_watermarks(sc_snapshot *next, const sc_snapshot *prev, const char *user,
                             int64_t identifier, uint64_t snapshot_id) {
    size_t prev_count = prev ? prev->watermark_count : 0;
    sc_watermark *w = calloc(prev_count + 1, sizeof *w);
    if (!w) return sc_error_set(SC_ENOMEM, "out of memory copying watermarks");
    size_t n = 0;
    for (size_t i = 0; i < prev_count; i++) {
        if (strcmp(prev->watermarks[i].user, user) == 0) continue;
        w[n] = prev->watermarks[i];
        w[n].user = strdup(prev->watermarks[i].user);
        if (!w[n].user) goto oom;
        n++;
    }
    /* Make room for `user` first: the committing user is never the one forgotten. */
    n = evict_least_recent(w, n, SC_WATERMARK_MAX_USERS);
    w[n].user = strdup(user);
    if (!w[n].user) goto oom;
    w[n].identifier = identifier;
    w[n].snapshot_id = snapshot_id;
    n++;
    /* Sorted by user: the codec writes it canonically and readers search it. */
    qsort(w, n, sizeof *w, watermark_by_user);
    for (size_t i = 0; i < next->watermark_count; i++) free(next->watermarks[i].user);
    free(next->watermarks);
    next->watermarks = w;
    next->watermark_count = n;
    return 0;
oom:
    for (size_t i = 0; i < n; i++) free(w[i].user);
    free(w);
    return sc_error_set(SC_ENOMEM, "out of memory copying watermarks");
}

/* ---- snapshots Paimon wrote ---- */

typedef struct foreign_commit {
    char *user;
    int64_t identifier;
    uint64_t id;
} foreign_commit;

/* Paimon's identifier of batch commits (BatchWriteBuilder.COMMIT_IDENTIFIER): not a checkpoint. */
#define PAIMON_BATCH_IDENTIFIER INT64_MAX

int sc_replay_complete(sc_table *t, sc_snapshot *latest) {
    if (!latest || !latest->foreign) return 0;
    uint64_t earliest = 1;
    int rc = t->strategy->earliest(t, &earliest);
    if (rc) return rc;
    if (earliest == 0) earliest = 1;
    foreign_commit *chain = NULL;
    size_t n = 0, cap = 0;
    sc_snapshot base = {0}, acc = {0}, next = {0};
    /* Walk back over Paimon's snapshots to the newest one of ours (or the start). */
    for (uint64_t id = latest->id;; id--) {
        sc_snapshot s;
        const sc_snapshot *cur = latest;
        if (id != latest->id) {
            if ((rc = sc_table_read_snapshot(&s, NULL, t, id)) != 0) break;
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
    /* Oldest first, so a user's later identifier wins. */
    acc.watermarks = base.watermarks;
    acc.watermark_count = base.watermark_count;
    base.watermarks = NULL;
    base.watermark_count = 0;
    for (size_t i = n; !rc && i-- > 0;) {
        if (chain[i].identifier < 0 || chain[i].identifier == PAIMON_BATCH_IDENTIFIER) continue;
        /* A watermark never goes down: a Paimon commit of one of our users with a lower
         * identifier (Paimon's API commits without filtering) must not re-open the
         * identifiers between it and ours to replays. */
        const sc_watermark *had = sc_snapshot_watermark(&acc, chain[i].user);
        if (had && had->identifier > chain[i].identifier) continue;
        rc = sc_replay_set_watermarks(&next, &acc, chain[i].user, chain[i].identifier, chain[i].id);
        if (!rc) {
            sc_watermark *w = acc.watermarks;
            size_t c = acc.watermark_count;
            acc.watermarks = next.watermarks;
            acc.watermark_count = next.watermark_count;
            next.watermarks = w;
            next.watermark_count = c;
        }
    }
    if (!rc) {
        for (size_t i = 0; i < latest->watermark_count; i++) free(latest->watermarks[i].user);
        free(latest->watermarks);
        latest->watermarks = acc.watermarks;
        latest->watermark_count = acc.watermark_count;
        acc.watermarks = NULL;
        acc.watermark_count = 0;
    }
    for (size_t i = 0; i < n; i++) free(chain[i].user);
    free(chain);
    sc_snapshot_clear(&base);
    sc_snapshot_clear(&acc);
    sc_snapshot_clear(&next);
    return rc;
}

/* ---- the table-level questions a restarted committer asks (snapcommit/table.h) ---- */

/* The latest snapshot into *out and *have 1; *have 0 (and *out zeroed) when the table has none. */
static int read_latest(sc_snapshot *out, int *have, sc_table *t, const char *user) {
    memset(out, 0, sizeof *out);
    *have = 0;
    if (!user || !*user) return sc_error_set(SC_EINVAL, "commit user must be non-empty");
    uint64_t latest;
    int rc = sc_table_latest_id(&latest, t);
    if (rc || latest == 0) return rc;
    if ((rc = sc_table_read_snapshot(out, NULL, t, latest)) != 0) return rc;
    if ((rc = sc_replay_complete(t, out)) != 0) {
        sc_snapshot_clear(out);
        return rc;
    }
    *have = 1;
    return 0;
}

int sc_table_last_committed(int64_t *out, int *found, sc_table *t, const char *user) {
    *found = 0;
    sc_snapshot s;
    int have;
    int rc = read_latest(&s, &have, t, user);
    if (rc || !have) return rc;
    const sc_watermark *w = sc_replay_watermark(&s, user);
    if (w) {
        *found = 1;
        *out = w->identifier;
    }
    sc_snapshot_clear(&s);
    return 0;
}

int sc_table_filter_committed(int64_t *out_ids, size_t *out_count, sc_table *t, const char *user,
                              const int64_t *ids, size_t count) {
    sc_snapshot s;
    int have;
    int rc = read_latest(&s, &have, t, user);
    if (rc) return rc;
    *out_count = sc_replay_filter(out_ids, have ? sc_replay_watermark(&s, user) : NULL, ids, count);
    sc_snapshot_clear(&s);
    return 0;
}
