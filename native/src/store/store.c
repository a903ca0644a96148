/*
 * The sc_store handle: the only path from the engine to a backend, and so
 * the one place where keys are validated, operations counted and faults
 * injected (compare SQLite's os.c around sqlite3_io_methods).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"
#include "base/store_contract.h"
#include "base/env_internal.h"
#include "snapcommit/store.h"
#include "store/store_backends.h"
#include "store/store_internal.h"
#include "s3/store_s3.h"
#include "base/vec.h"

/* Page size sc_store_list_all() asks for: S3's maximum, so one request per page there. */
#define SC_LIST_ALL_PAGE 1000

struct sc_store {
    const sc_store_ops *ops;
    void *self;
    sc_store_stats stats;
    sc_fault_fn fault_fn;
    void *fault_ctx;
    /* 0-based index of the next call on this handle, handed to the fault hook;
     * it counts every call that passed validation and is not reset with the stats. */
    uint64_t next_call;
    /* sc_store_config.tracker_ttl_ms; 0 = unset (then SNAPCOMMIT_TRACKER_TTL_MS, see
     * sc_store_tracker_ttl). */
    int64_t tracker_ttl_ms;
    /* Time and randomness of the code working through this handle (complete: no NULL member). */
    sc_env env;
    /* Requests on the caller's critical path: one per call, one per batch (store_batch.c). */
    uint64_t rounds;
    /* The counters, the call index and the fault hook are shared by the calls of a batch,
     * which a concurrent backend runs on several threads at once (sc_store_batch). */
    pthread_mutex_t lock;
};

/* A thread whose calls were counted when they were handed to it (sc_store_count_ahead). */
static _Thread_local int counted_ahead;

void sc_store_thread_counted_ahead(int on) { counted_ahead = on; }

void sc_store_count_ahead(sc_store *store, sc_store_op op, uint64_t bytes_written) {
    pthread_mutex_lock(&store->lock);
    store->stats.ops[op]++;
    store->stats.bytes_written += bytes_written;
    pthread_mutex_unlock(&store->lock);
}

/* Count one call that reaches the backend. */
static void count_call(sc_store *store, sc_store_op op) {
    if (counted_ahead) return;
    pthread_mutex_lock(&store->lock);
    store->stats.ops[op]++;
    store->rounds++;
    pthread_mutex_unlock(&store->lock);
}

static void count_bytes(sc_store *store, uint64_t read, uint64_t written) {
    if (counted_ahead) return;
    pthread_mutex_lock(&store->lock);
    store->stats.bytes_read += read;
    store->stats.bytes_written += written;
    pthread_mutex_unlock(&store->lock);
}

/*
 * A list prefix is a plain string prefix ("snapshot/snap"), so its last
 * segment may be partial or empty; the directories before it must be
 * valid, which keeps the posix backend inside its root.
 */
static int prefix_valid(const char *prefix) {
    size_t len = strnlen(prefix, SC_STORE_KEY_MAX + 1);
    if (len > SC_STORE_KEY_MAX || prefix[0] == '/') return 0;
    const char *slash = memrchr(prefix, '/', len);
    return !slash || sc_store_segments_valid(prefix, (size_t)(slash - prefix));
}

static int invalid_key(sc_store_op op, const char *key) {
    if (!key) return sc_error_set(SC_EINVAL, "%s: key is NULL", sc_store_op_name(op));
    return sc_error_set(SC_EINVAL,
                        "%s: invalid key \"%.*s\" (keys are relative, at most %d bytes, "
                        "without empty, \".\" or \"..\" segments)",
                        sc_store_op_name(op), 200, key, SC_STORE_KEY_MAX);
}

/* What the fault hook decided for one call. */
typedef enum { FAULT_PASS, FAULT_FAIL, FAULT_LOSE } fault_action;

/* Consult the hook (`key` is the prefix for list); on FAULT_FAIL *rc holds the code to return. */
static fault_action fault_consult(int *rc, sc_store *store, sc_store_op op, const char *key) {
    pthread_mutex_lock(&store->lock);
    uint64_t index = store->next_call++;
    sc_fault_fn fn = store->fault_fn;
    void *ctx = store->fault_ctx;
    pthread_mutex_unlock(&store->lock);
    if (!fn) return FAULT_PASS;
    /* Cleared so that a message recorded by the hook itself can be told apart. */
    sc_error_clear();
    int verdict = fn(ctx, op, key, index);
    if (verdict == SC_FAULT_LOSE_RESPONSE) return FAULT_LOSE;
    if (verdict >= 0) return FAULT_PASS;
    *rc = sc_error_has_message()
              ? verdict
              : sc_error_set(verdict, "injected fault: %s \"%s\" (call %llu) failed with %s",
                             sc_store_op_name(op), key, (unsigned long long)index,
                             sc_error_name(verdict));
    return FAULT_FAIL;
}

static int lost_response(sc_store_op op, const char *key, int backend_rc) {
    return sc_error_set(SC_EUNKNOWN, "injected fault: response to %s \"%s\" lost (backend said %s)",
                        sc_store_op_name(op), key, sc_error_name(backend_rc));
}

/* get and get_bounded (max_len SIZE_MAX: unbounded). */
static int store_read(sc_store *store, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                      const char *key, size_t max_len) {
    sc_object_info info;
    if (!out_info) out_info = &info;
    *out_data = NULL;
    *out_len = 0;
    memset(out_info, 0, sizeof *out_info);
    if (!sc_store_key_valid(key)) return invalid_key(SC_OP_GET, key);
    int rc = 0;
    fault_action fault = fault_consult(&rc, store, SC_OP_GET, key);
    if (fault == FAULT_FAIL) return rc;
    count_call(store, SC_OP_GET);
    /* A version-1 table has no get_bounded member: it must not be read. */
    int bounded = max_len != SIZE_MAX && store->ops->version >= 2 && store->ops->get_bounded;
    if (bounded)
        rc = store->ops->get_bounded(store->self, out_data, out_len, out_info, key, max_len);
    else
        rc = store->ops->get(store->self, out_data, out_len, out_info, key);
    if (rc == 0) count_bytes(store, *out_len, 0);
    if (rc == 0 && *out_len > max_len) {
        /* The fallback for backends without get_bounded (or one that ignored the cap):
         * the object was read whole, but the caller still never sees it. */
        char object[SC_STORE_KEY_MAX + 64];
        snprintf(object, sizeof object, "%s store: %s", store->ops->name, key);
        uint64_t size = *out_len;
        free(*out_data);
        *out_data = NULL;
        *out_len = 0;
        memset(out_info, 0, sizeof *out_info);
        rc = sc_backend_too_large(object, size, 1, max_len);
    }
    if (fault == FAULT_LOSE) {
        /* The caller sees no answer, so it must not see the data either. */
        free(*out_data);
        *out_data = NULL;
        *out_len = 0;
        memset(out_info, 0, sizeof *out_info);
        return lost_response(SC_OP_GET, key, rc);
    }
    return rc;
}

int sc_store_get(sc_store *store, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                 const char *key) {
    return store_read(store, out_data, out_len, out_info, key, SIZE_MAX);
}

int sc_store_get_bounded(sc_store *store, uint8_t **out_data, size_t *out_len,
                         sc_object_info *out_info, const char *key, size_t max_len) {
    return store_read(store, out_data, out_len, out_info, key, max_len);
}

int sc_store_head(sc_store *store, sc_object_info *out_info, const char *key) {
    sc_object_info info;
    if (!out_info) out_info = &info;
    memset(out_info, 0, sizeof *out_info);
    if (!sc_store_key_valid(key)) return invalid_key(SC_OP_HEAD, key);
    int rc = 0;
    fault_action fault = fault_consult(&rc, store, SC_OP_HEAD, key);
    if (fault == FAULT_FAIL) return rc;
    count_call(store, SC_OP_HEAD);
    rc = store->ops->head(store->self, out_info, key);
    if (fault == FAULT_LOSE) {
        memset(out_info, 0, sizeof *out_info);
        return lost_response(SC_OP_HEAD, key, rc);
    }
    return rc;
}

/* How an SC_OP_PUT is sent: a plain put, an advisory one (put_hint), one never sent twice. */
typedef enum { PUT_PLAIN, PUT_HINT, PUT_ONCE } put_kind;

/* The backend call of an SC_OP_PUT. A member a table lacks is served by put. */
static int backend_put(sc_store *store, sc_object_info *out_info, const char *key,
                       const uint8_t *data, size_t len, put_kind kind) {
    const sc_store_ops *ops = store->ops;
    if (kind == PUT_HINT && ops->put_hint) return ops->put_hint(store->self, key, data, len);
    /* A version-2 table has no put_once member: it must not be read. */
    if (kind == PUT_ONCE && ops->version >= 3 && ops->put_once)
        return ops->put_once(store->self, out_info, key, data, len);
    return ops->put(store->self, out_info, key, data, len);
}

/* The three writes differ only in the backend call; `etag` is used by put_if_match,
 * `kind` by put. */
static int store_write(sc_store *store, sc_store_op op, sc_object_info *out_info, const char *key,
                       const uint8_t *data, size_t len, const char *etag, put_kind kind) {
    if (out_info) memset(out_info, 0, sizeof *out_info);
    if (!sc_store_key_valid(key)) return invalid_key(op, key);
    if (!data && len)
        return sc_error_set(SC_EINVAL, "%s \"%s\": NULL data", sc_store_op_name(op), key);
    if (op == SC_OP_PUT_IF_MATCH) {
        if (!store->ops->put_if_match)
            return sc_error_set(SC_EUNSUPPORTED,
                                "put_if_match \"%s\": the %s backend has no compare-and-swap", key,
                                store->ops->name);
        if (!etag) return sc_error_set(SC_EINVAL, "put_if_match \"%s\": NULL etag", key);
    }
    int rc = 0;
    fault_action fault = fault_consult(&rc, store, op, key);
    if (fault == FAULT_FAIL) return rc;
    count_call(store, op);
    switch (op) {
    case SC_OP_PUT:
        rc = backend_put(store, out_info, key, data, len, kind);
        break;
    case SC_OP_PUT_IF_ABSENT:
        rc = store->ops->put_if_absent(store->self, out_info, key, data, len);
        break;
    default:
        rc = store->ops->put_if_match(store->self, out_info, key, data, len, etag);
        break;
    }
    if (rc == 0) count_bytes(store, 0, len);
    if (fault == FAULT_LOSE) {
        if (out_info) memset(out_info, 0, sizeof *out_info);
        return lost_response(op, key, rc);
    }
    return rc;
}

int sc_store_put(sc_store *store, sc_object_info *out_info, const char *key, const uint8_t *data,
                 size_t len) {
    return store_write(store, SC_OP_PUT, out_info, key, data, len, NULL, PUT_PLAIN);
}

int sc_store_put_hint(sc_store *store, const char *key, const uint8_t *data, size_t len) {
    return store_write(store, SC_OP_PUT, NULL, key, data, len, NULL, PUT_HINT);
}

int sc_store_put_once(sc_store *store, sc_object_info *out_info, const char *key,
                      const uint8_t *data, size_t len) {
    return store_write(store, SC_OP_PUT, out_info, key, data, len, NULL, PUT_ONCE);
}

int sc_store_put_if_absent(sc_store *store, sc_object_info *out_info, const char *key,
                           const uint8_t *data, size_t len) {
    return store_write(store, SC_OP_PUT_IF_ABSENT, out_info, key, data, len, NULL, PUT_PLAIN);
}

int sc_store_put_if_match(sc_store *store, sc_object_info *out_info, const char *key,
                          const uint8_t *data, size_t len, const char *etag) {
    return store_write(store, SC_OP_PUT_IF_MATCH, out_info, key, data, len, etag, PUT_PLAIN);
}

int sc_store_list(sc_store *store, sc_list_page *out, const char *prefix, const char *start_after,
                  size_t max_keys) {
    memset(out, 0, sizeof *out);
    if (!prefix) prefix = "";
    if (!prefix_valid(prefix))
        return sc_error_set(SC_EINVAL, "list: invalid prefix \"%.*s\"", 200, prefix);
    if (max_keys == 0)
        return sc_error_set(SC_EINVAL, "list \"%s\": max_keys must be positive", prefix);
    int rc = 0;
    fault_action fault = fault_consult(&rc, store, SC_OP_LIST, prefix);
    if (fault == FAULT_FAIL) return rc;
    count_call(store, SC_OP_LIST);
    rc = store->ops->list(store->self, out, prefix, start_after, max_keys);
    if (fault == FAULT_LOSE) {
        sc_list_page_free(out);
        return lost_response(SC_OP_LIST, prefix, rc);
    }
    return rc;
}

int sc_store_list_all(sc_store *store, sc_list_page *out, const char *prefix) {
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    const char *after = NULL;
    for (;;) {
        sc_list_page page;
        int rc = sc_store_list(store, &page, prefix, after, SC_LIST_ALL_PAGE);
        if (rc) {
            sc_list_page_free(out);
            return rc;
        }
        if (page.truncated && page.count == 0) {
            sc_list_page_free(&page);
            sc_list_page_free(out);
            /* Following such a page would loop forever. */
            return sc_error_set(SC_EIO,
                                "list \"%s\": the %s backend returned an empty truncated page",
                                prefix ? prefix : "", store->ops->name);
        }
        SC_VEC_RESERVE(rc, out->keys, cap, out->count + page.count, SC_LIST_ALL_PAGE, "the listed keys");
        if (rc) {
            sc_list_page_free(&page);
            sc_list_page_free(out);
            return sc_error_wrap(rc, "list \"%s\"", prefix ? prefix : "");
        }
        /* The keys move to `out`; only the page's array is freed. */
        if (page.count) memcpy(out->keys + out->count, page.keys, page.count * sizeof *page.keys);
        out->count += page.count;
        free(page.keys);
        if (!page.truncated) return 0;
        after = out->keys[out->count - 1];
    }
}

int sc_store_delete(sc_store *store, const char *key) {
    if (!sc_store_key_valid(key)) return invalid_key(SC_OP_DELETE, key);
    int rc = 0;
    fault_action fault = fault_consult(&rc, store, SC_OP_DELETE, key);
    if (fault == FAULT_FAIL) return rc;
    count_call(store, SC_OP_DELETE);
    rc = store->ops->del(store->self, key);
    if (fault == FAULT_LOSE) return lost_response(SC_OP_DELETE, key, rc);
    return rc;
}

int sc_store_discard(sc_store *store, const char *key) {
    if (!sc_store_key_valid(key)) return invalid_key(SC_OP_DELETE, key);
    int rc = 0;
    fault_action fault = fault_consult(&rc, store, SC_OP_DELETE, key);
    if (fault != FAULT_FAIL) {
        count_call(store, SC_OP_DELETE);
        /* A version-2 table has no discard member: it must not be read. */
        rc = store->ops->version >= 3 && store->ops->discard ? store->ops->discard(store->self, key)
                                                             : store->ops->del(store->self, key);
    }
    if (rc == SC_ENOTFOUND) { /* absent is done (a server answering 404 to a DELETE, a fault hook) */
        sc_error_clear();
        rc = 0;
    }
    if (fault == FAULT_LOSE) return lost_response(SC_OP_DELETE, key, rc);
    return rc;
}

int sc_store_sync(sc_store *store) {
    /* Not an operation of its own in the counters: it adds no request on stores that need none. */
    return store->ops->sync ? store->ops->sync(store->self) : 0;
}

int sc_store_wrap(sc_store **out, const sc_store_ops *ops, void *self) {
    *out = NULL;
    if (!ops) return sc_error_set(SC_EINVAL, "store backend ops are NULL");
    /* Version 1 (no get_bounded) is still served: see SC_STORE_OPS_VERSION. */
    if (ops->version < 1 || ops->version > SC_STORE_OPS_VERSION)
        return sc_error_set(SC_EINVAL, "store backend %s has ops version %d, expected 1 to %d",
                            ops->name ? ops->name : "?", ops->version, SC_STORE_OPS_VERSION);
    if (!ops->name || !ops->get || !ops->head || !ops->put || !ops->put_if_absent || !ops->list ||
        !ops->del)
        return sc_error_set(SC_EINVAL, "store backend %s lacks a name or a required operation",
                            ops->name ? ops->name : "?");
    if ((ops->caps & SC_CAP_COMPARE_AND_SWAP) && !ops->put_if_match)
        return sc_error_set(SC_EINVAL,
                            "store backend %s claims compare-and-swap without put_if_match",
                            ops->name);
    sc_store *store = calloc(1, sizeof *store);
    if (!store) return sc_error_set(SC_ENOMEM, "out of memory for a store handle");
    if (pthread_mutex_init(&store->lock, NULL) != 0) {
        free(store);
        return sc_error_set(SC_ENOMEM, "cannot initialise a store handle's lock");
    }
    store->ops = ops;
    store->self = self;
    store->env = *sc_env_default();
    *out = store;
    return 0;
}

void sc_store_free(sc_store *store) {
    if (!store) return;
    if (store->ops->close) store->ops->close(store->self);
    pthread_mutex_destroy(&store->lock);
    free(store);
}

#define SCHEME_ALPHA "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

/* Length of the "scheme" in "scheme://rest" (RFC 3986 letters), 0 when `location` has none. */
static size_t location_scheme_len(const char *location) {
    size_t n = strspn(location, SCHEME_ALPHA);
    if (n == 0) return 0;
    n += strspn(location + n, SCHEME_ALPHA "0123456789+-.");
    return strncmp(location + n, "://", 3) == 0 ? n : 0;
}

static int scheme_is(const char *location, size_t len, const char *name) {
    return strlen(name) == len && strncasecmp(location, name, len) == 0;
}

int sc_store_open(sc_store **out, const char *location) {
    return sc_store_open_with_config(out, location, NULL);
}

int sc_store_open_with_config(sc_store **out, const char *location,
                              const sc_store_config *config) {
    *out = NULL;
    /* Version 1 ends before posix_sync: accepted, that member is never read. */
    if (config && (config->version < 1 || config->version > SC_STORE_CONFIG_VERSION))
        return sc_error_set(SC_EINVAL,
                            "store configuration has version %u, expected 1 to %d (initialise it with "
                            "sc_store_config_init)",
                            (unsigned)config->version, SC_STORE_CONFIG_VERSION);
    int posix_sync = config && config->version >= 2 ? config->posix_sync : SC_POSIX_SYNC_AUTO;
    if (posix_sync < SC_POSIX_SYNC_AUTO || posix_sync > SC_POSIX_SYNC_FS)
        return sc_error_set(SC_EINVAL,
                            "store configuration: posix_sync %d (0 auto, 1 eager, 2 files, 3 fs)",
                            posix_sync);
    if (config && (config->tracker_ttl_ms < 0 || config->tracker_ttl_ms == 1))
        return sc_error_set(SC_EINVAL,
                            "store configuration: tracker_ttl_ms %lld (0 = unset, else > 1 ms)",
                            (long long)config->tracker_ttl_ms);
    if (!location || !*location) return sc_error_set(SC_EINVAL, "empty store location");
    const sc_store_ops *ops = NULL;
    void *self = NULL;
    int rc;
    size_t scheme = location_scheme_len(location);
    const char *rest = location + scheme + (scheme ? 3 : 0);
    if (scheme == 0) {
        rc = sc_posix_store_create(&ops, &self, location, posix_sync);
    } else if (scheme_is(location, scheme, "file")) {
        /* Only the empty host is local: file:///dir. */
        if (rest[0] != '/')
            return sc_error_set(SC_EINVAL, "%s: file locations need an absolute path (file:///dir)",
                                location);
        rc = sc_posix_store_create(&ops, &self, rest, posix_sync);
    } else if (scheme_is(location, scheme, "mem")) {
        if (!*rest)
            return sc_error_set(SC_EINVAL, "%s: mem locations need a name (mem://NAME)", location);
        rc = sc_mem_store_create(&ops, &self, rest);
    } else if (scheme_is(location, scheme, "s3")) {
        rc = sc_s3_store_create_config(&ops, &self, location, config);
    } else {
        return sc_error_set(SC_EINVAL,
                            "unsupported location scheme \"%.*s://\" in %s (use a directory, "
                            "file:///dir, s3://bucket/prefix or mem://NAME)",
                            (int)scheme, location, location);
    }
    if (rc) return rc;
    rc = sc_store_wrap(out, ops, self);
    if (rc && ops->close) ops->close(self);
    if (!rc && config) (*out)->tracker_ttl_ms = config->tracker_ttl_ms;
    return rc;
}

int sc_store_check(sc_store *store) {
    if (!store) return sc_error_set(SC_EINVAL, "NULL store");
    /* One page of one key: the cheapest request that needs the bucket and the right to list it. */
    sc_list_page page;
    int rc = sc_store_list(store, &page, "", NULL, 1);
    if (rc) return rc;
    sc_list_page_free(&page);
    return 0;
}

int sc_store_tracker_ttl(int64_t *out, const sc_store *store) {
    *out = store->tracker_ttl_ms; /* > 1 when set: checked at open */
    if (*out) return 0;
    /* The variable is only the documented default of the configuration field. */
    const char *v = getenv("SNAPCOMMIT_TRACKER_TTL_MS"); /* sc-env-exempt: a config default */
    if (!v || !*v) return 0;
    char *end;
    long long n = strtoll(v, &end, 10);
    if (*end != '\0' || n <= 1)
        return sc_error_set(SC_EINVAL, "SNAPCOMMIT_TRACKER_TTL_MS=%.40s (not an integer > 1)", v);
    *out = n;
    return 0;
}

int sc_store_set_env(sc_store *store, const sc_env *env) {
    if (!store) return sc_error_set(SC_EINVAL, "NULL store");
    return sc_env_install(&store->env, env);
}

const sc_env *sc_store_env(const sc_store *store) { return &store->env; }

void sc_store_remove_created_dirs(sc_store *store, const char *prefix) {
    /* A version-1 table ends before this member: it must not be read. Like sync, not an
     * operation of its own in the counters (it sends no request to an object store). */
    if (store->ops->version >= 2 && store->ops->remove_created_dirs)
        store->ops->remove_created_dirs(store->self, prefix ? prefix : "");
}

uint32_t sc_store_caps(const sc_store *store) { return store->ops->caps; }

void *sc_store_backend_self(sc_store *store) { return store->self; }

const char *sc_store_backend_name(const sc_store *store) { return store->ops->name; }

void sc_store_stats_get(sc_store_stats *out, const sc_store *store) {
    sc_store *s = (sc_store *)store; /* the lock only: the counters are read, not changed */
    pthread_mutex_lock(&s->lock);
    *out = s->stats;
    pthread_mutex_unlock(&s->lock);
}

void sc_store_stats_reset(sc_store *store) {
    pthread_mutex_lock(&store->lock);
    memset(&store->stats, 0, sizeof store->stats);
    store->rounds = 0;
    pthread_mutex_unlock(&store->lock);
}

uint64_t sc_store_rounds(const sc_store *store) {
    sc_store *s = (sc_store *)store;
    pthread_mutex_lock(&s->lock);
    uint64_t n = s->rounds;
    pthread_mutex_unlock(&s->lock);
    return n;
}

void sc_store_rounds_set(sc_store *store, uint64_t rounds) {
    pthread_mutex_lock(&store->lock);
    store->rounds = rounds;
    pthread_mutex_unlock(&store->lock);
}

void sc_store_set_fault_hook(sc_store *store, sc_fault_fn fn, void *ctx) {
    pthread_mutex_lock(&store->lock);
    store->fault_fn = fn;
    store->fault_ctx = ctx;
    pthread_mutex_unlock(&store->lock);
}

int sc_store_has_fault_hook(const sc_store *store) {
    sc_store *s = (sc_store *)store;
    pthread_mutex_lock(&s->lock);
    int has = s->fault_fn != NULL;
    pthread_mutex_unlock(&s->lock);
    return has;
}
