/* Table handles (internal): what the engine's writers ask of a handle before they write. */
#ifndef SC_ENGINE_TABLE_H
#define SC_ENGINE_TABLE_H

#include "format/snapshot.h"
#include "strategy/strategy.h"

/*
 * SC_ENOTABLE saying that the Paimon table here has no metadata/table.json
 * yet and how to adopt it; `location` (NULL: not known) is named in the
 * 'snapcommit init' to run. Always returns SC_ENOTABLE.
 */
int sc_table_adoption_error(const char *location);
/* 0 when `t` may be written; the adoption error for a handle opened on a table not adopted. */
int sc_table_check_adopted(sc_table *t);

/* Load a schema newer than the handle's, if an ALTER TABLE added one (one HEAD; the
 * handle's first commit after open skips it). Store errors; the old schema stays on failure. */
int sc_table_refresh_schema(sc_table *t);

/* The most snapshots sc_table_read_snapshots reads in one batch. */
#define SC_TABLE_SNAPSHOTS_BATCH 32

/*
 * Snapshots first .. first+n-1 into out[0..n), each as sc_table_read_snapshot reads
 * it (n <= SC_TABLE_SNAPSHOTS_BATCH). On a concurrent store whose snapshot files are the
 * snapshots, in one round trip; any that did not come back whole are read again one by
 * one, which reports why. On failure nothing is left to clear.
 */
int sc_table_read_snapshots(sc_snapshot *out, sc_table *t, uint64_t first, size_t n);

#endif
