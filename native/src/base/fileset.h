/*
 * A hash map from a data file's identity — (partition, bucket, file name) —
 * to a caller-chosen index (internal). Used to merge ADD/DELETE records into
 * live state and to find conflicts in time linear in the entries touched.
 * The map copies identity bytes; entries passed in are borrowed.
 */
#ifndef SC_FILESET_H
#define SC_FILESET_H

#include <stddef.h>

#include "snapcommit/types.h"

typedef struct sc_fileset sc_fileset;

int sc_fileset_new(sc_fileset **out);
void sc_fileset_free(sc_fileset *set);
/* Insert; SC_EEXISTS (and *out_existing set when non-NULL) when already present. */
int sc_fileset_put(sc_fileset *set, const sc_file_entry *file, size_t value, size_t *out_existing);
/* Look up; SC_ENOTFOUND when absent. */
int sc_fileset_get(const sc_fileset *set, const sc_file_entry *file, size_t *out_value);
/* Remove; SC_ENOTFOUND when absent. */
int sc_fileset_remove(sc_fileset *set, const sc_file_entry *file, size_t *out_value);

#endif
