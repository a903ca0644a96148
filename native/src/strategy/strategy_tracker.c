/*
 * tracker strategy: seed 000's list-based two-phase claim, for stores that
 * only offer PUT/GET/LIST with read-after-write and list-after-write
 * visibility (no conditional write, no atomic rename). Snapshot id = version.
 *
 * Keys under the table root (v, s: 20-digit decimal; inv(x) = 2^64-1-x,
 * 20 digits, so that ascending LIST order is descending x and the first key
 * of the first page is the newest):
 *   tracker/<inv(v)>                         version v was started ("v\n")
 *   commit/<v>/sub-tracker/<inv(s)>          sub-version s >= 2 was started
 *   commit/<v>/<s>/PRE_COMMIT-<uuid>         intent of attempt <uuid>
 *   commit/<v>/<s>/COMMIT-<uuid>             commit file = the snapshot document
 *   commit/<v>/<s>/EXPIRED-HINT              sub-version s is dead
 *   commit/<v>/COMMIT-HINT                   "<uuid>@<s>\n": version v is decided
 *   tracker-clock                            probe object: its mtime is "now"
 * In a sub-version directory COMMIT-* < EXPIRED-HINT < PRE_COMMIT-* bytewise,
 * so the first page of a listing always shows the commit file and the
 * expiry mark when they exist.
 *
 * The protocol, its invariants and its assumptions are in docs/tracker.md.
 * In short, with TTL T and fence F = T/2, all times storage mtimes:
 *   - at most one client per sub-version writes a commit file (Dekker on
 *     PRE_COMMIT + LIST; a loser withdraws its PRE_COMMIT only within F);
 *   - a commit file C is publishable iff mtime(C) - mtime(its PRE_COMMIT) < F,
 *     a fact fixed by two objects nobody changes: its owner and any helper
 *     decide alike, so COMMIT-HINT can only ever name one commit file (both
 *     are written with put_once: a transport that sent one again after a
 *     lost answer could re-stamp it, docs/tracker.md §8);
 *   - a sub-version is expired only when no publishable commit file is
 *     visible and every PRE_COMMIT is older than T (crash recovery), so an
 *     expired sub-version can never get a publishable commit file later.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/hash.h"
#include "store/store_backends.h"
#include "store/store_internal.h"
#include "strategy/strategy_tracker.h"
#include "strategy/strategy.h"
#include "base/env_internal.h"

#define TRACKER_PREFIX "tracker/"
#define COMMIT_PREFIX "commit/"
#define CLOCK_KEY "tracker-clock"
#define HINT_NAME "COMMIT-HINT"
#define EXPIRED_NAME "EXPIRED-HINT"
#define PRE_NAME "PRE_COMMIT-"
#define FILE_NAME "COMMIT-"
#define SUBTRACKER_NAME "sub-tracker/"
/* First-page size for a sub-version directory: the commit file, the expiry
 * mark and enough PRE_COMMITs to see a conflict. */
#define DIR_PAGE 64
/* Dead sub-versions a single claim walks past before reporting a lost claim. */
#define MAX_SUBS_PER_CLAIM 8
#define KEY_CAP 160
#define HINT_CAP 96

/* ---- per-handle state ---- */

typedef struct decided {
    uint64_t v;                       /* 0 = empty slot */
    char uuid[SC_UUID_TEXT_LEN + 1];  /* winner of v */
    uint64_t sub;
    uint8_t *doc; /* its snapshot document when known (immutable), else NULL */
    size_t len;
} decided;

typedef struct tracker_state {
    int64_t ttl_ms, fence_ms;
    uint64_t tracker_max; /* highest version this handle saw (or wrote) in tracker/ */
    decided cache[2];     /* the last decided versions seen: hints never change */
    int next_slot;
    uint64_t hint_pending; /* version won whose COMMIT-HINT could not be written */
    char hint_pending_uuid[SC_UUID_TEXT_LEN + 1];
    uint64_t hint_pending_sub;
    /* The bytes of the version this handle's last claim won, for publication. */
    uint64_t won_id;
    uint8_t *won_doc;
    size_t won_len;
    /* Storage-time anchor: a put's mtime and the elapsed-clock readings around it. */
    int64_t anchor_mtime, anchor_sent, anchor_returned;
    const sc_env *env; /* the table's (it outlives this state) */
} tracker_state;

/* Elapsed time that keeps counting while the machine is suspended (sc_env.monotonic_ms). */
static int64_t elapsed_ms(const tracker_state *st) { return sc_env_monotonic_ms(st->env); }

static void tracker_close(void *p) {
    tracker_state *st = p;
    if (!st) return;
    for (int i = 0; i < 2; i++) free(st->cache[i].doc);
    free(st->won_doc);
    free(st);
}

/* The TTL is settled once, when the handle opens: the store's configuration, else its default. */
static int tracker_open(sc_table *t, void **out_state) {
    tracker_state *st = calloc(1, sizeof *st);
    *out_state = st;
    if (!st) return sc_error_set(SC_ENOMEM, "out of memory opening the tracker strategy");
    st->env = &t->env;
    st->ttl_ms = SC_TRACKER_DEFAULT_TTL_MS;
    /* The store's configuration (its environment variable included) decides; a bad value is ignored. */
    int64_t configured = 0;
    if (sc_store_tracker_ttl(&configured, t->store) != 0) {
        sc_log(SC_LOG_WARN, "ignoring %s", sc_error_message());
        sc_error_clear();
    } else if (configured > 0) {
        st->ttl_ms = configured;
    }
    st->fence_ms = st->ttl_ms / 2;
    return 0;
}

static tracker_state *state_of(sc_table *t) { return t->strategy_state; }

int64_t sc_tracker_ttl_ms(sc_table *t) {
    if (!t || t->strategy != &sc_strategy_tracker) return 0;
    tracker_state *st = state_of(t);
    return st ? st->ttl_ms : 0;
}

/* Remember a put's storage mtime as the "now" anchor. */
static void anchor(tracker_state *st, int64_t mtime, int64_t sent) {
    if (mtime <= 0) return;
    st->anchor_mtime = mtime;
    st->anchor_sent = sent;
    st->anchor_returned = elapsed_ms(st);
}

/* ---- keys ---- */

static void tracker_key(char *out, uint64_t v) {
    snprintf(out, KEY_CAP, TRACKER_PREFIX "%020" PRIu64, UINT64_MAX - v);
}
static void version_prefix(char *out, uint64_t v) { snprintf(out, KEY_CAP, COMMIT_PREFIX "%020" PRIu64 "/", v); }
static void hint_key(char *out, uint64_t v) { snprintf(out, KEY_CAP, COMMIT_PREFIX "%020" PRIu64 "/" HINT_NAME, v); }
static void sub_prefix(char *out, uint64_t v, uint64_t s) {
    snprintf(out, KEY_CAP, COMMIT_PREFIX "%020" PRIu64 "/%020" PRIu64 "/", v, s);
}
static void subtracker_prefix(char *out, uint64_t v) {
    snprintf(out, KEY_CAP, COMMIT_PREFIX "%020" PRIu64 "/" SUBTRACKER_NAME, v);
}
static void subtracker_key(char *out, uint64_t v, uint64_t s) {
    snprintf(out, KEY_CAP, COMMIT_PREFIX "%020" PRIu64 "/" SUBTRACKER_NAME "%020" PRIu64, v, UINT64_MAX - s);
}
static void in_sub(char *out, uint64_t v, uint64_t s, const char *name, const char *uuid) {
    snprintf(out, KEY_CAP, COMMIT_PREFIX "%020" PRIu64 "/%020" PRIu64 "/%s%s", v, s, name, uuid ? uuid : "");
}

/* Exactly 20 decimal digits (and nothing after when `whole`), as a uint64. */
static int parse20(uint64_t *out, const char *p, int whole) {
    uint64_t x = 0;
    for (int i = 0; i < 20; i++) {
        if (p[i] < '0' || p[i] > '9') return -1;
        uint64_t d = (uint64_t)(p[i] - '0');
        if (x > (UINT64_MAX - d) / 10) return -1;
        x = x * 10 + d;
    }
    if (whole && p[20] != '\0') return -1;
    *out = x;
    return 0;
}

/* Version of a tracker/ or sub-tracker/ key whose last segment is inv(x). */
static int parse_inverted(uint64_t *out, const char *key, size_t prefix_len) {
    uint64_t inv;
    if (strlen(key) != prefix_len + 20 || parse20(&inv, key + prefix_len, 1) != 0 || inv == UINT64_MAX) return -1;
    *out = UINT64_MAX - inv;
    return 0;
}

static int uuid_valid(const char *u, size_t len) {
    if (len != SC_UUID_TEXT_LEN) return 0;
    for (size_t i = 0; i < len; i++) {
        char c = u[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-') return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
            return 0;
        }
    }
    return 1;
}

/* "<uuid>@<s>\n" */
static int hint_format(char *out, const char *uuid, uint64_t s) {
    return snprintf(out, HINT_CAP, "%s@%" PRIu64 "\n", uuid, s);
}

static int hint_parse(decided *out, const uint8_t *data, size_t len, uint64_t v) {
    char text[HINT_CAP];
    if (len == 0 || len >= sizeof text) goto bad;
    memcpy(text, data, len);
    text[len] = '\0';
    if (text[len - 1] == '\n') text[--len] = '\0';
    char *at = strchr(text, '@');
    if (!at || !uuid_valid(text, (size_t)(at - text))) goto bad;
    char *end;
    if (at[1] < '1' || at[1] > '9') goto bad;
    unsigned long long s = strtoull(at + 1, &end, 10);
    if (*end != '\0') goto bad;
    memset(out, 0, sizeof *out);
    out->v = v;
    memcpy(out->uuid, text, SC_UUID_TEXT_LEN);
    out->sub = s;
    return 0;
bad:
    return sc_error_set(SC_ECORRUPT, COMMIT_PREFIX "%020" PRIu64 "/" HINT_NAME ": not \"<uuid>@<sub-version>\"", v);
}

/* ---- the cache of decided versions ---- */

static decided *cache_find(tracker_state *st, uint64_t v) {
    for (int i = 0; i < 2; i++)
        if (st->cache[i].v == v && v) return &st->cache[i];
    return NULL;
}

static decided *cache_put(tracker_state *st, const decided *d) {
    decided *slot = cache_find(st, d->v);
    if (!slot) {
        slot = &st->cache[st->next_slot];
        st->next_slot ^= 1;
        free(slot->doc);
        *slot = *d;
        slot->doc = NULL;
        slot->len = 0;
    }
    return slot;
}

static void cache_doc(decided *slot, const uint8_t *data, size_t len) {
    if (slot->doc || !len) return;
    uint8_t *copy = malloc(len);
    if (!copy) return; /* a cache: work without it */
    memcpy(copy, data, len);
    slot->doc = copy;
    slot->len = len;
}

/* COMMIT-HINT of v into *out (cached: immutable once written). SC_ENOTFOUND when absent. */
static int load_hint(tracker_state *st, sc_table *t, uint64_t v, decided **out) {
    decided *c = cache_find(st, v);
    if (c) {
        *out = c;
        return 0;
    }
    char key[KEY_CAP];
    hint_key(key, v);
    uint8_t *data = NULL;
    size_t len = 0;
    /* hint_parse accepts less than HINT_CAP bytes: anything longer is refused unread. */
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, HINT_CAP);
    if (rc) return rc;
    decided d = {0};
    rc = hint_parse(&d, data, len, v);
    free(data);
    if (rc) return rc;
    *out = cache_put(st, &d);
    return 0;
}

/* ---- small store helpers ---- */

/* Head that maps "absent" to *found = 0. */
static int head_opt(sc_table *t, sc_object_info *info, int *found, const char *key) {
    int rc = sc_store_head(t->store, info, key);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        *found = 0;
        return 0;
    }
    *found = rc == 0;
    return rc;
}

/* A listing, retried once when its answer was lost or throttled (reads are idempotent). */
static int list_page(sc_table *t, sc_list_page *page, const char *prefix, size_t max_keys) {
    int rc = sc_store_list(t->store, page, prefix, NULL, max_keys);
    if (rc == SC_EUNKNOWN || rc == SC_ETRANSIENT) rc = sc_store_list(t->store, page, prefix, NULL, max_keys);
    return rc;
}

/* What a sub-version directory holds (from one listing). */
typedef struct dir_view {
    int expired;
    int files;                           /* commit files seen (0 or 1 while the protocol holds) */
    char file_uuid[SC_UUID_TEXT_LEN + 1]; /* the first one */
    size_t pres;                         /* PRE_COMMIT files seen */
    int foreign;                         /* anything not ours (when `own` is given) */
    int truncated;
} dir_view;

static void classify(dir_view *out, const sc_list_page *page, const char *prefix, const char *own) {
    memset(out, 0, sizeof *out);
    size_t plen = strlen(prefix);
    out->truncated = page->truncated;
    for (size_t i = 0; i < page->count; i++) {
        const char *name = page->keys[i] + plen;
        int mine = 0;
        if (strcmp(name, EXPIRED_NAME) == 0) {
            out->expired = 1;
        } else if (strncmp(name, PRE_NAME, strlen(PRE_NAME)) == 0) {
            out->pres++;
            mine = own && strcmp(name + strlen(PRE_NAME), own) == 0;
        } else if (strncmp(name, FILE_NAME, strlen(FILE_NAME)) == 0) {
            const char *u = name + strlen(FILE_NAME);
            mine = own && strcmp(u, own) == 0;
            if (!mine && out->files == 0 && uuid_valid(u, strlen(u))) memcpy(out->file_uuid, u, SC_UUID_TEXT_LEN + 1);
            if (!mine || !own) out->files++;
        }
        if (!mine) out->foreign = 1;
    }
}

/* ---- COMMIT-HINT ---- */

/*
 * Publish "uuid@s" as the COMMIT-HINT of v: with put_if_absent when the store
 * can create conditionally (an existing different hint is then detected, never
 * replaced), with a plain put otherwise. Every writer of a version's hint
 * writes the same bytes while the assumptions hold (docs/tracker.md).
 * Returns 0, SC_EMODIFIED (a different hint is there: assumptions violated)
 * or a store error.
 */
static int write_hint(tracker_state *st, sc_table *t, uint64_t v, const char *uuid, uint64_t s) {
    char key[KEY_CAP], text[HINT_CAP];
    hint_key(key, v);
    int n = hint_format(text, uuid, s);
    int rc;
    if (sc_store_caps(t->store) & SC_CAP_CONDITIONAL_CREATE) {
        rc = sc_store_put_if_absent(t->store, NULL, key, (const uint8_t *)text, (size_t)n);
        if (rc == SC_EEXISTS || rc == SC_EUNKNOWN) {
            decided *d;
            int seen = rc;
            rc = load_hint(st, t, v, &d);
            if (rc == 0 && (strcmp(d->uuid, uuid) != 0 || d->sub != s)) {
                sc_log(SC_LOG_ERROR, "tracker: %s names %s@%" PRIu64 ", not %s@%" PRIu64 ": an assumption of the protocol was violated (docs/tracker.md)",
                       key, d->uuid, d->sub, uuid, s);
                return sc_error_set(SC_EMODIFIED, "%s already names another commit (%s@%" PRIu64 ")", key, d->uuid, d->sub);
            }
            if (rc == SC_ENOTFOUND && seen == SC_EUNKNOWN) return SC_EUNKNOWN;
        }
    } else {
        rc = sc_store_put(t->store, NULL, key, (const uint8_t *)text, (size_t)n);
    }
    if (rc == 0) {
        decided d = {0};
        d.v = v;
        memcpy(d.uuid, uuid, SC_UUID_TEXT_LEN + 1);
        d.sub = s;
        cache_put(st, &d);
    }
    return rc;
}

/* ---- latest / read / earliest ---- */

static int tracker_max(sc_table *t, uint64_t *out) {
    sc_list_page page;
    int rc = list_page(t, &page, TRACKER_PREFIX, 1);
    if (rc) return sc_error_wrap(rc, "listing " TRACKER_PREFIX);
    *out = 0;
    if (page.count && parse_inverted(out, page.keys[0], strlen(TRACKER_PREFIX)) != 0)
        rc = sc_error_set(SC_ECORRUPT, "%s: not a tracker entry", page.keys[0]);
    sc_list_page_free(&page);
    return rc;
}

static int tracker_latest(sc_table *t, uint64_t *out_id) {
    tracker_state *st = state_of(t);
    uint64_t m;
    int rc = tracker_max(t, &m);
    if (rc) return rc;
    *out_id = 0;
    if (m == 0) {
        /* A new table, or tracker/ was lost. The marker follows version 1, so
         * after seeing it tracker/ must list something. */
        int marked;
        if ((rc = sc_table_history_marked(&marked, t)) != 0 || !marked) return rc;
        if ((rc = tracker_max(t, &m)) != 0) return rc;
        if (m == 0) return sc_table_no_history_error();
    }
    if (m > st->tracker_max) st->tracker_max = m;
    decided *d;
    rc = load_hint(st, t, m, &d);
    if (rc == 0) {
        *out_id = m;
        return 0;
    }
    if (rc != SC_ENOTFOUND) return sc_error_wrap(rc, "reading the hint of version %" PRIu64, m);
    sc_error_clear();
    /* Version m is in progress (or its winner has not published yet): fall back one version. */
    if (m == 1) return 0;
    rc = load_hint(st, t, m - 1, &d);
    if (rc == SC_ENOTFOUND)
        return sc_error_set(SC_ECORRUPT, "table corrupted: neither version %" PRIu64 " nor %" PRIu64 " has a " HINT_NAME, m, m - 1);
    if (rc) return sc_error_wrap(rc, "reading the hint of version %" PRIu64, m - 1);
    *out_id = m - 1;
    return 0;
}

static int tracker_read(sc_table *t, uint8_t **out_data, size_t *out_len, uint64_t id) {
    tracker_state *st = state_of(t);
    *out_data = NULL;
    *out_len = 0;
    decided *d;
    int rc = load_hint(st, t, id, &d);
    if (rc) return rc;
    if (d->doc) {
        uint8_t *copy = malloc(d->len);
        if (!copy) return sc_error_set(SC_ENOMEM, "out of memory");
        memcpy(copy, d->doc, d->len);
        *out_data = copy;
        *out_len = d->len;
        return 0;
    }
    char key[KEY_CAP];
    in_sub(key, id, d->sub, FILE_NAME, d->uuid);
    rc = sc_store_get_bounded(t->store, out_data, out_len, NULL, key, SC_SNAPSHOT_MAX_BYTES);
    if (rc == SC_ENOTFOUND)
        return sc_error_set(SC_ECORRUPT, "%s: named by the " HINT_NAME " of version %" PRIu64 " but missing", key, id);
    if (rc == 0) cache_doc(d, *out_data, *out_len);
    return rc;
}

/* Versions are never removed (cleanup keeps every decided pair): the first is 1. */
static int tracker_earliest(sc_table *t, uint64_t *out_id) {
    uint64_t latest;
    int rc = tracker_latest(t, &latest);
    if (rc) return rc;
    *out_id = latest ? 1 : 0;
    return 0;
}

/* ---- storage time ---- */

/*
 * Bounds on the storage's current time from the anchor (a put's mtime):
 * the storage stamped it between sending and the answer, so now lies in
 * [mtime + (now - returned), mtime + (now - sent)] on the elapsed clock.
 */
static int64_t now_lower(const tracker_state *st) { return st->anchor_mtime + (elapsed_ms(st) - st->anchor_returned); }
static int64_t now_upper(const tracker_state *st) { return st->anchor_mtime + (elapsed_ms(st) - st->anchor_sent); }

/* Write the probe object: its mtime becomes the anchor. */
static int probe(tracker_state *st, sc_table *t) {
    static const uint8_t body[] = "clock probe\n";
    sc_object_info info;
    int64_t sent = elapsed_ms(st);
    int rc = sc_store_put(t->store, &info, CLOCK_KEY, body, sizeof body - 1);
    /* Stores whose put answers carry no mtime (S3): a HEAD after it. Another client's
     * newer probe there is still a storage time between our put and our listing. */
    if (rc == 0 && info.mtime_ms <= 0) rc = sc_store_head(t->store, &info, CLOCK_KEY);
    if (rc) return sc_error_wrap(rc, "writing the clock probe " CLOCK_KEY);
    if (info.mtime_ms <= 0)
        return sc_error_set(SC_EUNSUPPORTED, "the %s store reports no modification times: the tracker strategy needs them",
                            sc_store_backend_name(t->store));
    anchor(st, info.mtime_ms, sent);
    return 0;
}

/* ---- the newcomer's analysis of a non-empty sub-version directory ---- */

enum { SUB_DEAD = 1, SUB_BUSY = 2, SUB_HELPED = 3 };

/* mtime of key; 0 when absent. */
static int mtime_of(sc_table *t, int64_t *out, const char *key) {
    sc_object_info info;
    int found;
    int rc = head_opt(t, &info, &found, key);
    *out = found ? info.mtime_ms : 0;
    return rc;
}

/*
 * Is the commit file of `uuid` in (v, s) publishable? mtime(C) - mtime(PRE) < F.
 * *out: 1 publishable, 0 dead, -1 undecidable (its PRE_COMMIT is gone).
 */
static int publishable(tracker_state *st, sc_table *t, int *out, uint64_t v, uint64_t s, const char *uuid) {
    char key[KEY_CAP];
    int64_t m_pre, m_file;
    in_sub(key, v, s, PRE_NAME, uuid);
    int rc = mtime_of(t, &m_pre, key);
    if (!rc) {
        in_sub(key, v, s, FILE_NAME, uuid);
        rc = mtime_of(t, &m_file, key);
    }
    if (rc) return rc;
    if (!m_pre || !m_file) *out = -1;
    else *out = m_file - m_pre < st->fence_ms;
    return 0;
}

/*
 * Every PRE_COMMIT of a directory older than T at storage time `now_low`? One listed but
 * gone by its HEAD is not: only its owner deletes it, withdrawing within F of sending it,
 * so that attempt is recent, and a newcomer may already have passed its first check in
 * the directory it emptied (tracker::withdrawn_pre_commit_is_not_stale).
 */
static int all_stale(sc_table *t, int *out, const sc_list_page *page, const char *prefix, int64_t now_low, int64_t ttl) {
    size_t plen = strlen(prefix);
    *out = 1;
    for (size_t i = 0; i < page->count; i++) {
        if (strncmp(page->keys[i] + plen, PRE_NAME, strlen(PRE_NAME)) != 0) continue;
        int64_t m;
        int rc = mtime_of(t, &m, page->keys[i]);
        if (rc) return rc;
        if (!m || now_low - m < ttl) {
            *out = 0;
            return 0;
        }
    }
    return 0;
}

/*
 * A client found sub-version (v, s) non-empty before writing anything there.
 *   EXPIRED-HINT                     → SUB_DEAD
 *   a publishable commit file        → help: write its COMMIT-HINT → SUB_HELPED
 *   PRE_COMMITs (and at most a dead commit file), all older than T by
 *   storage time                     → write EXPIRED-HINT → SUB_DEAD
 *   otherwise                        → SUB_BUSY (someone is at work)
 */
static int analyze(tracker_state *st, sc_table *t, int *out, uint64_t v, uint64_t s, const sc_list_page *first) {
    char prefix[KEY_CAP];
    sub_prefix(prefix, v, s);
    dir_view dv;
    classify(&dv, first, prefix, NULL);
    if (dv.expired) {
        *out = SUB_DEAD;
        return 0;
    }
    int pub = 0, rc;
    if (dv.files) {
        if ((rc = publishable(st, t, &pub, v, s, dv.file_uuid)) != 0) return rc;
        if (pub == 1) {
            /* A decided winner that has not published (crashed, stalled, or just slow). */
            rc = write_hint(st, t, v, dv.file_uuid, s);
            if (rc && rc != SC_EMODIFIED) return sc_error_wrap(rc, "helping %s@%" PRIu64 " of version %" PRIu64, dv.file_uuid, s, v);
            sc_log(SC_LOG_INFO, "tracker: published the commit of %s (version %" PRIu64 ", sub-version %" PRIu64 ") for its writer",
                   dv.file_uuid, v, s);
            *out = SUB_HELPED;
            return 0;
        }
        if (pub < 0) {
            sc_log(SC_LOG_WARN, "tracker: %sCOMMIT-%s has no PRE_COMMIT: cannot judge it, waiting", prefix, dv.file_uuid);
            *out = SUB_BUSY;
            return 0;
        }
    }
    if (dv.pres == 0) { /* nothing but a dead commit file: cannot happen while the protocol holds */
        *out = SUB_BUSY;
        return 0;
    }
    /* Cheap first: if even the latest possible "now" leaves a PRE_COMMIT fresh, it is busy. */
    int stale;
    if (st->anchor_returned) {
        if ((rc = all_stale(t, &stale, first, prefix, now_upper(st), st->ttl_ms)) != 0) return rc;
        if (!stale) {
            *out = SUB_BUSY;
            return 0;
        }
    }
    /* Decide on a listing taken after a fresh storage timestamp. */
    if ((rc = probe(st, t)) != 0) return rc;
    int64_t low = now_lower(st);
    sc_list_page page;
    if ((rc = sc_store_list_all(t->store, &page, prefix)) != 0) return rc;
    classify(&dv, &page, prefix, NULL);
    if (dv.expired) {
        *out = SUB_DEAD;
    } else if (dv.files && (rc = publishable(st, t, &pub, v, s, dv.file_uuid)) == 0 && pub != 0) {
        *out = SUB_BUSY; /* a commit file appeared or cannot be judged: look again next time */
    } else if (!rc && (rc = all_stale(t, &stale, &page, prefix, low, st->ttl_ms)) == 0) {
        *out = SUB_BUSY;
        if (stale && dv.pres) {
            char key[KEY_CAP];
            in_sub(key, v, s, EXPIRED_NAME, NULL);
            static const uint8_t body[] = "EXPIRED!\n";
            rc = sc_store_put(t->store, NULL, key, body, sizeof body - 1);
            if (rc == 0) {
                sc_log(SC_LOG_INFO, "tracker: expired sub-version %" PRIu64 " of version %" PRIu64 " (every attempt older than %" PRId64 " ms)",
                       s, v, st->ttl_ms);
                *out = SUB_DEAD;
            }
        }
    }
    sc_list_page_free(&page);
    return rc;
}

/* ---- claim ---- */

/* Withdraw our PRE_COMMIT after a lost check, but only within the fence: a
 * deletion landing later could make an expired directory look claimable. */
static void withdraw(tracker_state *st, sc_table *t, const char *pre_key, int64_t pre_sent) {
    if (elapsed_ms(st) - pre_sent >= st->fence_ms) return;
    if (sc_store_discard(t->store, pre_key) != 0) sc_error_clear();
}

/* Make sure tracker/v exists before anything of version v can be published. */
static int ensure_tracker(tracker_state *st, sc_table *t, uint64_t v) {
    if (st->tracker_max >= v) return 0;
    char key[KEY_CAP], text[32];
    tracker_key(key, v);
    int n = snprintf(text, sizeof text, "%" PRIu64 "\n", v);
    sc_object_info info;
    int64_t sent = elapsed_ms(st);
    int rc = sc_store_put(t->store, &info, key, (const uint8_t *)text, (size_t)n);
    if (rc == SC_EUNKNOWN) {
        int found;
        rc = head_opt(t, &info, &found, key);
        if (!rc && !found) rc = sc_error_set(SC_EUNKNOWN, "%s: write outcome unknown", key);
    } else if (rc == 0) {
        anchor(st, info.mtime_ms, sent);
    }
    if (rc) return sc_error_wrap(rc, "creating %s", key);
    st->tracker_max = v;
    return 0;
}

/* Highest started sub-version of v (1 when none was recorded). */
static int sub_max(sc_table *t, uint64_t v, uint64_t *out) {
    char prefix[KEY_CAP];
    subtracker_prefix(prefix, v);
    sc_list_page page;
    int rc = list_page(t, &page, prefix, 1);
    if (rc) return rc;
    *out = 1;
    uint64_t s;
    if (page.count && parse_inverted(&s, page.keys[0], strlen(prefix)) == 0 && s > 1) *out = s;
    sc_list_page_free(&page);
    return 0;
}

static int start_sub(sc_table *t, uint64_t v, uint64_t s) {
    char key[KEY_CAP], text[32];
    subtracker_key(key, v, s);
    int n = snprintf(text, sizeof text, "%" PRIu64 "\n", s);
    int rc = sc_store_put(t->store, NULL, key, (const uint8_t *)text, (size_t)n);
    return rc == SC_EUNKNOWN ? 0 : rc; /* a marker for discovery only: a lost answer is fine */
}

/* Lost claims before anything publishable was written: the engine re-reads and retries. */
static int lost(const char *why, uint64_t v) {
    return sc_error_set(SC_EEXISTS, "tracker: lost the claim of version %" PRIu64 ": %s", v, why);
}

/* Find a sub-version of v whose directory is empty. *out_s = 0 when the claim is lost. */
static int find_sub(tracker_state *st, sc_table *t, uint64_t v, uint64_t *out_s) {
    char prefix[KEY_CAP];
    *out_s = 0;
    version_prefix(prefix, v);
    sc_list_page page;
    int rc = list_page(t, &page, prefix, 1);
    if (rc) return rc;
    int fresh = page.count == 0;
    sc_list_page_free(&page);
    if (fresh) { /* nobody started v: sub-version 1, and its directory is empty */
        *out_s = 1;
        return 0;
    }
    decided *d;
    rc = load_hint(st, t, v, &d);
    if (rc == 0) return lost("that version is already committed", v);
    if (rc != SC_ENOTFOUND) return rc;
    sc_error_clear();
    uint64_t s;
    if ((rc = sub_max(t, v, &s)) != 0) return rc;
    for (int walked = 0; walked < MAX_SUBS_PER_CLAIM; walked++, s++) {
        if (walked && (rc = start_sub(t, v, s)) != 0) return rc;
        sub_prefix(prefix, v, s);
        if ((rc = list_page(t, &page, prefix, DIR_PAGE)) != 0) return rc;
        if (page.count == 0) {
            sc_list_page_free(&page);
            *out_s = s;
            return 0;
        }
        int verdict = SUB_BUSY;
        rc = analyze(st, t, &verdict, v, s, &page);
        sc_list_page_free(&page);
        if (rc) return rc;
        if (verdict == SUB_HELPED) return lost("helped another writer's commit to publish", v);
        if (verdict == SUB_BUSY) return lost("another writer is at work in that sub-version", v);
    }
    return lost("too many dead sub-versions in one claim", v);
}

static int tracker_claim_once(sc_table *t, uint64_t v, const uint8_t *data, size_t len) {
    tracker_state *st = state_of(t);
    int rc = ensure_tracker(st, t, v);
    uint64_t s = 0;
    if (!rc) rc = find_sub(st, t, v, &s);
    if (rc == SC_EUNKNOWN) /* nothing publishable of ours was written yet */
        return sc_error_wrap(SC_EEXISTS, "tracker: version %" PRIu64 ": a discovery request failed", v);
    if (rc) return rc;

    char uuid[SC_UUID_TEXT_LEN + 1], pre_key[KEY_CAP], file_key[KEY_CAP], prefix[KEY_CAP];
    if ((rc = sc_env_uuid_text(&t->env, uuid)) != 0) return rc;
    in_sub(pre_key, v, s, PRE_NAME, uuid);
    in_sub(file_key, v, s, FILE_NAME, uuid);
    sub_prefix(prefix, v, s);

    /* Phase 1: intent. Sent once: the mtime a HEAD finds is its only one. */
    sc_object_info info;
    int64_t pre_sent = elapsed_ms(st);
    rc = sc_store_put_once(t->store, &info, pre_key, (const uint8_t *)uuid, SC_UUID_TEXT_LEN);
    if (rc == SC_EUNKNOWN || (rc == 0 && info.mtime_ms <= 0)) {
        /* A lost answer, or a store whose put answers carry no mtime (S3): look. */
        int found, was = rc;
        rc = head_opt(t, &info, &found, pre_key);
        /* Absent: it may still land, as a PRE_COMMIT without a commit file — harmless. */
        if (!rc && !found) {
            if (was == SC_EUNKNOWN) return lost("the answer to our PRE_COMMIT was lost", v);
            rc = sc_error_set(SC_EIO, "%s is not visible right after it was written", pre_key);
        }
        if (rc) withdraw(st, t, pre_key, pre_sent);
    }
    if (rc) return sc_error_wrap(rc == SC_EUNKNOWN ? SC_EEXISTS : rc, "writing %s", pre_key);
    int64_t m_pre = info.mtime_ms;
    if (m_pre <= 0) {
        withdraw(st, t, pre_key, pre_sent);
        return sc_error_set(SC_EUNSUPPORTED, "the %s store reports no modification times: the tracker strategy needs them",
                            sc_store_backend_name(t->store));
    }
    anchor(st, m_pre, pre_sent);

    /* Phase 1.5: nobody else may be in this sub-version. */
    sc_list_page page;
    rc = list_page(t, &page, prefix, DIR_PAGE);
    if (rc) {
        withdraw(st, t, pre_key, pre_sent);
        return rc == SC_EUNKNOWN ? lost("the answer to our first check was lost", v) : rc;
    }
    dir_view dv;
    classify(&dv, &page, prefix, uuid);
    sc_list_page_free(&page);
    if (dv.foreign) {
        withdraw(st, t, pre_key, pre_sent);
        return lost("another writer is in the same sub-version", v);
    }
    /* Self-fence: do not write a commit file that could land after others may expire us. */
    if (elapsed_ms(st) - pre_sent >= st->fence_ms)
        return lost("stalled past the fence after PRE_COMMIT; abandoned", v);

    /* Phase 2: the commit file (the snapshot document), sent once like the PRE_COMMIT: a
     * copy that can land after we or a helper judged the pair would re-stamp it. */
    rc = sc_store_put_once(t->store, &info, file_key, data, len);
    if (rc == SC_EUNKNOWN || (rc == 0 && info.mtime_ms <= 0)) {
        int found;
        rc = head_opt(t, &info, &found, file_key);
        if (!rc && !found)
            return sc_error_set(SC_EUNKNOWN, "tracker: our commit file %s is not visible after its write: it may still land", file_key);
        if (rc) return sc_error_wrap(SC_EUNKNOWN, "tracker: outcome of %s unknown", file_key);
    } else if (rc) {
        /* A backend without put_once may report a definite failure for a write that
         * landed after all (a lost answer, then a refused resend): withdraw only when
         * the file is provably absent, or a helper could later publish a commit whose
         * manifests the engine has cleaned up. */
        int write_rc = rc, found;
        char why[512];
        snprintf(why, sizeof why, "%s", sc_error_message());
        rc = head_opt(t, &info, &found, file_key);
        if (rc) return sc_error_wrap(SC_EUNKNOWN, "tracker: writing %s failed (%s) and its outcome cannot be checked",
                                     file_key, why);
        if (!found) {
            withdraw(st, t, pre_key, pre_sent); /* we never wrote a commit file */
            return sc_error_set(write_rc, "writing %s: %s", file_key, why);
        }
        if (info.mtime_ms <= 0)
            return sc_error_set(SC_EUNKNOWN, "tracker: %s landed despite a failed write; its time is unknown", file_key);
    }
    int64_t age = info.mtime_ms - m_pre;
    if (age >= st->fence_ms) {
        /* Dead by definition while mtimes hold. Both objects were sent once, so no helper
         * can have judged other mtimes; a backend without put_once that sends a put again
         * could have re-stamped one since a helper published the pair (docs/tracker.md §8).
         * So not a lost claim, whose objects the engine would delete: an unknown outcome,
         * which it reconciles through the version's hint (ours → success, another's → lost). */
        sc_log(SC_LOG_WARN, "tracker: commit file of version %" PRIu64 " landed %" PRId64 " ms after its PRE_COMMIT (fence %" PRId64 " ms); abandoned unless already published",
               v, age, st->fence_ms);
        return sc_error_set(SC_EUNKNOWN, "tracker: our commit file of version %" PRIu64 " landed past the fence: "
                                         "dead unless a helper published it first", v);
    }

    /* Phase 3: final check (the decision is already made; this catches violated assumptions). */
    rc = list_page(t, &page, prefix, DIR_PAGE);
    if (rc == 0) {
        classify(&dv, &page, prefix, uuid);
        sc_list_page_free(&page);
        if (dv.expired || dv.files) {
            sc_log(SC_LOG_ERROR, "tracker: %s holds %s next to our commit file: an assumption of the protocol was violated (docs/tracker.md)",
                   prefix, dv.expired ? EXPIRED_NAME : "another commit file");
            return sc_error_set(SC_EUNKNOWN, "tracker: version %" PRIu64 ": inconsistent sub-version %s", v, prefix);
        }
    } else {
        sc_log(SC_LOG_WARN, "tracker: final check of %s failed (%s); the claim stands", prefix, sc_error_message());
        sc_error_clear();
    }

    /*
     * Phase 4: publish. The version is ours, but readers find it only through
     * the hint: success is reported only once the hint is written, so that a
     * commit is never acknowledged before it is visible (found by the
     * simulation, seed 100725). A hint that cannot be written after a few
     * tries makes the outcome unknown; the engine's next attempt, or any
     * writer, publishes the complete pair.
     */
    rc = write_hint(st, t, v, uuid, s);
    for (int tries = 1; rc && rc != SC_EMODIFIED && tries < 4; tries++) {
        sc_log(SC_LOG_WARN, "tracker: won version %" PRIu64 " but could not write its " HINT_NAME " (%s); retrying",
               v, sc_error_message());
        sc_env_sleep_ms(&t->env, 10 << tries);
        rc = write_hint(st, t, v, uuid, s);
    }
    if (rc == SC_EMODIFIED) return sc_error_wrap(SC_EUNKNOWN, "tracker: version %" PRIu64, v);
    if (rc) {
        st->hint_pending = v;
        memcpy(st->hint_pending_uuid, uuid, sizeof uuid);
        st->hint_pending_sub = s;
        return sc_error_wrap(SC_EUNKNOWN, "tracker: version %" PRIu64 " is ours but its " HINT_NAME " is not written", v);
    }
    decided *d = cache_find(st, v);
    if (d) cache_doc(d, data, len);
    return 0;
}

/* A won claim keeps its bytes for the publication that follows (after_commit);
 * one reconciled later is read back through its COMMIT-HINT then. */
static int tracker_claim(sc_table *t, uint64_t v, const uint8_t *data, size_t len) {
    tracker_state *st = state_of(t);
    free(st->won_doc);
    st->won_doc = NULL;
    st->won_id = 0;
    int rc = tracker_claim_once(t, v, data, len);
    if (rc == 0 && (st->won_doc = malloc(len ? len : 1)) != NULL) {
        memcpy(st->won_doc, data, len);
        st->won_len = len;
        st->won_id = v;
    }
    return rc;
}

/*
 * The version's COMMIT-HINT first (readers of the tracker find it through
 * that), then, once it is written, the copy for Paimon's readers: a snapshot
 * is never published before the authority shows it.
 */
static void tracker_after_commit(sc_table *t, uint64_t id) {
    tracker_state *st = state_of(t);
    if (!st) return;
    if (st->hint_pending == id) {
        if (write_hint(st, t, id, st->hint_pending_uuid, st->hint_pending_sub) == 0) st->hint_pending = 0;
        else sc_log(SC_LOG_WARN, "tracker: " HINT_NAME " of version %" PRIu64 " still missing (%s); the next writer publishes it",
                    id, sc_error_message());
        sc_error_clear();
    }
    if (st->hint_pending != id) {
        int kept = st->won_id == id && st->won_doc;
        sc_publish_snapshot(t, id, kept ? st->won_doc : NULL, kept ? st->won_len : 0);
    }
    free(st->won_doc);
    st->won_doc = NULL;
    st->won_id = 0;
}

/*
 * Commit files of the versions above `latest` (the newest tracker entry when
 * it has no COMMIT-HINT yet): any writer may later find one publishable and
 * publish it, so what it names is not garbage however old it is.
 */
static int tracker_undecided(sc_table *t, uint64_t latest,
                             int (*visit)(void *ctx, uint64_t id, const uint8_t *doc, size_t len), void *ctx) {
    uint64_t m;
    int rc = tracker_max(t, &m);
    for (uint64_t v = latest + 1; !rc && v <= m; v++) {
        char prefix[KEY_CAP];
        version_prefix(prefix, v);
        sc_list_page page = {0};
        rc = sc_store_list_all(t->store, &page, prefix);
        if (rc) rc = sc_error_wrap(rc, "listing %s", prefix);
        for (size_t i = 0; !rc && i < page.count; i++) {
            const char *name = strrchr(page.keys[i], '/');
            name = name ? name + 1 : page.keys[i];
            /* commit/<v>/<s>/COMMIT-<uuid>; commit/<v>/COMMIT-HINT is one level up and not a document */
            if (strncmp(name, FILE_NAME, strlen(FILE_NAME)) != 0 || strcmp(name, HINT_NAME) == 0) continue;
            uint8_t *doc = NULL;
            size_t len = 0;
            rc = sc_store_get_bounded(t->store, &doc, &len, NULL, page.keys[i], SC_SNAPSHOT_MAX_BYTES);
            if (rc == SC_ENOTFOUND) { /* withdrawn or cleaned up meanwhile */
                sc_error_clear();
                rc = 0;
                continue;
            }
            if (rc) rc = sc_error_wrap(rc, "reading the commit file %s", page.keys[i]);
            else rc = visit(ctx, v, doc, len);
            free(doc);
        }
        sc_list_page_free(&page);
    }
    return rc;
}

const sc_strategy sc_strategy_tracker = {
    .kind = SC_STRATEGY_TRACKER,
    .required_caps = SC_CAP_LIST_AFTER_WRITE,
    .latest = tracker_latest,
    .read = tracker_read,
    .claim = tracker_claim,
    .after_commit = tracker_after_commit,
    .earliest = tracker_earliest,
    .open = tracker_open,
    .close = tracker_close,
    .undecided = tracker_undecided,
};
