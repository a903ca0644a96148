/*
 * The vocabulary of the store contract (snapcommit/backend.h, store.h) that
 * the store wrapper and every backend share: operation names, the key
 * grammar, list pages, configuration defaults. Here, below both, so that a
 * backend (s3/, store/store_posix.c, store/store_mem.c) needs nothing from
 * the wrapper (store/store.c) that opens it.
 */
#include "base/store_contract.h"

#include <stdlib.h>
#include <string.h>

const char *sc_store_op_name(sc_store_op op) {
    /* No default: -Wswitch flags an op added without a name. */
    switch (op) {
    case SC_OP_GET: return "get";
    case SC_OP_HEAD: return "head";
    case SC_OP_PUT: return "put";
    case SC_OP_PUT_IF_ABSENT: return "put_if_absent";
    case SC_OP_PUT_IF_MATCH: return "put_if_match";
    case SC_OP_LIST: return "list";
    case SC_OP_DELETE: return "delete";
    case SC_OP_COUNT: break;
    }
    return "unknown";
}

/* 1 when `seg` (length len) may be a path segment: not empty, ".", or "..". */
static int segment_valid(const char *seg, size_t len) {
    if (len == 0) return 0;
    if (seg[0] == '.' && (len == 1 || (len == 2 && seg[1] == '.'))) return 0;
    return 1;
}

int sc_store_segments_valid(const char *path, size_t len) {
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || path[i] == '/') {
            if (!segment_valid(path + start, i - start)) return 0;
            start = i + 1;
        }
    }
    return 1;
}

int sc_store_key_valid(const char *key) {
    if (!key) return 0;
    /* strnlen bounds the scan: a key longer than the limit is rejected unread. */
    size_t len = strnlen(key, SC_STORE_KEY_MAX + 1);
    if (len == 0 || len > SC_STORE_KEY_MAX || key[0] == '/') return 0;
    return sc_store_segments_valid(key, len);
}

void sc_list_page_free(sc_list_page *page) {
    if (!page) return;
    for (size_t i = 0; i < page->count; i++) free(page->keys[i]);
    free(page->keys);
    memset(page, 0, sizeof *page);
}

void sc_store_config_init(sc_store_config *config) {
    memset(config, 0, sizeof *config);
    config->version = SC_STORE_CONFIG_VERSION;
    config->path_style = -1;
    config->tls_verify = -1;
    config->conditional_writes = -1;
}
