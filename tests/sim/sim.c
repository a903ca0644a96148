/*
 * sim — deterministic simulation of concurrent snapcommit commits.
 *
 *   sim --strategy rename|conditional|head|tracker|naive|all --schedules N --start-seed S
 *       [--clients C] [--jobs J] [--verbose] [--expect-violation] [--check-determinism]
 *   sim --strategy S --seed X [--verbose]      replay exactly one schedule
 *   ... [--upkeep] [--upkeep-bug skip-earliest|delete-retained|orphans-delete-latest] [--orphan-ms N]
 *   ... [--plain-store]   tracker on S3 without conditional writes (plain hints, no mtime in put answers)
 *
 * A schedule: 2-4 clients (coroutines, see sched.c) with their own store
 * handles on one mem:// store each commit 1-3 appends (identifiers 1..K under
 * their own user), some also a COMPACT deleting another client's first file;
 * an optional reader reads latest + snapshot info + files meanwhile. During
 * the first phase the seed injects faults: crashes at any operation (the
 * client abandons its commit, may restart and replay), lost responses,
 * requests that time out unapplied, writes left in flight (landing later),
 * failed requests, stalls longer than the tracker TTL (virtual time), zombie
 * incarnations, clock skew. Then faults stop and every client finishes its
 * work. The invariants are checked at the end (check_world). With --upkeep an
 * expirer and an orphan remover run meanwhile, clients write real data files,
 * the reader reads inside the retention window and checks every object, and
 * the end check first judges the table as upkeep left it, then puts back what
 * upkeep deleted and judges history from snapshot 1. See README.md.
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error_internal.h"
#include "engine/state.h"
#include "format/snapshot.h"
#include "naive.h"
#include "sim.h"
#include "snapcommit/snapcommit.h"
#include "strategy/strategy.h"

#define SIM_STORE "sim"
#define MAX_CLIENTS 4
#define MAX_ITEMS 4   /* up to 3 appends and a compact */
#define MAX_SNAPSHOTS (MAX_CLIENTS * MAX_ITEMS)
#define MAX_RECORDS 64
#define MAX_STEPS 200000
#define SESSIONS_PER_PHASE 3
#define SIM_STRATEGY_NAIVE 100 /* pseudo-kind: sim_strategy_naive */
#define MAX_ACTORS (MAX_CLIENTS + 4) /* clients, a reader, a successor, the expirer, the orphan remover */
/* Tasks the schedules without upkeep actors could use (the scheduler had 8 slots): keeping
 * the rest free keeps every seed's schedule as it was (the ghost count depends on free slots). */
#define LEGACY_TASKS 8
#define MAX_MISSES 4
#define OBS_EXPIRED 1 /* a reader's failure on a snapshot expired under it (outside the window) */

/* Upkeep actors (--upkeep). */
enum { UPKEEP_NONE = 0, UPKEEP_EXPIRER = 1, UPKEEP_ORPHANS = 2 };
/* Deliberately broken expirers and orphan removers (--upkeep-bug), which the checks must catch. */
enum { BUG_NONE = 0, BUG_SKIP_EARLIEST = 1, BUG_DELETE_RETAINED = 2, BUG_ORPHANS_DELETE_LATEST = 3 };

/* ---- the world of one schedule ---- */

enum { OUT_PENDING = 1, OUT_FILTERED = 2 }; /* item outcomes besides library codes */

typedef struct item {
    sc_commit_kind kind;
    int64_t ident;
    char add[32];
    char del[32]; /* "" = none */
    int done;
    int outcome; /* 0, SC_ECOMMITTED, SC_ECONFLICT, OUT_FILTERED while done; OUT_PENDING */
} item;

/* A client process, or the reader. */
typedef struct actor {
    int index;
    int is_reader;
    char user[16];
    item items[MAX_ITEMS];
    int nitems;
    uint64_t ops;       /* store operations that reached the scheduler */
    uint64_t crash_at;  /* 1-based op that crashes, 0 = none */
    int crash_mode;     /* the crashing op: 0 not applied, 1 applied (response lost),
                         * 2 a write still in flight, landing later */
    int delay_next;     /* the next backend write is deferred (in flight) */
    int resend_next;    /* --resends: the next backend put lands now and again later; a put_once,
                         * which is not sent again, gets 1: applied, answer lost; 2: in flight */
    int restart_early;  /* restart during the faulty phase (else once faults stop) */
    int64_t downtime_ms;
    uint64_t stall_at;  /* 1-based op before which the client stalls, 0 = none */
    int64_t stall_ms;
    int64_t skew_ms;
    int dead;           /* crashed and not restarted */
    int nreads;         /* reader: reads to do */
    /* A zombie stalls (stall_at, stall_ms), is declared dead and replaced by a
     * successor incarnation with the same user and work, then wakes up and
     * finishes the commit it was in — two incarnations of one job at once. */
    int zombie;
    int stalled, woke;  /* zombie: asleep in its stall; woke from it */
    int finished;       /* zombie: done */
    int twin;           /* successor: index of its zombie, -1 = none */
    int upkeep;         /* UPKEEP_EXPIRER or UPKEEP_ORPHANS: an upkeep actor, not a client */
    int64_t commit_started; /* virtual time its current commit began (data file write included) */
    int attempt;        /* its current commit attempt (W.attempts, 1-based), 0 = none */
    /* The last keys its store handle found absent (get/head -> SC_ENOTFOUND) since the last
     * miss_reset, newest last: a violation reported right after names one of them (the
     * orphan rule). More than one, because a failing call may still probe on its way out. */
    char miss_keys[MAX_MISSES][256];
    uint64_t miss_seqs[MAX_MISSES];
    int nmisses; /* since the reset (the ring keeps the last MAX_MISSES) */
} actor;

typedef struct ack {
    int client;
    int64_t ident;
    uint64_t snapshot;
    int committed; /* 1 = sc_table_commit returned 0; 0 = SC_ECOMMITTED naming snapshot */
} ack;

typedef struct reader_obs {
    uint64_t id;
    int client;
    int64_t ident;
    uint64_t fingerprint;
    int rc; /* 0, or the clean failure seen reading snapshot id */
} reader_obs;

typedef struct counters {
    uint64_t schedules, acks, lost_claims, unknown, faults, crashes, stalls, conflicts,
        violations, steps, commits_called, in_flight;
    /* upkeep actors */
    uint64_t expire_runs, expire_failed, expire_refused, snapshots_expired, expired_data, expired_meta,
        orphan_runs, orphan_failed, orphan_failed_clean, orphans_deleted, reads, reads_expired, outside_rule, outside_rule_broken,
        hole_claims;
} counters;

/* A write whose request is still in flight when its client moves on (or
 * crashes): a ghost task applies it after delay_ms of virtual time. */
typedef struct ghost {
    sc_store_op op;
    char *key;
    uint8_t *data;
    size_t len;
    char etag[SC_ETAG_MAX];
    int64_t delay_ms;
    int from;
    int64_t commit_started; /* of the commit that sent it (0: none): a request in flight
                             * belongs to that commit until it lands */
    int attempt;            /* that commit's attempt (W.attempts), 0 = none */
} ghost;
#define MAX_GHOSTS 3

typedef struct config {
    int strategy; /* sc_strategy_kind or SIM_STRATEGY_NAIVE */
    int clients;  /* 0 = from the seed */
    int verbose;
    int inline_watermarks; /* -1 = from the seed (half the schedules 1, else the default); 0 = the default */
    int upkeep;            /* 1: an expirer and an orphan remover run with the clients */
    int upkeep_bug;        /* BUG_*: the expirer is broken on purpose */
    int64_t orphan_ms;     /* the orphan remover's older-than; -1 = from the seed */
    int plain;             /* 1: the clients' store is S3 without conditional writes (tracker only) */
    int resends;           /* 1: a plain put whose answer was lost is sent again, as the S3 transport does */
    int no_put_once;       /* 1: the clients' store has no put_once: the wrapper serves it with the
                            * resending put (a third-party backend that never implemented it) */
} config;

/* One sc_table_commit call of a client (its data file write included), for the orphan rule:
 * it lasts from `started` to its return or to the landing of the last write it left in flight. */
typedef struct attempt {
    int64_t started, ended;
    int reused; /* it wrote a data file name again whose old object had aged past older-than */
} attempt;

/* What happened to a key, in store order (W.seq): who wrote it, who deleted it. */
enum { EV_WRITE = 1, EV_DEL_ORPHANS = 2, EV_DEL_OTHER = 3 };
typedef struct key_event {
    char *key;
    uint64_t seq;
    int what;    /* EV_* */
    int attempt; /* EV_WRITE: the writing commit attempt, 0 = none (outside any commit) */
} key_event;

/* The missing objects a broken-table violation may name (the reporter's last misses). */
typedef struct culprit {
    char keys[MAX_MISSES][256];
    uint64_t seqs[MAX_MISSES];
    int n;
} culprit;
#define MAX_CULPRITS 16

/* An object an upkeep actor deleted, kept so the end check can put history back together. */
typedef struct grave {
    char *key;
    uint8_t *data;
    size_t len;
} grave;

static struct {
    const config *cfg;
    uint64_t seed;
    actor actors[MAX_ACTORS];
    int nclients; /* users: actors 0..nclients-1 */
    int nactors;  /* then maybe a reader and a zombie's successor */
    int fail_rate, lose_rate; /* per 10,000 operations */
    /* The inline watermark bound of every table handle (0 = the library's 256). At 1,
     * every commit by another user than the last moves watermarks to a new archive,
     * so the archive is rewritten and read under the same races and faults as the rest. */
    size_t inline_watermarks;
    /* The store sends a commit's independent requests together (SC_CAP_CONCURRENT: S3) or
     * one by one (posix): half the schedules each, from the seed. */
    int concurrent;
    ack acks[MAX_RECORDS];
    int nacks;
    reader_obs obs[MAX_RECORDS];
    int nobs;
    ghost ghosts[MAX_GHOSTS];
    int nghosts;
    char violation[1024];
    int violated;
    int hard;           /* violations of history itself (lost, doubled, misplaced commits) */
    int outside_broken; /* this schedule broke the table outside the orphan rule (not a violation) */
    int name_reused;    /* a data file name was written again after it had aged past the orphan limit */
    int checking_history;
    /* upkeep (cfg->upkeep) */
    sc_expire_options xo;
    int64_t orphan_ms;
    int task_reserve;       /* scheduler slots kept free (LEGACY_TASKS) */
    int clients_phase0;     /* client tasks (zombies included) still in the faulty phase */
    int clients_phase1;     /* client tasks still finishing once faults stopped */
    int64_t longest_commit_ms; /* the longest sc_table_commit call (data file write included) */
    int final_expire_ok;    /* the expirer's last runs, after every client finished, succeeded */
    uint64_t expirer_deletes;
    grave *graves;
    size_t ngraves, cap_graves;
    /* The orphan rule, per object (README "The orphan rule"). */
    attempt *attempts; /* [0] unused */
    size_t nattempts, cap_attempts;
    key_event *events;
    size_t nevents, cap_events;
    uint64_t seq;                 /* orders writes, deletes and misses */
    culprit culprits[MAX_CULPRITS]; /* missing objects named by broken-table violations */
    int nculprits;
    int unexplained;              /* broken-table violations that named no missing object */
    int checking;                 /* the end check runs (its store handle belongs to `checker`) */
    actor checker;
    char excuse[512];             /* why a broken table is (not) outside the orphan rule */
    uint64_t trace;
    counters n;
} W;

/* The actor whose store operations lead to the violation being reported now. */
static actor *reporter(void) {
    int cur = sim_current();
    if (cur >= 0 && cur < W.nactors) return &W.actors[cur];
    return W.checking ? &W.checker : NULL;
}

static void miss_reset(actor *a) { a->nmisses = 0; }

static void violate(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violate(const char *fmt, ...) {
    if (W.checking_history) {
        W.hard++;
    } else {
        /* A broken table: remember the object it lacks (the orphan rule judges it at the end). */
        const actor *a = reporter();
        if (!a || !a->nmisses || W.nculprits == MAX_CULPRITS) {
            W.unexplained++;
        } else {
            culprit *c = &W.culprits[W.nculprits++];
            c->n = a->nmisses < MAX_MISSES ? a->nmisses : MAX_MISSES;
            for (int i = 0; i < c->n; i++) { /* newest first */
                int at = (a->nmisses - 1 - i) % MAX_MISSES;
                snprintf(c->keys[i], sizeof c->keys[i], "%s", a->miss_keys[at]);
                c->seqs[i] = a->miss_seqs[at];
            }
        }
    }
    if (W.violated++) return; /* the first one tells the story */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(W.violation, sizeof W.violation, fmt, ap);
    va_end(ap);
}

static const char *strategy_label(int s) {
    return s == SIM_STRATEGY_NAIVE ? "naive" : sc_strategy_name((sc_strategy_kind)s);
}

static void vlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void vlog(const char *fmt, ...) {
    if (!W.cfg->verbose) return;
    va_list ap;
    va_start(ap, fmt);
    printf("[t=%" PRId64 " step=%" PRIu64 "] ", sim_now_ms(), sim_steps());
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static void log_sink(void *ctx, sc_log_level level, const char *message) {
    (void)ctx;
    if (strstr(message, "claimed snapshot") && strstr(message, "below EARLIEST")) W.n.hole_claims++; /* commit.c check_in_history */
    if (!W.cfg->verbose) return;
    static const char *names[] = {"debug", "info", "warn", "error"};
    vlog("  task %d lib %s: %s", sim_current(), names[level], message);
}

static int is_write(sc_store_op op);

/* ---- the orphan rule's records: commit attempts, and who wrote and deleted each key ---- */

static void *grow(void *items, size_t *cap, size_t count, size_t size) {
    if (count < *cap) return items;
    *cap = *cap ? *cap * 2 : 64;
    void *p = realloc(items, *cap * size);
    if (!p) abort();
    return p;
}

static void note_event(const char *key, int what, int attempt_index) {
    W.events = grow(W.events, &W.cap_events, W.nevents, sizeof *W.events);
    char *copy = strdup(key);
    if (!copy) abort();
    W.events[W.nevents++] = (key_event){copy, ++W.seq, what, attempt_index};
}

/* A client's commit attempt begins (before its data file write). */
static int begin_attempt(void) {
    if (W.nattempts == 0) W.nattempts = 1; /* index 0 = none */
    W.attempts = grow(W.attempts, &W.cap_attempts, W.nattempts, sizeof *W.attempts);
    W.attempts[W.nattempts] = (attempt){sim_now_ms(), sim_now_ms(), 0};
    return (int)W.nattempts++;
}

/* Attempt `a` still acts now (it returned, or a write it left in flight landed). */
static void extend_attempt(int a) {
    if (a > 0 && (size_t)a < W.nattempts && W.attempts[a].ended < sim_now_ms()) W.attempts[a].ended = sim_now_ms();
}

static void free_records(void) {
    for (size_t i = 0; i < W.nevents; i++) free(W.events[i].key);
    W.nevents = 0;
    W.nattempts = 0;
    W.nculprits = 0;
    W.unexplained = 0;
    W.seq = 0;
    W.excuse[0] = '\0';
}

/*
 * The orphan rule for one missing object: 1 when the orphan remover deleted it (the last
 * thing that happened to the key before it was found missing) and a commit attempt that
 * wrote it before lasted at least older-than, or wrote a reused name (README). Any such
 * writer counts, not only the last: incarnations of one job write the same data file name,
 * and the one that publishes it may be the long one. `why` gets the reason either way.
 */
static int object_excused(const char *key, uint64_t seq, char *why, size_t whylen) {
    size_t del = SIZE_MAX;
    for (size_t i = 0; i < W.nevents && W.events[i].seq < seq; i++)
        if (strcmp(W.events[i].key, key) == 0) del = i;
    if (del == SIZE_MAX || W.events[del].what != EV_DEL_ORPHANS) {
        snprintf(why, whylen, "%s was not deleted by the orphan remover (%s)", key,
                 del == SIZE_MAX ? "never written or deleted" : W.events[del].what == EV_WRITE ? "still written" : "deleted by another actor");
        return 0;
    }
    int best = 0, writers = 0;
    for (size_t i = 0; i < del; i++) {
        const key_event *e = &W.events[i];
        if (e->what != EV_WRITE || e->attempt <= 0 || strcmp(e->key, key) != 0) continue;
        const attempt *a = &W.attempts[e->attempt], *b = best ? &W.attempts[best] : NULL;
        writers++;
        if (!b || a->reused > b->reused || (a->reused == b->reused && a->ended - a->started > b->ended - b->started))
            best = e->attempt;
    }
    if (!best) {
        snprintf(why, whylen, "%s, deleted by the orphan remover, was not written by a commit", key);
        return 0;
    }
    const attempt *at = &W.attempts[best];
    int64_t lasted = at->ended - at->started;
    snprintf(why, whylen, "%s, deleted by the orphan remover, was written by %s commit that lasted %" PRId64
             " ms (older-than %" PRId64 " ms%s)", key, writers > 1 ? "several commits, the longest a" : "a",
             lasted, W.orphan_ms, at->reused ? ", a reused name" : "");
    return at->reused || lasted >= W.orphan_ms;
}

/* A violation is excused when one of the objects its reporter last found missing is; `why`
 * tells about that one, or else about the newest. */
static int orphan_excuses(const culprit *c, char *why, size_t whylen) {
    for (int i = c->n - 1; i >= 0; i--)
        if (object_excused(c->keys[i], c->seqs[i], why, whylen)) return 1;
    if (c->n) (void)object_excused(c->keys[0], c->seqs[0], why, whylen); /* not excused: the newest tells */
    return 0;
}

/* ---- fault hook: the yield point before every store operation ---- */

static int fault_hook(void *ctx, sc_store_op op, const char *key, uint64_t call_index) {
    actor *a = ctx;
    (void)call_index;
    if (a->dead || sim_sched_killed()) return SC_EFAULT; /* a crashed process does nothing */
    int faulty = sim_phase() == 0;
    if (faulty && a->stall_at && a->ops + 1 == a->stall_at) {
        W.n.stalls++;
        W.n.faults++;
        vlog("task %d STALLS %" PRId64 " ms before %s %s", a->index, a->stall_ms,
             sc_store_op_name(op), key);
        a->stalled = 1;
        sim_sleep(a->stall_ms);
        a->stalled = 0;
        a->woke = 1;
    } else {
        sim_yield();
    }
    if (sim_sched_killed()) return SC_EFAULT;
    a->ops++;
    int verdict = 0;
    if (faulty) {
        int can_defer = is_write(op) && W.nghosts < MAX_GHOSTS && sim_task_slots() > W.task_reserve;
        if (a->crash_at && a->ops == a->crash_at) {
            a->dead = 1;
            verdict = a->crash_mode == 1 ? SC_FAULT_LOSE_RESPONSE : SC_EFAULT;
            if (a->crash_mode == 2 && can_defer) verdict = 0, a->delay_next = 1;
            W.n.crashes++;
            W.n.faults++;
        } else {
            uint32_t r = sim_rng_below(sim_sched_rng(), 10000);
            if (r < (uint32_t)W.fail_rate) {
                verdict = SC_EIO;
                W.n.faults++;
            } else if (r < (uint32_t)(W.fail_rate + W.lose_rate)) {
                /* An unknown outcome: applied with the answer lost, never applied (the
                 * request timed out on the way), or — for writes — still in flight. */
                verdict = r % 3 == 0 ? SC_EUNKNOWN : SC_FAULT_LOSE_RESPONSE;
                if (r % 3 == 2 && can_defer) verdict = 0, a->delay_next = 1;
                /* --resends: the transport sends a plain put whose answer was lost again and
                 * answers the resend; the first copy may land after it (a later mtime). The
                 * hook sees SC_OP_PUT for put_once too: the backend (sb_put_once) decides. */
                if (r % 3 == 1 && W.cfg->resends && op == SC_OP_PUT && can_defer)
                    verdict = 0, a->resend_next = 1 + (int)(r / 3 % 2);
                W.n.faults++;
            }
        }

    }
    sim_hash_u64(&W.trace, (uint64_t)a->index);
    sim_hash_u64(&W.trace, (uint64_t)op);
    sim_hash_bytes(&W.trace, key, strlen(key));
    sim_hash_u64(&W.trace, (uint64_t)(int64_t)verdict + 1000u * (uint64_t)a->delay_next + 2000u * (uint64_t)a->resend_next);
    sim_hash_u64(&W.trace, (uint64_t)sim_now_ms());
    if (W.cfg->verbose)
        vlog("task %d %s %s%s", a->index, sc_store_op_name(op), key,
             verdict == SC_FAULT_LOSE_RESPONSE ? (a->dead ? "  -> applied, CRASH" : "  -> applied, response LOST")
             : verdict == SC_EFAULT ? "  -> CRASH (not applied)"
             : verdict == SC_EUNKNOWN ? "  -> not applied, outcome UNKNOWN"
             : a->delay_next ? (a->dead ? "  -> CRASH, the request still in flight" : "  -> in flight, outcome UNKNOWN")
             : a->resend_next ? "  -> answer lost: a put is sent again (the first copy lands later), a put_once not"
             : verdict ? "  -> FAILED (EIO)" : "");
    return verdict;
}

/* ---- the clients' store backend: the mem store, plus writes left in flight ---- */

static int is_write(sc_store_op op) {
    return op == SC_OP_PUT || op == SC_OP_PUT_IF_ABSENT || op == SC_OP_PUT_IF_MATCH;
}

static int apply_write(sc_store *st, sc_store_op op, sc_object_info *info, const char *key,
                       const uint8_t *data, size_t len, const char *etag) {
    switch (op) {
    case SC_OP_PUT: return sc_store_put(st, info, key, data, len);
    case SC_OP_PUT_IF_ABSENT: return sc_store_put_if_absent(st, info, key, data, len);
    default: return sc_store_put_if_match(st, info, key, data, len, etag);
    }
}

static void ghost_main(void *arg) {
    ghost *g = arg;
    sim_sleep(g->delay_ms);
    sc_store *st;
    if (!sim_sched_killed() && sc_store_open(&st, "mem://" SIM_STORE) == 0) {
        int rc = apply_write(st, g->op, NULL, g->key, g->data, g->len, g->etag);
        sc_store_free(st);
        /* A write landing now extends its commit's life (the orphan rule, README). */
        if (rc == 0 && g->commit_started && sim_now_ms() - g->commit_started > W.longest_commit_ms)
            W.longest_commit_ms = sim_now_ms() - g->commit_started;
        if (rc == 0) {
            note_event(g->key, EV_WRITE, g->attempt);
            extend_attempt(g->attempt);
        }
        sim_hash_u64(&W.trace, 77);
        sim_hash_bytes(&W.trace, g->key, strlen(g->key));
        sim_hash_u64(&W.trace, (uint64_t)(int64_t)rc);
        vlog("task %d (ghost of task %d): the in-flight %s %s lands -> %s", sim_current(), g->from,
             sc_store_op_name(g->op), g->key, sc_error_name(rc));
    }
    free(g->key);
    free(g->data);
    g->key = NULL;
    g->data = NULL;
}

/* Leave a write in flight: a ghost applies it later; the client hears nothing back. */
static int defer_write(actor *a, sc_store_op op, const char *key, const uint8_t *data, size_t len,
                       const char *etag) {
    ghost *g = &W.ghosts[W.nghosts++];
    memset(g, 0, sizeof *g);
    g->op = op;
    g->from = a->index;
    g->commit_started = a->commit_started;
    g->attempt = a->attempt;
    g->key = strdup(key);
    g->data = malloc(len ? len : 1);
    if (!g->key || !g->data) abort();
    if (len) memcpy(g->data, data, len);
    g->len = len;
    if (etag) snprintf(g->etag, sizeof g->etag, "%s", etag);
    g->delay_ms = 1 + sim_rng_below(sim_sched_rng(), 30000);
    sim_spawn(ghost_main, g, 0);
    W.n.in_flight++;
    return sc_error_set(SC_EUNKNOWN, "sim: %s \"%s\" is in flight (lands in %" PRId64 " ms)",
                        sc_store_op_name(op), key, g->delay_ms);
}

typedef struct sim_backend {
    sc_store *inner; /* plain handle on the mem store */
    actor *owner;
} sim_backend;

/* A read found `key` absent: the owner's last miss (what a violation it reports names). */
static int note_miss(sim_backend *b, const char *key, int rc) {
    if (rc == SC_ENOTFOUND) {
        actor *a = b->owner;
        int at = a->nmisses++ % MAX_MISSES;
        snprintf(a->miss_keys[at], sizeof a->miss_keys[at], "%s", key);
        a->miss_seqs[at] = ++W.seq;
    }
    return rc;
}
static int sb_get(void *self, uint8_t **data, size_t *len, sc_object_info *info, const char *key) {
    return note_miss(self, key, sc_store_get(((sim_backend *)self)->inner, data, len, info, key));
}
static int sb_head(void *self, sc_object_info *info, const char *key) {
    return note_miss(self, key, sc_store_head(((sim_backend *)self)->inner, info, key));
}
static int sb_write(void *self, sc_store_op op, sc_object_info *info, const char *key,
                    const uint8_t *data, size_t len, const char *etag) {
    sim_backend *b = self;
    if (b->owner->upkeep == UPKEEP_EXPIRER && W.cfg->upkeep_bug == BUG_SKIP_EARLIEST &&
        strcmp(key, SC_EARLIEST_HINT_KEY) == 0) {
        vlog("task %d (broken expirer): drops its %s of %s", b->owner->index, sc_store_op_name(op), key);
        return 0; /* the broken expirer "forgets" to move EARLIEST */
    }
    if (b->owner->delay_next) {
        b->owner->delay_next = 0;
        return defer_write(b->owner, op, key, data, len, etag);
    }
    if (b->owner->resend_next) { /* lands now (the answered resend) and once more later */
        b->owner->resend_next = 0;
        int rc = apply_write(b->inner, op, info, key, data, len, etag);
        if (rc == 0) {
            note_event(key, EV_WRITE, b->owner->attempt);
            defer_write(b->owner, op, key, data, len, etag);
            sc_error_clear();
        }
        return rc;
    }
    int rc = apply_write(b->inner, op, info, key, data, len, etag);
    if (rc == 0) note_event(key, EV_WRITE, b->owner->attempt);
    return rc;
}
static int sb_put(void *self, sc_object_info *info, const char *key, const uint8_t *data,
                  size_t len) {
    int rc = sb_write(self, SC_OP_PUT, info, key, data, len, NULL);
    if (W.cfg->plain && info) info->mtime_ms = 0; /* an S3 PUT answer carries no Last-Modified */
    return rc;
}
/* A put the transport never sends twice: --resends' lost answer stays lost (its only copy
 * applied now, or still in flight), as S3 does for a request marked once. */
static int sb_put_once(void *self, sc_object_info *info, const char *key, const uint8_t *data,
                       size_t len) {
    sim_backend *b = self;
    int lost = b->owner->resend_next;
    b->owner->resend_next = 0;
    if (lost == 2) b->owner->delay_next = 1; /* sb_write leaves it in flight */
    int rc = sb_put(self, info, key, data, len);
    if (lost == 1 && rc == 0) {
        if (info) memset(info, 0, sizeof *info);
        vlog("task %d put_once %s: applied, answer lost (not sent again)", b->owner->index, key);
        rc = sc_error_set(SC_EUNKNOWN, "sim: the answer to put_once \"%s\" was lost", key);
    }
    return rc;
}
static int sb_put_if_absent(void *self, sc_object_info *info, const char *key,
                            const uint8_t *data, size_t len) {
    return sb_write(self, SC_OP_PUT_IF_ABSENT, info, key, data, len, NULL);
}
static int sb_put_if_match(void *self, sc_object_info *info, const char *key,
                           const uint8_t *data, size_t len, const char *etag) {
    return sb_write(self, SC_OP_PUT_IF_MATCH, info, key, data, len, etag);
}
static int sb_list(void *self, sc_list_page *out, const char *prefix, const char *start_after,
                   size_t max_keys) {
    return sc_store_list(((sim_backend *)self)->inner, out, prefix, start_after, max_keys);
}
/* Keep what an upkeep actor deletes (the first version of a key wins: a snapshot id
 * re-claimed after its expiration must not hide the original). No store operation
 * through a hook: the inner handle does not yield. */
static void bury(sc_store *inner, const char *key) {
    for (size_t i = 0; i < W.ngraves; i++)
        if (strcmp(W.graves[i].key, key) == 0) return;
    uint8_t *data = NULL;
    size_t len = 0;
    if (sc_store_get(inner, &data, &len, NULL, key) != 0) {
        sc_error_clear();
        return;
    }
    if (W.ngraves == W.cap_graves) {
        W.cap_graves = W.cap_graves ? W.cap_graves * 2 : 64;
        W.graves = realloc(W.graves, W.cap_graves * sizeof *W.graves);
        if (!W.graves) abort();
    }
    W.graves[W.ngraves++] = (grave){strdup(key), data, len};
}

static int sb_del(void *self, const char *key) {
    sim_backend *b = self;
    if (b->owner->upkeep) {
        bury(b->inner, key);
        if (b->owner->upkeep == UPKEEP_EXPIRER) W.expirer_deletes++;
    }
    sc_object_info oi;
    if (sc_store_head(b->inner, &oi, key) == 0) /* what goes, and who took it (the orphan rule) */
        note_event(key, b->owner->upkeep == UPKEEP_ORPHANS ? EV_DEL_ORPHANS : EV_DEL_OTHER, 0);
    else
        sc_error_clear();
    return sc_store_delete(b->inner, key);
}
static void sb_close(void *self) {
    sim_backend *b = self;
    sc_store_free(b->inner);
    free(b);
}

static sc_store_ops sim_ops = {
    .version = SC_STORE_OPS_VERSION,
    .name = "sim",
    .get = sb_get,
    .head = sb_head,
    .put = sb_put,
    .put_if_absent = sb_put_if_absent,
    .put_if_match = sb_put_if_match,
    .list = sb_list,
    .del = sb_del,
    .close = sb_close,
    .put_once = sb_put_once,
};

/* A store handle over the sim backend, owned by `a` (no fault hook). */
static int wrap_store(sc_store **out, actor *a) {
    sim_backend *b = calloc(1, sizeof *b);
    if (!b) return SC_ENOMEM;
    int rc = sc_store_open(&b->inner, "mem://" SIM_STORE);
    if (rc) {
        free(b);
        return rc;
    }
    b->owner = a;
    /* Half the schedules model a network store: commits send their independent requests
     * in batches, which the fault hook (the yield point) makes run one call at a time, in
     * orders drawn from the seed, with other actors running between them. */
    sim_ops.caps = sc_store_caps(b->inner) | (W.concurrent ? SC_CAP_CONCURRENT : 0);
    /* --plain-store: S3 with SNAPCOMMIT_S3_CONDITIONAL_WRITES=0 (no conditional caps: the
     * tracker's COMMIT-HINT is a plain put, so an overwrite shows as two documents). */
    if (W.cfg->plain) sim_ops.caps &= ~(unsigned)(SC_CAP_CONDITIONAL_CREATE | SC_CAP_COMPARE_AND_SWAP);
    /* --no-put-once: a version-3 table whose put_once is NULL, so the tracker's PRE_COMMIT and
     * commit file go through sb_put and --resends may re-stamp them (docs/tracker.md §8). */
    sim_ops.put_once = W.cfg->no_put_once ? NULL : sb_put_once;
    if ((rc = sc_store_wrap(out, &sim_ops, b)) != 0) sb_close(b);
    return rc;
}

/* A client's store handle: fault hook (the yield point) over the sim backend. */
static int open_store(sc_store **out, actor *a) {
    int rc = wrap_store(out, a);
    if (rc) return rc;
    sc_store_set_fault_hook(*out, fault_hook, a);
    sc_store_set_env(*out, sim_client_env()); /* the tables opened on it inherit it */
    return 0;
}

/* ---- sessions: one "process lifetime" of a client ---- */

static int open_session(sc_store **st, sc_table **t, actor *a) {
    *t = NULL;
    miss_reset(a);
    int rc = open_store(st, a);
    if (rc) {
        violate("opening mem://%s: %s", SIM_STORE, sc_error_message());
        return rc;
    }
    rc = sc_table_open(t, *st);
    if (rc) {
        sc_store_free(*st);
        *st = NULL;
        return rc;
    }
    if (W.cfg->strategy == SIM_STRATEGY_NAIVE) sim_use_naive(*t);
    (*t)->watermark_inline_users = W.inline_watermarks;
    return 0;
}

static void close_session(sc_store *st, sc_table *t) {
    sc_table_free(t);
    sc_store_free(st);
}

static int build_changes(sc_changes **out, const item *it) {
    int rc = sc_changes_new(out);
    if (rc) return rc;
    sc_file_entry e = {.file = it->add, .rows = 1, .size = 100}; /* an unpartitioned, bucket-unaware table */
    if (it->del[0]) {
        sc_file_entry d = e;
        d.file = it->del;
        rc = sc_changes_delete(*out, &d);
    }
    if (!rc) rc = sc_changes_add(*out, &e);
    return rc;
}

static void record_ack(actor *c, int64_t ident, uint64_t snapshot, int committed) {
    if (W.nacks == MAX_RECORDS) {
        violate("more than %d acknowledgements", MAX_RECORDS);
        return;
    }
    W.acks[W.nacks++] = (ack){c->index, ident, snapshot, committed};
}

/* The data file a commit names, written through the client's (faulty) store first. The
 * table is unpartitioned and bucket-unaware: its files live in bucket-0/ (readers and the
 * checks locate them with sc_table_file_path). */
static int write_data_file(sc_store *st, actor *c, const char *file) {
    char key[64];
    snprintf(key, sizeof key, "bucket-0/%s", file);
    /* A replay writes the same name again. If the old object is already older than the
     * orphan limit, a remover that judged its age just before may delete the new one (the
     * store has no conditional delete): outside the rule, which assumes fresh names. */
    sc_store *plain;
    if (sc_store_open(&plain, "mem://" SIM_STORE) == 0) {
        sc_object_info oi;
        if (sc_store_head(plain, &oi, key) == 0 && oi.mtime_ms < sim_now_ms() - W.orphan_ms) {
            W.name_reused = 1;
            if (c->attempt > 0) W.attempts[c->attempt].reused = 1;
        }
        sc_error_clear();
        sc_store_free(plain);
    }
    return sc_store_put(st, NULL, key, (const uint8_t *)file, strlen(file));
}

static int is_missing(int rc) { return rc == SC_ENOTFOUND || rc == SC_ECORRUPT; }

/*
 * A client's call (filter, planning read, commit) that failed saying an object is missing:
 * on a table kept sound, an expiration that ran between its reads is a race the library
 * retries or reports as such (docs/protocols.md §13), never as damage. A violation in any
 * phase (the orphan rule may still excuse a table that was broken outside it).
 */
static void client_missing(const actor *c, int rc, const char *what) {
    if (is_missing(rc) && !c->dead && !sim_sched_killed())
        violate("client %s: %s failed with %s on a sound table: %s", c->user, what, sc_error_name(rc),
                sc_error_message());
}

/* *base = the latest snapshot when `file` is live in it, else 0 (unknown). */
static int plan_base(uint64_t *base, sc_table *t, const char *file) {
    uint64_t latest = 0;
    sc_file_list *files = NULL;
    *base = 0;
    int rc = sc_table_latest_id(&latest, t);
    if (rc || latest == 0) return rc;
    if ((rc = sc_table_files(&files, t, latest)) != 0) return rc;
    for (size_t i = 0; i < files->count; i++)
        if (strcmp(files->entries[i].file, file) == 0) *base = latest;
    sc_file_list_free(files);
    vlog("task %d plans its compaction against snapshot %" PRIu64, sim_current(), *base);
    return 0;
}

/* Returns 1 when the session did all its work, 0 when it failed over. */
static int run_session(actor *c, int phase) {
    sc_store *st;
    sc_table *t;
    int rc = open_session(&st, &t, c);
    if (rc) {
        if (phase == 1 && !c->dead)
            violate("client %s could not open the table once faults stopped: %s", c->user,
                    sc_error_name(rc));
        return 0;
    }
    sc_retry_policy policy;
    /* The library's default: no count limit, loser-first waits, a 60 s commit budget, all in
     * virtual time (stalls of 20-90 s make commits run out of it while faults last). */
    sc_retry_policy_default(&policy);
    if (phase == 1) { /* without faults every commit must end: a count, no budget */
        policy.max_retries = 1000;
        policy.timeout_ms = 0;
    }
    sc_table_set_retry_policy(t, &policy);

    int64_t ids[MAX_ITEMS], pending[MAX_ITEMS];
    size_t npending = 0;
    for (int i = 0; i < c->nitems; i++) ids[i] = c->items[i].ident;
    miss_reset(c);
    rc = sc_table_filter_committed(pending, &npending, t, c->user, ids, (size_t)c->nitems);
    int complete = 0;
    if (rc) {
        client_missing(c, rc, "filter_committed");
        if (phase == 1 && !c->dead)
            violate("client %s: filter_committed failed once faults stopped: %s", c->user,
                    sc_error_name(rc));
        goto out;
    }
    for (int i = 0; i < c->nitems; i++) {
        item *it = &c->items[i];
        int is_pending = 0;
        for (size_t j = 0; j < npending; j++) is_pending |= pending[j] == it->ident;
        if (!is_pending && !it->done) {
            it->done = 1;
            it->outcome = OUT_FILTERED;
        }
    }
    for (int i = 0; i < c->nitems; i++) {
        item *it = &c->items[i];
        if (it->done) continue;
        if (c->zombie && c->woke) break; /* finished the commit it was in: gone */
        sc_changes *ch;
        if ((rc = build_changes(&ch, it)) != 0) {
            violate("building changes: %s", sc_error_message());
            goto out;
        }
        /* A compaction is planned against the snapshot it read, when its input was
         * live there (the engine then checks only what was committed since). */
        uint64_t base = 0;
        miss_reset(c);
        if (it->kind == SC_KIND_COMPACT && (rc = plan_base(&base, t, it->del)) != 0) {
            sc_changes_free(ch);
            client_missing(c, rc, "reading the table to plan a compaction");
            if (phase == 1 && !c->dead)
                violate("client %s: reading the table to plan a compaction failed once faults "
                        "stopped: %s", c->user, sc_error_name(rc));
            goto out;
        }
        /* With upkeep actors the data file exists: the orphan remover and the expirer
         * delete real objects, and readers check that what they read is there. */
        int64_t started = sim_now_ms();
        c->commit_started = started;
        c->attempt = begin_attempt();
        miss_reset(c);
        if (W.cfg->upkeep && (rc = write_data_file(st, c, it->add)) != 0) {
            extend_attempt(c->attempt);
            c->attempt = 0;
            sc_changes_free(ch);
            if (phase == 1 && !c->dead)
                violate("client %s: writing data file %s failed once faults stopped: %s", c->user,
                        it->add, sc_error_name(rc));
            goto out;
        }
        sc_commit_result res;
        if (it->ident % 3 == 0) {
            /* Every third identifier goes through the checkpoint entry point, as that part of a
             * checkpoint (the other part empty: one snapshot, so the model is the same), with an
             * event-time watermark. */
            int compact = it->kind == SC_KIND_COMPACT;
            sc_checkpoint_request creq = {c->user, it->ident, base, 1, it->ident * 1000, compact ? NULL : ch,
                                          compact ? ch : NULL, SC_OVERWRITE_NONE, NULL};
            sc_checkpoint_result cres;
            rc = sc_table_commit_checkpoint(&cres, t, &creq);
            res = compact ? cres.compact : cres.append;
            if (!compact && rc == 0 && cres.append_kind != it->kind)
                violate("checkpoint %s/%" PRId64 ": its append part is labelled %s", c->user, it->ident,
                        sc_commit_kind_name(cres.append_kind));
        } else {
            sc_commit_request req = {c->user, it->ident, it->kind, base, ch};
            rc = sc_table_commit(&res, t, &req);
        }
        sc_changes_free(ch);
        if (sim_now_ms() - started > W.longest_commit_ms) W.longest_commit_ms = sim_now_ms() - started;
        c->commit_started = 0;
        extend_attempt(c->attempt);
        c->attempt = 0;
        W.n.commits_called++;
        W.n.lost_claims += (uint64_t)res.lost_claims;
        W.n.unknown += (uint64_t)res.unknown_outcomes;
        sim_hash_u64(&W.trace, (uint64_t)(int64_t)rc);
        sim_hash_u64(&W.trace, res.snapshot_id);
        vlog("task %d commit %s/%" PRId64 " (%s) -> %s snapshot %" PRIu64 " existing %" PRIu64
             " attempts %d lost %d unknown %d%s",
             c->index, c->user, it->ident, sc_commit_kind_name(it->kind), sc_error_name(rc),
             res.snapshot_id, res.existing_snapshot, res.attempts, res.lost_claims,
             res.unknown_outcomes, c->dead ? " (crashed: nobody sees this)" : "");
        if (c->dead || sim_sched_killed()) goto out; /* the process is gone: no acknowledgement */
        if (rc == 0) {
            W.n.acks++;
            record_ack(c, it->ident, res.snapshot_id, 1);
            it->done = 1;
            it->outcome = 0;
        } else if (rc == SC_ECOMMITTED) {
            if (res.existing_snapshot) record_ack(c, it->ident, res.existing_snapshot, 0);
            it->done = 1;
            it->outcome = SC_ECOMMITTED;
        } else if (rc == SC_ECONFLICT) {
            W.n.conflicts++;
            if (it->kind == SC_KIND_APPEND)
                violate("append %s/%" PRId64 " reported a conflict: %s", c->user, it->ident,
                        sc_error_message());
            it->done = 1;
            it->outcome = SC_ECONFLICT;
        } else {
            /* I/O error, unknown outcome, retries exhausted: the job fails over and replays. */
            client_missing(c, rc, "commit");
            if (phase == 1)
                violate("client %s: commit of identifier %" PRId64
                        " returned %s after faults stopped: %s",
                        c->user, it->ident, sc_error_name(rc), sc_error_message());
            goto out;
        }
    }
    complete = 1;
out:
    close_session(st, t);
    return complete;
}

static int all_done(const actor *c) {
    for (int i = 0; i < c->nitems; i++)
        if (!c->items[i].done) return 0;
    return 1;
}

static void client_phase(actor *c, int phase) {
    for (int sessions = 0; !all_done(c) && !sim_sched_killed(); sessions++) {
        if (c->zombie && c->woke) return;
        if (c->dead) {
            if (phase == 0 && !c->restart_early) return; /* down until the faults stop */
            if (phase == 0) sim_sleep(c->downtime_ms);
            c->dead = 0;
            vlog("task %d RESTARTS", c->index);
        }
        if (sessions == SESSIONS_PER_PHASE) {
            if (phase == 1)
                violate("client %s did not complete its work once faults stopped", c->user);
            return;
        }
        if (run_session(c, phase)) return;
        if (phase == 1 && W.violated) return;
    }
}

static void client_main(void *arg) {
    actor *c = arg;
    if (c->zombie) { /* its successor finishes the work */
        client_phase(c, 0);
        c->finished = 1;
        W.clients_phase0--;
        return;
    }
    if (c->twin >= 0) { /* a successor starts once its zombie is declared dead */
        const actor *z = &W.actors[c->twin];
        while (!z->stalled && !z->finished && !sim_sched_killed()) sim_sleep(100);
        sim_sleep(c->downtime_ms);
        vlog("task %d starts as the successor of task %d", c->index, c->twin);
    }
    client_phase(c, 0);
    W.clients_phase0--;
    sim_barrier();
    c->dead = 0; /* a client still down restarts now */
    client_phase(c, 1);
    W.clients_phase1--;
    if (!all_done(c) && !sim_sched_killed() && !W.violated)
        violate("client %s ended with work left once faults stopped", c->user);
}

/* ---- readers ---- */

static uint64_t fingerprint_names(const char **names, size_t count) {
    /* Order-independent: sum of per-name hashes plus the count. */
    uint64_t sum = count;
    for (size_t i = 0; i < count; i++) {
        uint64_t h = SIM_HASH_INIT;
        sim_hash_bytes(&h, names[i], strlen(names[i]));
        sum += h * 0x9e3779b97f4a7c15ull;
    }
    return sum;
}

static uint64_t fingerprint_list(const sc_file_list *l) {
    const char *names[MAX_RECORDS * 2];
    size_t n = l->count < MAX_RECORDS * 2 ? l->count : MAX_RECORDS * 2;
    for (size_t i = 0; i < n; i++) names[i] = l->entries[i].file;
    return fingerprint_names(names, n) + (l->count - n);
}

static int client_of_user(const char *user) {
    for (int i = 0; i < W.nclients; i++)
        if (strcmp(W.actors[i].user, user) == 0) return i;
    return -1;
}

static void record_obs(uint64_t id, int client, int64_t ident, uint64_t fp, int rc) {
    if (W.nobs < MAX_RECORDS) W.obs[W.nobs++] = (reader_obs){id, client, ident, fp, rc};
}

/* snapshot/EARLIEST as it is now, read without yielding (a handle without the hook): 1 when absent. */
static uint64_t earliest_now(void) {
    sc_store *st;
    uint64_t id = 1;
    if (sc_store_open(&st, "mem://" SIM_STORE) != 0) return 1;
    uint8_t *data = NULL;
    size_t len = 0;
    if (sc_store_get(st, &data, &len, NULL, SC_EARLIEST_HINT_KEY) == 0) {
        if (sc_hint_parse(&id, data, len) != 0) id = 1;
        free(data);
    }
    sc_error_clear();
    sc_store_free(st);
    return id;
}

/* A reader's failure with upkeep running: clean (I/O, unknown), or a snapshot that expired
 * under it (outside the retention window by then), or a violation. */
static void reader_failed(uint64_t id, uint64_t k, int rc, const char *what) {
    if (!is_missing(rc)) {
        record_obs(id, -1, 0, 0, rc);
        return;
    }
    uint64_t e = earliest_now();
    /* Expired under the reader is SC_ENOTFOUND ("expired"), never damage. */
    if (id < e && rc == SC_ENOTFOUND) {
        W.n.reads_expired++;
        record_obs(id, -1, 0, 0, OBS_EXPIRED);
        vlog("task %d: snapshot %" PRIu64 " expired while it was read (EARLIEST %" PRIu64 ")", sim_current(), id, e);
        return;
    }
    if (id < e) {
        violate("a reader of snapshot %" PRIu64 " (latest-%" PRIu64 ", expired under it: EARLIEST is %" PRIu64
                ") reported damage: %s: %s: %s",
                id, k, e, what, sc_error_name(rc), sc_error_message());
        return;
    }
    violate("a reader of snapshot %" PRIu64 " (latest-%" PRIu64 ", inside the retention window: EARLIEST is %" PRIu64
            ") hit a missing object: %s: %s",
            id, k, e, what, sc_error_name(rc));
}

/* With upkeep actors: read latest-k (k < retain_min, inside the retention window) and check
 * that every object it needs is there, data files included. */
static void reader_upkeep_main(actor *r) {
    sc_store *st = NULL;
    sc_table *t = NULL;
    for (int i = 0; i < r->nreads && !sim_sched_killed(); i++) {
        if (!t && open_session(&st, &t, r) != 0) continue;
        uint64_t latest = 0;
        miss_reset(r);
        int rc = sc_table_latest_id(&latest, t);
        if (rc) {
            if (is_missing(rc)) reader_failed(UINT64_MAX, 0, rc, "finding the latest snapshot");
            continue;
        }
        if (latest == 0) continue;
        uint64_t k = sim_rng_below(sim_sched_rng(), (uint32_t)W.xo.retain_min);
        uint64_t id = latest > k ? latest - k : 1;
        sc_snapshot_info *info = NULL;
        sc_file_list *files = NULL;
        miss_reset(r);
        if ((rc = sc_table_snapshot_info(&info, t, id)) != 0) {
            reader_failed(id, k, rc, "snapshot info");
            continue;
        }
        sim_sleep(sim_rng_below(sim_sched_rng(), 200)); /* a reader takes its time */
        miss_reset(r);
        if ((rc = sc_table_files(&files, t, id)) != 0) {
            reader_failed(id, k, rc, "its files");
            sc_snapshot_info_free(info);
            continue;
        }
        sim_sleep(sim_rng_below(sim_sched_rng(), 200)); /* commits and expirations go on meanwhile */
        for (size_t f = 0; !rc && f < files->count; f++) {
            char *key = NULL;
            sc_object_info oi;
            miss_reset(r);
            if ((rc = sc_table_file_path(&key, t, &files->entries[f])) == 0 && (rc = sc_store_head(st, &oi, key)) != 0)
                reader_failed(id, k, rc, key);
            free(key);
        }
        if (!rc) {
            W.n.reads++;
            record_obs(id, client_of_user(info->commit_user), info->commit_identifier, fingerprint_list(files), 0);
            vlog("task %d READ snapshot %" PRIu64 " = latest-%" PRIu64 " (%s/%" PRId64 ", %zu files, data present)",
                 r->index, id, k, info->commit_user, info->commit_identifier, files->count);
        }
        sc_file_list_free(files);
        sc_snapshot_info_free(info);
    }
    if (t) close_session(st, t);
}

static void reader_main(void *arg) {
    actor *r = arg;
    if (W.cfg->upkeep) {
        reader_upkeep_main(r);
        return;
    }
    sc_store *st = NULL;
    sc_table *t = NULL;
    for (int i = 0; i < r->nreads && !sim_sched_killed(); i++) {
        if (!t && open_session(&st, &t, r) != 0) continue;
        uint64_t latest = 0;
        if (sc_table_latest_id(&latest, t) != 0 || latest == 0) continue;
        sc_snapshot_info *info = NULL;
        int rc = sc_table_snapshot_info(&info, t, latest);
        if (rc) {
            record_obs(latest, -1, 0, 0, rc);
            continue;
        }
        sc_file_list *files = NULL;
        rc = sc_table_files(&files, t, latest);
        if (rc) {
            record_obs(latest, -1, 0, 0, rc);
        } else {
            if (files->count != info->file_count)
                violate("reader: snapshot %" PRIu64 " says %" PRIu64 " files but lists %zu",
                        latest, info->file_count, files->count);
            record_obs(latest, client_of_user(info->commit_user), info->commit_identifier,
                       fingerprint_list(files), 0);
            vlog("task %d READ snapshot %" PRIu64 " (%s/%" PRId64 ", %zu files)", r->index, latest,
                 info->commit_user, info->commit_identifier, files->count);
        }
        sc_file_list_free(files);
        sc_snapshot_info_free(info);
    }
    if (t) close_session(st, t);
}

/* ---- upkeep actors: an expirer and an orphan remover, running with the clients ---- */

static int file_strategy(void) {
    return W.cfg->strategy == SC_STRATEGY_RENAME || W.cfg->strategy == SC_STRATEGY_CONDITIONAL ||
           W.cfg->strategy == SIM_STRATEGY_NAIVE;
}

/* The broken expirer of --upkeep-bug delete-retained: after a run that expired
 * something, it also deletes the base manifest list of the first retained snapshot.
 * The broken orphan remover of --upkeep-bug orphans-delete-latest: once a commit has
 * outlasted older-than, it also deletes the latest snapshot's base manifest list after
 * each run — in a schedule outside the orphan rule, an object of a commit within it. */
static void delete_a_retained_list(sc_store *st, sc_table *t, int latest) {
    uint64_t e = 0;
    sc_snapshot s;
    int rc = latest ? sc_table_latest_id(&e, t) : sc_table_earliest_id(&e, t);
    if (rc != 0 || e == 0 || sc_table_read_snapshot(&s, NULL, t, e) != 0) {
        sc_error_clear();
        return;
    }
    char key[SC_MANIFEST_PATH_MAX + 16];
    sc_manifest_key(key, sizeof key, s.base_manifest_list.name);
    vlog("task %d (broken %s): deletes %s of retained snapshot %" PRIu64, sim_current(), latest ? "orphan remover" : "expirer",
         key, e);
    (void)sc_store_delete(st, key);
    sc_snapshot_clear(&s);
}

/* One run. *expired gets the snapshots it expired. Returns the library's code. */
static int upkeep_once(actor *u, int phase, uint64_t *expired) {
    sc_store *st;
    sc_table *t;
    *expired = 0;
    int rc = open_session(&st, &t, u);
    if (rc) {
        if (phase == 1) violate("%s could not open the table once faults stopped: %s", u->user, sc_error_name(rc));
        return rc;
    }
    if (u->upkeep == UPKEEP_EXPIRER) {
        sc_expire_result r;
        miss_reset(u);
        rc = sc_table_expire(&r, t, &W.xo);
        W.n.expire_runs++;
        *expired = r.snapshots_expired;
        W.n.snapshots_expired += r.snapshots_expired;
        W.n.expired_data += r.data_files_deleted;
        W.n.expired_meta += r.manifests_deleted + r.manifest_lists_deleted;
        vlog("task %d EXPIRE -> %s: earliest %" PRIu64 " -> %" PRIu64 " (latest %" PRIu64 "), %" PRIu64
             " snapshots, %" PRIu64 " data files, %" PRIu64 " manifests, %" PRIu64 " lists, %" PRIu64 " already gone",
             u->index, sc_error_name(rc), r.earliest_before, r.earliest_after, r.latest, r.snapshots_expired,
             r.data_files_deleted, r.manifests_deleted, r.manifest_lists_deleted, r.already_gone);
        if (rc && rc != SC_EUNSUPPORTED) vlog("task %d EXPIRE failed: %s", u->index, sc_error_message());
        if (!file_strategy()) {
            /* head and tracker: refused before any request, nothing touched */
            if (rc != SC_EUNSUPPORTED)
                violate("expire on a %s table returned %s, not SC_EUNSUPPORTED", strategy_label(W.cfg->strategy),
                        sc_error_name(rc));
            W.n.expire_refused++;
        } else if (rc) {
            W.n.expire_failed++;
            if (phase == 1) violate("expire failed once faults stopped: %s", sc_error_message());
        } else if (W.cfg->upkeep_bug == BUG_DELETE_RETAINED && r.snapshots_expired) {
            delete_a_retained_list(st, t, 0);
        }
    } else {
        sc_orphans_options o;
        sc_orphans_options_init(&o);
        o.older_than_ms = W.orphan_ms;
        o.force = 1; /* ages of virtual ms, judged against the longest commit the run saw */
        sc_orphans_result r;
        rc = sc_table_remove_orphans(&r, t, &o);
        W.n.orphan_runs++;
        if (rc) W.n.orphan_failed++;
        W.n.orphans_deleted += r.data_files_deleted + r.manifests_deleted + r.index_files_deleted + r.other_deleted;
        vlog("task %d REMOVE-ORPHANS (older than %" PRId64 " ms) -> %s: %" PRIu64 " listed, %" PRIu64
             " unreferenced, %" PRIu64 " too young, %" PRIu64 " data files, %" PRIu64 " manifests, %" PRIu64 " other%s%s",
             u->index, W.orphan_ms, sc_error_name(rc), r.objects_listed, r.orphans_found, r.too_young,
             r.data_files_deleted, r.manifests_deleted, r.other_deleted, rc ? ": " : "", rc ? sc_error_message() : "");
        if (rc && phase == 1) W.n.orphan_failed_clean++;
        if (W.cfg->upkeep_bug == BUG_ORPHANS_DELETE_LATEST && W.longest_commit_ms >= W.orphan_ms)
            delete_a_retained_list(st, t, 1);
        /* A run that meets a concurrent expiration mid-read fails closed (SC_ECORRUPT naming
         * the snapshot that went): counted, not a violation; the end checks judge what it deleted. */
    }
    sc_error_clear();
    close_session(st, t);
    return rc;
}

static void upkeep_main(void *arg) {
    actor *u = arg;
    uint32_t period = u->upkeep == UPKEEP_EXPIRER ? 100 : 400; /* ms of virtual time between runs, at most */
    /* Runs per phase, at most: a stall of 90 s would otherwise mean a thousand idle runs. */
    int budget = u->upkeep == UPKEEP_EXPIRER ? 40 : 15;
    uint64_t expired;
    for (int runs = 0; W.clients_phase0 > 0 && !sim_sched_killed();) {
        sim_sleep(runs < budget ? 1 + sim_rng_below(sim_sched_rng(), period) : 1000);
        if (runs < budget && W.clients_phase0 > 0 && !sim_sched_killed()) upkeep_once(u, 0, &expired), runs++;
    }
    sim_barrier();
    for (int runs = 0; W.clients_phase1 > 0 && !sim_sched_killed();) {
        sim_sleep(runs < budget ? 1 + sim_rng_below(sim_sched_rng(), period) : 1000);
        if (runs < budget && W.clients_phase1 > 0 && !sim_sched_killed()) upkeep_once(u, 1, &expired), runs++;
    }
    if (sim_sched_killed()) return;
    /* Every client is done: expire until nothing more goes (the retention bound is then checked). */
    if (u->upkeep == UPKEEP_EXPIRER) {
        int ok = file_strategy();
        for (int i = 0; ok && i < 50; i++) {
            if (upkeep_once(u, 1, &expired) != 0) ok = 0;
            else if (!expired) break;
        }
        W.final_expire_ok = ok;
    } else {
        upkeep_once(u, 1, &expired);
    }
}

/* ---- invariants, checked after every schedule ---- */

typedef struct chain_entry {
    int client;
    int item;
    uint64_t fingerprint; /* expected live files after this snapshot */
} chain_entry;

static int live_find(const char **live, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(live[i], name) == 0) return (int)i;
    return -1;
}

/*
 * Triage for an acknowledged snapshot beyond the latest: is it lost, or only
 * not yet visible? Commit once more (as another user) and look again. Runs
 * after the violation is certain; the note goes into the report.
 */
static char diagnosis[200];
static void diagnose_invisible(sc_table *t, const ack *a, const char *user) {
    sc_changes *ch = NULL;
    item probe = {SC_KIND_APPEND, 1, "data-probe", "", 0, 0};
    sc_snapshot_info *info = NULL;
    if (build_changes(&ch, &probe) != 0) return;
    sc_commit_request req = {"probe", 1, SC_KIND_APPEND, 0, ch};
    sc_commit_result res;
    int rc = sc_table_commit(&res, t, &req);
    sc_changes_free(ch);
    int visible = rc == 0 && sc_table_snapshot_info(&info, t, a->snapshot) == 0 &&
                  strcmp(info->commit_user, user) == 0 && info->commit_identifier == a->ident;
    snprintf(diagnosis, sizeof diagnosis,
             "; after one more commit (%s, snapshot %" PRIu64 ") it is %s", sc_error_name(rc),
             res.snapshot_id, visible ? "there: acknowledged before it was visible" : "still missing");
    sc_snapshot_info_free(info);
}

/*
 * With upkeep actors, first the table as they left it: fsck; every retained snapshot
 * (EARLIEST .. latest) reads whole and its data files exist; replay filtering still
 * finds every acknowledged commit; the retention bound holds after the final runs;
 * head and tracker tables were not touched by the (refused) expirer.
 */
/*
 * Opens the table as a fresh client at the end of a schedule and reads its
 * latest and earliest ids; a failure is a violation (`when` names the check).
 * 0 with *out_store and *out_table set, -1 when the caller stops (anything
 * opened is then freed).
 */
static int open_final_table(sc_store **out_store, sc_table **out_table, uint64_t *out_latest, uint64_t *out_earliest,
                            const char *when) {
    sc_store *st = NULL;
    sc_table *t = NULL;
    *out_store = NULL;
    *out_table = NULL;
    miss_reset(&W.checker);
    if (wrap_store(&st, &W.checker) != 0 || sc_store_set_env(st, sim_client_env()) != 0 ||
        sc_table_open(&t, st) != 0) {
        violate("the table cannot be opened at the end%s: %s", when, sc_error_message());
        sc_store_free(st);
        return -1;
    }
    if (W.cfg->strategy == SIM_STRATEGY_NAIVE) sim_use_naive(t);
    t->watermark_inline_users = W.inline_watermarks;
    *out_latest = *out_earliest = 0;
    int rc = sc_table_latest_id(out_latest, t);
    if (!rc) rc = sc_table_earliest_id(out_earliest, t);
    if (rc) {
        violate("latest/earliest%s: %s", when, sc_error_message());
        sc_table_free(t);
        sc_store_free(st);
        return -1;
    }
    *out_store = st;
    *out_table = t;
    return 0;
}

static void check_upkeep_table(void) {
    sc_store *st = NULL;
    sc_table *t = NULL;
    uint64_t latest = 0, earliest = 0;
    if (open_final_table(&st, &t, &latest, &earliest, " (upkeep)") != 0) return;
    int rc = 0;
    miss_reset(&W.checker);
    if (sc_table_fsck(t, NULL, NULL) != 0) violate("fsck after upkeep: %s", sc_error_message());
    for (uint64_t id = earliest; latest && id <= latest && !W.violated; id++) {
        sc_file_list *files = NULL;
        miss_reset(&W.checker);
        if ((rc = sc_table_files(&files, t, id)) != 0) {
            violate("retained snapshot %" PRIu64 " (history %" PRIu64 "..%" PRIu64 ") does not read: %s", id, earliest,
                    latest, sc_error_message());
            break;
        }
        for (size_t f = 0; f < files->count; f++) {
            char *key = NULL;
            sc_object_info oi;
            miss_reset(&W.checker);
            if (sc_table_file_path(&key, t, &files->entries[f]) != 0 || sc_store_head(st, &oi, key) != 0)
                violate("retained snapshot %" PRIu64 " names data file %s, which is gone", id,
                        key ? key : files->entries[f].file);
            free(key);
        }
        sc_file_list_free(files);
    }
    for (int i = 0; i < W.nacks; i++) {
        const ack *a = &W.acks[i];
        int64_t pending[1];
        size_t npending = 0;
        miss_reset(&W.checker);
        rc = sc_table_filter_committed(pending, &npending, t, W.actors[a->client].user, &a->ident, 1);
        if (rc || npending)
            violate("replay filtering of acknowledged (%s, %" PRId64 ") (snapshot %" PRIu64 ", history now %" PRIu64
                    "..%" PRIu64 ") answers %s",
                    W.actors[a->client].user, a->ident, a->snapshot, earliest, latest,
                    rc ? sc_error_name(rc) : "not committed");
    }
    miss_reset(&W.checker); /* what follows names no missing object */
    if (W.final_expire_ok && latest && latest - earliest + 1 > W.xo.retain_max)
        violate("%" PRIu64 " snapshots retained after the final expiration, retain-max is %" PRIu64,
                latest - earliest + 1, W.xo.retain_max);
    if (!file_strategy() && W.expirer_deletes)
        violate("the refused expirer deleted %" PRIu64 " objects", W.expirer_deletes);
    sc_table_free(t);
    sc_store_free(st);
}

/* Put back what the upkeep actors deleted and forget EARLIEST: history is whole again,
 * and the checks below judge every commit of the schedule from snapshot 1. */
static void restore_history(void) {
    sc_store *st = NULL;
    if (sc_store_open(&st, "mem://" SIM_STORE) != 0) abort();
    for (size_t i = 0; i < W.ngraves; i++)
        if (sc_store_put(st, NULL, W.graves[i].key, W.graves[i].data, W.graves[i].len) != 0) abort();
    (void)sc_store_delete(st, SC_EARLIEST_HINT_KEY);
    sc_error_clear();
    sc_store_free(st);
}

/* An object whose mtime the tracker judges: a PRE_COMMIT or a commit file (not COMMIT-HINT). */
static int judged_by_mtime(const char *key) {
    return strstr(key, "/PRE_COMMIT-") || (strstr(key, "/COMMIT-") && !strstr(key, "/COMMIT-HINT"));
}

/* The tracker sends those with put_once: each lands at most once, so nobody's verdict on a pair
 * can be overtaken by a later copy (docs/tracker.md §8). A second landing is a violation even
 * when the history survived it. */
static void check_written_once(void) {
    for (size_t i = 0; i < W.nevents; i++) {
        const key_event *e = &W.events[i];
        if (e->what != EV_WRITE || !judged_by_mtime(e->key)) continue;
        for (size_t j = i + 1; j < W.nevents; j++)
            if (W.events[j].what == EV_WRITE && strcmp(W.events[j].key, e->key) == 0) {
                violate("%s landed twice (store events %" PRIu64 " and %" PRIu64
                        "): a later copy moved its mtime",
                        e->key, e->seq, W.events[j].seq);
                return;
            }
    }
}

static void check_world(void) {
    sc_store *st = NULL;
    sc_table *t = NULL;
    W.checking = 1;
    if (W.cfg->upkeep) {
        check_upkeep_table();
        restore_history();
    }
    W.checking_history = 1; /* from here: lost, doubled or misplaced commits */
    if (W.cfg->strategy == SC_STRATEGY_TRACKER && !W.cfg->no_put_once) check_written_once();
    uint64_t latest = 0, earliest = 0;
    if (open_final_table(&st, &t, &latest, &earliest, "") != 0) return;
    int rc = 0;
    if (latest > MAX_SNAPSHOTS) {
        violate("%" PRIu64 " snapshots for at most %d commits: something committed twice", latest,
                MAX_SNAPSHOTS);
        goto out;
    }
    if (latest && earliest != 1) {
        violate("snapshot ids not contiguous from 1: earliest is %" PRIu64, earliest);
        goto out;
    }
    chain_entry chain[MAX_SNAPSHOTS + 1];
    int seen_at[MAX_CLIENTS][MAX_ITEMS] = {{0}};
    const char *live[MAX_SNAPSHOTS * 2];
    size_t nlive = 0;
    for (uint64_t id = 1; id <= latest; id++) {
        sc_snapshot_info *info = NULL;
        if ((rc = sc_table_snapshot_info(&info, t, id)) != 0) {
            violate("snapshot ids not contiguous: snapshot %" PRIu64 " of %" PRIu64 ": %s", id,
                    latest, sc_error_message());
            goto out;
        }
        int c = client_of_user(info->commit_user), k = -1;
        for (int i = 0; c >= 0 && i < W.actors[c].nitems; i++)
            if (W.actors[c].items[i].ident == info->commit_identifier) k = i;
        if (k < 0) {
            violate("snapshot %" PRIu64 " holds (%s, %" PRId64 "), which nobody committed", id,
                    info->commit_user, info->commit_identifier);
            sc_snapshot_info_free(info);
            goto out;
        }
        if (seen_at[c][k]) {
            violate("(user, identifier) (%s, %" PRId64 ") committed twice: snapshots %d and %" PRIu64,
                    info->commit_user, info->commit_identifier, seen_at[c][k], id);
            sc_snapshot_info_free(info);
            goto out;
        }
        seen_at[c][k] = (int)id;
        const item *it = &W.actors[c].items[k];
        if (it->del[0]) {
            int at = live_find(live, nlive, it->del);
            if (at < 0) {
                violate("snapshot %" PRIu64 " deletes %s, which was not live", id, it->del);
                sc_snapshot_info_free(info);
                goto out;
            }
            live[at] = live[--nlive];
        }
        if (live_find(live, nlive, it->add) >= 0) {
            violate("snapshot %" PRIu64 " adds %s, which was already live", id, it->add);
            sc_snapshot_info_free(info);
            goto out;
        }
        live[nlive++] = it->add;
        if (info->file_count != nlive)
            violate("snapshot %" PRIu64 " records %" PRIu64 " live files, adds minus deletes are %zu",
                    id, info->file_count, nlive);
        chain[id] = (chain_entry){c, k, fingerprint_names(live, nlive)};
        sc_snapshot_info_free(info);
    }
    sc_snapshot_info *beyond = NULL;
    if (latest && sc_table_snapshot_info(&beyond, t, latest + 1) != SC_ENOTFOUND)
        violate("snapshot %" PRIu64 " exists beyond the latest %" PRIu64, latest + 1, latest);
    sc_snapshot_info_free(beyond);
    if (latest) {
        sc_file_list *files = NULL;
        if ((rc = sc_table_files(&files, t, latest)) != 0)
            violate("files of the latest snapshot %" PRIu64 ": %s", latest, sc_error_message());
        else if (fingerprint_list(files) != chain[latest].fingerprint)
            violate("live files of snapshot %" PRIu64 " (%zu) differ from adds minus deletes (%zu)",
                    latest, files->count, nlive);
        sc_file_list_free(files);
    }
    /* Every acknowledged commit is present, where it was reported. */
    for (int i = 0; i < W.nacks; i++) {
        const ack *a = &W.acks[i];
        const actor *c = &W.actors[a->client];
        if (a->snapshot == 0 || a->snapshot > latest ||
            strcmp(W.actors[chain[a->snapshot].client].user, c->user) != 0 ||
            W.actors[chain[a->snapshot].client].items[chain[a->snapshot].item].ident != a->ident) {
            if (!W.violated && a->snapshot > latest) diagnose_invisible(t, a, c->user);
            violate("%s commit (%s, %" PRId64 ") at snapshot %" PRIu64 " is not there (latest %" PRIu64
                    ")%s",
                    a->committed ? "acknowledged" : "SC_ECOMMITTED-reported", c->user, a->ident,
                    a->snapshot, latest, diagnosis);
            diagnosis[0] = '\0';
        }
    }
    /* Once faults stopped, every client finished: everything it did not give up is there once. */
    for (int n = 0; n < W.nactors; n++) {
        const actor *a = &W.actors[n];
        int c = client_of_user(a->user);
        if (a->zombie || a->is_reader || c < 0) continue;
        for (int k = 0; k < a->nitems; k++) {
            const item *it = &a->items[k];
            if (!it->done) continue; /* reported already */
            /* With a zombie twin, the zombie may commit what its successor found in
             * conflict earlier (the file it deletes became live meanwhile): nothing
             * fences an old incarnation, and that is allowed. */
            if (it->outcome == SC_ECONFLICT && seen_at[c][k] && !W.actors[c].zombie)
                violate("(%s, %" PRId64 ") reported a conflict but is committed at snapshot %d",
                        a->user, it->ident, seen_at[c][k]);
            if (it->outcome != SC_ECONFLICT && !seen_at[c][k])
                violate("(%s, %" PRId64 ") is missing although the client completed (%s)", a->user,
                        it->ident, it->outcome == OUT_FILTERED ? "filtered as committed"
                                                               : sc_error_name(it->outcome));
        }
    }
    /* Readers saw only complete, final snapshots (or failed cleanly). */
    for (int i = 0; i < W.nobs; i++) {
        const reader_obs *o = &W.obs[i];
        if (o->id > latest) {
            violate("a reader saw snapshot %" PRIu64 ", beyond the final latest %" PRIu64, o->id,
                    latest);
        } else if (o->rc) {
            if (o->rc == SC_ENOTFOUND || o->rc == SC_ECORRUPT)
                violate("a reader failed on snapshot %" PRIu64 " with %s, yet it is sound", o->id,
                        sc_error_name(o->rc));
        } else if (o->client != chain[o->id].client ||
                   o->ident != W.actors[chain[o->id].client].items[chain[o->id].item].ident) {
            violate("a reader saw snapshot %" PRIu64 " as (%d, %" PRId64
                    "), which is not what it finally holds",
                    o->id, o->client, o->ident);
        } else if (o->fingerprint != chain[o->id].fingerprint) {
            violate("a reader saw other live files for snapshot %" PRIu64 " than it finally holds",
                    o->id);
        }
    }
    W.checking_history = 0;
    miss_reset(&W.checker);
    if (sc_table_fsck(t, NULL, NULL) != 0) violate("fsck: %s", sc_error_message());
out:
    W.checking_history = 0;
    W.checking = 0;
    sc_table_free(t);
    sc_store_free(st);
}

/* ---- one schedule ---- */

static void plan_schedule(sim_rng *r) {
    W.nclients = W.cfg->clients ? W.cfg->clients : 2 + (int)sim_rng_below(r, 3);
    for (int c = 0; c < W.nclients; c++) {
        actor *a = &W.actors[c];
        memset(a, 0, sizeof *a);
        a->index = c;
        a->twin = -1;
        snprintf(a->user, sizeof a->user, "user%d", c);
        a->nitems = 1 + (int)sim_rng_below(r, 3);
        for (int k = 0; k < a->nitems; k++) {
            item *it = &a->items[k];
            it->kind = SC_KIND_APPEND;
            it->ident = k + 1;
            snprintf(it->add, sizeof it->add, "data-c%d-%d", c, k + 1);
            it->outcome = OUT_PENDING;
        }
    }
    /* Compactions: delete another client's first file; sometimes two race for the same file. */
    if (sim_rng_below(r, 100) < 40) {
        int target = (int)sim_rng_below(r, (uint32_t)W.nclients);
        int compactors = 1 + (sim_rng_below(r, 100) < 35);
        for (int n = 0; n < compactors; n++) {
            int c = (target + 1 + n) % W.nclients;
            actor *a = &W.actors[c];
            if (c == target || a->nitems == MAX_ITEMS || a->items[a->nitems - 1].del[0]) continue;
            item *it = &a->items[a->nitems];
            it->kind = SC_KIND_COMPACT;
            it->ident = a->nitems + 1;
            snprintf(it->add, sizeof it->add, "data-c%d-compact", c);
            snprintf(it->del, sizeof it->del, "data-c%d-1", target);
            it->outcome = OUT_PENDING;
            a->nitems++;
        }
    }
    static const int rates[] = {0, 20, 100, 300, 800};
    if (sim_rng_below(r, 100) < 25) {
        W.fail_rate = W.lose_rate = 0;
    } else {
        W.fail_rate = rates[sim_rng_below(r, 5)];
        W.lose_rate = rates[sim_rng_below(r, 5)];
    }
    int skewed = sim_rng_below(r, 100) < 30;
    for (int c = 0; c < W.nclients; c++) {
        actor *a = &W.actors[c];
        if (sim_rng_below(r, 100) < 35) {
            a->crash_at = 1 + sim_rng_below(r, 60);
            a->crash_mode = (int)sim_rng_below(r, 3);
            a->restart_early = sim_rng_below(r, 100) < 60;
            a->downtime_ms = sim_rng_below(r, 5000);
        }
        if (skewed) a->skew_ms = (int64_t)sim_rng_below(r, 120001) - 60000;
    }
    if (sim_rng_below(r, 100) < 25) {
        actor *a = &W.actors[sim_rng_below(r, (uint32_t)W.nclients)];
        a->stall_at = 1 + sim_rng_below(r, 40);
        a->stall_ms = 20000 + sim_rng_below(r, 70000); /* around and beyond a 30 s TTL */
    }
    W.nactors = W.nclients;
    if (sim_rng_below(r, 100) < 50) {
        actor *a = &W.actors[W.nactors];
        memset(a, 0, sizeof *a);
        a->index = W.nactors++;
        a->is_reader = 1;
        a->twin = -1;
        snprintf(a->user, sizeof a->user, "reader");
        a->nreads = 2 + (int)sim_rng_below(r, 4);
    }
    if (sim_rng_below(r, 100) < 15) {
        int zi = (int)sim_rng_below(r, (uint32_t)W.nclients);
        actor *z = &W.actors[zi], *s = &W.actors[W.nactors];
        z->zombie = 1;
        z->crash_at = 0;
        z->stall_at = 1 + sim_rng_below(r, 40);
        z->stall_ms = 20000 + sim_rng_below(r, 70000);
        *s = *z;
        s->index = W.nactors++;
        s->zombie = 0;
        s->twin = zi;
        s->stall_at = 0;
        s->downtime_ms = sim_rng_below(r, 3000);
        for (int k = 0; k < s->nitems; k++) s->items[k].outcome = OUT_PENDING;
    }
}

/* The upkeep actors and their options, from the schedule's PRNG after everything else. */
static void plan_upkeep(sim_rng *r) {
    sc_expire_options_init(&W.xo);
    W.xo.retain_min = 2 + sim_rng_below(r, 2);
    W.xo.retain_max = W.xo.retain_min + sim_rng_below(r, 3);
    W.xo.older_than_ms = sim_rng_below(r, 400); /* a commit takes some tens of ms of virtual time */
    W.xo.limit = 1 + sim_rng_below(r, 4);
    /* Half the schedules: an older-than of seconds, shorter than a stall (20-90 s) or a
     * commit budget (60 s) — the schedule is then outside the rule if a commit lasted longer. */
    W.orphan_ms = W.cfg->orphan_ms >= 0 ? W.cfg->orphan_ms
                  : sim_rng_below(r, 2) ? 1000 + (int64_t)sim_rng_below(r, 29000)
                                        : 30000 + (int64_t)sim_rng_below(r, 170000);
    /* Always a reader, reading more often: what the retention window promises is checked by it. */
    actor *rd = NULL;
    for (int i = 0; i < W.nactors; i++)
        if (W.actors[i].is_reader) rd = &W.actors[i];
    if (!rd) {
        rd = &W.actors[W.nactors];
        memset(rd, 0, sizeof *rd);
        rd->index = W.nactors++;
        rd->is_reader = 1;
        rd->twin = -1;
        snprintf(rd->user, sizeof rd->user, "reader");
    }
    rd->nreads = 4 + (int)sim_rng_below(r, 9);
    static const char *const names[] = {"", "expirer", "orphans"};
    for (int role = UPKEEP_EXPIRER; role <= UPKEEP_ORPHANS; role++) {
        actor *a = &W.actors[W.nactors];
        memset(a, 0, sizeof *a);
        a->index = W.nactors++;
        a->twin = -1;
        a->upkeep = role;
        snprintf(a->user, sizeof a->user, "%s", names[role]);
    }
}

static void free_graves(void) {
    for (size_t i = 0; i < W.ngraves; i++) {
        free(W.graves[i].key);
        free(W.graves[i].data);
    }
    W.ngraves = 0;
}

/* Run schedule `seed`; returns 1 when an invariant was violated. *trace gets the trace hash. */
static int run_schedule(const config *cfg, uint64_t seed, uint64_t *trace) {
    W.cfg = cfg;
    W.seed = seed;
    W.nacks = W.nobs = W.nghosts = 0;
    W.violated = 0;
    W.hard = 0;
    W.outside_broken = 0;
    W.name_reused = 0;
    W.checking_history = 0;
    W.violation[0] = '\0';
    W.trace = SIM_HASH_INIT;
    W.task_reserve = cfg->upkeep ? 0 : SIM_MAX_TASKS - LEGACY_TASKS;
    W.longest_commit_ms = 0;
    W.final_expire_ok = 0;
    W.expirer_deletes = 0;
    free_graves();
    free_records();
    sim_sched_reset(seed, 1767225600000 + (int64_t)(seed % 1000000));
    plan_schedule(sim_sched_rng());
    W.clients_phase0 = W.clients_phase1 = 0;
    for (int i = 0; i < W.nactors; i++) {
        if (W.actors[i].is_reader) continue;
        W.clients_phase0++;
        if (!W.actors[i].zombie) W.clients_phase1++;
    }
    if (cfg->upkeep) plan_upkeep(sim_sched_rng());
    /* From the seed, outside the schedule's PRNG stream: the schedules of every seed stay as they were. */
    W.inline_watermarks = cfg->inline_watermarks >= 0 ? (size_t)cfg->inline_watermarks
                                                      : ((seed * 0x9E3779B97F4A7C15ull) >> 63) ? 1 : 0;
    W.concurrent = ((seed * 0xC2B2AE3D27D4EB4Full) >> 62) & 1;

    sc_mem_store_reset(SIM_STORE);
    sc_store *st;
    if (sc_store_open(&st, "mem://" SIM_STORE) != 0) {
        violate("opening the store: %s", sc_error_message());
        return 1;
    }
    /* Virtual time for the storage (mtimes) and for the table's creation (its UUID, the probe's). */
    sc_mem_store_set_env(SIM_STORE, sim_storage_env());
    sc_store_set_env(st, sim_client_env());
    sc_strategy_kind kind = cfg->strategy == SIM_STRATEGY_NAIVE ? SC_STRATEGY_CONDITIONAL
                                                                : (sc_strategy_kind)cfg->strategy;
    if (sc_table_create(st, kind) != 0) {
        violate("creating the table: %s", sc_error_message());
        sc_store_free(st);
        return 1;
    }
    sc_store_free(st);

    for (int i = 0; i < W.nactors; i++)
        sim_spawn(W.actors[i].upkeep ? upkeep_main : W.actors[i].is_reader ? reader_main : client_main,
                  &W.actors[i], W.actors[i].skew_ms);
    if (sim_run(MAX_STEPS) != 0) violate("no progress after %d scheduling steps (livelock)", MAX_STEPS);
    W.n.steps += sim_steps();
    check_world();
    free_graves();
    W.n.schedules++;
    *trace = W.trace;
    /* A commit that lasted longer than the orphan remover's older-than is outside the rule
     * (docs/protocols.md §13): what it wrote may be deleted before its claim. A broken table
     * is excused only where every missing object it was found lacking was deleted by the
     * orphan remover after such a commit wrote it; violations of history always count. */
    if (cfg->upkeep && (W.orphan_ms <= W.longest_commit_ms || W.name_reused)) {
        W.n.outside_rule++;
        if (W.violated && !W.hard) {
            int excused = W.unexplained == 0 && W.nculprits > 0;
            char why[sizeof W.excuse] = "a broken table that names no missing object";
            /* The first missing object tells the story when all are excused, else the first that is not. */
            for (int i = 0; excused && i < W.nculprits; i++) {
                excused = orphan_excuses(&W.culprits[i], why, sizeof why);
                if (i == 0 || !excused) snprintf(W.excuse, sizeof W.excuse, "%s", why);
            }
            if (W.unexplained || !W.nculprits) snprintf(W.excuse, sizeof W.excuse, "%s", why);
            if (excused) {
                W.n.outside_rule_broken++;
                vlog("outside the rule: %s: %s", W.excuse, W.violation);
                W.violated = 0;
                W.outside_broken = 1;
            } else {
                vlog("outside the rule, yet not excused: %s", W.excuse);
                size_t used = strlen(W.violation);
                snprintf(W.violation + used, sizeof W.violation - used, " [not excused by the orphan rule: %s]", W.excuse);
            }
        }
    }
    if (W.violated) W.n.violations++;
    return W.violated != 0;
}

/* ---- command line ---- */

typedef struct run_opts {
    uint64_t first, count, stride;
    int single, check_det, expect_violation, max_report;
} run_opts;

/* Run schedules first, first+stride, ... (count of them, seeds in steps of stride); W.n counts. */
static void run_range(const config *cfg, const run_opts *o) {
    memset(&W.n, 0, sizeof W.n);
    int reported = 0, notes = 0;
    for (uint64_t i = 0; i < o->count; i++) {
        uint64_t seed = o->first + i * o->stride, trace = 0;
        int bad = run_schedule(cfg, seed, &trace);
        if (o->check_det && !bad) {
            counters keep = W.n;
            uint64_t again = 0;
            config quiet = *cfg;
            quiet.verbose = 0;
            run_schedule(&quiet, seed, &again);
            W.n = keep;
            if (again != trace) {
                bad = 1;
                W.n.violations++;
                snprintf(W.violation, sizeof W.violation,
                         "not deterministic: trace %016" PRIx64 " then %016" PRIx64, trace, again);
            }
        }
        if (o->single)
            printf("%s seed %" PRIu64 ": trace %016" PRIx64 ", %" PRIu64 " steps, %s\n",
                   strategy_label(cfg->strategy), seed, trace, W.n.steps, bad ? "VIOLATION" : "ok");
        if (W.outside_broken && notes++ < o->max_report)
            printf("outside the orphan rule, strategy=%s seed=%" PRIu64 " (%s): %s\n",
                   strategy_label(cfg->strategy), seed, W.excuse, W.violation);
        if (bad && reported++ < o->max_report) {
            char extra[160] = "";
            if (cfg->upkeep)
                snprintf(extra, sizeof extra, "%s%s", cfg->upkeep_bug == BUG_SKIP_EARLIEST ? " --upkeep-bug skip-earliest"
                                                      : cfg->upkeep_bug == BUG_DELETE_RETAINED ? " --upkeep-bug delete-retained"
                                                      : cfg->upkeep_bug == BUG_ORPHANS_DELETE_LATEST ? " --upkeep-bug orphans-delete-latest"
                                                                                                : " --upkeep",
                         "");
            if (cfg->plain) snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --plain-store");
            if (cfg->resends) snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --resends");
            if (cfg->no_put_once) snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --no-put-once");
            if (cfg->upkeep && cfg->orphan_ms >= 0)
                snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --orphan-ms %" PRId64, cfg->orphan_ms);
            printf("VIOLATION strategy=%s seed=%" PRIu64 ": %s\n  replay: sim --strategy %s --seed %" PRIu64
                   "%s --verbose\n",
                   strategy_label(cfg->strategy), seed, W.violation, strategy_label(cfg->strategy),
                   seed, extra);
            fflush(stdout);
        }
        if (bad && o->expect_violation) break;
    }
    free(W.graves);
    W.graves = NULL;
    W.cap_graves = 0;
    free_records();
    free(W.events);
    free(W.attempts);
    W.events = NULL;
    W.attempts = NULL;
    W.cap_events = W.cap_attempts = 0;
}

/* Split the seeds over `jobs` forked processes (seed i goes to job i % jobs); sum their counts. */
static int run_jobs(counters *total, const config *cfg, const run_opts *o, int jobs) {
    int fds[64][2];
    pid_t pids[64];
    fflush(stdout);
    for (int j = 0; j < jobs; j++) {
        if (pipe(fds[j]) != 0 || (pids[j] = fork()) < 0) {
            perror("sim: fork");
            return -1;
        }
        if (pids[j] == 0) {
            close(fds[j][0]);
            run_opts mine = *o;
            mine.first = o->first + (uint64_t)j;
            mine.stride = (uint64_t)jobs;
            mine.count = o->count / (uint64_t)jobs + ((uint64_t)j < o->count % (uint64_t)jobs);
            run_range(cfg, &mine);
            fflush(stdout);
            ssize_t n = write(fds[j][1], &W.n, sizeof W.n);
            exit(n == (ssize_t)sizeof W.n ? 0 : 1); /* exit, not _exit: LSan checks the job */
        }
        close(fds[j][1]);
    }
    int rc = 0;
    for (int j = 0; j < jobs; j++) {
        counters c;
        if (read(fds[j][0], &c, sizeof c) != (ssize_t)sizeof c) {
            fprintf(stderr, "sim: job %d died (its last seed is the culprit; rerun with --jobs 1)\n", j);
            rc = -1;
            memset(&c, 0, sizeof c);
        }
        close(fds[j][0]);
        int status = 0;
        waitpid(pids[j], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "sim: job %d ended abnormally (status %#x)\n", j, status);
            rc = -1;
        }
        total->schedules += c.schedules;
        total->acks += c.acks;
        total->lost_claims += c.lost_claims;
        total->unknown += c.unknown;
        total->faults += c.faults;
        total->crashes += c.crashes;
        total->stalls += c.stalls;
        total->conflicts += c.conflicts;
        total->violations += c.violations;
        total->steps += c.steps;
        total->commits_called += c.commits_called;
        total->in_flight += c.in_flight;
        total->expire_runs += c.expire_runs;
        total->expire_failed += c.expire_failed;
        total->expire_refused += c.expire_refused;
        total->snapshots_expired += c.snapshots_expired;
        total->expired_data += c.expired_data;
        total->expired_meta += c.expired_meta;
        total->orphan_runs += c.orphan_runs;
        total->orphan_failed += c.orphan_failed;
        total->orphan_failed_clean += c.orphan_failed_clean;
        total->orphans_deleted += c.orphans_deleted;
        total->reads += c.reads;
        total->reads_expired += c.reads_expired;
        total->outside_rule += c.outside_rule;
        total->outside_rule_broken += c.outside_rule_broken;
        total->hole_claims += c.hole_claims;
    }
    return rc;
}

/* CPU seconds used by this process and its reaped children (the jobs). */
static double cpu_seconds(void) {
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                    kids.ru_stime.tv_sec) +
           (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                    kids.ru_stime.tv_usec) / 1e6;
}

static void usage(void) {
    fprintf(stderr,
            "usage: sim --strategy rename|conditional|head|tracker|naive|all [--schedules N]\n"
            "           [--start-seed S] [--seed X] [--clients 2..4] [--inline-watermarks N] [--verbose]\n"
            "           [--expect-violation] [--check-determinism] [--max-report N] [--jobs J]\n"
            "           [--upkeep] [--upkeep-bug skip-earliest|delete-retained|orphans-delete-latest] [--orphan-ms N]\n"
            "           [--plain-store]   (tracker only: S3 without conditional writes)\n"
            "           [--resends]       (a plain put whose answer was lost lands now and again later)\n"
            "           [--no-put-once]   (with --resends: the store has no put_once, so it resends those too)\n");
    exit(2);
}

/* Real time, for the report (the library's time is virtual: sched.c). */
static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    /* Table handles calloc a large cache: take it from fresh zero pages
     * rather than clearing recycled heap (a third of the run time otherwise). */
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);
    const char *strategy = NULL;
    uint64_t schedules = 1000, start = 1;
    int single = 0, jobs = 1, clients = 0, verbose = 0, expect_violation = 0, check_det = 0, max_report = 5;
    int inline_wm = -1, upkeep = 0, upkeep_bug = BUG_NONE, plain = 0, resends = 0, no_put_once = 0;
    int64_t orphan_ms = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--verbose")) verbose = 1;
        else if (!strcmp(a, "--expect-violation")) expect_violation = 1;
        else if (!strcmp(a, "--check-determinism")) check_det = 1;
        else if (!strcmp(a, "--upkeep")) upkeep = 1;
        else if (!strcmp(a, "--plain-store")) plain = 1;
        else if (!strcmp(a, "--resends")) resends = 1;
        else if (!strcmp(a, "--no-put-once")) no_put_once = 1;
        else if (!v) usage();
        else if (!strcmp(a, "--strategy")) strategy = v, i++;
        else if (!strcmp(a, "--schedules")) schedules = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "--start-seed")) start = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--seed")) start = strtoull(v, NULL, 0), single = 1, i++;
        else if (!strcmp(a, "--clients")) clients = atoi(v), i++;
        else if (!strcmp(a, "--inline-watermarks")) inline_wm = atoi(v), i++;
        else if (!strcmp(a, "--orphan-ms")) orphan_ms = strtoll(v, NULL, 10), i++;
        else if (!strcmp(a, "--upkeep-bug")) {
            upkeep = 1, i++;
            if (!strcmp(v, "skip-earliest")) upkeep_bug = BUG_SKIP_EARLIEST;
            else if (!strcmp(v, "delete-retained")) upkeep_bug = BUG_DELETE_RETAINED;
            else if (!strcmp(v, "orphans-delete-latest")) upkeep_bug = BUG_ORPHANS_DELETE_LATEST;
            else usage();
        }
        else if (!strcmp(a, "--jobs")) jobs = atoi(v), i++;
        else if (!strcmp(a, "--max-report")) max_report = atoi(v), i++;
        else usage();
    }
    if (!strategy || jobs < 1 || jobs > 64 || (clients && (clients < 2 || clients > MAX_CLIENTS))) usage();
    if (single) schedules = 1;
    if (plain && strcmp(strategy, "tracker") != 0) usage(); /* the others need conditional writes */
    if (resends && !plain) usage();                          /* resends are of plain puts: S3's shape */
    if (no_put_once && !resends) usage();                    /* without resends put_once is put */

    int kinds[8], nkinds = 0;
    if (!strcmp(strategy, "all")) {
        for (int k = SC_STRATEGY_RENAME; k <= SC_STRATEGY_TRACKER; k++)
            if (sc_strategy_get((sc_strategy_kind)k)) kinds[nkinds++] = k;
    } else if (!strcmp(strategy, "naive")) {
        kinds[nkinds++] = SIM_STRATEGY_NAIVE;
    } else {
        sc_strategy_kind k;
        if (sc_strategy_parse(&k, strategy) != 0 || k == SC_STRATEGY_AUTO) usage();
        if (!sc_strategy_get(k)) {
            fprintf(stderr, "sim: strategy %s is not available in this build\n", strategy);
            return 2;
        }
        kinds[nkinds++] = k;
    }
    if (verbose || upkeep) sc_log_set_handler(log_sink, NULL);

    if (single) jobs = 1;
    int failed = 0, found_expected = 0;
    for (int s = 0; s < nkinds; s++) {
        config cfg = {kinds[s], clients, verbose && (single || schedules <= 1), inline_wm, upkeep, upkeep_bug, orphan_ms, plain, resends, no_put_once};
        run_opts o = {start, schedules, 1, single, check_det, expect_violation, max_report};
        double t0 = now_seconds(), c0 = cpu_seconds();
        counters total = {0};
        if (jobs <= 1) {
            run_range(&cfg, &o);
            total = W.n;
        } else if (run_jobs(&total, &cfg, &o, jobs) != 0) {
            return 2;
        }
        double secs = now_seconds() - t0, cpu = cpu_seconds() - c0;
        printf("%s: %" PRIu64 " schedules, %" PRIu64 " commits acknowledged, %" PRIu64
               " lost claims, %" PRIu64 " unknown outcomes, %" PRIu64 " faults injected (%" PRIu64
               " crashes, %" PRIu64 " stalls, %" PRIu64 " writes in flight), %" PRIu64 " conflicts, %" PRIu64
               " violations, %.1f s (%.0f schedules/s, %.0f steps/schedule, %d job%s; %.1f cpu s, %.0f"
               " schedules per cpu second)\n",
               strategy_label(cfg.strategy), total.schedules, total.acks, total.lost_claims,
               total.unknown, total.faults, total.crashes, total.stalls, total.in_flight, total.conflicts,
               total.violations, secs, secs > 0 ? (double)total.schedules / secs : 0.0,
               total.schedules ? (double)total.steps / (double)total.schedules : 0.0,
               jobs < 1 ? 1 : jobs, jobs > 1 ? "s" : "", cpu,
               cpu > 0 ? (double)total.schedules / cpu : 0.0);
        if (cfg.upkeep)
            printf("%s upkeep: %" PRIu64 " expire runs (%" PRIu64 " failed, %" PRIu64 " refused), %" PRIu64
                   " snapshots expired, %" PRIu64 " data files and %" PRIu64 " manifests/lists deleted; %" PRIu64
                   " orphan runs (%" PRIu64 " failed, %" PRIu64 " of them once faults stopped), %" PRIu64
                   " orphans deleted; %" PRIu64
                   " reads inside the window whole, %" PRIu64 " reads of a snapshot expired under the reader; %" PRIu64
                   " schedules outside the orphan rule (a commit outlasted older-than), %" PRIu64
                   " of them broken; %" PRIu64 " claims below EARLIEST detected\n",
                   strategy_label(cfg.strategy), total.expire_runs, total.expire_failed, total.expire_refused,
                   total.snapshots_expired, total.expired_data, total.expired_meta, total.orphan_runs,
                   total.orphan_failed, total.orphan_failed_clean, total.orphans_deleted, total.reads, total.reads_expired, total.outside_rule,
                   total.outside_rule_broken, total.hole_claims);
        fflush(stdout);
        if (total.violations) {
            failed = 1;
            found_expected = 1;
        }
    }
    if (expect_violation) {
        if (!found_expected) printf("expected a violation, found none\n");
        return found_expected ? 0 : 1;
    }
    return failed ? 1 : 0;
}
