/* Table handles (internal): what the engine's writers ask of a handle before they write. */
#ifndef SC_ENGINE_TABLE_H
#define SC_ENGINE_TABLE_H

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

#endif
