/* Manifest entries: validation, ordering of byte strings, and the owning vector. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/manifest.h"
#include "base/vec.h"

int sc_bytes_compare(sc_bytes a, sc_bytes b) {
    if (!a.data || !b.data) return (a.data != NULL) - (b.data != NULL);
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.data, b.data, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return (a.len > b.len) - (a.len < b.len);
}

/* Quote a path for a message: at most ~200 bytes, non-printable bytes as \xNN
 * (decoded names are arbitrary bytes and messages end up in logs and JSON). */
static const char *quote(char out[256], const char *path) {
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    out[o++] = '"';
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (o > 200) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
            out[o++] = (char)*p;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

void sc_bytes_describe(char *out, size_t cap, sc_bytes b) {
    size_t w = 0;
    if (cap == 0) return;
    for (size_t i = 0; i < b.len && w + 5 < cap; i++) {
        uint8_t c = b.data[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') out[w++] = (char)c;
        else w += (size_t)snprintf(out + w, cap - w, "\\x%02x", c);
    }
    if (w + 5 < cap || b.len == 0) out[w] = '\0';
    else snprintf(out + w, cap - w, "...");
}

const uint8_t sc_empty_row[SC_EMPTY_ROW_LEN] = {0};

/* The directory follows from the partition and bucket (or the object's kind),
 * so a name with a "/" would be a second spelling of a path. */
int sc_file_name_validate(const char *field, const char *name) {
    char q[256];
    if (!name) return sc_error_set(SC_EINVAL, "%s: missing", field);
    size_t len = strnlen(name, SC_MANIFEST_PATH_MAX + 1);
    if (len == 0) return sc_error_set(SC_EINVAL, "%s: empty", field);
    if (len > SC_MANIFEST_PATH_MAX)
        return sc_error_set(SC_EINVAL, "%s %s: longer than %d bytes", field, quote(q, name), SC_MANIFEST_PATH_MAX);
    if (strchr(name, '/'))
        return sc_error_set(SC_EINVAL, "%s %s: a file name has no \"/\" (its directory follows from the partition and bucket)",
                            field, quote(q, name));
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return sc_error_set(SC_EINVAL, "%s %s: not a file name", field, quote(q, name));
    return 0;
}

static int bytes_check(const char *field, sc_bytes b) {
    if (!b.data && b.len)
        return sc_error_set(SC_EINVAL, "%s: NULL data with length %zu", field, b.len);
    return 0;
}

int sc_file_entry_validate(const sc_file_entry *f) {
    if (!f) return sc_error_set(SC_EINVAL, "file entry: missing");
    if (f->bucket < 0) return sc_error_set(SC_EINVAL, "bucket: %d is negative", (int)f->bucket);
    if (f->total_buckets < -1)
        return sc_error_set(SC_EINVAL, "total_buckets: %d (-1 for a bucket-unaware table, 0 for the table's setting, or > 0)",
                            (int)f->total_buckets);
    if (f->total_buckets > 0 && f->bucket >= f->total_buckets)
        return sc_error_set(SC_EINVAL, "bucket: %d is not below total_buckets %d", (int)f->bucket, (int)f->total_buckets);
    if (f->level < 0) return sc_error_set(SC_EINVAL, "level: %d is negative", (int)f->level);
    if (f->rows < 0) return sc_error_set(SC_EINVAL, "rows: %lld is negative", (long long)f->rows);
    if (f->size < 0) return sc_error_set(SC_EINVAL, "size: %lld is negative", (long long)f->size);
    if (f->min_seq > f->max_seq)
        return sc_error_set(SC_EINVAL, "min_seq: %lld is above max_seq %lld", (long long)f->min_seq, (long long)f->max_seq);
    int rc = sc_file_name_validate("file", f->file);
    if (!rc) rc = bytes_check("partition", f->partition);
    if (!rc) rc = bytes_check("min_key", f->min_key);
    if (!rc) rc = bytes_check("max_key", f->max_key);
    if (rc) return rc;
    if (!f->min_key.data != !f->max_key.data)
        return sc_error_set(SC_EINVAL, "%s: present without %s (keys are both present or both absent)",
                            f->min_key.data ? "min_key" : "max_key",
                            f->min_key.data ? "max_key" : "min_key");
    return 0;
}

static void entry_release(sc_manifest_entry *e) {
    /* One allocation per entry, rooted at the partition (never NULL). */
    free((void *)e->file.partition.data);
    memset(e, 0, sizeof *e);
}

/* Sizing of an entry's single allocation; every sum is overflow-checked. */
typedef struct entry_size {
    size_t total;
    int overflow;
} entry_size;

static void size_add(entry_size *s, size_t n) {
    if (n > SIZE_MAX - s->total) s->overflow = 1;
    else s->total += n;
}

static void size_mul_add(entry_size *s, size_t count, size_t each) {
    if (each && count > SIZE_MAX / each) s->overflow = 1;
    else size_add(s, count * each);
}

static int strings_check(const char *field, const char *const *items, size_t count) {
    if (count && !items) return sc_error_set(SC_EINVAL, "%s: NULL array with %zu items", field, count);
    for (size_t i = 0; i < count; i++)
        if (!items[i]) return sc_error_set(SC_EINVAL, "%s[%zu]: missing", field, i);
    return 0;
}

static int stats_check(const char *field, const sc_stats *st) {
    if ((!st->min_values.data && st->min_values.len) || (!st->max_values.data && st->max_values.len))
        return sc_error_set(SC_EINVAL, "%s: NULL row data with a length", field);
    if (!st->null_counts && st->null_count_len)
        return sc_error_set(SC_EINVAL, "%s: NULL null counts with length %zu", field, st->null_count_len);
    return 0;
}

/* Copy helpers over a cursor into the block. */
typedef struct block_cursor {
    uint8_t *p;
} block_cursor;

static sc_bytes copy_bytes(block_cursor *c, sc_bytes b) {
    if (!b.data) return (sc_bytes){NULL, 0};
    sc_bytes out = {c->p, b.len}; /* present-but-empty stays non-NULL */
    if (b.len) memcpy(c->p, b.data, b.len);
    c->p += b.len;
    return out;
}

static const char *copy_str(block_cursor *c, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *out = (char *)c->p;
    memcpy(out, s, n);
    c->p += n;
    return out;
}

static const int64_t *copy_counts(block_cursor *c, const int64_t *counts, size_t n) {
    if (!counts) return NULL;
    int64_t *out = (int64_t *)(void *)c->p;
    if (n) memcpy(out, counts, n * sizeof *out);
    c->p += n * sizeof *out;
    return out;
}

static const char *const *copy_strings(block_cursor *c, const char **slots, const char *const *items,
                                       size_t n) {
    if (!items) return NULL;
    for (size_t i = 0; i < n; i++) slots[i] = copy_str(c, items[i]);
    return slots;
}

static size_t strings_len(const char *const *items, size_t n, entry_size *s) {
    for (size_t i = 0; items && i < n; i++) size_add(s, strlen(items[i]) + 1);
    return 0;
}

/* Round up to the alignment of the arrays placed after the partition. */
#define ENTRY_ALIGN (_Alignof(int64_t) > _Alignof(const char *) ? _Alignof(int64_t) : _Alignof(const char *))

int sc_entry_vec_push_copy(sc_entry_vec *v, sc_entry_kind kind, const sc_file_entry *file) {
    if (!v || !file) return sc_error_set(SC_EINVAL, "entry vector: missing argument");
    if (kind != SC_ENTRY_ADD && kind != SC_ENTRY_DELETE)
        return sc_error_set(SC_EINVAL, "kind: %d is neither ADD (1) nor DELETE (2)", (int)kind);
    if (!file->file) return sc_error_set(SC_EINVAL, "file: missing");
    int rc = bytes_check("partition", file->partition);
    if (!rc) rc = bytes_check("min_key", file->min_key);
    if (!rc) rc = bytes_check("max_key", file->max_key);
    if (!rc) rc = bytes_check("embedded_index", file->embedded_index);
    if (!rc) rc = stats_check("key_stats", &file->key_stats);
    if (!rc) rc = stats_check("value_stats", &file->value_stats);
    if (!rc) rc = strings_check("extra_files", file->extra_files, file->extra_file_count);
    if (!rc && file->has_value_stats_cols)
        rc = strings_check("value_stats_cols", file->value_stats_cols, file->value_stats_col_count);
    if (!rc && file->has_write_cols) rc = strings_check("write_cols", file->write_cols, file->write_col_count);
    if (rc) return rc;
    const char *const *vcols = file->has_value_stats_cols ? file->value_stats_cols : NULL;
    const char *const *wcols = file->has_write_cols ? file->write_cols : NULL;
    size_t nvcols = vcols ? file->value_stats_col_count : 0, nwcols = wcols ? file->write_col_count : 0;

    /* Layout: partition | pad | key and value null counts | string pointer
     * arrays | byte fields | strings. The partition is the block itself, so
     * it is never NULL and entry_release frees the whole entry through it. */
    entry_size s = {0, 0};
    size_add(&s, file->partition.len);
    size_add(&s, (ENTRY_ALIGN - s.total % ENTRY_ALIGN) % ENTRY_ALIGN);
    size_mul_add(&s, file->key_stats.null_count_len, sizeof(int64_t));
    size_mul_add(&s, file->value_stats.null_count_len, sizeof(int64_t));
    size_mul_add(&s, file->extra_file_count, sizeof(const char *));
    size_mul_add(&s, nvcols, sizeof(const char *));
    size_mul_add(&s, nwcols, sizeof(const char *));
    const sc_bytes byte_fields[] = {file->min_key, file->max_key, file->key_stats.min_values,
                                    file->key_stats.max_values, file->value_stats.min_values,
                                    file->value_stats.max_values, file->embedded_index};
    for (size_t i = 0; i < sizeof byte_fields / sizeof byte_fields[0]; i++) size_add(&s, byte_fields[i].len);
    size_add(&s, strlen(file->file) + 1);
    if (file->external_path) size_add(&s, strlen(file->external_path) + 1);
    strings_len(file->extra_files, file->extra_file_count, &s);
    strings_len(vcols, nvcols, &s);
    strings_len(wcols, nwcols, &s);
    if (s.overflow) return sc_error_set(SC_ELIMIT, "file entry of more than SIZE_MAX bytes");

    SC_VEC_RESERVE(rc, v->items, v->cap, v->count + 1, 16, "an entry vector");
    if (rc) return rc;
    uint8_t *block = malloc(s.total ? s.total : 1);
    if (!block) return sc_error_set(SC_ENOMEM, "out of memory copying a file entry");
    block_cursor c = {block};
    sc_manifest_entry *e = &v->items[v->count];
    e->kind = kind;
    e->file = *file;
    e->file.partition.data = block;
    if (file->partition.len) memcpy(block, file->partition.data, file->partition.len);
    c.p += file->partition.len;
    c.p += (ENTRY_ALIGN - file->partition.len % ENTRY_ALIGN) % ENTRY_ALIGN;
    e->file.key_stats.null_counts = copy_counts(&c, file->key_stats.null_counts, file->key_stats.null_count_len);
    e->file.value_stats.null_counts =
        copy_counts(&c, file->value_stats.null_counts, file->value_stats.null_count_len);
    const char **extra_slots = (const char **)(void *)c.p;
    c.p += file->extra_file_count * sizeof(const char *);
    const char **vcol_slots = (const char **)(void *)c.p;
    c.p += nvcols * sizeof(const char *);
    const char **wcol_slots = (const char **)(void *)c.p;
    c.p += nwcols * sizeof(const char *);
    e->file.min_key = copy_bytes(&c, file->min_key);
    e->file.max_key = copy_bytes(&c, file->max_key);
    e->file.key_stats.min_values = copy_bytes(&c, file->key_stats.min_values);
    e->file.key_stats.max_values = copy_bytes(&c, file->key_stats.max_values);
    e->file.value_stats.min_values = copy_bytes(&c, file->value_stats.min_values);
    e->file.value_stats.max_values = copy_bytes(&c, file->value_stats.max_values);
    e->file.embedded_index = copy_bytes(&c, file->embedded_index);
    e->file.file = copy_str(&c, file->file);
    e->file.external_path = copy_str(&c, file->external_path);
    e->file.extra_files = file->extra_file_count ? copy_strings(&c, extra_slots, file->extra_files,
                                                                file->extra_file_count)
                                                 : NULL;
    e->file.value_stats_cols = copy_strings(&c, vcol_slots, vcols, nvcols);
    e->file.value_stats_col_count = nvcols;
    e->file.write_cols = copy_strings(&c, wcol_slots, wcols, nwcols);
    e->file.write_col_count = nwcols;
    v->count++;
    return 0;
}

int sc_entry_vec_push(sc_entry_vec *v, sc_entry_kind kind, const sc_file_entry *file) {
    if (!v) return sc_error_set(SC_EINVAL, "entry vector: missing");
    if (kind != SC_ENTRY_ADD && kind != SC_ENTRY_DELETE)
        return sc_error_set(SC_EINVAL, "kind: %d is neither ADD (1) nor DELETE (2)", (int)kind);
    int rc = sc_file_entry_validate(file);
    return rc ? rc : sc_entry_vec_push_copy(v, kind, file);
}

void sc_entry_vec_truncate(sc_entry_vec *v, size_t count) {
    if (!v) return;
    while (v->count > count) entry_release(&v->items[--v->count]);
}

void sc_entry_vec_free(sc_entry_vec *v) {
    if (!v) return;
    sc_entry_vec_truncate(v, 0);
    free(v->items);
    v->items = NULL;
    v->count = v->cap = 0;
}
