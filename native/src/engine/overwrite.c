/*
 * The partitions an INSERT OVERWRITE replaces (overwrite.h). A static spec may
 * name only some partition keys (Paimon's createPartitionPredicate): a live
 * partition matches when each key the spec names has the spec's value, compared
 * as the key's type does ("01" and "1" of an INT are one value; the default
 * partition name is null). The keys it does not name are not looked at: their
 * values need not even have a spec of their own (a blank string is written as
 * the default name, and does not read back as itself).
 */
#include "engine/overwrite.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/error_internal.h"
#include "engine/conflict.h"
#include "format/binary_row.h"
#include "format/partition.h"
#include "strategy/strategy.h"

/* The values `spec` names (sc_partition_parse_some) into arrays of the partition arity, which
 * the caller releases with release_spec (also on error). */
typedef struct parsed_spec {
    size_t n;
    sc_datum *values;
    uint8_t **owned;
    char *named;
} parsed_spec;

static void release_spec(parsed_spec *p) {
    if (p->owned)
        for (size_t i = 0; i < p->n; i++) free(p->owned[i]);
    free(p->owned);
    free(p->values);
    free(p->named);
    memset(p, 0, sizeof *p);
}

static int parse_spec(parsed_spec *p, const sc_table *t, const char *spec) {
    memset(p, 0, sizeof *p);
    p->n = t->schema.partition_key_count;
    size_t slots = p->n ? p->n : 1;
    p->values = calloc(slots, sizeof *p->values);
    p->owned = calloc(slots, sizeof *p->owned);
    p->named = calloc(slots, 1);
    if (!p->values || !p->owned || !p->named) return sc_error_set(SC_ENOMEM, "out of memory");
    int rc = sc_partition_parse_some(p->values, p->owned, p->named, &t->schema, spec);
    if (rc) sc_error_wrap(rc, "overwrite partition \"%.200s\"", spec);
    return rc;
}

int sc_overwrite_check_spec(const sc_table *t, const char *spec) {
    if (!spec) return sc_error_set(SC_EINVAL, "an overwrite of a partition needs its spec (\"\" for the whole table)");
    parsed_spec p;
    int rc = parse_spec(&p, t, spec);
    release_spec(&p);
    return rc;
}

int sc_overwrite_matches(int *out, const sc_table *t, const char *spec, sc_bytes partition) {
    *out = 1;
    if (!spec || !*spec) return 0;
    parsed_spec p;
    int rc = parse_spec(&p, t, spec);
    /* Paimon's predicate: each key the spec names equals its value (IS NULL for the default
     * name); the keys it does not name are not looked at, whatever their values. */
    for (size_t i = 0; !rc && *out && i < p.n; i++) {
        if (!p.named[i]) continue;
        sc_datum d;
        rc = sc_row_get(&d, partition.data, partition.len, &t->schema.partition_types[i], i, "partition");
        if (!rc)
            *out = d.is_null || p.values[i].is_null
                       ? d.is_null && p.values[i].is_null
                       : sc_datum_compare(&d, &p.values[i], &t->schema.partition_types[i]) == 0;
    }
    release_spec(&p);
    return rc;
}

/* Put `p` into `out` when it matches (`no` remembers the partitions that did not). */
static int consider(sc_partition_set *out, sc_partition_set *no, const sc_table *t, const char *spec, sc_bytes p) {
    if (sc_partition_set_has(out, p) || sc_partition_set_has(no, p)) return 0;
    int match = 0;
    int rc = sc_overwrite_matches(&match, t, spec, p);
    if (!rc) rc = sc_partition_set_add(match ? out : no, p);
    return rc;
}

/* SC_EINVAL unless `e` (a file the change set adds or deletes) lies in a partition `spec` matches. */
static int check_in_spec(const sc_table *t, const char *spec, const sc_file_entry *e, const char *verb) {
    int match = 0;
    int rc = sc_overwrite_matches(&match, t, spec, e->partition);
    if (rc || match) return rc;
    sc_buf text = SC_BUF_INIT;
    if (sc_partition_spec(&text, &t->schema, e->partition.data, e->partition.len, "partition") == 0 &&
        !sc_buf_append(&text, "", 1))
        rc = sc_error_set(SC_EINVAL, "overwrite of partition \"%s\": the change set %s %s in partition \"%s\", "
                                     "which does not belong to it",
                          spec, verb, e->file, (const char *)text.data);
    else
        rc = sc_error_wrap(SC_EINVAL, "overwrite of partition \"%s\": the change set %s a file outside it", spec, verb);
    sc_buf_free(&text);
    return rc;
}

int sc_overwrite_partitions(sc_partition_set *out, sc_entry_vec *holder, sc_table *t, const sc_snapshot *latest,
                            const char *spec, const sc_changes *c) {
    sc_partition_set_free(out);
    sc_entry_vec_free(holder);
    sc_partition_set no = {0};
    int rc = 0;
    /* Paimon's sanity check covers every data file of the append part, added or deleted. */
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        rc = check_in_spec(t, spec, &c->adds.items[i].file, "adds");
        if (!rc) rc = sc_partition_set_add(out, c->adds.items[i].file.partition);
    }
    for (size_t i = 0; !rc && i < c->deletes.count; i++) {
        rc = check_in_spec(t, spec, &c->deletes.items[i].file, "deletes");
        if (!rc) rc = sc_partition_set_add(out, c->deletes.items[i].file.partition);
    }
    if (!rc && latest) rc = sc_state_live_files(holder, t, latest, NULL);
    for (size_t i = 0; !rc && i < holder->count; i++) rc = consider(out, &no, t, spec, holder->items[i].file.partition);
    sc_partition_set_free(&no);
    return rc;
}

int sc_overwrite_with_index(sc_partition_set *out, const sc_partition_set *parts, const sc_table *t, const char *spec,
                            const sc_index_vec *index) {
    sc_partition_set_free(out);
    sc_partition_set no = {0};
    int rc = 0;
    for (size_t i = 0; !rc && i < parts->count; i++) rc = sc_partition_set_add(out, parts->items[i]);
    for (size_t i = 0; !rc && i < index->count; i++) rc = consider(out, &no, t, spec, index->items[i].entry.partition);
    sc_partition_set_free(&no);
    return rc;
}

/* The top level of the table's LSM tree, as CoreOptions.numLevels() - 1. */
static int32_t top_level(const sc_table *t) {
    const char *v = sc_schema_option(&t->schema, "num-levels");
    long levels = v ? strtol(v, NULL, 10) : 0;
    if (!v) {
        const char *trigger = sc_schema_option(&t->schema, "num-sorted-run.compaction-trigger");
        levels = (trigger ? strtol(trigger, NULL, 10) : 5) + 1;
    }
    return levels >= 2 && levels <= 1000 ? (int32_t)levels - 1 : 0;
}

/* By partition, bucket, then minimum key. */
static int by_bucket_then_key(const sc_table *t, const sc_file_entry *a, const sc_file_entry *b) {
    int c = sc_bytes_compare(a->partition, b->partition);
    if (!c) c = (a->bucket > b->bucket) - (a->bucket < b->bucket);
    return c ? c : sc_conflict_compare_keys(t, a->min_key, b->min_key);
}

/* Merge sort of f[0..n) with `tmp` of n slots: qsort has no context for the table's key types,
 * and a global one would race between handles on other threads. */
static void sort_files(const sc_table *t, sc_file_entry **f, sc_file_entry **tmp, size_t n) {
    if (n < 2) return;
    size_t mid = n / 2;
    sort_files(t, f, tmp, mid);
    sort_files(t, f + mid, tmp, n - mid);
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n) tmp[k++] = by_bucket_then_key(t, f[j], f[i]) < 0 ? f[j++] : f[i++];
    while (i < mid) tmp[k++] = f[i++];
    while (j < n) tmp[k++] = f[j++];
    memcpy(f, tmp, n * sizeof *f);
}

int sc_overwrite_upgrade(sc_table *t, sc_changes *c) {
    const char *opt = sc_schema_option(&t->schema, "overwrite-upgrade");
    if ((opt && strcasecmp(opt, "false") == 0) || t->schema.primary_key_count == 0 || c->adds.count == 0) return 0;
    int32_t top = top_level(t);
    if (top <= 0) return 0;
    for (size_t i = 0; i < c->adds.count; i++)
        if (c->adds.items[i].file.level > 0 || c->adds.items[i].file.bucket < 0) return 0;
    sc_file_entry **f = malloc(2 * c->adds.count * sizeof *f);
    if (!f) return sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->adds.count; i++) f[i] = &c->adds.items[i].file;
    sort_files(t, f, f + c->adds.count, c->adds.count);
    for (size_t start = 0, end; start < c->adds.count; start = end) {
        int overlap = 0;
        for (end = start + 1; end < c->adds.count && sc_bytes_compare(f[end]->partition, f[start]->partition) == 0 &&
                              f[end]->bucket == f[start]->bucket;
             end++)
            overlap |= sc_conflict_compare_keys(t, f[end - 1]->max_key, f[end]->min_key) >= 0;
        for (size_t i = start; !overlap && i < end; i++) f[i]->level = top;
    }
    free(f);
    return 0;
}
