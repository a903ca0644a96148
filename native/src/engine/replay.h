/*
 * The replay rule, the heart of exactly-once (docs/protocols.md §3 step 3,
 * Paimon's filterCommitted), in one place:
 *
 *   identifiers strictly increase per commit user; the latest snapshot's
 *   watermark of a user is the highest identifier that user committed; an
 *   identifier <= the watermark is already committed.
 *
 * This module owns everything that reads or writes that rule: the check
 * before a commit, the filter a restarted committer asks, the watermark
 * table written into each new snapshot, and which users move from the
 * snapshot's inline table to the watermark archive. The codecs only encode
 * and decode what they are given.
 */
#ifndef SC_REPLAY_H
#define SC_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "format/snapshot.h"
#include "format/watermark_archive.h"

struct sc_table;

/*
 * Where the watermarks live. A snapshot holds the recently active users
 * inline (at most SC_WATERMARK_INLINE_USERS, sorted by user) and references
 * the watermark archive (format/watermark_archive.h) for everyone else: an
 * immutable, content-addressed object carried forward from snapshot to
 * snapshot unchanged, read only when a user is not inline and rewritten only
 * when the inline table overflows (then the least recently active half moves
 * out, merged into a new archive). Nobody's watermark is ever dropped, and no
 * old snapshot is read to find one, so expiring snapshots cannot re-open
 * identifiers to replays. An inline entry is never below the same user's
 * archived one (every update goes through sc_replay_lookup first).
 */
#define SC_WATERMARK_INLINE_USERS 256

/*
 * `user`'s watermark on top of `latest` (NULL: an empty table): the inline
 * entry, else the archive's (one GET, then from the handle's cache). *found 0
 * when the user never committed; then *out is zeroed. out->user is `user`
 * (borrowed). A missing, damaged or oversized archive is SC_ECORRUPT naming
 * it; store errors reading it as they arise (never "not committed").
 */
int sc_replay_lookup(sc_watermark *out, int *found, struct sc_table *t, const sc_snapshot *latest,
                     const char *user);

/*
 * The latest snapshot's id (*out_latest, 0 for an empty table) and `user`'s
 * watermark there (sc_replay_lookup, after sc_replay_complete), the latest
 * read again should an expiration remove it meanwhile (sc_state_read_retained,
 * `what` naming the caller; SC_ETRANSIENT once that repeats).
 */
int sc_replay_latest_watermark(uint64_t *out_latest, sc_watermark *out, int *found, struct sc_table *t,
                               const char *user, const char *what);

/* The rule: 1 when `identifier` is already committed under `w` (NULL: the user never committed). */
int sc_replay_committed(const sc_watermark *w, int64_t identifier);

/*
 * The check before a commit of (`user`, `identifier`) on top of `latest`
 * (NULL for an empty table). 0 when the identifier is above the user's
 * watermark; SC_ECOMMITTED (message names user, watermark and snapshot)
 * when it is not. *out_existing is the snapshot that committed exactly this
 * identifier (a replay), else 0. Errors of sc_replay_lookup as they arise.
 */
int sc_replay_check(uint64_t *out_existing, struct sc_table *t, const sc_snapshot *latest, const char *user,
                    int64_t identifier);

/*
 * Copy the identifiers of `ids` not yet committed under `w` into `out_ids`,
 * in input order; returns how many. `out_ids` may be `ids` (filters in place).
 */
size_t sc_replay_filter(int64_t *out_ids, const sc_watermark *w, const int64_t *ids, size_t count);

/*
 * The watermarks of the next snapshot: `prev`'s (NULL for the first
 * snapshot) with `user` set to (`identifier`, `snapshot_id`). When more than
 * the inline bound (t->watermark_inline_users, else SC_WATERMARK_INLINE_USERS)
 * would be inline, the least recently active move to a new archive (the old
 * one read, merged, written under metadata/watermarks/ before anything
 * references it); otherwise `prev`'s archive reference is carried. Replaces
 * and frees `next`'s inline table and archive reference (next owns the
 * copies). The archive is content-addressed and may be shared with another
 * writer's snapshot: a failed commit must not delete it. On error `next` is
 * unchanged (SC_ENOMEM, SC_ELIMIT when the archive would exceed its bounds,
 * the archive's read errors, store errors of the write).
 */
int sc_replay_next_watermarks(sc_snapshot *next, struct sc_table *t, const sc_snapshot *prev, const char *user,
                              int64_t identifier, uint64_t snapshot_id);

/*
 * A latest snapshot that Paimon wrote (foreign) has no watermarks: give it
 * the inline table and archive reference of the newest snapshot of ours
 * below it, updated with the (commitUser, commitIdentifier) of every Paimon
 * snapshot since (Paimon's batch identifier Long.MAX_VALUE excepted; a lower
 * identifier than the user's watermark, inline or archived, is ignored).
 * Walks back over Paimon's snapshots only: O(1) when the latest is ours. The
 * inline table may then exceed the inline bound; the next snapshot written
 * on it moves the excess to the archive. Store errors as the reads.
 */
int sc_replay_complete(struct sc_table *t, sc_snapshot *latest);

/*
 * What expiration and orphan removal must know: the store keys of the
 * objects snapshot `s` references beyond Paimon's manifests, data and index
 * files (today: its watermark archive), written to out[0 .. cap) ; returns
 * how many there are (at most SC_REPLAY_MAX_OBJECTS). An object listed here
 * must not be deleted while a retained snapshot lists it. A snapshot Paimon
 * wrote lists none itself: its users' watermarks come from the newest
 * snapshot of ours below it (sc_replay_complete), so expiration must keep
 * that one's archive too as long as such a Paimon snapshot is retained.
 */
#define SC_REPLAY_MAX_OBJECTS 1
size_t sc_replay_snapshot_objects(char out[][SC_WATERMARK_ARCHIVE_KEY_MAX], size_t cap, const sc_snapshot *s);

/*
 * fsck's check of the archive snapshot `s` references (none: 0): present,
 * with the pinned length and hash, decodable, naming no snapshot above s->id,
 * and holding no user with a higher identifier inline (an inline watermark is
 * never below the archived one). SC_ECORRUPT naming the archive and snapshot.
 */
int sc_replay_check_archive(struct sc_table *t, const sc_snapshot *s);

#endif
