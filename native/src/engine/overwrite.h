/*
 * INSERT OVERWRITE (internal): which partitions an overwrite replaces at a base
 * (Paimon's FileStoreCommitImpl.overwritePartition with a static, possibly
 * partial, partition spec, or the whole table). Planned on every attempt.
 */
#ifndef SC_OVERWRITE_H
#define SC_OVERWRITE_H

#include "engine/state.h"
#include "format/changes.h"
#include "format/index_entry.h"
#include "snapcommit/table.h"

/* SC_EINVAL naming the spec when it is NULL, a key is not a partition key, repeats, has no "="
 * or a value does not parse as its key's type (keys and values escaped as partition paths). */
int sc_overwrite_check_spec(const sc_table *t, const char *spec);

/*
 * *out 1 when `partition` (a serialized partition row) has the values `spec`
 * names ("" or NULL: every partition matches). Values compare as the
 * partition's types (the spec's are parsed as a partition path would be);
 * keys the spec does not name are not compared. SC_EINVAL as
 * sc_overwrite_check_spec.
 */
int sc_overwrite_matches(int *out, const sc_table *t, const char *spec, sc_bytes partition);

/*
 * The partitions an overwrite of `spec` replaces at `latest` (NULL: empty
 * table) into `out` (reset first): the matching partitions of the live data
 * files and those of `c`'s files. The set borrows from `holder` (the live
 * files, reset first; the caller frees it after the set) and from `c`.
 * SC_EINVAL when a file `c` adds or deletes lies outside the spec.
 */
int sc_overwrite_partitions(sc_partition_set *out, sc_entry_vec *holder, sc_table *t, const sc_snapshot *latest,
                            const char *spec, const sc_changes *c);

/* `parts` plus the matching partitions of the live index files `index` into `out` (reset
 * first; borrows from both): an index file may outlive the data files of its partition. */
int sc_overwrite_with_index(sc_partition_set *out, const sc_partition_set *parts, const sc_table *t, const char *spec,
                            const sc_index_vec *index);

/*
 * Paimon's overwrite-upgrade (CoreOptions, default true; FileStoreCommitImpl.tryUpgrade): on a
 * primary-key table, when every file `c` adds is at level 0 in a bucket >= 0, the files of each
 * (partition, bucket) whose key ranges do not overlap are raised to the top level (num-levels - 1,
 * default num-sorted-run.compaction-trigger + 1 - 1), in place. The caller applies it to the append
 * part of an overwrite without a compact part, as Paimon does.
 */
int sc_overwrite_upgrade(sc_table *t, sc_changes *c);

#endif
