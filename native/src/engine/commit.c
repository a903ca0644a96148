/*
 * The commit engine (Paimon's semantics, docs/protocols.md §3). commit_loop runs named
 * steps, each returning a step_outcome, over one attempt_state:
 *   read_base (latest N) → reconcile_earlier → check_replay (replay.h)
 *   → check_conflicts → write_manifests (commit_manifests.h) → claim N+1 → [reconcile_claim]
 *   → won: finish (hints) | lost or unknown: backoff, then a new attempt
 *     that re-reads N and re-checks only what was committed since.
 * An unknown claim outcome is reconciled (read back our commit UUID, or the
 * watermark) before anything else happens; it is never assumed to have failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/backoff.h"
#include "engine/commit_manifests.h"
#include "engine/conflict.h"
#include "engine/entries.h"
#include "engine/index_state.h"
#include "engine/overwrite.h"
#include "base/env_internal.h"
#include "base/error_internal.h"
#include "engine/replay.h"
#include "engine/state.h"
#include "engine/table.h"
#include "engine/upkeep.h"
#include "store/store_internal.h"
#include "strategy/strategy.h"

typedef struct commit_state {
    sc_table *t;
    const sc_commit_request *req;
    char commit_uuid[SC_UUID_TEXT_LEN + 1];
    sc_partition_set parts;
    sc_entry_vec deletes; /* the live records removed, as stored (per attempt for OVERWRITE) */
    sc_commit_manifests written; /* the delta, the base lists: what this commit wrote */
    int keep_written; /* a snapshot of ours may be in history after all: never delete them */
    /* How the changes apply: OVERWRITE replaces the touched partitions (sc_table_commit's
     * OVERWRITE); APPEND and COMPACT apply exactly the given changes. req->kind is only the
     * snapshot's label: a checkpoint's append part promoted to OVERWRITE still applies as APPEND. */
    sc_commit_kind mode;
    int has_watermark; /* the checkpoint's event-time watermark (Paimon's snapshot "watermark") */
    int64_t watermark;
    /* An INSERT OVERWRITE of a static spec ("" = the whole table): parts is planned on every
     * attempt from the live files of its base (overwrite.h), which scope_live holds. */
    int static_scope;
    const char *spec;
    sc_entry_vec scope_live;
    int drop_changelog; /* an overwrite commits no changelog (Paimon's) */
    /* The compact part of a checkpoint: the snapshot where this call's append part recorded
     * the same identifier (0: none), which therefore does not make it a replay. */
    uint64_t own_mark_at;
    /* The index manifest this commit wrote last (engine/index_state.h) and the previous
     * index manifest it was built from (NULL: none): reused while the base names the same. */
    char *index_name;
    char *index_built_on;
    int index_built;
    /* The look for a newer schema goes with the first attempt's batch (commit_run):
     * schema_moved says it found one, and the commit starts again on it. */
    int schema_deferred;
    int schema_moved;
} commit_state;

/* commit_loop's answer when the batch found a newer schema: commit_run starts again. */
#define RESTART_FOR_SCHEMA 1

static void ref_clear(sc_object_ref *r) {
    free(r->name);
    memset(r, 0, sizeof *r);
}

static int build_snapshot(commit_state *cs, sc_buf *out, const sc_snapshot *latest,
                          const uint8_t latest_hash[SC_SHA256_LEN], const sc_object_ref *base, char *index_manifest) {
    const sc_commit_request *req = cs->req;
    sc_snapshot s = {0};
    s.id = latest ? latest->id + 1 : 1;
    memcpy(s.table_uuid, cs->t->meta.table_uuid, sizeof s.table_uuid);
    memcpy(s.commit_uuid, cs->commit_uuid, sizeof s.commit_uuid);
    s.commit_user = (char *)req->commit_user;
    s.commit_identifier = req->identifier;
    s.commit_kind = req->kind;
    s.schema_id = cs->t->schema.id; /* Paimon's readers take the table's schema at a snapshot from it */
    s.time_millis = sc_env_now_ms(&cs->t->env);
    s.delta_record_count = cs->written.delta_rows;
    /* A count the reader would reject must never be written: it would make the table unreadable. */
    if (__builtin_add_overflow(latest ? latest->total_record_count : 0, cs->written.delta_rows, &s.total_record_count) ||
        s.total_record_count < 0)
        return sc_error_set(SC_EINVAL, "the table's record count would leave 0..%" PRId64 " (snapshot %" PRIu64
                                       " holds %" PRId64 ", this commit adds %" PRId64 ")",
                            INT64_MAX, latest ? latest->id : 0, latest ? latest->total_record_count : 0, cs->written.delta_rows);
    uint64_t base_files = latest ? latest->file_count : 0;
    if (latest && latest->foreign) {
        /* Paimon records no file count: count the live files once (only after a Paimon commit),
         * walking them rather than holding them. */
        sc_table *t = cs->t;
        if (t->foreign_count_id == latest->id && memcmp(t->foreign_count_hash, latest_hash, SC_SHA256_LEN) == 0) {
            base_files = t->foreign_count;
        } else {
            int rc = sc_state_live_each(&base_files, t, latest, NULL, NULL, NULL);
            if (rc) return rc;
            t->foreign_count_id = latest->id;
            memcpy(t->foreign_count_hash, latest_hash, SC_SHA256_LEN);
            t->foreign_count = base_files;
        }
    }
    s.file_count = (uint64_t)((int64_t)base_files + cs->written.delta_files);
    if (latest) {
        s.has_parent = 1;
        memcpy(s.parent_hash, latest_hash, SC_SHA256_LEN);
    }
    s.base_manifest_list = *base;
    s.delta_manifest_list = cs->written.delta_list;
    /* Paimon's members (borrowed: nothing below frees them). The changelog is this snapshot's own. */
    if (cs->written.changelog_list.name) {
        s.changelog_manifest_list = cs->written.changelog_list;
        s.has_changelog_record_count = 1;
        s.changelog_record_count = cs->written.changelog_rows;
    }
    s.index_manifest = index_manifest;
    /* The event-time watermark only moves forward: max(previous, this checkpoint's). */
    if (latest && latest->has_watermark) {
        s.has_watermark = 1;
        s.watermark = latest->watermark;
    }
    if (cs->has_watermark && (!s.has_watermark || cs->watermark > s.watermark)) {
        s.has_watermark = 1;
        s.watermark = cs->watermark;
    }
    /* Paimon inherits statistics only while they describe the latest schema; a snapshot
     * carrying them names the schema they were computed with. */
    if (latest && latest->statistics && latest->schema_id == s.schema_id) s.statistics = latest->statistics;
    /* The watermark table is the replay module's: this commit's identifier goes in with it. */
    int rc = sc_replay_next_watermarks(&s, cs->t, latest, req->commit_user, req->identifier, s.id);
    /* A writer of format 2 would publish snapshots without the archive and forget the
     * users in it: from the first snapshot that names one, such writers must refuse the table. */
    if (!rc && s.watermark_archive.name) rc = sc_table_raise_format(cs->t, 3);
    if (!rc) rc = sc_snapshot_encode(out, &s);
    for (size_t i = 0; i < s.watermark_count; i++) free(s.watermarks[i].user);
    free(s.watermarks);
    free(s.watermark_archive.name);
    return rc;
}

/* The snapshot's index manifest must be written anew: the commit changes index files, or
 * replaces partitions (an OVERWRITE drops their index files, as Paimon's). */
static int index_touched(const commit_state *cs, const sc_snapshot *latest) {
    const sc_changes *c = cs->req->changes;
    return c->index_adds.count || c->index_deletes.count ||
           (cs->mode == SC_KIND_OVERWRITE && latest && latest->index_manifest);
}

/* Keep `entries` (moved out, the caller's vector left empty) as the handle's last index
 * manifest `name`; nothing kept without memory for the name. */
static void remember_index(sc_table *t, const char *name, sc_index_vec *entries) {
    char *copy = strdup(name);
    free(t->index_cache_name);
    sc_index_vec_free(&t->index_cache);
    t->index_cache_name = NULL;
    if (!copy) return;
    t->index_cache_name = copy;
    t->index_cache = *entries;
    memset(entries, 0, sizeof *entries);
}

/*
 * The index manifest of N+1 into cs->index_name: N's live index files combined with
 * this commit's (index_state.h), after the index conflict checks. Rebuilt only when
 * N names another index manifest than the one it was built from; the vectors' data
 * files are checked against every attempt's base.
 */
static int write_index(commit_state *cs, const sc_snapshot *latest, int may_be_named) {
    sc_table *t = cs->t;
    const char *prev = latest ? latest->index_manifest : NULL;
    int rc = sc_conflict_check_dv_targets(t, latest, cs->req->changes);
    if (rc) return rc;
    if (cs->index_built && (prev ? cs->index_built_on && strcmp(prev, cs->index_built_on) == 0 : !cs->index_built_on))
        return 0;
    sc_index_vec live = {0}, next = {0};
    char *name = NULL, *built_on = NULL;
    /* Immutable and named uniquely: the one this handle wrote last is the same bytes. */
    const sc_index_vec *base = &live;
    if (prev && t->index_cache_name && strcmp(prev, t->index_cache_name) == 0) base = &t->index_cache;
    else if (prev) rc = sc_index_state_load(&live, t, prev);
    const sc_partition_set *replace = cs->mode == SC_KIND_OVERWRITE ? &cs->parts : NULL;
    sc_partition_set with_index = {0};
    if (!rc && cs->static_scope) {
        rc = sc_overwrite_with_index(&with_index, &cs->parts, t, cs->spec, base);
        replace = &with_index;
    }
    if (!rc) rc = sc_conflict_check_index(t, base, cs->req->changes);
    if (!rc) rc = sc_index_state_combine(&next, t, base, cs->req->changes, replace);
    sc_partition_set_free(&with_index);
    if (!rc && prev && !(built_on = strdup(prev))) rc = sc_error_set(SC_ENOMEM, "out of memory");
    if (!rc) rc = sc_commit_manifests_write_index(&cs->written, &name, &next);
    if (!rc) remember_index(t, name, &next); /* best effort */
    if (!rc) {
        /* The one built for an earlier attempt: its claim was certainly lost (or never
         * made), so no snapshot names it, unless a claim's answer was lost on the way or
         * a claim landed below EARLIEST (that leftover is expiration's to clean up). */
        char key[SC_MANIFEST_PATH_MAX + 16];
        if (cs->index_name && !may_be_named) {
            sc_manifest_key(key, sizeof key, cs->index_name);
            sc_commit_manifests_discard(&cs->written, key);
        }
        free(cs->index_name);
        free(cs->index_built_on);
        cs->index_name = name;
        cs->index_built_on = built_on;
        cs->index_built = 1;
        built_on = NULL;
    }
    free(built_on);
    sc_index_vec_free(&live);
    sc_index_vec_free(&next);
    return rc;
}

/*
 * A commit deleting data files of a bucket-unaware table checks them against the
 * base's deletion vectors (sc_conflict_check_dv_deletes), on every attempt: an
 * OVERWRITE drops the index files of the partitions it replaces instead.
 */
static int check_dv_deletes(commit_state *cs, const sc_snapshot *latest) {
    sc_table *t = cs->t;
    const sc_changes *c = cs->req->changes;
    if (cs->mode == SC_KIND_OVERWRITE || !c->deletes.count || !latest || !latest->index_manifest ||
        !sc_index_state_unaware(t))
        return 0;
    sc_index_vec live = {0};
    const sc_index_vec *base = &live;
    int rc = 0;
    if (t->index_cache_name && strcmp(latest->index_manifest, t->index_cache_name) == 0) base = &t->index_cache;
    else rc = sc_index_state_load(&live, t, latest->index_manifest);
    if (!rc) rc = sc_conflict_check_dv_deletes(t, base, c);
    sc_index_vec_free(&live);
    return rc;
}

static int validate_request(const sc_commit_request *req) {
    if (!req || !req->changes) return sc_error_set(SC_EINVAL, "commit request and its changes are required");
    if (!req->commit_user || !*req->commit_user)
        return sc_error_set(SC_EINVAL, "commit user must be non-empty");
    if (strlen(req->commit_user) > SC_USER_MAX_LEN)
        return sc_error_set(SC_EINVAL, "commit user is longer than %d bytes", SC_USER_MAX_LEN);
    if (!sc_utf8_valid(req->commit_user))
        return sc_error_set(SC_EINVAL, "commit user is not valid UTF-8");
    int rc = sc_name_check("commit user", (const uint8_t *)req->commit_user, strlen(req->commit_user));
    if (rc) return rc;
    if (req->identifier < 0)
        return sc_error_set(SC_EINVAL, "identifier %" PRId64 " is negative", req->identifier);
    if (!sc_commit_kind_name(req->kind)) return sc_error_set(SC_EINVAL, "unknown commit kind %d", (int)req->kind);
    if (req->kind == SC_KIND_ANALYZE)
        return sc_error_set(SC_EINVAL, "commit kind ANALYZE is Paimon's statistics snapshot; snapcommit commits APPEND, COMPACT or OVERWRITE");
    return 0;
}

enum { LANDED_NONE = 0, LANDED_OURS = 1, LANDED_OTHER = 2 };

/* Whose snapshot is at `id`: LANDED_* by our commit UUID, or a negative read error. */
static int landed_at(commit_state *cs, uint64_t id) {
    sc_snapshot s;
    int rc = sc_table_read_snapshot(&s, NULL, cs->t, id);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return LANDED_NONE;
    }
    if (rc) return rc;
    int mine = strcmp(s.commit_uuid, cs->commit_uuid) == 0;
    sc_snapshot_clear(&s);
    return mine ? LANDED_OURS : LANDED_OTHER;
}

static void stats_diff(sc_store_stats *out, const sc_store_stats *before, const sc_store_stats *after) {
    for (int i = 0; i < SC_OP_COUNT; i++) out->ops[i] = after->ops[i] - before->ops[i];
    out->bytes_read = after->bytes_read - before->bytes_read;
    out->bytes_written = after->bytes_written - before->bytes_written;
}

/* ---- the commit loop: named steps over one attempt state ---- */

/* What a step tells the loop (see commit_loop for who goes where). */
typedef enum step_outcome {
    STEP_NEXT,    /* this step is done: take the next step of the attempt */
    STEP_WON,     /* our snapshot is at a->landed, visible and durable: the commit succeeded */
    STEP_LOST,    /* another writer holds the id we claimed: retry on top of it */
    STEP_UNKNOWN, /* the claim's answer was lost (or ours is not yet durable): reconcile, retry */
    STEP_RETRY,   /* backed off: a new attempt starts from the latest snapshot */
    STEP_STALE,   /* N+1 appeared, or N expired, before we claimed: a new attempt at once */
    STEP_FAILED,  /* the commit ends with a->rc */
} step_outcome;

/* Everything the loop knows: what is carried from attempt to attempt, and what one attempt holds. */
typedef struct attempt_state {
    /* Carried between attempts. */
    int number;          /* 0 for the first attempt */
    int64_t started;     /* monotonic ms at the start, for the retry timeout */
    int validated_any;   /* the changes passed the conflict check at least once ... */
    uint64_t validated;  /* ... against snapshot `validated` (0 = the empty table) */
    int delta_written;   /* cs->written.delta_list is written and matches cs->deletes */
    uint64_t unknown_id; /* the last claim whose answer was lost, until reconciled (0 = none) */
    int had_unknown;     /* any claim of this commit had an unknown outcome */
    uint64_t lost_to;    /* the id whose claim the last attempt lost: it exists (0 = none known) */
    uint64_t prev_latest; /* the base of the previous attempt */
    uint64_t contention; /* commits of others seen landing during the last attempt (>= 1) */
    int lost;            /* claims of this commit lost so far */
    int stalled;         /* attempts in a row whose base did not move: a claim lost to nobody visible */
    int below_history;   /* a claim of ours landed below EARLIEST (check_in_history): our leftover
                          * is among the snapshots since any base, so only the full check applies */
    sc_store_stats window_start; /* store counters once the base was known */
    uint64_t window_rounds;      /* ... and its round trips (sc_store_rounds) */
    sc_store_stats claim_answered; /* ... and once the claim answered */
    int has_claim_answered;
    int64_t window_started;      /* monotonic ms then */
    int64_t base_looked;         /* monotonic ms when discovery of this attempt's base began (a
                                  * refreshed window still claims an id it saw absent long ago) */
    int64_t window_ms;           /* how long the last attempt's claim window lasted */
    /* This attempt builds on the strategy's guess (the snapshot this handle claimed
     * last), confirmed by looks sent with the attempt's writes (write_manifests). */
    int guessed;
    int guess_used;   /* a commit guesses once: a failed guess costs no attempt (commit_loop) */
    int guess_failed; /* this attempt's guess was not confirmed: it restarts on the latest */
    /* This attempt only; attempt_end releases them. */
    /* N's delta manifests, checked (sc_state_check_delta) after the batch that fetched them
     * with the writes instead of in a round trip before it (prefetch_base). */
    int delta_deferred;
    uint64_t latest_id; /* the base N this attempt builds N+1 on (0 = empty table) */
    sc_snapshot latest;
    uint8_t latest_hash[SC_SHA256_LEN];
    sc_object_ref base; /* the base manifest list of N+1 */
    sc_buf doc;         /* the snapshot document N+1 that the claim publishes */
    /* How it ended. */
    uint64_t landed; /* STEP_WON: our snapshot */
    int expired_since; /* ours, but already expired (check_in_history): no hint may name it */
    int reconciled;  /* ... found by reconciling an earlier unknown claim */
    int rc;          /* STEP_FAILED: the error */
} attempt_state;

static const sc_snapshot *base_of(const attempt_state *a) { return a->latest_id ? &a->latest : NULL; }

static step_outcome fail_with(attempt_state *a, int rc) {
    a->rc = rc;
    return STEP_FAILED;
}

/*
 * Read the base: the latest snapshot N. Its watermarks and live files decide
 * this attempt. After a lost claim the winner's snapshot is known to exist,
 * and discovery starts from it (strategy latest_after). The claim window
 * opens here: from now on every request is between knowing N and claiming N+1.
 */
static step_outcome read_base(commit_state *cs, attempt_state *a) {
    sc_table *t = cs->t;
    a->base_looked = sc_env_monotonic_ms(&t->env);
    /* A warm handle's first attempt builds on its own last snapshot at once: the looks
     * that confirm it travel with the writes, one round trip for both. */
    uint64_t guess = a->number == 0 && !a->guess_used && !a->had_unknown && t->strategy->guess ? t->strategy->guess(t) : 0;
    if (guess && cs->req->base_snapshot > guess) guess = 0; /* the caller has seen a newer one */
    a->guessed = guess != 0;
    if (guess) a->guess_used = 1;
    int rc = 0;
    if (guess) a->latest_id = guess;
    else {
        t->discovery_rechecked = 1;
        if (a->lost_to && t->strategy->latest_after) rc = t->strategy->latest_after(t, a->lost_to, &a->latest_id);
        else rc = t->strategy->latest(t, &a->latest_id);
        t->discovery_rechecked = 0;
    }
    if (!rc && a->latest_id) rc = sc_table_read_snapshot(&a->latest, a->latest_hash, t, a->latest_id);
    if (!rc && a->latest_id) rc = sc_replay_complete(t, &a->latest);
    if (rc) return fail_with(a, rc);
    /* The winner built on our base (the common case after a lost claim): its base
     * list holds the bytes of the one we wrote for the lost attempt. */
    const sc_object_ref *wb = &a->latest.base_manifest_list;
    if (a->number > 0 && a->latest_id && wb->name && wb->has_sha256 && cs->written.last_list.data &&
        memcmp(wb->sha256, cs->written.last_list_sha, SC_SHA256_LEN) == 0)
        sc_state_remember_list(t, wb, cs->written.last_list.data, cs->written.last_list.len);
    if (a->number > 0) {
        a->contention = a->latest_id > a->prev_latest ? a->latest_id - a->prev_latest : 1;
        a->stalled = a->latest_id > a->prev_latest ? 0 : a->stalled + 1;
    }
    sc_store_stats_get(&a->window_start, t->store);
    a->window_rounds = sc_store_rounds(t->store);
    a->window_started = sc_env_monotonic_ms(&t->env);
    return STEP_NEXT;
}

/* Ours and visible is a success only once durable; if syncing fails the outcome stays unknown. */
static step_outcome reconciled_ours(commit_state *cs, attempt_state *a, uint64_t id) {
    if (sc_store_sync(cs->t->store) != 0)
        return fail_with(a, sc_error_wrap(SC_EUNKNOWN, "snapshot %" PRIu64 " is ours and visible, but making it durable failed",
                                          id));
    a->landed = id;
    a->reconciled = 1;
    return STEP_WON;
}

/*
 * After an unknown claim outcome, before anything else (docs/protocols.md §6: never
 * assume failure): is a claim of ours among the snapshots up to the new
 * latest? The last undecided id is ours if its snapshot carries our commit
 * UUID. An earlier claim of this commit may be the one that landed, at an id
 * since passed: the user's watermark names our identifier there.
 */
static step_outcome reconcile_earlier(commit_state *cs, attempt_state *a) {
    if (!a->had_unknown) return STEP_NEXT;
    if (a->unknown_id && a->unknown_id <= a->latest_id) {
        int who = landed_at(cs, a->unknown_id);
        if (who < 0) return fail_with(a, who);
        if (who == LANDED_OURS) return reconciled_ours(cs, a, a->unknown_id);
        if (who == LANDED_OTHER) a->unknown_id = 0; /* that id is taken: our claim cannot land */
    }
    sc_watermark w;
    int found;
    int rc = sc_replay_lookup(&w, &found, cs->t, base_of(a), cs->req->commit_user);
    if (rc) return fail_with(a, rc);
    if (found && w.identifier == cs->req->identifier) {
        int who = landed_at(cs, w.snapshot_id);
        if (who < 0) return fail_with(a, who);
        if (who == LANDED_OURS) {
            a->unknown_id = w.snapshot_id;
            return reconciled_ours(cs, a, w.snapshot_id);
        }
    }
    return STEP_NEXT;
}

/*
 * The compact part of a checkpoint carries the identifier its append part, in this
 * same call, just recorded: *own = 1 when the user's watermark on `latest` is exactly
 * that record (identifier, at own_mark_at), which is no replay. Anything else (a
 * later identifier, the same one elsewhere) is judged by the replay rule.
 */
static int own_mark(int *own, commit_state *cs, const sc_snapshot *latest) {
    *own = 0;
    if (!cs->own_mark_at) return 0;
    sc_watermark w;
    int found = 0;
    int rc = sc_replay_lookup(&w, &found, cs->t, latest, cs->req->commit_user);
    if (!rc) *own = found && w.identifier == cs->req->identifier && w.snapshot_id == cs->own_mark_at;
    return rc;
}

/*
 * Exactly-once (replay.h): an identifier at or below the user's watermark is
 * already committed, and nothing is written. Checked on every attempt: while
 * we backed off, a failed-over twin of this committer may have committed it.
 */
static step_outcome check_replay(commit_state *cs, attempt_state *a, sc_commit_result *res) {
    int own = 0;
    int rc = own_mark(&own, cs, base_of(a));
    if (rc) return fail_with(a, rc);
    if (own) return STEP_NEXT;
    rc = sc_replay_check(&res->existing_snapshot, cs->t, base_of(a), cs->req->commit_user, cs->req->identifier);
    return rc ? fail_with(a, rc) : STEP_NEXT;
}

/*
 * 1 when a check of the snapshots after `since` failed (SC_ENOTFOUND or
 * SC_ECORRUPT) because an expiration running meanwhile removed some of them:
 * EARLIEST now lies above since + 1 (*out_earliest; sc_state_expired_under of
 * the first snapshot after `since`). The full check against the latest
 * snapshot's live files then decides.
 */
static int passed_by_expiration(uint64_t *out_earliest, sc_table *t, int *rc, uint64_t since) {
    return sc_state_expired_under(out_earliest, t, since + 1, rc);
}

/* The most manifests of N's delta sent with the attempt's writes (send_writes): what the
 * batch holds beside the looks it carries. */
#define DEFERRED_DELTA_MAX SC_STRATEGY_CALLS_MAX

/*
 * On a concurrent store N's two lists arrive in one batch instead of one round trip each
 * (sc_state_prefetch_lists); the manifests the checks read are fetched together where each
 * check decides what it reads (conflict.c check_touched, state.c load_records). N's delta
 * manifests, which every attempt checks first (sc_state_check_delta), instead travel with
 * the attempt's writes when they fit beside them, and are checked when that batch is back,
 * before the claim (send_writes): one round trip less. A hint, never a verdict: what is not
 * fetched, or fails, the checks read and report as before.
 */
static void prefetch_base(commit_state *cs, attempt_state *a) {
    sc_table *t = cs->t;
    if (!a->latest_id || !(sc_store_caps(t->store) & SC_CAP_CONCURRENT)) return;
    const sc_snapshot *s = &a->latest;
    const sc_object_ref *lists[2] = {&s->delta_manifest_list, &s->base_manifest_list};
    sc_state_prefetch_lists(t, lists, 2);
    sc_manifest_file_vec delta = {0};
    uint64_t records = 0;
    if (cs->mode != SC_KIND_OVERWRITE && !cs->static_scope && sc_state_cached_list(&delta, t, &s->delta_manifest_list) == 1) {
        for (size_t i = 0; i < delta.count; i++) records += (uint64_t)delta.items[i].added + (uint64_t)delta.items[i].deleted;
        /* A delta checked one record at a time (a bulk load's) is read as before. */
        a->delta_deferred = delta.count > 0 && delta.count <= DEFERRED_DELTA_MAX && records <= SC_STATE_KEEP_RECORDS;
    }
    sc_manifest_file_vec_free(&delta);
    sc_error_clear();
}

/*
 * Conflicts (docs/protocols.md §4; a real conflict fails the commit, never retried:
 * retrying cannot bring a deleted file back). The first attempt checks the
 * live files of the touched partitions (cached manifests make that cheap for
 * a long-lived handle), even on an empty table and even when the caller
 * names a base snapshot: a delta that deletes a file that is not live would
 * make every later read fail, so it is never written on trust. When the
 * caller planned against an older base, the snapshots since are checked
 * first, for the message that names who changed what. Retries after a lost
 * claim check only what was committed since. An OVERWRITE deletes what is
 * live at this attempt's base, so its deletes (and delta) are redone each time.
 */
static step_outcome check_conflicts(commit_state *cs, attempt_state *a) {
    sc_table *t = cs->t;
    const sc_commit_request *req = cs->req;
    if (req->base_snapshot > a->latest_id)
        return fail_with(a, sc_error_set(SC_EINVAL, "base snapshot %" PRIu64 " is newer than the latest snapshot %" PRIu64,
                                         req->base_snapshot, a->latest_id));
    prefetch_base(cs, a);
    /* N+1 carries N's manifests forward, mostly unread: the ones N added are read and
     * checked first (docs/protocols.md §3, "What a commit checks of its base"). */
    int rc = a->latest_id && !a->delta_deferred ? sc_state_check_delta(t, &a->latest) : 0;
    if (!rc && !a->validated_any && !a->below_history && req->base_snapshot && req->base_snapshot < a->latest_id &&
        cs->mode != SC_KIND_OVERWRITE) {
        rc = sc_conflict_check_since(t, req->base_snapshot, &a->latest, req->changes, cs->mode, &cs->parts);
        /* Snapshots after the base may have expired meanwhile (sc_table_expire): this check
         * only names who changed what; the full check below still decides. */
        uint64_t earliest = 0;
        if (passed_by_expiration(&earliest, t, &rc, req->base_snapshot)) {
            sc_log(SC_LOG_INFO, "commit: snapshots after base %" PRIu64 " have expired (history starts at %" PRIu64
                                "); checking against the latest snapshot's live files only",
                   req->base_snapshot, earliest);
            sc_error_clear();
            rc = 0;
        }
    }
    /* A static overwrite replaces what matches at this base: planned anew on every attempt. */
    if (!rc && cs->static_scope)
        rc = sc_overwrite_partitions(&cs->parts, &cs->scope_live, t, base_of(a), cs->spec, req->changes);
    if (!rc && (cs->mode == SC_KIND_OVERWRITE || !a->validated_any)) {
        sc_entry_vec_free(&cs->deletes);
        rc = sc_conflict_check_full(&cs->deletes, t, base_of(a), req->changes, cs->mode, &cs->parts);
        a->delta_written = 0; /* rebuilt from the records found; written again only if its bytes differ */
    } else if (!rc && a->latest_id > a->validated) {
        rc = sc_conflict_check_since(t, a->validated, &a->latest, req->changes, cs->mode, &cs->parts);
        /* An expiration running meanwhile may have removed snapshots since the last check:
         * then the full check against the latest live files decides, as on a first attempt. */
        uint64_t earliest = 0;
        if (passed_by_expiration(&earliest, t, &rc, a->validated)) {
            sc_log(SC_LOG_INFO, "commit: snapshots after %" PRIu64 " expired during the retry (history starts at %" PRIu64
                                "); checking against the latest snapshot's live files",
                   a->validated, earliest);
            sc_error_clear();
            sc_entry_vec_free(&cs->deletes);
            rc = sc_conflict_check_full(&cs->deletes, t, base_of(a), req->changes, cs->mode, &cs->parts);
            a->delta_written = 0; /* rebuilt from the records found; written again only if its bytes differ */
        }
    }
    if (rc) return fail_with(a, rc);
    a->validated = a->latest_id;
    a->validated_any = 1;
    return STEP_NEXT;
}

/*
 * The attempt's one batch before its claim: every object written so far (the delta,
 * the base list, an index manifest), with the looks that confirm a guessed base, the
 * first attempt's look for a newer schema and, once per handle, the look at the
 * history marker.
 * All of them answer before the claim is sent, so everything N+1 names is durable by
 * then (docs/protocols.md §3). A guess not confirmed (another snapshot above it, or
 * it vanished) restarts the attempt on the latest, as a base passed by would; what
 * it wrote for that base is deleted, as after a lost claim.
 */
static step_outcome send_writes(commit_state *cs, attempt_state *a) {
    sc_table *t = cs->t;
    sc_strategy_calls probe = {0};
    char schema_key[64];
    sc_store_call extra[SC_STRATEGY_CALLS_MAX * 2];
    size_t n = 0, schema_at = 0, probe_at = 0;
    if (a->guessed) {
        t->strategy->guess_probes(t, a->latest_id, &probe);
        probe_at = n;
        for (size_t i = 0; i < probe.n; i++) extra[n++] = probe.calls[i];
    }
    if (cs->schema_deferred) {
        sc_schema_key(schema_key, t->schema.id + 1);
        schema_at = n;
        extra[n++] = (sc_store_call){.op = SC_OP_HEAD, .key = schema_key};
    }
    /* Once per handle the history marker is looked at after a claim (sc_table_note_history):
     * a read, it can go here instead, and the claim's answer need not wait for it. */
    size_t history_at = n;
    int look_history = !t->history_marked && a->latest_id > 0 && (sc_store_caps(t->store) & SC_CAP_CONCURRENT);
    if (look_history) extra[n++] = (sc_store_call){.op = SC_OP_HEAD, .key = SC_HISTORY_MARKER_KEY};
    /* N's delta manifests, when prefetch_base left them for this batch, in the room left
     * (sc_state_check_delta reads any that do not fit). */
    sc_state_prefetch *deferred = NULL;
    size_t deferred_at = n, deferred_n = 0;
    sc_store_call *deferred_calls = NULL;
    if (a->delta_deferred) {
        sc_manifest_file_vec delta = {0};
        const sc_manifest_file *metas[DEFERRED_DELTA_MAX];
        size_t m = 0, room = sizeof extra / sizeof *extra - n;
        if (sc_state_cached_list(&delta, t, &a->latest.delta_manifest_list) == 1)
            for (size_t i = 0; i < delta.count && m < DEFERRED_DELTA_MAX && m < room; i++) metas[m++] = &delta.items[i];
        deferred = sc_state_prefetch_manifests_begin(t, metas, m); /* copies what it keeps */
        sc_manifest_file_vec_free(&delta);
        deferred_calls = sc_state_prefetch_calls(deferred, &deferred_n);
        for (size_t i = 0; i < deferred_n; i++) extra[n++] = deferred_calls[i];
    }
    int rc = sc_commit_manifests_flush(&cs->written, extra, n);
    for (size_t i = 0; i < deferred_n; i++) { /* the answers go back to the prefetch, which owns them */
        deferred_calls[i] = extra[deferred_at + i];
        extra[deferred_at + i].out_data = NULL;
    }
    sc_state_prefetch_end(deferred, t);
    if (!rc && look_history && extra[history_at].rc == 0) t->history_marked = 1; /* absent: written after the claim */
    int moved = 0, confirmed = 1, present = 1;
    uint64_t above = 0;
    if (!rc && cs->schema_deferred) {
        cs->schema_deferred = 0;
        const sc_store_call *c = &extra[schema_at];
        if (c->rc == 0) moved = 1;
        else if (c->rc != SC_ENOTFOUND)
            rc = sc_error_wrap(sc_store_call_error(c), "looking for a newer schema (%s)", schema_key);
    }
    if (!rc && a->guessed) {
        for (size_t i = 0; i < probe.n; i++) probe.calls[i] = extra[probe_at + i];
        confirmed = t->strategy->guess_confirmed(t, a->latest_id, &probe, &present, &above);
        if (confirmed < 0) rc = confirmed;
    }
    for (size_t i = 0; i < n; i++) sc_store_call_clear(&extra[i]);
    if (rc) return fail_with(a, rc);
    if (moved) {
        cs->schema_moved = 1;
        return fail_with(a, RESTART_FOR_SCHEMA);
    }
    if (confirmed && a->delta_deferred) {
        /* N's delta, checked now that it is here (sc_state_check_delta reads what the batch
         * did not bring): all of this before the claim, as when it was checked first. */
        a->delta_deferred = 0;
        if ((rc = sc_state_check_delta(t, &a->latest)) != 0) {
            /* Sent, never claimed: after an unknown outcome the commit keeps what it wrote
             * (an earlier claim may name it), but nothing can name this attempt's base list. */
            if (a->had_unknown) {
                char key[SC_MANIFEST_PATH_MAX + 16];
                sc_manifest_key(key, sizeof key, a->base.name);
                sc_commit_manifests_discard(&cs->written, key);
            }
            return fail_with(a, rc);
        }
    }
    if (confirmed) return STEP_NEXT;
    sc_log(SC_LOG_DEBUG, "commit: snapshot %" PRIu64 " is no longer the latest%s: discovering it",
           a->latest_id, present ? "" : " (it is gone)");
    char key[SC_MANIFEST_PATH_MAX + 16];
    sc_manifest_key(key, sizeof key, a->base.name);
    sc_commit_manifests_discard(&cs->written, key);
    if (!present) a->validated_any = 0; /* checked against a base that is not there: check again */
    a->lost_to = above; /* seen there: discovery starts at it */
    a->guess_failed = 1;
    return STEP_STALE;
}

/*
 * A check of a guessed base failed (a conflict, a bad request, a read error): the
 * guess may be stale, and a failure against a snapshot that is not the latest is no
 * verdict (a file deleted "twice" may be live at the latest). The looks alone confirm
 * it (one round trip): confirmed, the failure stands; otherwise the attempt restarts
 * on the latest. A replay found (SC_ECOMMITTED) too: the guess may be a leftover of this
 * handle below EARLIEST (check_in_history), whose watermark names what never landed.
 */
static step_outcome confirm_failed_guess(commit_state *cs, attempt_state *a) {
    sc_table *t = cs->t;
    if (!a->guessed || a->rc == RESTART_FOR_SCHEMA) return STEP_FAILED;
    char message[1024];
    snprintf(message, sizeof message, "%s", sc_error_message());
    int failed_rc = a->rc;
    sc_strategy_calls probe = {0};
    t->strategy->guess_probes(t, a->latest_id, &probe);
    int present = 0;
    uint64_t above = 0;
    int rc = sc_store_batch(t->store, &t->env, probe.calls, probe.n);
    int confirmed = rc ? rc : t->strategy->guess_confirmed(t, a->latest_id, &probe, &present, &above);
    for (size_t i = 0; i < probe.n; i++) sc_store_call_clear(&probe.calls[i]);
    if (confirmed == 1) {
        sc_error_set(failed_rc, "%s", message);
        return STEP_FAILED;
    }
    if (confirmed < 0) return fail_with(a, confirmed);
    sc_log(SC_LOG_DEBUG, "commit: snapshot %" PRIu64 " is no longer the latest; its check (%s) is no verdict", a->latest_id,
           message);
    sc_error_clear();
    a->rc = 0;
    a->validated_any = 0;
    a->lost_to = above;
    a->guess_failed = 1;
    /* Objects encoded for the guessed base and not yet sent are no one's. */
    if (a->base.name) {
        char key[SC_MANIFEST_PATH_MAX + 16];
        sc_manifest_key(key, sizeof key, a->base.name);
        sc_commit_manifests_discard(&cs->written, key);
    }
    return STEP_STALE;
}

/*
 * Write the immutable objects N+1 needs before anything points at them
 * (docs/protocols.md §3: data first, then the pointer), and encode the document the
 * claim publishes. The delta of APPEND and COMPACT was written before the
 * base was read (commit_loop); after the full check it is rebuilt from
 * the table's own records and written again only when its bytes differ.
 * The base list and the document name N, so they are per attempt.
 */
static step_outcome write_manifests(commit_state *cs, attempt_state *a) {
    int rc = 0;
    if (!a->delta_written &&
        (rc = sc_commit_manifests_write_delta(&cs->written, cs->req->changes, cs->mode, &cs->deletes)) == 0)
        a->delta_written = 1;
    if (!rc) rc = check_dv_deletes(cs, base_of(a));
    if (!rc) rc = sc_commit_manifests_write_base(&cs->written, &a->base, base_of(a));
    char *index_manifest = a->latest_id ? a->latest.index_manifest : NULL; /* untouched: carried by name */
    if (!rc && index_touched(cs, base_of(a))) {
        rc = write_index(cs, base_of(a), a->had_unknown || a->below_history);
        index_manifest = cs->index_name;
    }
    if (!rc) rc = build_snapshot(cs, &a->doc, base_of(a), a->latest_hash, &a->base, index_manifest);
    return rc ? fail_with(a, rc) : send_writes(cs, a);
}

/* Round trips of reads in the claim window above which the base is looked at again
 * before writing (one by one, a read is a round trip; a batch of reads is one). */
#define SC_WINDOW_REFRESH_READS 2

/*
 * A cold handle spends its first window reading N's manifests (the full
 * conflict check), long enough for another writer to claim N+1 meanwhile.
 * One look at N+1 before anything N-dependent is written: taken means a
 * new attempt at once on top of the winner (nothing to delete, no wait, no
 * lost claim); free means the window starts again from here, and holds only
 * the base list and the claim. A warm handle read nothing and never looks.
 */
static step_outcome refresh_base(commit_state *cs, attempt_state *a) {
    sc_table *t = cs->t;
    /* A guessed base is confirmed by looks in the write batch (send_writes), N+1 among them. */
    if (!t->strategy->taken || a->had_unknown || a->guessed) return STEP_NEXT;
    sc_store_stats now;
    sc_store_stats_get(&now, t->store);
    uint64_t reads = now.ops[SC_OP_GET] - a->window_start.ops[SC_OP_GET] + now.ops[SC_OP_HEAD] -
                     a->window_start.ops[SC_OP_HEAD] + now.ops[SC_OP_LIST] - a->window_start.ops[SC_OP_LIST];
    /* The window's length is its round trips: batched reads count once (nothing but reads
     * has been sent since the base was known: the writes wait for the batch). */
    if (sc_store_caps(t->store) & SC_CAP_CONCURRENT) reads = sc_store_rounds(t->store) - a->window_rounds;
    if (reads <= SC_WINDOW_REFRESH_READS) return STEP_NEXT;
    int taken = 0;
    int rc = t->strategy->taken(t, a->latest_id + 1, &taken);
    if (rc) return fail_with(a, rc);
    if (taken) {
        a->lost_to = a->latest_id + 1;
        return STEP_STALE;
    }
    sc_store_stats_get(&a->window_start, t->store);
    a->window_rounds = sc_store_rounds(t->store);
    a->window_started = sc_env_monotonic_ms(&t->env);
    return STEP_NEXT;
}

/* Claim N+1 through the strategy: the one step that publishes (won, lost, unknown or an error). */
static step_outcome claim(commit_state *cs, attempt_state *a, sc_commit_result *res) {
    sc_table *t = cs->t;
    uint64_t id = a->latest_id + 1;
    res->attempts++;
    int rc = t->strategy->claim(t, id, a->doc.data, a->doc.len);
    sc_store_stats_get(&a->claim_answered, t->store); /* the window ends with the claim's answer */
    a->has_claim_answered = 1;
    if (rc == 0) {
        a->landed = id;
        return STEP_WON; /* in history? check_in_history, after the window */
    }
    if (rc == SC_EEXISTS) {
        a->lost_to = id; /* the winner's snapshot: the next discovery starts there */
        a->window_ms = sc_env_monotonic_ms(&t->env) - a->window_started;
        /* Certainly lost: no snapshot can name this attempt's base list. */
        char key[SC_MANIFEST_PATH_MAX + 16];
        sc_manifest_key(key, sizeof key, a->base.name);
        if (!a->had_unknown) sc_commit_manifests_discard(&cs->written, key);
        return STEP_LOST;
    }
    if (rc == SC_EUNKNOWN) return STEP_UNKNOWN;
    return fail_with(a, rc);
}

/*
 * A won claim can lie below snapshot/EARLIEST (docs/protocols.md §13): while this
 * attempt waited between reading N-1 and claiming N, another writer claimed N and an
 * expiration removed it (EARLIEST first, then the file), so the conditional create of N
 * succeeded on a free key where no reader looks. Expiration moves EARLIEST before it
 * deletes, so EARLIEST <= N read after the claim proves the claim is in history. Above
 * N, our snapshot may also have been in history and expired since: the latest
 * snapshot's watermark then names this commit at N. When it names the identifier
 * elsewhere (or a later one), another incarnation of the committer committed it while
 * this one waited: SC_ECOMMITTED, as the replay check says. Otherwise the claim counts as lost and is
 * retried on the latest with a new delta (the leftover below EARLIEST names the old one,
 * which the next expiration may delete). Checked after every won claim of the file
 * strategies (strategy.h snapshot_files_are_history; one GET of EARLIEST): only
 * their tables expire.
 */
static step_outcome check_in_history(commit_state *cs, attempt_state *a, sc_commit_result *res) {
    sc_table *t = cs->t;
    const sc_commit_request *req = cs->req;
    if (!t->strategy->snapshot_files_are_history) return STEP_WON;
    int64_t window = sc_env_monotonic_ms(&t->env) - a->base_looked;
    /* Not a HEAD of N-1: a present N-1 may itself be another stalled writer's leftover,
     * landed on a freed key below EARLIEST just before this check. */
    uint64_t earliest = 0, latest = 0;
    int rc = sc_upkeep_read_earliest(&earliest, NULL, NULL, t);
    if (!rc && earliest <= a->landed) return STEP_WON;
    sc_watermark w;
    int found = 0;
    /* The latest read again should an expiration remove it while it is read. */
    if (!rc) rc = sc_replay_latest_watermark(&latest, &w, &found, t, req->commit_user, "commit");
    if (rc)
        return fail_with(a, sc_error_wrap(SC_EUNKNOWN, "snapshot %" PRIu64 " was claimed after a %" PRId64
                                                       " ms wait; checking that it is not below EARLIEST failed",
                                          a->landed, window));
    if (found && w.identifier == req->identifier && w.snapshot_id == a->landed) { /* in history, expired since */
        a->expired_since = 1;
        return STEP_WON;
    }
    if (found && sc_replay_committed(&w, req->identifier) &&
        !(cs->own_mark_at && w.identifier == req->identifier && w.snapshot_id == cs->own_mark_at)) {
        /* Ours may have been in history and expired, another snapshot built on it: what we
         * wrote may be named there, so none of it is deleted. */
        cs->keep_written = 1;
        res->existing_snapshot = w.identifier == req->identifier ? w.snapshot_id : 0;
        return fail_with(a, sc_error_set(SC_ECOMMITTED, "user %s identifier %" PRId64 " is already committed (watermark "
                                                        "%" PRId64 " at snapshot %" PRIu64 "); this commit's claim of "
                                                        "snapshot %" PRIu64 " landed below EARLIEST %" PRIu64,
                                         req->commit_user, req->identifier, w.identifier, w.snapshot_id, a->landed,
                                         earliest));
    }
    sc_strategy_forget_found(t); /* the leftover is no base to guess: its bytes are not history */
    sc_log(SC_LOG_WARN, "claimed snapshot %" PRIu64 " below EARLIEST %" PRIu64 ": it expired while this commit waited "
                        "%" PRId64 " ms; retrying on snapshot %" PRIu64 " (user %s, identifier %" PRId64 ")",
           a->landed, earliest, window, latest, req->commit_user, req->identifier);
    a->window_ms = window;
    a->lost_to = 0;
    a->unknown_id = 0;
    a->delta_written = 0;
    cs->written.has_delta_sha = 0; /* a new delta: the leftover's may be deleted with it */
    a->below_history = 1;
    a->validated_any = 0; /* the full check against the latest: the leftover must not count as a commit */
    return STEP_LOST;
}

/* The claim's answer was lost: read back at once whose snapshot is at that id. */
static step_outcome reconcile_claim(commit_state *cs, attempt_state *a, sc_commit_result *res) {
    const sc_commit_request *req = cs->req;
    uint64_t id = a->latest_id + 1;
    res->unknown_outcomes++;
    a->unknown_id = id;
    a->had_unknown = 1;
    sc_log(SC_LOG_WARN, "claim of snapshot %" PRIu64 " by user %s (identifier %" PRId64 ") has an unknown outcome; reconciling",
           id, req->commit_user, req->identifier);
    int who = landed_at(cs, id);
    if (who == LANDED_OURS) {
        /* Visible is not yet durable: only a successful sync makes it a success. */
        if (sc_store_sync(cs->t->store) != 0) return STEP_UNKNOWN;
        a->landed = id;
        return STEP_WON;
    }
    if (who == LANDED_OTHER) {
        a->unknown_id = 0;
        a->lost_to = id;
        return STEP_LOST;
    }
    return STEP_UNKNOWN; /* absent or unreadable: decide on the next attempt */
}

/*
 * A lost claim is retried after a wait that grows with the contention seen
 * and shrinks with the claims this commit already lost (loser first,
 * backoff.h); an undecided one after a doubling wait. The default bound is
 * the commit budget (timeout_ms), checked before each wait so that one
 * attempt is never interrupted; a max_retries >= 0 set by the caller bounds
 * the count as well. Giving up while a claim is undecided says so: it may
 * have landed.
 */
static step_outcome backoff(commit_state *cs, attempt_state *a, step_outcome why, sc_commit_result *res) {
    sc_table *t = cs->t;
    const sc_commit_request *req = cs->req;
    const sc_retry_policy *p = &t->retry;
    if (why == STEP_LOST) {
        res->lost_claims++;
        a->lost++;
    } else {
        a->lost_to = 0; /* nothing is known to exist above the base */
    }
    char limit[48] = "";
    if (p->max_retries >= 0) snprintf(limit, sizeof limit, " of %d", p->max_retries + 1);
    sc_log(SC_LOG_WARN, "%s the claim of snapshot %" PRIu64 " (user %s, identifier %" PRId64 ", %s); attempt %d%s",
           why == STEP_LOST ? "lost" : "could not confirm", a->latest_id + 1, req->commit_user, req->identifier,
           sc_commit_kind_name(req->kind), a->number + 1, limit);
    if (p->max_retries >= 0 && a->number >= p->max_retries) {
        if (a->unknown_id)
            return fail_with(a, sc_error_set(SC_EUNKNOWN, "claim of snapshot %" PRIu64 " could not be reconciled after %d attempts",
                                             a->unknown_id, a->number + 1));
        return fail_with(a, sc_error_set(SC_ERETRIES, "gave up after %d lost claims (user %s, identifier %" PRId64 ", max_retries %d); raise the retry limit (CLI --max-retries, Flink commit.max-retries) or the retry waits",
                                         a->lost, req->commit_user, req->identifier, p->max_retries));
    }
    uint32_t r = 0;
    sc_env_random(&t->env, &r, sizeof r);
    /* A lost claim whose winner shows (the base moves) is contention: loser first.
     * One lost while the base stands still (tracker: a version blocked by an
     * attempt in flight or dead until its TTL) or undecided waits doubling. */
    int64_t wait = why == STEP_LOST && !a->stalled ? sc_backoff_lost_wait_ms(p, a->lost, a->contention, a->window_ms, r)
                   : why == STEP_LOST              ? sc_backoff_wait_ms(p, a->stalled - 1, r)
                                                   : sc_backoff_wait_ms(p, a->number, r);
    int64_t spent = sc_env_monotonic_ms(&t->env) - a->started;
    if (p->timeout_ms > 0 && spent + wait > p->timeout_ms) {
        if (a->unknown_id)
            return fail_with(a, sc_error_set(SC_EUNKNOWN,
                                             "commit budget (timeout) of %" PRId64 " ms exceeded after %d attempts while the outcome of "
                                             "the claim of snapshot %" PRIu64 " is unknown: it may have landed; check with last-committed",
                                             p->timeout_ms, a->number + 1, a->unknown_id));
        return fail_with(a, sc_error_set(SC_ETIMEOUT, "commit budget (timeout) of %" PRId64 " ms exceeded after %d attempts "
                                                      "(%d lost claims, user %s, identifier %" PRId64 "); nothing was committed; "
                                                      "raise it with CLI --timeout-ms or sc_retry_policy.timeout_ms",
                                         p->timeout_ms, a->number + 1, a->lost, req->commit_user, req->identifier));
    }
    sc_env_sleep_ms(&t->env, wait);
    return STEP_RETRY;
}

/*
 * A step before the claim failed reading base N's objects (its snapshot,
 * lists, manifests, watermark archive) because an expiration removed N
 * meanwhile (sc_state_expired_under): not damage but a base passed by, like
 * N+1 taken (STEP_STALE). Any other failure stands.
 */
static step_outcome base_expired(commit_state *cs, attempt_state *a) {
    uint64_t earliest = 0;
    if (a->rc == RESTART_FOR_SCHEMA) return STEP_FAILED;
    if (!a->latest_id || !sc_state_expired_under(&earliest, cs->t, a->latest_id, &a->rc)) return STEP_FAILED;
    sc_log(SC_LOG_INFO, "commit: snapshot %" PRIu64 " expired while this attempt read it (history starts at %" PRIu64
                        "): a new attempt on the latest (user %s, identifier %" PRId64 ")",
           a->latest_id, earliest, cs->req->commit_user, cs->req->identifier);
    sc_error_clear();
    a->rc = 0;
    a->lost_to = 0; /* nothing known to exist above the base */
    if (a->base.name) { /* written for N (its delta is checked after the batch): no one's now */
        char key[SC_MANIFEST_PATH_MAX + 16];
        sc_manifest_key(key, sizeof key, a->base.name);
        sc_commit_manifests_discard(&cs->written, key);
    }
    return STEP_STALE;
}

/*
 * STEP_STALE: N+1 appeared before this attempt wrote anything (or N expired
 * under its reads), so the next attempt starts at once, without a wait. It
 * still counts against the budget: a rival landing in every window would
 * otherwise keep this commit restarting, past timeout_ms and max_retries, for
 * as long as it wins.
 */
static step_outcome restart_stale(commit_state *cs, attempt_state *a) {
    sc_table *t = cs->t;
    const sc_commit_request *req = cs->req;
    const sc_retry_policy *p = &t->retry;
    if (p->max_retries >= 0 && a->number >= p->max_retries)
        return fail_with(a, sc_error_set(SC_ERETRIES, "gave up after %d attempts found their base passed before claiming (the "
                                                      "last: snapshot %" PRIu64 " taken, or its base expired; user %s, identifier %" PRId64 ", max_retries %d); "
                                                      "nothing was committed",
                                         a->number + 1, a->latest_id + 1, req->commit_user, req->identifier, p->max_retries));
    int64_t spent = sc_env_monotonic_ms(&t->env) - a->started;
    if (p->timeout_ms > 0 && spent > p->timeout_ms)
        return fail_with(a, sc_error_set(SC_ETIMEOUT, "commit budget (timeout) of %" PRId64 " ms exceeded after %d attempts "
                                                      "(each found its base passed before claiming; %d lost claims, user %s, "
                                                      "identifier %" PRId64 "); nothing was committed; raise it with CLI "
                                                      "--timeout-ms or sc_retry_policy.timeout_ms",
                                         p->timeout_ms, a->number + 1, a->lost, req->commit_user, req->identifier));
    return STEP_RETRY;
}

static void attempt_end(attempt_state *a) {
    a->prev_latest = a->latest_id;
    a->has_claim_answered = 0;
    a->delta_deferred = 0;
    ref_clear(&a->base);
    sc_buf_free(&a->doc);
    sc_snapshot_clear(&a->latest);
    a->latest_id = 0;
    memset(a->latest_hash, 0, sizeof a->latest_hash);
}

/* STEP_WON: hints, the history marker, and the log line. */
/* Others committed this many snapshots since this handle's previous commit, that commit
 * ended within this long: the writers are racing, not taking turns. */
#define SC_RACE_GAP_MS 1000

/*
 * Loser first, from the winner's side. Waits that shrink for commits that
 * lost often (backoff) are not enough when the winners come straight back:
 * a writer that just won, and whose commits others interleave with back to
 * back, would meet the losers' retries with a warmer cache and a shorter
 * window, and win again. So such a winner owes one spread wait (the same
 * a first-time loser draws) before its next commit reads the base. A
 * writer committing once per checkpoint, or alone, never waits.
 */
static void yield_to_losers(sc_table *t, const attempt_state *a) {
    int64_t now = sc_env_monotonic_ms(&t->env);
    uint64_t others = t->last_landed_id && a->landed > t->last_landed_id + 1 ? a->landed - t->last_landed_id - 1 : 0;
    t->yield_ms = 0;
    if (others && now - t->last_landed_ms < SC_RACE_GAP_MS) {
        uint32_t r = 0;
        sc_env_random(&t->env, &r, sizeof r);
        t->yield_ms = sc_backoff_lost_wait_ms(&t->retry, 1, others, a->window_ms, r);
    }
    t->last_landed_id = a->landed;
    t->last_landed_ms = now;
}

static int finish(commit_state *cs, const attempt_state *a, sc_commit_result *res) {
    sc_table *t = cs->t;
    const sc_commit_request *req = cs->req;
    res->snapshot_id = a->landed;
    yield_to_losers(t, a);
    /* A LATEST hint naming a snapshot below EARLIEST would send discovery to a leftover. */
    if (!a->expired_since) t->strategy->after_commit(t, a->landed);
    sc_table_note_history(t, a->landed); /* tells a lost history from a new table */
    if (a->reconciled)
        sc_log(SC_LOG_INFO, "reconciled: snapshot %" PRIu64 " is ours (user %s, identifier %" PRId64 ")", a->landed,
               req->commit_user, req->identifier);
    else
        sc_log(SC_LOG_INFO, "committed snapshot %" PRIu64 " (user %s, identifier %" PRId64 ", %s)", a->landed,
               req->commit_user, req->identifier, sc_commit_kind_name(req->kind));
    return 0;
}

/*
 * STEP_FAILED. While a claim of ours is undecided the commit may have
 * landed, so any error reads as SC_EUNKNOWN, never as "not committed" — but
 * a replay rejection stands: it says exactly what is committed.
 */
static int failed(const attempt_state *a) {
    if (!a->unknown_id || a->rc == SC_ECOMMITTED) return a->rc;
    if (a->rc != SC_EUNKNOWN)
        sc_error_wrap(SC_EUNKNOWN, "the outcome of the claim of snapshot %" PRIu64 " is unknown (it may have landed), and then",
                      a->unknown_id);
    return SC_EUNKNOWN;
}

/*
 * One attempt walks the steps in order while each says STEP_NEXT:
 *
 *   read_base → reconcile_earlier → check_replay → check_conflicts
 *             → write_manifests → claim ─UNKNOWN→ reconcile_claim
 *
 * WON ends the commit (finish), FAILED ends it with the error (failed);
 * LOST and UNKNOWN go to backoff, whose RETRY starts the next attempt.
 */
static int commit_loop(commit_state *cs, sc_commit_result *res) {
    if (cs->t->yield_ms > 0) { /* owed by the last commit (yield_to_losers) */
        sc_env_sleep_ms(&cs->t->env, cs->t->yield_ms);
        cs->t->yield_ms = 0;
    }
    attempt_state a = {.started = sc_env_monotonic_ms(&cs->t->env), .doc = SC_BUF_INIT, .contention = 1};
    /* Everything that does not depend on the base is written before it is read:
     * the delta of APPEND and COMPACT (OVERWRITE's deletes are what is live at
     * each attempt's base). The claim window then holds only what needs N. */
    if (cs->mode != SC_KIND_OVERWRITE) {
        int rc = sc_commit_manifests_write_delta(&cs->written, cs->req->changes, cs->mode,
                                                 &cs->req->changes->deletes);
        if (rc) return rc;
    }
    int rc = cs->drop_changelog ? 0 : sc_commit_manifests_write_changelog(&cs->written, cs->req->changes);
    /* Sent one by one, they go now, out of the claim window; a concurrent store sends
     * them with the attempt's batch, in the same round trip as the base list. */
    if (!rc && !(sc_store_caps(cs->t->store) & SC_CAP_CONCURRENT)) rc = sc_commit_manifests_flush(&cs->written, NULL, 0);
    if (rc) return rc;
    for (;; a.number++) {
        step_outcome o = read_base(cs, &a);
        if (o == STEP_NEXT) o = reconcile_earlier(cs, &a);
        if (o == STEP_NEXT) o = check_replay(cs, &a, res);
        if (o == STEP_NEXT) o = check_conflicts(cs, &a);
        if (o == STEP_NEXT) o = refresh_base(cs, &a);
        if (o == STEP_NEXT) o = write_manifests(cs, &a);
        if (o == STEP_FAILED) o = confirm_failed_guess(cs, &a); /* a stale guess gives no verdict */
        if (o == STEP_FAILED) o = base_expired(cs, &a); /* read while an expiration removed the base */
        if (o == STEP_NEXT) o = claim(cs, &a, res);
        if (o == STEP_UNKNOWN) o = reconcile_claim(cs, &a, res);
        if (o == STEP_WON) { /* the claim window of the attempt that won */
            sc_store_stats now;
            sc_store_stats_get(&now, cs->t->store);
            stats_diff(&res->window_stats, &a.window_start, a.has_claim_answered ? &a.claim_answered : &now);
        }
        if (o == STEP_WON) o = check_in_history(cs, &a, res); /* after the claim: not in its window */
        if (o == STEP_LOST || o == STEP_UNKNOWN) o = backoff(cs, &a, o, res);
        if (o == STEP_STALE && a.guess_failed) { /* not a base passed by: a guess that missed */
            a.guess_failed = 0;
            attempt_end(&a);
            a.number--; /* the for loop counts it back: this was no attempt */
            continue;
        }
        if (o == STEP_STALE) o = restart_stale(cs, &a);
        attempt_end(&a);
        if (o == STEP_WON) return finish(cs, &a, res);
        if (o != STEP_RETRY) return failed(&a);
    }
}

/* What a commit applies besides its request: how (mode), and a checkpoint's watermark and own mark. */
typedef struct commit_opts {
    sc_commit_kind mode;
    int has_watermark;
    int64_t watermark;
    uint64_t own_mark_at;
    int static_scope; /* an overwrite of `spec` (opts of commit_state) */
    const char *spec;
    int drop_changelog;
} commit_opts;

/*
 * One pass of a commit: a validated request applied as `o` says, through the commit
 * loop. With `defer_schema` the look for a newer schema goes with the first attempt's
 * batch instead of before it; RESTART_FOR_SCHEMA when it found one (what the pass
 * wrote is removed: no snapshot names it).
 */
static int commit_pass(sc_commit_result *res, sc_table *t, const sc_commit_request *req, const commit_opts *o,
                       int defer_schema) {
    commit_state cs = {0};
    cs.t = t;
    cs.req = req;
    cs.mode = o->mode;
    cs.has_watermark = o->has_watermark;
    cs.watermark = o->watermark;
    cs.own_mark_at = o->own_mark_at;
    cs.static_scope = o->static_scope;
    cs.spec = o->spec;
    cs.drop_changelog = o->drop_changelog;
    cs.written.t = t;
    int rc = sc_env_uuid_text(&t->env, cs.commit_uuid);
    /* The handle's first commit trusts the schema its open listed (sc_table_refresh_schema). */
    if (!rc && defer_schema && !t->schema_just_listed) cs.schema_deferred = 1;
    else if (!rc) rc = sc_table_refresh_schema(t);
    /* Paimon's row tracking assigns new files their first row ids and carries the snapshot's
     * nextRowId: a snapshot of ours would drop both, and the row ids be handed out again. */
    const char *rows_tracked = rc ? NULL : sc_schema_option(&t->schema, "row-tracking.enabled");
    if (rows_tracked && strcasecmp(rows_tracked, "true") == 0)
        rc = sc_error_set(SC_EUNSUPPORTED, "the table sets row-tracking.enabled (Paimon's row tracking, data-evolution "
                                           "tables), which snapcommit does not implement: nothing written");
    if (!rc) rc = sc_entries_prepare(t, req->changes, o->mode, sc_env_now_ms(&t->env));
    if (!rc) rc = sc_partition_set_build(&cs.parts, &req->changes->adds, &req->changes->deletes);
    if (!rc) rc = commit_loop(&cs, res);
    /* Objects of a commit that certainly did not land are garbage; with an
     * unknown outcome they may be referenced, so they stay. */
    if (rc == RESTART_FOR_SCHEMA) {
        sc_commit_manifests_remove_written(&cs.written);
    } else if (rc && rc != SC_EUNKNOWN && !cs.keep_written) {
        char message[1024];
        snprintf(message, sizeof message, "%s", sc_error_message());
        sc_commit_manifests_remove_written(&cs.written);
        sc_error_set(rc, "%s", message); /* the clean-up's own calls must not hide why we failed */
    }
    /* A delta replaced after the full check: no snapshot names it (deleted on
     * failure with the rest; left in place when the outcome is unknown). */
    if (!rc) sc_commit_manifests_remove_stale(&cs.written);
    if (cs.written.doomed_count) {
        char message[1024];
        snprintf(message, sizeof message, "%s", rc ? sc_error_message() : "");
        sc_commit_manifests_settle(&cs.written);
        if (rc && rc != RESTART_FOR_SCHEMA) sc_error_set(rc, "%s", message); /* the settling must not hide why */
    }
    sc_commit_manifests_free(&cs.written);
    sc_entry_vec_free(&cs.deletes);
    sc_partition_set_free(&cs.parts);
    sc_entry_vec_free(&cs.scope_live); /* after parts, which borrowed from it */
    free(cs.index_name);
    free(cs.index_built_on);
    return rc;
}

/* One snapshot: the commit pass, and a second one on the newer schema its batch found. */
static int commit_run(sc_commit_result *res, sc_table *t, const sc_commit_request *req, const commit_opts *o) {
    sc_store_stats before, after;
    sc_store_stats_get(&before, t->store);
    uint64_t rounds = sc_store_rounds(t->store);
    int64_t started = sc_env_monotonic_ms(&t->env);
    /* One by one, the schema's look would only lengthen the claim window. */
    int rc = commit_pass(res, t, req, o, (sc_store_caps(t->store) & SC_CAP_CONCURRENT) != 0);
    if (rc == RESTART_FOR_SCHEMA) {
        sc_error_clear();
        sc_log(SC_LOG_INFO, "commit: a newer schema than schema-%" PRId64 " appeared; committing on it (user %s, "
                            "identifier %" PRId64 ")",
               t->schema.id, req->commit_user, req->identifier);
        rc = commit_pass(res, t, req, o, 0);
        if (rc == RESTART_FOR_SCHEMA) rc = sc_error_set(SC_EIO, "internal: the schema moved twice in one commit");
    }
    sc_store_stats_get(&after, t->store);
    stats_diff(&res->stats, &before, &after);
    res->round_trips = sc_store_rounds(t->store) - rounds;
    res->elapsed_ms = sc_env_monotonic_ms(&t->env) - started;
    return rc;
}

int sc_table_commit(sc_commit_result *out, sc_table *t, const sc_commit_request *req) {
    sc_commit_result local;
    sc_commit_result *res = out ? out : &local;
    memset(res, 0, sizeof *res);
    if (!t) return sc_error_set(SC_EINVAL, "NULL table");
    int rc = sc_table_check_adopted(t);
    if (!rc) rc = validate_request(req);
    if (rc) return rc;
    sc_error_clear();
    commit_opts o = {.mode = req->kind};
    return commit_run(res, t, req, &o);
}

static int part_empty(const sc_changes *c) {
    return !c || (!c->adds.count && !c->deletes.count && !c->changelog.count && !c->index_adds.count &&
                  !c->index_deletes.count);
}

/*
 * Paimon's rule (ConflictDetection.shouldBeOverwriteCommit): a checkpoint's append part
 * that deletes a data file or touches deletion vectors is labelled OVERWRITE, so that
 * readers of APPEND snapshots as pure additions (streaming reads) are not misled. Its
 * changes still apply exactly as given: it replaces no partition.
 */
static int append_part_is_overwrite(const sc_changes *c) {
    if (c->deletes.count) return 1;
    const sc_index_vec *v[2] = {&c->index_adds, &c->index_deletes};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < v[k]->count; i++)
            if (strcmp(v[k]->items[i].entry.index_type, SC_INDEX_TYPE_DV) == 0) return 1;
    return 0;
}

/* The changelog files both parts of an overwrite drop (Paimon warns the same way). */
static void warn_dropped_changelog(const sc_checkpoint_request *req) {
    size_t n = (req->append ? req->append->changelog.count : 0) + (req->compact ? req->compact->changelog.count : 0);
    if (n)
        sc_log(SC_LOG_WARN, "overwrite (user %s, identifier %" PRId64 ") commits no changelog: %zu changelog file(s) "
                            "dropped; make sure no streaming reader consumes the partitions overwritten",
               req->commit_user, req->identifier, n);
}

int sc_table_commit_checkpoint(sc_checkpoint_result *out, sc_table *t, const sc_checkpoint_request *req) {
    sc_checkpoint_result local;
    sc_checkpoint_result *res = out ? out : &local;
    memset(res, 0, sizeof *res);
    res->append_kind = SC_KIND_APPEND;
    if (!t) return sc_error_set(SC_EINVAL, "NULL table");
    if (!req) return sc_error_set(SC_EINVAL, "checkpoint request is required");
    int rc = sc_table_check_adopted(t);
    if (rc) return rc;
    /* Each part is validated as a request of its own (a NULL part: an empty set stands in). */
    sc_changes empty = {0};
    sc_commit_request append = {req->commit_user, req->identifier, SC_KIND_APPEND, req->base_snapshot,
                                req->append ? req->append : &empty};
    sc_commit_request compact = {req->commit_user, req->identifier, SC_KIND_COMPACT, req->base_snapshot,
                                 req->compact ? req->compact : &empty};
    if ((rc = validate_request(&append)) != 0) return rc;
    sc_overwrite_scope scope = req->overwrite;
    if (scope < SC_OVERWRITE_NONE || scope > SC_OVERWRITE_TABLE)
        return sc_error_set(SC_EINVAL, "unknown overwrite scope %d", (int)scope);
    if (scope == SC_OVERWRITE_PARTITION && (rc = sc_table_refresh_schema(t)) == 0)
        rc = sc_overwrite_check_spec(t, req->overwrite_partition);
    if (rc) return rc;
    sc_error_clear();
    int drop_changelog = scope != SC_OVERWRITE_NONE;
    if (drop_changelog) warn_dropped_changelog(req);
    /* Paimon's dynamic overwrite needs partition fields; without, it replaces the table. */
    if (scope == SC_OVERWRITE_DYNAMIC && t->schema.partition_key_count == 0) scope = SC_OVERWRITE_TABLE;
    int compact_has = compact.changes->adds.count || compact.changes->deletes.count ||
                      compact.changes->index_adds.count || compact.changes->index_deletes.count;
    int write_append = !part_empty(append.changes);
    if (scope == SC_OVERWRITE_DYNAMIC) write_append = append.changes->adds.count || append.changes->deletes.count;
    if (scope == SC_OVERWRITE_PARTITION || scope == SC_OVERWRITE_TABLE) write_append = 1; /* even empty: a truncation */
    if (write_append) {
        commit_opts o = {.mode = SC_KIND_APPEND, .has_watermark = req->has_watermark, .watermark = req->watermark};
        if (append_part_is_overwrite(append.changes)) append.kind = SC_KIND_OVERWRITE;
        /* Paimon raises non-overlapping level-0 files of an overwrite without compaction to the top level. */
        if (scope != SC_OVERWRITE_NONE && !compact_has && (rc = sc_overwrite_upgrade(t, append.changes)) != 0) return rc;
        if (scope != SC_OVERWRITE_NONE) {
            append.kind = o.mode = SC_KIND_OVERWRITE;
            o.drop_changelog = 1;
            o.static_scope = scope != SC_OVERWRITE_DYNAMIC;
            o.spec = scope == SC_OVERWRITE_PARTITION && req->overwrite_partition ? req->overwrite_partition : "";
        }
        res->append_kind = append.kind;
        if ((rc = commit_run(&res->append, t, &append, &o)) != 0) return rc;
    }
    if (drop_changelog ? compact_has : !part_empty(compact.changes)) {
        /* The compact part builds on what the append part just committed (its base is at least that). */
        if (res->append.snapshot_id) compact.base_snapshot = 0;
        commit_opts o = {.mode = SC_KIND_COMPACT, .has_watermark = req->has_watermark, .watermark = req->watermark,
                         .own_mark_at = res->append.snapshot_id, .drop_changelog = drop_changelog};
        if ((rc = commit_run(&res->compact, t, &compact, &o)) != 0) return rc;
    }
    return 0;
}
