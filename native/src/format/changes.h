/* A commit's change set (internal view of the public sc_changes). */
#ifndef SC_CHANGES_H
#define SC_CHANGES_H

#include "format/index_entry.h"
#include "format/manifest.h"
#include "snapcommit/table.h" /* the public sc_changes API this module implements */

struct sc_changes {
    sc_entry_vec adds;      /* data files */
    sc_entry_vec deletes;
    sc_entry_vec changelog; /* changelog files (all ADD) */
    sc_index_vec index_adds;
    sc_index_vec index_deletes;
};

/* 0, or SC_EINVAL naming `field`, the name and the first control character
 * (escaped) with its byte offset. Names are printed in text output and logs,
 * where such characters would forge lines or drive the terminal. */
int sc_name_check(const char *field, const uint8_t *name, size_t len);

/*
 * Parse {"add":[ENTRY...],"delete":[ENTRY...]} for a table of `schema`
 * (docs/format.md §8): partitions as Hive-style specs of the partition keys,
 * keys as JSON arrays of the trimmed primary key. Bounded as
 * sc_table_parse_changes documents (the public entry point).
 */
#include "format/table_schema.h"
int sc_changes_parse_json_schema(sc_changes **out, const sc_table_schema *schema, const char *json, size_t len);
/*
 * The checkpoint form (docs/format.md §8): the same, plus "changelog" and
 * "index" sections, a "compact" object of the compact part's sections and a
 * "watermark". With out_compact NULL (sc_changes_parse_json_schema), "compact"
 * and "watermark" are unknown keys. On success *out_compact is never NULL.
 */
int sc_changes_parse_checkpoint_json(sc_changes **out_append, sc_changes **out_compact, int *out_has_watermark,
                                     int64_t *out_watermark, const sc_table_schema *schema, const char *json,
                                     size_t len);
/* The same with the "overwrite" member (sc_table_parse_checkpoint_request): *out_partition
 * (malloc()ed, NULL unless SC_OVERWRITE_PARTITION) is the caller's. */
int sc_changes_parse_request_json(sc_changes **out_append, sc_changes **out_compact, int *out_has_watermark,
                                  int64_t *out_watermark, sc_overwrite_scope *out_scope, char **out_partition,
                                  const sc_table_schema *schema, const char *json, size_t len);

#endif
