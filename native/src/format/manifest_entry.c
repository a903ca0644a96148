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

int sc_relpath_validate(const char *field, const char *path) {
    char q[256];
    if (!path) return sc_error_set(SC_EINVAL, "%s: missing", field);
    size_t len = strnlen(path, SC_MANIFEST_PATH_MAX + 1);
    if (len == 0) return sc_error_set(SC_EINVAL, "%s: empty", field);
    if (len > SC_MANIFEST_PATH_MAX)
        return sc_error_set(SC_EINVAL, "%s %s: longer than %d bytes", field, quote(q, path),
                            SC_MANIFEST_PATH_MAX);
    if (path[0] == '/')
        return sc_error_set(SC_EINVAL, "%s %s: absolute, must be relative to the table", field,
                            quote(q, path));
    for (const char *seg = path;;) {
        const char *slash = strchr(seg, '/');
        size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
        if (n == 0)
            return sc_error_set(SC_EINVAL, "%s %s: empty segment (\"//\" or trailing \"/\")", field,
                                quote(q, path));
        if (n == 1 && seg[0] == '.')
            return sc_error_set(SC_EINVAL, "%s %s: contains a \".\" segment", field, quote(q, path));
        if (n == 2 && seg[0] == '.' && seg[1] == '.')
            return sc_error_set(SC_EINVAL, "%s %s: contains a \"..\" segment", field, quote(q, path));
        if (!slash) return 0;
        seg = slash + 1;
    }
}

static int bytes_check(const char *field, sc_bytes b) {
    if (!b.data && b.len)
        return sc_error_set(SC_EINVAL, "%s: NULL data with length %zu", field, b.len);
    return 0;
}

int sc_file_entry_validate(const sc_file_entry *f) {
    if (!f) return sc_error_set(SC_EINVAL, "file entry: missing");
    if (f->bucket < 0) return sc_error_set(SC_EINVAL, "bucket: %d is negative", (int)f->bucket);
    /* -1 = a bucket-unaware table, as Paimon writes it (sc_file_entry v2). */
    if (f->total_buckets < -1)
        return sc_error_set(SC_EINVAL, "total_buckets: %d is below -1", (int)f->total_buckets);
    if (f->level < 0) return sc_error_set(SC_EINVAL, "level: %d is negative", (int)f->level);
    if (f->rows < 0) return sc_error_set(SC_EINVAL, "rows: %lld is negative", (long long)f->rows);
    if (f->size < 0) return sc_error_set(SC_EINVAL, "size: %lld is negative", (long long)f->size);
    int rc = sc_relpath_validate("file", f->file);
    if (!rc) rc = bytes_check("partition", f->partition);
    if (!rc) rc = bytes_check("min_key", f->min_key);
    if (!rc) rc = bytes_check("max_key", f->max_key);
    if (rc) return rc;
    if (!f->min_key.data != !f->max_key.data)
        return sc_error_set(SC_EINVAL, "%s: present without %s (keys are both present or both absent)",
                            f->min_key.data ? "min_key" : "max_key",
                            f->min_key.data ? "max_key" : "min_key");
    if (f->min_key.data && sc_bytes_compare(f->min_key, f->max_key) > 0)
        return sc_error_set(SC_EINVAL, "min_key: greater than max_key (bytewise)");
    return 0;
}

static void entry_release(sc_manifest_entry *e) {
    /* One allocation per entry, rooted at the partition (never NULL). */
    free((void *)e->file.partition.data);
    memset(e, 0, sizeof *e);
}

int sc_entry_vec_push(sc_entry_vec *v, sc_entry_kind kind, const sc_file_entry *file) {
    if (!v) return sc_error_set(SC_EINVAL, "entry vector: missing");
    if (kind != SC_ENTRY_ADD && kind != SC_ENTRY_DELETE)
        return sc_error_set(SC_EINVAL, "kind: %d is neither ADD (1) nor DELETE (2)", (int)kind);
    int rc = sc_file_entry_validate(file);
    if (rc) return rc;
    size_t name_len = strlen(file->file); /* <= SC_MANIFEST_PATH_MAX: validated */
    size_t total = name_len + 1;
    const size_t parts[3] = {file->partition.len, file->min_key.len, file->max_key.len};
    for (int i = 0; i < 3; i++) {
        if (parts[i] > SIZE_MAX - total)
            return sc_error_set(SC_ELIMIT, "file entry of more than SIZE_MAX bytes");
        total += parts[i];
    }
    SC_VEC_RESERVE(rc, v->items, v->cap, v->count + 1, 16, "an entry vector");
    if (rc) return rc;
    /* Layout: partition | min_key | max_key | file NUL. The partition pointer is
     * the block itself, so a present-but-empty partition is non-NULL. */
    uint8_t *block = malloc(total);
    if (!block) return sc_error_set(SC_ENOMEM, "out of memory copying a file entry");
    uint8_t *p = block;
    sc_manifest_entry *e = &v->items[v->count];
    e->kind = kind;
    e->file = *file;
    e->file.partition.data = p;
    if (file->partition.len) memcpy(p, file->partition.data, file->partition.len);
    p += file->partition.len;
    if (file->min_key.data) {
        /* Present-but-empty keys point into the block: non-NULL, length 0. */
        e->file.min_key.data = p;
        if (file->min_key.len) memcpy(p, file->min_key.data, file->min_key.len);
        p += file->min_key.len;
        e->file.max_key.data = p;
        if (file->max_key.len) memcpy(p, file->max_key.data, file->max_key.len);
        p += file->max_key.len;
    } else {
        e->file.min_key = (sc_bytes){NULL, 0};
        e->file.max_key = (sc_bytes){NULL, 0};
    }
    memcpy(p, file->file, name_len + 1);
    e->file.file = (const char *)p;
    v->count++;
    return 0;
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
