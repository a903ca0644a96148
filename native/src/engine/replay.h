/*
 * The replay rule, the heart of exactly-once (BRIEF §4, Paimon's
 * filterCommitted), in one place:
 *
 *   identifiers strictly increase per commit user; the latest snapshot's
 *   watermark of a user is the highest identifier that user committed; an
 *   identifier <= the watermark is already committed.
 *
 * This module owns everything that reads or writes that rule: the check
 * before a commit, the filter a restarted committer asks, the watermark
 * table written into each new snapshot, and which user's watermark is
 * forgotten when that table is full. The snapshot codec only encodes and
 * decodes the table it is given.
 */
#ifndef SC_REPLAY_H
#define SC_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "format/snapshot.h"

/* `user`'s watermark in `latest`, or NULL (no snapshot yet: `latest` NULL, or no entry). */
const sc_watermark *sc_replay_watermark(const sc_snapshot *latest, const char *user);

/* The rule: 1 when `identifier` is already committed under `w` (NULL: the user never committed). */
int sc_replay_committed(const sc_watermark *w, int64_t identifier);

/*
 * The check before a commit of (`user`, `identifier`) on top of `latest`
 * (NULL for an empty table). 0 when the identifier is above the user's
 * watermark; SC_ECOMMITTED (message names user, watermark and snapshot)
 * when it is not. *out_existing is the snapshot that committed exactly this
 * identifier (a replay), else 0.
 */
int sc_replay_check(uint64_t *out_existing, const sc_snapshot *latest, const char *user,
                    int64_t identifier);

/*
 * Copy the identifiers of `ids` not yet committed under `w` into `out_ids`,
 * in input order; returns how many. `out_ids` may be `ids` (filters in place).
 */
size_t sc_replay_filter(int64_t *out_ids, const sc_watermark *w, const int64_t *ids, size_t count);

/*
 * The watermark table of the next snapshot: `prev`'s (NULL for the first
 * snapshot) with `user` set to (`identifier`, `snapshot_id`), sorted by
 * user, at most SC_WATERMARK_MAX_USERS entries (the eviction policy in
 * replay.c decides who is forgotten). Replaces and frees `next`'s table;
 * the strings are `next`'s own copies. SC_ENOMEM leaves `next` unchanged.
 */
int sc_replay_set_watermarks(sc_snapshot *next, const sc_snapshot *prev, const char *user,
                             int64_t identifier, uint64_t snapshot_id);

/*
 * A latest snapshot that Paimon wrote (foreign) has no watermark table: give
 * it the table of the newest snapshot of ours below it, updated with the
 * (commitUser, commitIdentifier) of every Paimon snapshot since (Paimon's
 * batch identifier Long.MAX_VALUE excepted). Walks back over Paimon's
 * snapshots only: O(1) when the latest is ours. Store errors as the reads.
 */
struct sc_table;
int sc_replay_complete(struct sc_table *t, sc_snapshot *latest);

#endif
