/*
 * Snapshot-file strategies: snapshot N is the object snapshot/snapshot-<N>,
 * claimed by creating it only if absent.
 *   rename       put_if_absent is an atomic no-replace publish (POSIX renameat2/link)
 *   conditional  put_if_absent is a conditional create (S3 If-None-Match: *)
 * Discovery (docs/protocols.md "Discovery") never trusts a hint and never
 * stops at the first missing id: it LISTs from the hint on and requires the
 * ids it sees to be contiguous, so a gap, a hint naming a lost snapshot, a
 * missing snapshot/ or a missing first snapshot is SC_ECORRUPT, not an older
 * state. While the hint is current that is 1 GET + 1 LIST per discovery.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "store/store_backends.h"
#include "strategy/strategy.h"

#define SNAPSHOT_PREFIX "snapshot/snapshot-"
/* How often a listed gap is re-listed before it counts as damage (a
 * directory read concurrent with a claim may miss the newest entries). */
#define GAP_RECHECKS 3

int sc_hint_parse(uint64_t *out_id, const uint8_t *data, size_t len) {
    *out_id = 0;
    if (len && data[len - 1] == '\n') len--;
    if (len == 0 || len > 20) return SC_EINVAL;
    uint64_t id = 0;
    for (size_t i = 0; i < len; i++) {
        if (data[i] < '0' || data[i] > '9') return SC_EINVAL;
        uint64_t d = (uint64_t)(data[i] - '0');
        if (id > (UINT64_MAX - d) / 10) return SC_EINVAL;
        id = id * 10 + d;
    }
    if (id == 0) return SC_EINVAL;
    *out_id = id;
    return 0;
}

/*
 * Read hint `key`: *out_id 0 when it is absent or damaged (a damaged hint is
 * ignored by reads, refused by claims and reported by fsck; *out_damaged
 * tells, when non-NULL). A hint object the store refuses (SC_ECORRUPT: a
 * FIFO, an empty directory ...) fails discovery.
 */
static int read_hint(uint64_t *out_id, int *out_damaged, sc_table *t, const char *key) {
    uint8_t *data = NULL;
    size_t len = 0;
    *out_id = 0;
    if (out_damaged) *out_damaged = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_HINT_MAX_BYTES);
    if (rc == SC_ECORRUPT) return rc;
    if (rc) { /* absent or unreadable: discovery works without it */
        sc_error_clear();
        return 0;
    }
    if (sc_hint_parse(out_id, data, len) != 0) {
        sc_log(SC_LOG_WARN, "%s holds no decimal snapshot id: ignored by reads, refused by commits (fsck reports it)", key);
        if (out_damaged) *out_damaged = 1;
    }
    free(data);
    return 0;
}

static void write_hint(sc_table *t, const char *key, uint64_t id) {
    char text[32];
    int n = snprintf(text, sizeof text, "%" PRIu64 "\n", id);
    int rc = sc_store_put_hint(t->store, key, (const uint8_t *)text, (size_t)n);
    if (rc) sc_log(SC_LOG_WARN, "could not update hint %s to %" PRIu64 ": %s", key, id, sc_error_message());
}

static int exists(sc_table *t, uint64_t id, int *out) {
    char key[64];
    sc_snapshot_key(key, id);
    sc_object_info info;
    int rc = sc_store_head(t->store, &info, key);
    if (rc == 0 || rc == SC_ENOTFOUND) {
        *out = rc == 0;
        if (rc) sc_error_clear();
        return 0;
    }
    return rc;
}

/*
 * List the snapshot ids after `after` (0 = all), all pages, and check them:
 * every key must be a snapshot name, and the ids must be contiguous.
 * *out_first / *out_last: the first and last id listed (0, 0 when none).
 * *out_gap: the first missing id between them (0 = none), *out_gap_next the id listed after it.
 */
static int list_chain(sc_table *t, uint64_t after, uint64_t *out_first, uint64_t *out_last, uint64_t *out_gap,
                      uint64_t *out_gap_next) {
    char start[SC_STORE_KEY_MAX + 1] = ""; /* a whole key: a truncated one would list the same page again */
    if (after) sc_snapshot_key(start, after);
    *out_first = *out_last = *out_gap = *out_gap_next = 0;
    for (;;) {
        sc_list_page page = {0};
        int rc = sc_store_list(t->store, &page, SNAPSHOT_PREFIX, start[0] ? start : NULL, 1000);
        if (rc) return sc_error_wrap(rc, "listing snapshots");
        for (size_t i = 0; i < page.count; i++) {
            uint64_t id;
            if (sc_snapshot_key_parse(&id, page.keys[i]) != 0) {
                rc = sc_error_set(SC_ECORRUPT, "%s: not a snapshot name (a snapshot is snapshot/snapshot-<20 digits>)",
                                  page.keys[i]);
                sc_list_page_free(&page);
                return rc;
            }
            if (!*out_first) *out_first = id;
            else if (id != *out_last + 1 && !*out_gap) {
                *out_gap = *out_last + 1;
                *out_gap_next = id;
            }
            *out_last = id;
        }
        int more = page.truncated && page.count > 0;
        if (more) snprintf(start, sizeof start, "%s", page.keys[page.count - 1]);
        sc_list_page_free(&page);
        if (!more) return 0;
    }
}

/*
 * Where retained history starts: snapshot/EARLIEST when it holds a valid id,
 * otherwise 1 (expiration moves EARLIEST forward before it deletes anything).
 */
static int history_start(uint64_t *out, sc_table *t) {
    uint64_t e;
    int rc = read_hint(&e, NULL, t, SC_EARLIEST_HINT_KEY);
    if (rc) return rc;
    *out = e ? e : 1;
    return 0;
}

static int missing_start(uint64_t start, uint64_t first) {
    if (!first)
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " is missing: retained history starts there (%s) but no snapshot from it on is left",
                            start, start == 1 ? "snapshot/EARLIEST is absent, so history starts at 1" : "snapshot/EARLIEST names it");
    return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " is missing: retained history starts there (%s) but the oldest snapshot from it on is %" PRIu64,
                        start, start == 1 ? "snapshot/EARLIEST is absent, so history starts at 1" : "snapshot/EARLIEST names it",
                        first);
}

static int file_latest(sc_table *t, uint64_t *out_id) {
    *out_id = 0;
    int use_earliest = 0;
    for (int attempt = 0;; attempt++) {
        uint64_t hint, first, last, gap, gap_next;
        int rc = read_hint(&hint, &t->latest_hint_damaged, t, SC_LATEST_HINT_KEY);
        if (rc) return rc;
        /* With a hint h: everything from h on, which must start at h. Without
         * (or with a hint that lags behind EARLIEST after an expiration):
         * everything from where retained history starts, which must start
         * there. Snapshots below EARLIEST are expirable, never damage, and
         * are not listed: expiration moves EARLIEST forward before it deletes. */
        uint64_t start = hint;
        if (!hint || use_earliest) {
            uint64_t e;
            if ((rc = history_start(&e, t)) != 0) return rc;
            if (e > start) start = e;
        }
        if ((rc = list_chain(t, start - 1, &first, &last, &gap, &gap_next)) != 0) return rc;
        if (!first && !hint) { /* nothing at all: a new table, or a history that was deleted */
            int marked;
            if ((rc = sc_table_history_marked(&marked, t)) != 0) return rc;
            if (!marked) return 0;
            if (attempt < GAP_RECHECKS) continue; /* the first commit may have landed since the LIST */
            return sc_table_no_history_error();
        }
        if (first == start && !gap) {
            *out_id = last;
            return 0;
        }
        /* The list may have raced a claim (a directory read does not promise to
         * show entries added while it runs): a missing id that now exists is a
         * reason to list again; one that is still absent is damage. */
        if (first != start && hint && !use_earliest) { /* the hint may lag behind an expiration */
            use_earliest = 1;
            continue;
        }
        uint64_t missing = first != start ? start : gap;
        int present;
        if ((rc = exists(t, missing, &present)) != 0) return rc;
        if (present && attempt < GAP_RECHECKS) continue;
        if (first != start && start == hint)
            return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " named by snapshot/LATEST is missing (lost or rolled back)", hint);
        if (first != start) return missing_start(start, first);
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " is missing: the chain jumps over it to snapshot %" PRIu64,
                            gap, gap_next);
    }
}

/*
 * The start of retained history, verified: EARLIEST (or 1) must exist when
 * the table has any snapshot. One GET and one HEAD while it does.
 */
static int file_earliest(sc_table *t, uint64_t *out_id) {
    *out_id = 0;
    for (int attempt = 0;; attempt++) {
        uint64_t start;
        int rc = history_start(&start, t);
        int present = 0, marked = 0;
        if (!rc) rc = exists(t, start, &present);
        if (rc) return rc;
        if (present) {
            *out_id = start;
            return 0;
        }
        uint64_t first, last, gap, gap_next;
        if ((rc = list_chain(t, 0, &first, &last, &gap, &gap_next)) != 0) return rc;
        if (first) {
            if (attempt < GAP_RECHECKS) continue; /* snapshot 1 may have been claimed since the HEAD */
            return missing_start(start, first);
        }
        if ((rc = sc_table_history_marked(&marked, t)) != 0) return rc;
        if (!marked) return 0; /* an empty table */
        if (attempt >= GAP_RECHECKS) return sc_table_no_history_error();
    }
}

static int file_read(sc_table *t, uint8_t **out_data, size_t *out_len, uint64_t id) {
    char key[64];
    sc_snapshot_key(key, id);
    return sc_store_get_bounded(t->store, out_data, out_len, NULL, key, SC_SNAPSHOT_MAX_BYTES);
}

static int file_claim(sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    char key[64];
    sc_snapshot_key(key, id);
    /* A hint that does not parse may have named a newer snapshot that is now
     * lost: claiming `id` would bury that evidence (and rewrite the hint), so
     * a commit fails closed where a read only warns. */
    if (t->latest_hint_damaged)
        return sc_error_set(SC_ECORRUPT, "%s: damaged hint (not a decimal snapshot id): refusing to claim snapshot %" PRIu64
                                         " while it may have named a lost newer snapshot; run 'snapcommit fsck', then "
                                         "repair or delete %s",
                            SC_LATEST_HINT_KEY, id, SC_LATEST_HINT_KEY);
    return sc_store_put_if_absent(t->store, NULL, key, data, len);
}

static void file_after_commit(sc_table *t, uint64_t id) {
    write_hint(t, SC_LATEST_HINT_KEY, id);
    if (id == 1) write_hint(t, SC_EARLIEST_HINT_KEY, id);
}

/* No per-handle state: every answer comes from the store (no open/close). */
const sc_strategy sc_strategy_rename = {
    .kind = SC_STRATEGY_RENAME,
    .required_caps = SC_CAP_ATOMIC_NOREPLACE,
    .latest = file_latest,
    .read = file_read,
    .claim = file_claim,
    .after_commit = file_after_commit,
    .earliest = file_earliest,
};

const sc_strategy sc_strategy_conditional = {
    .kind = SC_STRATEGY_CONDITIONAL,
    .required_caps = SC_CAP_CONDITIONAL_CREATE,
    .latest = file_latest,
    .read = file_read,
    .claim = file_claim,
    .after_commit = file_after_commit,
    .earliest = file_earliest,
};
