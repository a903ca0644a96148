/*
 * Snapshot-file strategies: snapshot N is the object snapshot/snapshot-<N>
 * (Paimon's name: plain decimal, no padding), claimed by creating it only if absent.
 *   rename       put_if_absent is an atomic no-replace publish (POSIX renameat2/link)
 *   conditional  put_if_absent is a conditional create (S3 If-None-Match: *)
 * Discovery (docs/protocols.md "Discovery") never trusts a hint: from
 * LATEST = n it HEADs n+1 and n+2 and GETs n (that GET serves the read of n
 * that follows), probes forward a bounded number of ids when n lags, and
 * otherwise lists every snapshot key, sorts the ids numerically (unpadded
 * names do not sort in LIST order) and requires them to be contiguous. A
 * gap, a hint naming a lost snapshot, a missing snapshot/ or a missing first
 * snapshot is SC_ECORRUPT, not an older state. With a current hint a
 * discovery costs GET + 2 HEAD + GET whatever the table's age.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env_internal.h"
#include "base/error_internal.h"
#include "store/store_backends.h"
#include "store/store_internal.h"
#include "strategy/strategy.h"

#include "base/vec.h"

#define SNAPSHOT_PREFIX "snapshot/snapshot-"
/* How often a missing id is looked at again before it counts as damage: a
 * commit may land between the hint read and the probes, and a directory
 * read concurrent with a claim may miss the newest entries. */
#define GAP_RECHECKS 3
/* Ids probed one HEAD each past a lagging hint before discovery lists every
 * snapshot instead (a listing costs O(history / 1000) requests). */
#define PROBE_AHEAD 8
/* How long after the open its snapshot is still guessed on: a handle used at once (the
 * CLI) saves a round trip; a long-lived one would mostly guess wrong, which costs one. */
#define OPENED_GUESS_MS 2000

/* Per handle: the bytes of the snapshot the last discovery confirmed with a
 * GET, handed to the read of that id that follows (one-shot), and the bytes
 * of the last snapshot this handle claimed. Snapshots are immutable once
 * claimed, so these are the bytes a read would return. */
typedef struct file_state {
    uint64_t id; /* 0 = nothing kept */
    uint8_t *doc;
    size_t len;
    /* The snapshot this handle claimed last (0 = none): a discovery that
     * ends on it needs no GET to confirm it, and its read no GET either
     * (a long-lived writer's next commit builds on its own snapshot). */
    uint64_t own_id;
    uint8_t *own_doc;
    size_t own_len;
    /* The snapshot LATEST named when the handle was opened on a concurrent store, read
     * with the schema (engine/table.c): the guess of a handle that has claimed nothing
     * yet, for OPENED_GUESS_MS after the open (a CLI commit or read right after it);
     * confirmed like any guess before anything relies on it. */
    uint64_t opened_id;
    uint8_t *opened_doc;
    size_t opened_len;
    int64_t opened_ms;
    /* Contention seen: a guess not confirmed, or a claim lost. No guess is made (discovery
     * goes straight to the hint) until a discovery finds this handle's own last claim still
     * the latest. Under contention a guess nearly always misses, and a miss costs the looks,
     * a base list written for nothing and its delete, and a round trip. */
    int guess_missed;
    /* The LATEST hint of the last claim, written by a thread of its own on a concurrent
     * store (file_after_commit): joined before the next hint is written (hints of one
     * handle land in order), by fsck (which judges the stored hints) and at close. What
     * runs meanwhile may see the hint one behind, which discovery and the guess allow. */
    pthread_t hint_thread;
    int hint_running;
    sc_table *hint_table;
    uint64_t hint_id;
} file_state;

static void hint_join(file_state *st) {
    if (!st || !st->hint_running) return;
    pthread_join(st->hint_thread, NULL);
    st->hint_running = 0;
}

static void opened_drop(file_state *st) {
    if (!st) return;
    free(st->opened_doc);
    st->opened_doc = NULL;
    st->opened_len = 0;
    st->opened_id = 0;
}

static int file_open(sc_table *t, void **out_state) {
    file_state *st = calloc(1, sizeof(file_state));
    *out_state = st;
    if (!st) return sc_error_set(SC_ENOMEM, "out of memory opening the snapshot-file strategy");
    if (t->opened_doc) { /* what the open read on a concurrent store: taken */
        st->opened_id = t->opened_id;
        st->opened_doc = t->opened_doc;
        st->opened_len = t->opened_len;
        st->opened_ms = sc_env_monotonic_ms(&t->env);
        t->opened_doc = NULL;
        t->opened_id = 0;
    }
    return 0;
}

static void file_state_drop(file_state *st) {
    if (!st) return;
    free(st->doc);
    st->doc = NULL;
    st->len = 0;
    st->id = 0;
}

static void file_close(void *p) {
    file_state *st = p;
    hint_join(st);
    file_state_drop(st);
    opened_drop(st);
    if (st) free(st->own_doc);
    free(st);
}

/* strategy_state is NULL for a strategy that borrows these functions
 * without open (the simulation's naive strategy): then nothing is kept. */
static file_state *state_of(sc_table *t) {
    return t->strategy->open == file_open ? t->strategy_state : NULL;
}

void sc_strategy_forget_found(sc_table *t) {
    if (t->strategy->open != file_open) return;
    file_state *st = t->strategy_state;
    hint_join(st);
    file_state_drop(st);
    if (!st) return;
    opened_drop(st);
    free(st->own_doc); /* fsck must see the stored bytes, not ours */
    st->own_doc = NULL;
    st->own_id = 0;
    st->own_len = 0;
}

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

void sc_hint_write(sc_table *t, const char *key, uint64_t id) {
    char text[32];
    int n = snprintf(text, sizeof text, "%" PRIu64, id); /* as Paimon writes it: no newline */
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

static int id_order(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int sc_snapshot_ids_list(uint64_t **out_ids, size_t *out_count, sc_table *t) {
    *out_ids = NULL;
    *out_count = 0;
    char start[SC_STORE_KEY_MAX + 1] = ""; /* a whole key: a truncated one would list the same page again */
    uint64_t *ids = NULL;
    size_t count = 0, cap = 0;
    int rc = 0;
    for (int more = 1; more && !rc;) {
        sc_list_page page = {0};
        rc = sc_store_list(t->store, &page, SNAPSHOT_PREFIX, start[0] ? start : NULL, 1000);
        if (rc) {
            rc = sc_error_wrap(rc, "listing snapshots");
            break;
        }
        if (page.count) SC_VEC_RESERVE(rc, ids, cap, count + page.count, 64, "snapshot ids");
        for (size_t i = 0; !rc && i < page.count; i++) {
            if (sc_snapshot_key_parse(&ids[count], page.keys[i]) != 0)
                rc = sc_error_set(SC_ECORRUPT, "%s: not a snapshot name (a snapshot is snapshot/snapshot-<id>, "
                                               "the id in decimal without leading zeros)",
                                  page.keys[i]);
            else count++;
        }
        more = page.truncated && page.count > 0;
        if (more) snprintf(start, sizeof start, "%s", page.keys[page.count - 1]);
        sc_list_page_free(&page);
    }
    if (rc) {
        free(ids);
        return rc;
    }
    if (count) qsort(ids, count, sizeof *ids, id_order);
    *out_ids = ids;
    *out_count = count;
    return 0;
}

/*
 * The listed ids from `start` on (sorted): *out_first, *out_last (0, 0 when
 * none), *out_gap the first missing id between them (0 = none) and
 * *out_gap_next the id listed after it. Ids below `start` are ignored.
 */
static int list_chain(sc_table *t, uint64_t start, uint64_t *out_first, uint64_t *out_last, uint64_t *out_gap,
                      uint64_t *out_gap_next) {
    *out_first = *out_last = *out_gap = *out_gap_next = 0;
    uint64_t *ids;
    size_t n;
    int rc = sc_snapshot_ids_list(&ids, &n, t);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < start) continue;
        if (!*out_first) *out_first = ids[i];
        else if (ids[i] != *out_last + 1 && !*out_gap) {
            *out_gap = *out_last + 1;
            *out_gap_next = ids[i];
        }
        *out_last = ids[i];
    }
    free(ids);
    return 0;
}

/*
 * Where retained history starts: snapshot/EARLIEST when it holds a valid id,
 * otherwise 1 (expiration moves EARLIEST forward before it deletes anything).
 */
static int history_start(uint64_t *out, sc_table *t) {
    /* Not read_hint: an EARLIEST that could not be read is not an absent one. Taken
     * as 1 it makes every expired table look damaged ("snapshot 1 is missing"). */
    uint8_t *data = NULL;
    size_t len = 0;
    uint64_t e = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, SC_EARLIEST_HINT_KEY, SC_HINT_MAX_BYTES);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
    } else if (rc) {
        return sc_error_wrap(rc, "reading %s (where retained history starts)", SC_EARLIEST_HINT_KEY);
    } else {
        if (sc_hint_parse(&e, data, len) != 0) {
            sc_log(SC_LOG_WARN, "%s holds no decimal snapshot id: history is taken to start at 1 (fsck reports it)",
                   SC_EARLIEST_HINT_KEY);
            sc_error_clear();
            e = 0;
        }
        free(data);
    }
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

static int gap_error(uint64_t gap, uint64_t next) {
    return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " is missing: the chain jumps over it to snapshot %" PRIu64, gap, next);
}

/* What the probes from a hint found. */
typedef enum probe_outcome {
    PROBE_FOUND,  /* *out_id is the latest */
    PROBE_RETRY,  /* a commit landed meanwhile: look again */
    PROBE_LIST,   /* the hint lags too far (or behind EARLIEST): list everything */
} probe_outcome;

/*
 * GET snapshot `id` into the handle's one-shot cache: confirms that it
 * exists (*out_present) and saves the read that follows a discovery.
 */
static int fetch_found(int *out_present, sc_table *t, uint64_t id) {
    char key[64];
    uint8_t *data = NULL;
    size_t len = 0;
    sc_snapshot_key(key, id);
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_SNAPSHOT_MAX_BYTES);
    *out_present = rc == 0;
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return 0;
    }
    if (rc) return rc;
    file_state *st = state_of(t);
    if (st) {
        file_state_drop(st);
        st->id = id;
        st->doc = data;
        st->len = len;
    } else {
        free(data);
    }
    return 0;
}

/*
 * From LATEST = hint: HEAD hint+1. Absent: HEAD hint+2 as well, because a
 * gap right above a lagging hint (hint+1 lost, hint+2 there) must stop a
 * commit from claiming into it; then GET the hint's snapshot, which must
 * exist. Present: HEAD forward up to PROBE_AHEAD ids to the first absent a,
 * and a+1 for the same reason. A missing id that exists on a second look is
 * a commit that landed between two probes (PROBE_RETRY), never damage.
 */
static int concurrent(const sc_table *t);

/*
 * probe_from_hint's answers in round trips instead of looks, on a concurrent store: GET
 * h and h+1, HEAD h+2 and h+3, in any order. h there with the next two ids absent, or
 * h+1 there (a hint one behind, as under contention) with the two after it absent, is
 * the latest, its bytes in hand: the rules of the looks one by one. h there with h+1
 * and h+2 there too (a longer lag: a writer that backed off while others committed)
 * moves the next batch up to the highest id seen, PROBE_AHEAD ids at most in all.
 * `narrow` (after a lost claim, h the winner's id): GET h, HEAD h+1 and h+2, one look
 * less in the common case (the next winner has not claimed yet); a later one costs
 * another batch from it. Anything else (a gap, an error, a longer lag) returns 1: the looks one by one decide
 * and report it.
 *
 * One by one, the found snapshot is fetched after the looks that saw the ids above it
 * absent; expiration deletes oldest first, so its presence then proves those ids were
 * never there rather than expired. A batch has no such order: a reader's discovery
 * looks at the found id once more, after the batch (HEAD). A commit's skips it: its
 * post-claim check of EARLIEST catches a base an expiration passed (check_in_history).
 */
static int probe_batched(probe_outcome *out, uint64_t *out_id, sc_table *t, uint64_t hint, int narrow) {
    /* GETs first, then the two HEADs the gap rule needs above the last of them. */
    const size_t looks = narrow ? 3 : 4, gets = looks - 2;
    for (uint64_t h = hint; h - hint < PROBE_AHEAD;) {
        sc_strategy_calls p = {0};
        for (size_t i = 0; i < looks; i++) {
            sc_snapshot_key(p.keys[i], h + i);
            p.calls[i] = i < gets ? (sc_store_call){.op = SC_OP_GET, .key = p.keys[i], .max_len = SC_SNAPSHOT_MAX_BYTES}
                                  : (sc_store_call){.op = SC_OP_HEAD, .key = p.keys[i]};
        }
        int rc = sc_store_batch(t->store, &t->env, p.calls, looks);
        if (rc) return rc;
        int seen[4] = {0}, clean = 1;
        for (size_t i = 0; i < looks; i++) {
            seen[i] = p.calls[i].rc == 0;
            if (p.calls[i].rc && p.calls[i].rc != SC_ENOTFOUND) clean = 0;
        }
        size_t run = 0; /* ids h .. h+run-1 are there */
        while (run < looks && seen[run]) run++;
        /* The last id of the run is the latest when it was fetched and the two above it are absent. */
        size_t found = clean && run >= 1 && run <= gets && !seen[run] && !seen[run + 1] ? run - 1 : looks;
        if (found != looks && !t->discovery_rechecked) {
            int still = 0;
            if ((rc = exists(t, h + found, &still)) != 0 || !still) {
                for (size_t i = 0; i < looks; i++) sc_store_call_clear(&p.calls[i]);
                if (rc) return rc;
                return 1; /* gone since: the looks one by one explain it */
            }
        }
        if (found != looks) {
            file_state *st = state_of(t);
            if (st) { /* the read that follows a discovery takes these bytes */
                file_state_drop(st);
                st->id = h + found;
                st->doc = p.calls[found].out_data;
                st->len = p.calls[found].out_len;
                p.calls[found].out_data = NULL;
            }
            *out = PROBE_FOUND;
            *out_id = h + found;
        }
        for (size_t i = 0; i < looks; i++) sc_store_call_clear(&p.calls[i]);
        sc_error_clear();
        if (found != looks) return 0;
        if (!clean || run <= gets) return 1;
        h += run - 1; /* still there: the next batch starts at the highest id seen */
    }
    return 1;
}

static int probe_from_hint(probe_outcome *out, uint64_t *out_id, sc_table *t, uint64_t hint, int recheck_left, int narrow) {
    int present, rc;
    if (hint > UINT64_MAX - PROBE_AHEAD - 2) { /* ids past it would wrap: the listing decides */
        *out = PROBE_LIST;
        return 0;
    }
    if (concurrent(t) && (rc = probe_batched(out, out_id, t, hint, narrow)) != 1) return rc;
    uint64_t a = hint + 1; /* the first id not seen */
    if ((rc = exists(t, a, &present)) != 0) return rc;
    file_state *st = state_of(t);
    if (!present && st && st->own_id && st->own_id == hint) {
        /*
         * The hint names the snapshot this handle claimed last and nothing
         * is above it: its bytes are on the handle, so a HEAD that it was
         * not lost replaces the GET (a commit must not claim on top of a
         * lost snapshot). n+2 is not probed: above a current hint it could
         * exist without n+1 only after two lost hint writes and a deleted
         * snapshot (the listing of fsck reports such a gap).
         */
        int own_present;
        if ((rc = exists(t, hint, &own_present)) != 0) return rc;
        if (!own_present) {
            *out = PROBE_LIST; /* lost, or expired below EARLIEST: the listing decides */
            return 0;
        }
        *out = PROBE_FOUND;
        *out_id = hint;
        return 0;
    }
    if (present) {
        /* The hint lags: the hint's own snapshot must still be there. */
        int hint_present;
        if ((rc = exists(t, hint, &hint_present)) != 0) return rc;
        if (!hint_present) {
            *out = PROBE_LIST; /* lost, or expired below EARLIEST: the listing decides */
            return 0;
        }
        for (a = hint + 2; a <= hint + 1 + PROBE_AHEAD; a++) {
            if ((rc = exists(t, a, &present)) != 0) return rc;
            if (!present) break;
        }
        if (present) {
            *out = PROBE_LIST;
            return 0;
        }
    }
    /* a is absent; a+1 must be too, or a is a gap (or a commit in flight). */
    if ((rc = exists(t, a + 1, &present)) != 0) return rc;
    if (present) {
        int again;
        if ((rc = exists(t, a, &again)) != 0) return rc;
        if (again && recheck_left) {
            *out = PROBE_RETRY;
            return 0;
        }
        if (!again) {
            /* Below EARLIEST it is an expiration's work, not a gap: the listing decides. */
            uint64_t e;
            if ((rc = history_start(&e, t)) != 0) return rc;
            if (e > a) {
                *out = PROBE_LIST;
                return 0;
            }
            return gap_error(a, a + 1);
        }
        *out = PROBE_RETRY; /* out of rechecks: the caller reports it */
        return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " kept appearing above the latest while discovery looked "
                                         "(%d looks): too many commits meanwhile", a, GAP_RECHECKS + 1);
    }
    if ((rc = fetch_found(&present, t, a - 1)) != 0) return rc;
    if (!present) {
        if (a - 1 != hint) { /* seen by a HEAD a moment ago: only deletion makes it vanish */
            *out = PROBE_RETRY;
            if (recheck_left) return 0;
            return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " vanished while discovery looked", a - 1);
        }
        *out = PROBE_LIST; /* the hint's snapshot: lost, or expired below EARLIEST */
        return 0;
    }
    *out = PROBE_FOUND;
    *out_id = a - 1;
    return 0;
}

static int concurrent(const sc_table *t) { return (sc_store_caps(t->store) & SC_CAP_CONCURRENT) != 0; }

/*
 * The guess: the snapshot this handle claimed last, whose bytes it holds (or, before its
 * first claim and for OPENED_GUESS_MS, the one its open read from LATEST). Confirmed
 * by four looks sent together: it is still there, neither of the next two ids is
 * (the gap rule of probe_from_hint), and LATEST names it or the id below it (its
 * own hint write may be in flight or have failed). Anything else (a hint
 * above it, far below it, absent, unreadable or damaged) is left to the full
 * discovery, which explains it.
 */
enum { GUESS_BASE, GUESS_NEXT, GUESS_AFTER_NEXT, GUESS_HINT, GUESS_PROBES };

static uint64_t file_guess(sc_table *t) {
    file_state *st = state_of(t);
    /* One by one, the four looks cost more than the discovery they replace. */
    if (!st || st->guess_missed || t->latest_hint_damaged || !concurrent(t)) return 0;
    if (st->own_id && st->own_doc) return st->own_id;
    if (st->opened_id && sc_env_monotonic_ms(&t->env) - st->opened_ms > OPENED_GUESS_MS) opened_drop(st);
    return st->opened_id;
}

static void file_guess_probes(sc_table *t, uint64_t id, sc_strategy_calls *p) {
    (void)t;
    p->n = 0;
    if (id > UINT64_MAX - 2) return; /* nothing to confirm with: no guess */
    for (size_t i = 0; i < GUESS_HINT; i++) {
        sc_snapshot_key(p->keys[i], id + i);
        p->calls[i] = (sc_store_call){.op = SC_OP_HEAD, .key = p->keys[i]};
    }
    snprintf(p->keys[GUESS_HINT], sizeof p->keys[GUESS_HINT], "%s", SC_LATEST_HINT_KEY);
    p->calls[GUESS_HINT] = (sc_store_call){.op = SC_OP_GET, .key = p->keys[GUESS_HINT], .max_len = SC_HINT_MAX_BYTES};
    p->n = GUESS_PROBES;
}

static int guess_verdict(const sc_strategy_calls *p, uint64_t id, int *out_present, uint64_t *out_above) {
    const sc_store_call *c = p->calls;
    *out_present = 0;
    *out_above = 0;
    if (p->n != GUESS_PROBES || c[GUESS_BASE].rc) return 0;
    *out_present = 1;
    if (c[GUESS_NEXT].rc == 0) *out_above = id + 1 + (c[GUESS_AFTER_NEXT].rc == 0);
    if (c[GUESS_NEXT].rc != SC_ENOTFOUND || c[GUESS_AFTER_NEXT].rc != SC_ENOTFOUND) return 0;
    uint64_t hint = 0;
    if (c[GUESS_HINT].rc || sc_hint_parse(&hint, c[GUESS_HINT].out_data, c[GUESS_HINT].out_len) != 0) return 0;
    /* The hint this handle wrote, or the one before it while that write is in flight or
     * when it failed (hints are best effort): anything else, or none, is for the full
     * discovery to explain. (The opened guess came from LATEST itself: it matches.) */
    return hint == id || hint + 1 == id;
}

static int file_guess_confirmed(sc_table *t, uint64_t id, const sc_strategy_calls *p, int *out_present,
                                uint64_t *out_above) {
    int confirmed = guess_verdict(p, id, out_present, out_above);
    file_state *st = state_of(t);
    if (!confirmed && st) {
        st->guess_missed = 1;
        opened_drop(st);
    }
    return confirmed;
}

/*
 * On a concurrent store a handle that claimed last confirms its own snapshot
 * in one round trip (file_guess).
 * 1: *out_id is the latest; 0: discover as usual.
 */
static int latest_by_guess(sc_table *t, uint64_t *out_id) {
    uint64_t g = file_guess(t);
    if (!g) return 0;
    sc_strategy_calls probe = {0};
    file_guess_probes(t, g, &probe);
    if (probe.n != GUESS_PROBES) return 0;
    int rc = sc_store_batch(t->store, &t->env, probe.calls, probe.n);
    int present = 0;
    uint64_t above = 0;
    if (!rc) rc = file_guess_confirmed(t, g, &probe, &present, &above);
    for (size_t i = 0; i < probe.n; i++) sc_store_call_clear(&probe.calls[i]);
    /* The looks had no order: a reader looks at the guess once more (probe_batched says why). */
    if (rc == 1 && !t->discovery_rechecked) {
        int still = 0;
        if ((rc = exists(t, g, &still)) == 0) rc = still;
    }
    if (rc == 1) *out_id = g;
    return rc;
}

static int discover_latest(sc_table *t, uint64_t *out_id) {
    *out_id = 0;
    file_state_drop(state_of(t));
    int guessed = latest_by_guess(t, out_id);
    if (guessed) return guessed < 0 ? guessed : 0;
    int use_earliest = 0;
    for (int attempt = 0;; attempt++) {
        uint64_t hint, first, last, gap, gap_next;
        int rc = read_hint(&hint, &t->latest_hint_damaged, t, SC_LATEST_HINT_KEY);
        if (rc) return rc;
        if (hint && !use_earliest) {
            probe_outcome po;
            if ((rc = probe_from_hint(&po, out_id, t, hint, attempt < GAP_RECHECKS, 0)) != 0) return rc;
            if (po == PROBE_FOUND) return 0;
            if (po == PROBE_RETRY) continue;
        }
        /* The listing: with a hint h everything from h on, which must start at
         * h. Without (or with a hint that lags behind EARLIEST after an
         * expiration): everything from where retained history starts, which
         * must start there. Snapshots below EARLIEST are expirable, never
         * damage: expiration moves EARLIEST forward before it deletes. */
        uint64_t start = hint;
        if (!hint || use_earliest) {
            uint64_t e;
            if ((rc = history_start(&e, t)) != 0) return rc;
            if (e > start) start = e;
        }
        if ((rc = list_chain(t, start, &first, &last, &gap, &gap_next)) != 0) return rc;
        if (!first && !hint) { /* nothing at all: a new table, or a history that was deleted */
            int marked;
            if ((rc = sc_table_history_marked(&marked, t)) != 0) return rc;
            if (!marked) return 0;
            if (attempt < GAP_RECHECKS) continue; /* the first commit may have landed since the LIST */
            return sc_table_no_history_error();
        }
        if (first == start && !gap) {
            int present;
            if ((rc = fetch_found(&present, t, last)) != 0) return rc;
            if (present) {
                *out_id = last;
                return 0;
            }
            if (attempt < GAP_RECHECKS) continue;
            return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " vanished while discovery looked", last);
        }
        /* The list may have raced a claim (a directory read does not promise to
         * show entries added while it runs): a missing id that now exists is a
         * reason to list again; one that is still absent is damage. */
        /* The hint may lag behind an expiration: its snapshot gone, or still there as a
         * leftover below EARLIEST (a stalled claim that landed on an expired id, whose
         * committer then wrote the hint) with the expired ids above it missing. */
        if ((first != start || gap) && hint && !use_earliest) {
            use_earliest = 1;
            continue;
        }
        uint64_t missing = first != start ? start : gap;
        int present;
        if ((rc = exists(t, missing, &present)) != 0) return rc;
        if (present && attempt < GAP_RECHECKS) continue;
        if (!present) { /* an expiration may have moved EARLIEST past it since it was read: look from there */
            uint64_t e;
            if ((rc = history_start(&e, t)) != 0) return rc;
            if (e > missing) {
                use_earliest = 1;
                continue;
            }
        }
        if (first != start && start == hint)
            return sc_error_set(SC_ECORRUPT, "snapshot %" PRIu64 " named by snapshot/LATEST is missing (lost or rolled back)", hint);
        if (first != start) return missing_start(start, first);
        return gap_error(gap, gap_next);
    }
}

static int file_latest(sc_table *t, uint64_t *out_id) {
    int rc = discover_latest(t, out_id);
    file_state *st = state_of(t);
    /* Nothing committed since this handle's last claim: contention is over, guess again. */
    if (!rc && st && st->own_id && *out_id == st->own_id) st->guess_missed = 0;
    return rc;
}

/*
 * The start of retained history, verified: EARLIEST (or 1) must exist when
 * the table has any snapshot. One GET and one HEAD while it does.
 */
static int file_earliest(sc_table *t, uint64_t *out_id) {
    *out_id = 0;
    file_state_drop(state_of(t));
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
        if ((rc = list_chain(t, 1, &first, &last, &gap, &gap_next)) != 0) return rc;
        if (first) {
            if (attempt < GAP_RECHECKS) continue; /* snapshot 1 may have been claimed since the HEAD */
            return missing_start(start, first);
        }
        if ((rc = sc_table_history_marked(&marked, t)) != 0) return rc;
        if (!marked) return 0; /* an empty table */
        if (attempt >= GAP_RECHECKS) return sc_table_no_history_error();
    }
}

/*
 * Discovery after a lost claim: snapshot `known` exists (the winner's), so
 * the probes start there — HEAD known+1, and known+2 when that is absent
 * (the gap rule of probe_from_hint), then the GET of the latest that serves
 * its read (on a concurrent store all three in one batch, narrow) — without
 * reading LATEST, which the winner may not have written yet. Anything but a
 * clean answer falls back to the full discovery.
 */
static int file_latest_after(sc_table *t, uint64_t known, uint64_t *out_id) {
    *out_id = 0;
    file_state_drop(state_of(t));
    probe_outcome po = PROBE_LIST;
    int rc = known ? probe_from_hint(&po, out_id, t, known, 1, 1) : 0;
    if (rc) return rc;
    if (po == PROBE_FOUND) return 0;
    return file_latest(t, out_id);
}

static int file_read(sc_table *t, uint8_t **out_data, size_t *out_len, uint64_t id) {
    file_state *st = state_of(t);
    if (st && st->own_id && st->own_id == id) { /* this handle's own claim: a copy */
        uint8_t *copy = malloc(st->own_len ? st->own_len : 1);
        if (!copy) return sc_error_set(SC_ENOMEM, "out of memory reading snapshot %" PRIu64, id);
        memcpy(copy, st->own_doc, st->own_len);
        *out_data = copy;
        *out_len = st->own_len;
        return 0;
    }
    if (st && st->opened_id && st->opened_id == id) { /* read by the open: a copy */
        uint8_t *copy = malloc(st->opened_len ? st->opened_len : 1);
        if (!copy) return sc_error_set(SC_ENOMEM, "out of memory reading snapshot %" PRIu64, id);
        memcpy(copy, st->opened_doc, st->opened_len);
        *out_data = copy;
        *out_len = st->opened_len;
        return 0;
    }
    if (st && st->id && st->id == id) { /* the bytes discovery just fetched */
        *out_data = st->doc;
        *out_len = st->len;
        st->doc = NULL;
        st->id = 0;
        st->len = 0;
        return 0;
    }
    file_state_drop(st);
    char key[64];
    sc_snapshot_key(key, id);
    return sc_store_get_bounded(t->store, out_data, out_len, NULL, key, SC_SNAPSHOT_MAX_BYTES);
}

static int file_taken(sc_table *t, uint64_t id, int *out_taken) { return exists(t, id, out_taken); }

static int file_claim(sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    char key[64];
    sc_snapshot_key(key, id);
    file_state_drop(state_of(t));
    /* A hint that does not parse may have named a newer snapshot that is now
     * lost: claiming `id` would bury that evidence (and rewrite the hint), so
     * a commit fails closed where a read only warns. */
    if (t->latest_hint_damaged)
        return sc_error_set(SC_ECORRUPT, "%s: damaged hint (not a decimal snapshot id): refusing to claim snapshot %" PRIu64
                                         " while it may have named a lost newer snapshot; run 'snapcommit fsck', then "
                                         "repair or delete %s",
                            SC_LATEST_HINT_KEY, id, SC_LATEST_HINT_KEY);
    int rc = sc_store_put_if_absent(t->store, NULL, key, data, len);
    file_state *st = state_of(t);
    opened_drop(st); /* from here on the handle guesses on its own claims only */
    if (rc == SC_EEXISTS && st) st->guess_missed = 1; /* contended: the next commit discovers first */
    if (rc == 0 && st) {
        /* Keep what we claimed for the next commit of this handle (best effort). */
        uint8_t *copy = malloc(len ? len : 1);
        free(st->own_doc);
        st->own_doc = copy;
        st->own_id = copy ? id : 0;
        st->own_len = copy ? len : 0;
        if (copy) memcpy(copy, data, len);
    }
    return rc;
}

static void *hint_main(void *arg) {
    file_state *st = arg;
    sc_store_thread_counted_ahead(1);
    sc_hint_write(st->hint_table, SC_LATEST_HINT_KEY, st->hint_id);
    return NULL;
}

static void file_after_commit(sc_table *t, uint64_t id) {
    file_state *st = state_of(t);
    hint_join(st); /* a handle's hints land in order, whichever way this one goes */
    if (id != 1 && st && concurrent(t) && !sc_store_has_fault_hook(t->store)) {
        /* After the post-claim check, as always, but off the critical path: the commit
         * returns while the hint travels (a hint may lag: discovery probes forward). A
         * store with a fault hook (tests, the simulation) keeps it in line. */
        char text[32];
        int n = snprintf(text, sizeof text, "%" PRIu64, id);
        st->hint_table = t;
        st->hint_id = id;
        sc_store_count_ahead(t->store, SC_OP_PUT, (uint64_t)n);
        if (pthread_create(&st->hint_thread, NULL, hint_main, st) == 0) {
            st->hint_running = 1;
            return;
        }
        sc_store_thread_counted_ahead(1); /* no thread: written here, counted already */
        sc_hint_write(t, SC_LATEST_HINT_KEY, id);
        sc_store_thread_counted_ahead(0);
        return;
    }
    sc_hint_write(t, SC_LATEST_HINT_KEY, id);
    if (id != 1) return;
    /* EARLIEST := 1 only where there is none: this put may land late (its answer lost, the
     * request still in flight), after an expiration moved EARLIEST on and deleted snapshot 1. */
    if (!(sc_store_caps(t->store) & (SC_CAP_ATOMIC_NOREPLACE | SC_CAP_CONDITIONAL_CREATE))) {
        sc_hint_write(t, SC_EARLIEST_HINT_KEY, id);
        return;
    }
    int rc = sc_store_put_if_absent(t->store, NULL, SC_EARLIEST_HINT_KEY, (const uint8_t *)"1", 1);
    if (rc == SC_EEXISTS) sc_error_clear();
    else if (rc) sc_log(SC_LOG_WARN, "could not write hint %s: %s", SC_EARLIEST_HINT_KEY, sc_error_message());
}

/* Per handle the one-shot bytes of the last discovery, the bytes of the last claim and
 * its hint's thread (open/close); every answer comes from the store. */
const sc_strategy sc_strategy_rename = {
    .kind = SC_STRATEGY_RENAME,
    .snapshot_files_are_history = 1,
    .required_caps = SC_CAP_ATOMIC_NOREPLACE,
    .latest = file_latest,
    .latest_after = file_latest_after,
    .taken = file_taken,
    .read = file_read,
    .claim = file_claim,
    .after_commit = file_after_commit,
    .guess = file_guess,
    .guess_probes = file_guess_probes,
    .guess_confirmed = file_guess_confirmed,
    .earliest = file_earliest,
    .open = file_open,
    .close = file_close,
};

const sc_strategy sc_strategy_conditional = {
    .kind = SC_STRATEGY_CONDITIONAL,
    .snapshot_files_are_history = 1,
    .required_caps = SC_CAP_CONDITIONAL_CREATE,
    .latest = file_latest,
    .latest_after = file_latest_after,
    .taken = file_taken,
    .read = file_read,
    .claim = file_claim,
    .after_commit = file_after_commit,
    .guess = file_guess,
    .guess_probes = file_guess_probes,
    .guess_confirmed = file_guess_confirmed,
    .earliest = file_earliest,
    .open = file_open,
    .close = file_close,
};
