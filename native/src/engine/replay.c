/* The replay rule (replay.h): the check, the filter, the watermark table and its eviction. */
#include "engine/replay.h"
#include "engine/state.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
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
