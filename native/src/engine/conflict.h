/*
 * Conflict detection (internal): the four real conflicts of docs/protocols.md
 * §4, never retried. The first check costs what the commit touches: the manifests its
 * files may be in (through the file indexes of the manifest list), else the
 * live files of its partitions; once a commit has been validated against
 * snapshot M, only the delta manifests of the snapshots committed after M.
 */
#ifndef SC_CONFLICT_H
#define SC_CONFLICT_H

#include "format/changes.h"
#include "format/index_entry.h"
#include "engine/state.h"

/*
 * Check `changes` against the live files of `latest` (NULL = empty table) in
 * `parts`. Appends to `out_deletes` the live records the commit removes —
 * the stored entries, not the caller's copies, so that row counts and levels
 * in the delta come from the table itself; for OVERWRITE, every live file of
 * `parts`. 0, SC_EINVAL (the change set contradicts itself) or SC_ECONFLICT
 * (message names the files, `latest`'s id and its commit user).
 */
int sc_conflict_check_full(sc_entry_vec *out_deletes, sc_table *t,
                           const sc_snapshot *latest, const sc_changes *changes,
                           sc_commit_kind kind, const sc_partition_set *parts);

/*
 * The same check, choosing how: with `allow_touched`, an APPEND or COMPACT
 * whose files can be found through the manifests' file indexes reads only the
 * manifests that may mention them (*out_touched_only = 1 when that decided);
 * otherwise, or with allow_touched 0, every live file of `parts` is read. Both
 * ways give the same answer and the same deletes (tests compare them).
 * `out_touched_only` may be NULL. sc_conflict_check_full = allow_touched 1.
 */
int sc_conflict_check_first(sc_entry_vec *out_deletes, int *out_touched_only, sc_table *t,
                            const sc_snapshot *latest, const sc_changes *changes, sc_commit_kind kind,
                            const sc_partition_set *parts, int allow_touched);

/*
 * Check `changes`, already valid at snapshot `validated`, against what the
 * snapshots validated+1 .. latest->id changed in `parts`.
 */
int sc_conflict_check_since(sc_table *t, uint64_t validated, const sc_snapshot *latest,
                            const sc_changes *changes, sc_commit_kind kind,
                            const sc_partition_set *parts);

/*
 * Index files (Paimon's index manifest): `c`'s index changes against `live`,
 * the base's live index files. SC_ECONFLICT naming the file when `c` deletes
 * an index file that is not live (another commit replaced or removed it: two
 * writers updating one bucket's deletion vectors would otherwise both land,
 * and one's deleted rows come back), or, for deletion vectors keyed by file
 * name (a bucket-unaware table), adds a file that is live or a vector for a
 * data file that a live index file not deleted here already holds.
 */
int sc_conflict_check_index(const sc_table *t, const sc_index_vec *live, const sc_changes *c);

/*
 * Every data file a deletion vector of `c` names (in the vector's partition
 * and bucket) must be live after the commit: live at `latest` (NULL: empty
 * table) and not deleted by `c`, or added by `c`. SC_ECONFLICT naming the
 * data file and the index file otherwise (a vector of a file compacted away
 * meanwhile would mark rows of nothing, and its deletes be lost).
 */
int sc_conflict_check_dv_targets(sc_table *t, const sc_snapshot *latest, const sc_changes *c);

/*
 * Paimon's ConflictDetection for deletion vectors keyed by file name (a
 * bucket-unaware table; 0 otherwise): every data file `c` deletes that a
 * live index file of `live` (the base's) holds a vector for must have that
 * index file deleted by `c` too. SC_ECONFLICT naming both otherwise: a
 * commit planned before the vector (a compaction) would bring the rows it
 * marks deleted back in whatever replaces the file.
 */
int sc_conflict_check_dv_deletes(const sc_table *t, const sc_index_vec *live, const sc_changes *c);

/*
 * Paimon's typed order of two key rows of table `t` (its trimmed primary key):
 * <0, 0, >0. Bytewise when a row does not decode, so a damaged record still
 * sorts deterministically (fsck reports it); the decode error is cleared.
 */
int sc_conflict_compare_keys(const sc_table *t, sc_bytes a, sc_bytes b);

#endif
