/* Index-manifest entries: validation and the owning vector (index_entry.h). */
#include "format/index_entry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/vec.h"

int sc_index_entry_validate(const sc_index_entry *e) {
    if (!e) return sc_error_set(SC_EINVAL, "index entry: missing");
    if (e->bucket < 0) return sc_error_set(SC_EINVAL, "bucket: %d is negative", (int)e->bucket);
    if (!e->index_type || !*e->index_type) return sc_error_set(SC_EINVAL, "index_type: %s", e->index_type ? "empty" : "missing");
    if (strnlen(e->index_type, SC_MANIFEST_PATH_MAX + 1) > SC_MANIFEST_PATH_MAX)
        return sc_error_set(SC_EINVAL, "index_type: longer than %d bytes", SC_MANIFEST_PATH_MAX);
    int rc = sc_file_name_validate("file", e->file);
    if (rc) return rc;
    if (e->size < 0) return sc_error_set(SC_EINVAL, "size: %lld is negative", (long long)e->size);
    if (e->rows < 0) return sc_error_set(SC_EINVAL, "rows: %lld is negative", (long long)e->rows);
    if (!e->partition.data && e->partition.len)
        return sc_error_set(SC_EINVAL, "partition: NULL data with length %zu", e->partition.len);
    if (!e->has_dv_ranges && e->dv_range_count)
        return sc_error_set(SC_EINVAL, "dv_ranges: %zu ranges without has_dv_ranges", e->dv_range_count);
    if (e->dv_range_count && !e->dv_ranges)
        return sc_error_set(SC_EINVAL, "dv_ranges: NULL array with %zu ranges", e->dv_range_count);
    for (size_t i = 0; i < e->dv_range_count; i++) {
        const sc_dv_range *r = &e->dv_ranges[i];
        char field[64];
        snprintf(field, sizeof field, "dv_ranges[%zu].data_file", i);
        if ((rc = sc_file_name_validate(field, r->data_file)) != 0) return rc;
        if (r->offset < 0) return sc_error_set(SC_EINVAL, "dv_ranges[%zu].offset: %d is negative", i, (int)r->offset);
        if (r->length < 0) return sc_error_set(SC_EINVAL, "dv_ranges[%zu].length: %d is negative", i, (int)r->length);
    }
    return 0;
}

/* Sizes are summed overflow-checked: a record's copy is one allocation. */
static int size_add(size_t *total, size_t n) {
    if (n > SIZE_MAX - *total) return 1;
    *total += n;
    return 0;
}

static char *copy_str(char **cursor, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *out = *cursor;
    memcpy(out, s, n);
    *cursor += n;
    return out;
}

int sc_index_vec_push_copy(sc_index_vec *v, sc_entry_kind kind, const sc_index_entry *e) {
    if (!v || !e) return sc_error_set(SC_EINVAL, "index vector: missing argument");
    if (kind != SC_ENTRY_ADD && kind != SC_ENTRY_DELETE)
        return sc_error_set(SC_EINVAL, "kind: %d is neither ADD (1) nor DELETE (2)", (int)kind);
    if (!e->file) return sc_error_set(SC_EINVAL, "file: missing");
    if (!e->index_type) return sc_error_set(SC_EINVAL, "index_type: missing");
    if (!e->partition.data && e->partition.len) return sc_error_set(SC_EINVAL, "partition: NULL data with a length");
    if (e->dv_range_count && !e->dv_ranges) return sc_error_set(SC_EINVAL, "dv_ranges: NULL array with a count");
    for (size_t i = 0; i < e->dv_range_count; i++)
        if (!e->dv_ranges[i].data_file) return sc_error_set(SC_EINVAL, "dv_ranges[%zu].data_file: missing", i);
    size_t nranges = e->has_dv_ranges ? e->dv_range_count : 0;
    /* Layout: ranges | partition | strings (ranges first: the block's alignment is malloc's). */
    size_t total = 0;
    int over = nranges > SIZE_MAX / sizeof(sc_dv_range);
    over |= !over && size_add(&total, nranges * sizeof(sc_dv_range));
    over |= size_add(&total, e->partition.len);
    over |= size_add(&total, strlen(e->index_type) + 1);
    over |= size_add(&total, strlen(e->file) + 1);
    if (e->external_path) over |= size_add(&total, strlen(e->external_path) + 1);
    for (size_t i = 0; i < nranges; i++) over |= size_add(&total, strlen(e->dv_ranges[i].data_file) + 1);
    if (over) return sc_error_set(SC_ELIMIT, "index entry of more than SIZE_MAX bytes");
    int rc;
    SC_VEC_RESERVE(rc, v->items, v->cap, v->count + 1, 16, "an index vector");
    if (rc) return rc;
    uint8_t *block = malloc(total ? total : 1);
    if (!block) return sc_error_set(SC_ENOMEM, "out of memory copying an index entry");
    sc_index_record *r = &v->items[v->count];
    r->kind = kind;
    r->mem = block;
    r->entry = *e;
    sc_dv_range *ranges = (sc_dv_range *)(void *)block;
    char *cursor = (char *)block + nranges * sizeof(sc_dv_range);
    if (e->partition.data) {
        if (e->partition.len) memcpy(cursor, e->partition.data, e->partition.len);
        r->entry.partition = (sc_bytes){(const uint8_t *)cursor, e->partition.len}; /* present-but-empty stays non-NULL */
        cursor += e->partition.len;
    }
    r->entry.index_type = copy_str(&cursor, e->index_type);
    r->entry.file = copy_str(&cursor, e->file);
    r->entry.external_path = copy_str(&cursor, e->external_path);
    for (size_t i = 0; i < nranges; i++) {
        ranges[i] = e->dv_ranges[i];
        ranges[i].data_file = copy_str(&cursor, e->dv_ranges[i].data_file);
    }
    r->entry.dv_ranges = nranges ? ranges : NULL;
    r->entry.dv_range_count = nranges;
    v->count++;
    return 0;
}

int sc_index_vec_push(sc_index_vec *v, sc_entry_kind kind, const sc_index_entry *e) {
    int rc = sc_index_entry_validate(e);
    return rc ? rc : sc_index_vec_push_copy(v, kind, e);
}

void sc_index_vec_truncate(sc_index_vec *v, size_t count) {
    if (!v) return;
    while (v->count > count) {
        sc_index_record *r = &v->items[--v->count];
        free(r->mem);
        memset(r, 0, sizeof *r);
    }
}

void sc_index_vec_free(sc_index_vec *v) {
    if (!v) return;
    sc_index_vec_truncate(v, 0);
    free(v->items);
    v->items = NULL;
    v->count = v->cap = 0;
}
