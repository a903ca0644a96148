/*
 * mem backend: process-wide, named in-memory stores for tests and
 * deterministic simulation, with every capability and a built-in fault
 * injector (compare SQLite's test_vfs.c).
 *
 * Stores live in a registry for the life of the process, so that several
 * handles, also on several threads, share one "mem://NAME" and a "restart"
 * (close, reopen) finds the contents again. Each store has its own mutex;
 * every operation is atomic under it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/hash.h"
#include "base/env_internal.h"
#include "snapcommit/store.h"
#include "store/store_backends.h"
#include "base/vec.h"

/* Faults armed at once on one store. */
#define MEM_FAULTS_MAX 16

typedef struct mem_object {
    char *key;
    uint8_t *data;
    size_t len;
    uint64_t version; /* the etag is "v<version>" */
    int64_t mtime_ms;
} mem_object;

typedef struct mem_fault {
    uint32_t op_mask;   /* bit 1 << sc_store_op; 0 = every op */
    uint64_t remaining; /* matching calls until it fires, this one included */
    sc_mem_fault fault;
    unsigned stall_ms;
} mem_fault;

typedef struct mem_store {
    char *name;
    pthread_mutex_t lock;
    mem_object *objects; /* sorted by key (strcmp), so list is a binary search and a scan */
    size_t count, cap;
    mem_fault faults[MEM_FAULTS_MAX];
    size_t fault_count;
    struct mem_store *next; /* registry chain */
    sc_env env;             /* the storage's clock (mtimes) and stalls' sleep; complete */
} mem_store;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static mem_store *registry;
/* One counter for all stores: a key deleted and created again never reuses an etag. */
static _Atomic uint64_t last_version;

/* NAME from "NAME" or "mem://NAME". */
static const char *mem_name(const char *name) {
    return strncmp(name, "mem://", 6) == 0 ? name + 6 : name;
}

static mem_store *registry_find_locked(const char *name) {
    for (mem_store *m = registry; m; m = m->next)
        if (strcmp(m->name, name) == 0) return m;
    return NULL;
}

static mem_store *registry_find(const char *name) {
    pthread_mutex_lock(&registry_lock);
    mem_store *m = registry_find_locked(mem_name(name));
    pthread_mutex_unlock(&registry_lock);
    return m;
}

/* Index of the first object whose key is >= key (or > key when `after`). */
static size_t mem_bound(const mem_store *m, const char *key, int after) {
    size_t lo = 0, hi = m->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->objects[mid].key, key);
        if (c < 0 || (after && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static mem_object *mem_find(mem_store *m, const char *key) {
    size_t i = mem_bound(m, key, 0);
    return i < m->count && strcmp(m->objects[i].key, key) == 0 ? &m->objects[i] : NULL;
}

static void info_of(sc_object_info *out, const mem_object *o) {
    out->size = o->len;
    out->mtime_ms = o->mtime_ms;
    snprintf(out->etag, sizeof out->etag, "v%llu", (unsigned long long)o->version);
}

static void objects_clear(mem_store *m) {
    for (size_t i = 0; i < m->count; i++) {
        free(m->objects[i].key);
        free(m->objects[i].data);
    }
    free(m->objects);
    m->objects = NULL;
    m->count = m->cap = 0;
}

/*
 * Count this call against every armed fault watching `op`. Faults that reach
 * their call are disarmed and combine: their stalls add up, and FAIL beats
 * LOSE_RESPONSE. Called with the store locked.
 */
static sc_mem_fault faults_take(mem_store *m, unsigned *stall_ms, sc_store_op op) {
    sc_mem_fault fired = SC_MEM_FAULT_NONE;
    size_t kept = 0;
    for (size_t i = 0; i < m->fault_count; i++) {
        mem_fault *f = &m->faults[i];
        if ((f->op_mask == 0 || (f->op_mask & (1u << op))) && --f->remaining == 0) {
            if (f->fault == SC_MEM_FAULT_STALL)
                *stall_ms += f->stall_ms;
            else if (fired != SC_MEM_FAULT_FAIL)
                fired = f->fault;
            continue;
        }
        m->faults[kept++] = *f;
    }
    m->fault_count = kept;
    return fired;
}

/* Lock the store and take its faults for this call; a stall sleeps unlocked so others proceed. */
static sc_mem_fault mem_enter(mem_store *m, sc_store_op op) {
    unsigned stall_ms = 0;
    pthread_mutex_lock(&m->lock);
    sc_mem_fault fault = faults_take(m, &stall_ms, op);
    if (stall_ms) {
        sc_env env = m->env; /* read under the lock: sc_mem_store_set_env may run concurrently */
        pthread_mutex_unlock(&m->lock);
        sc_env_sleep_ms(&env, stall_ms);
        pthread_mutex_lock(&m->lock);
    }
    return fault;
}

/* Unlock after an operation and turn its result into what the caller sees under `fault`. */
static int mem_leave(mem_store *m, sc_mem_fault fault, sc_store_op op, const char *key, int rc) {
    pthread_mutex_unlock(&m->lock);
    if (fault == SC_MEM_FAULT_LOSE_RESPONSE)
        return sc_error_set(SC_EUNKNOWN,
                            "mem://%s: injected fault: response to %s \"%s\" lost (%s)", m->name,
                            sc_store_op_name(op), key, sc_error_name(rc));
    return rc;
}

static int mem_fail(mem_store *m, sc_store_op op, const char *key) {
    pthread_mutex_unlock(&m->lock);
    return sc_error_set(SC_EIO, "mem://%s: injected fault: %s \"%s\" failed", m->name,
                        sc_store_op_name(op), key);
}

static int mem_not_found(const mem_store *m, const char *key) {
    return sc_error_set(SC_ENOTFOUND, "mem://%s: %s: no such object", m->name, key);
}

static int mem_get_bounded(void *self, uint8_t **out_data, size_t *out_len,
                           sc_object_info *out_info, const char *key, size_t max_len) {
    mem_store *m = self;
    sc_mem_fault fault = mem_enter(m, SC_OP_GET);
    if (fault == SC_MEM_FAULT_FAIL) return mem_fail(m, SC_OP_GET, key);
    int rc = 0;
    uint8_t *data = NULL;
    mem_object *o = mem_find(m, key);
    if (!o) {
        rc = mem_not_found(m, key);
    } else if (o->len > max_len) {
        char object[SC_STORE_KEY_MAX + 300];
        snprintf(object, sizeof object, "mem://%s: %s", m->name, key);
        rc = sc_backend_too_large(object, o->len, 1, max_len);
    } else if (o->len && !(data = malloc(o->len))) {
        rc = sc_error_set(SC_ENOMEM, "mem://%s: out of memory reading %s", m->name, key);
    } else {
        if (o->len) memcpy(data, o->data, o->len);
        info_of(out_info, o);
    }
    size_t len = o ? o->len : 0;
    rc = mem_leave(m, fault, SC_OP_GET, key, rc);
    if (rc) {
        free(data);
        return rc;
    }
    *out_data = data;
    *out_len = len;
    return 0;
}

static int mem_get(void *self, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                   const char *key) {
    return mem_get_bounded(self, out_data, out_len, out_info, key, SIZE_MAX);
}

static int mem_head(void *self, sc_object_info *out_info, const char *key) {
    mem_store *m = self;
    sc_mem_fault fault = mem_enter(m, SC_OP_HEAD);
    if (fault == SC_MEM_FAULT_FAIL) return mem_fail(m, SC_OP_HEAD, key);
    sc_object_info info;
    mem_object *o = mem_find(m, key);
    if (o) info_of(&info, o);
    int rc = mem_leave(m, fault, SC_OP_HEAD, key, o ? 0 : mem_not_found(m, key));
    if (rc == 0) *out_info = info;
    return rc;
}

/* The write modes share one body; they differ in what an existing or absent key means. */
typedef enum { WRITE_PUT, WRITE_IF_ABSENT, WRITE_IF_MATCH } write_mode;

/* Insert an object for key, with no data yet, at index i. -1 when out of memory. Called locked. */
static int mem_insert(mem_store *m, size_t i, const char *key) {
    int rc;
    SC_VEC_RESERVE(rc, m->objects, m->cap, m->count + 1, 64, "the mem store");
    if (rc) return -1;
    char *name = strdup(key);
    if (!name) return -1;
    memmove(&m->objects[i + 1], &m->objects[i], (m->count - i) * sizeof *m->objects);
    m->count++;
    m->objects[i] = (mem_object){.key = name};
    return 0;
}

/* Store a copy of data under key as a new version, replacing any object there. Called locked. */
static int mem_store_object(mem_store *m, sc_object_info *out_info, const char *key,
                            const uint8_t *data, size_t len) {
    uint8_t *copy = NULL;
    if (len && !(copy = malloc(len))) goto oom;
    if (len) memcpy(copy, data, len);
    size_t i = mem_bound(m, key, 0);
    if ((i == m->count || strcmp(m->objects[i].key, key) != 0) && mem_insert(m, i, key) != 0) {
        free(copy);
        goto oom;
    }
    mem_object *o = &m->objects[i];
    free(o->data);
    o->data = copy;
    o->len = len;
    o->version = atomic_fetch_add(&last_version, 1) + 1;
    o->mtime_ms = sc_env_now_ms(&m->env);
    info_of(out_info, o);
    return 0;
oom:
    return sc_error_set(SC_ENOMEM, "mem://%s: out of memory writing %s", m->name, key);
}

static int mem_write(mem_store *m, sc_store_op op, write_mode mode, sc_object_info *out_info,
                     const char *key, const uint8_t *data, size_t len, const char *etag) {
    sc_mem_fault fault = mem_enter(m, op);
    if (fault == SC_MEM_FAULT_FAIL) return mem_fail(m, op, key);
    sc_object_info info;
    int rc = 0;
    mem_object *o = mem_find(m, key);
    if (o) info_of(&info, o);
    if (mode == WRITE_IF_ABSENT && o) {
        rc = sc_error_set(SC_EEXISTS, "mem://%s: %s already exists", m->name, key);
    } else if (mode == WRITE_IF_MATCH && !o) {
        rc = mem_not_found(m, key);
    } else if (mode == WRITE_IF_MATCH && strcmp(info.etag, etag) != 0) {
        rc = sc_error_set(SC_EMODIFIED, "mem://%s: %s is at %s, not %s", m->name, key, info.etag,
                          etag);
    } else {
        rc = mem_store_object(m, &info, key, data, len);
    }
    rc = mem_leave(m, fault, op, key, rc);
    if (rc == 0 && out_info) *out_info = info;
    return rc;
}

static int mem_put(void *self, sc_object_info *out_info, const char *key, const uint8_t *data,
                   size_t len) {
    return mem_write(self, SC_OP_PUT, WRITE_PUT, out_info, key, data, len, NULL);
}

static int mem_put_if_absent(void *self, sc_object_info *out_info, const char *key,
                             const uint8_t *data, size_t len) {
    return mem_write(self, SC_OP_PUT_IF_ABSENT, WRITE_IF_ABSENT, out_info, key, data, len, NULL);
}

static int mem_put_if_match(void *self, sc_object_info *out_info, const char *key,
                            const uint8_t *data, size_t len, const char *etag) {
    return mem_write(self, SC_OP_PUT_IF_MATCH, WRITE_IF_MATCH, out_info, key, data, len, etag);
}

/* Copy up to max_keys keys from index `from` that start with prefix. Called locked. */
static int mem_collect(sc_list_page *out, const mem_store *m, size_t from, const char *prefix,
                       size_t max_keys) {
    size_t prefix_len = strlen(prefix), end = from;
    while (end < m->count && end - from <= max_keys &&
           strncmp(m->objects[end].key, prefix, prefix_len) == 0)
        end++;
    out->truncated = end - from > max_keys;
    size_t n = out->truncated ? max_keys : end - from;
    if (n == 0) return 0;
    if (!(out->keys = calloc(n, sizeof *out->keys)))
        return sc_error_set(SC_ENOMEM, "mem://%s: out of memory listing", m->name);
    for (; out->count < n; out->count++) {
        if (!(out->keys[out->count] = strdup(m->objects[from + out->count].key))) {
            sc_list_page_free(out);
            return sc_error_set(SC_ENOMEM, "mem://%s: out of memory listing", m->name);
        }
    }
    return 0;
}

static int mem_list(void *self, sc_list_page *out, const char *prefix, const char *start_after,
                    size_t max_keys) {
    mem_store *m = self;
    sc_mem_fault fault = mem_enter(m, SC_OP_LIST);
    if (fault == SC_MEM_FAULT_FAIL) return mem_fail(m, SC_OP_LIST, prefix);
    /* Start at the prefix, or just past start_after when that comes later. */
    size_t from = start_after && strcmp(start_after, prefix) >= 0 ? mem_bound(m, start_after, 1)
                                                                  : mem_bound(m, prefix, 0);
    int rc = mem_collect(out, m, from, prefix, max_keys);
    rc = mem_leave(m, fault, SC_OP_LIST, prefix, rc);
    if (rc) sc_list_page_free(out);
    return rc;
}

static int mem_del(void *self, const char *key) {
    mem_store *m = self;
    sc_mem_fault fault = mem_enter(m, SC_OP_DELETE);
    if (fault == SC_MEM_FAULT_FAIL) return mem_fail(m, SC_OP_DELETE, key);
    int rc = 0;
    size_t i = mem_bound(m, key, 0);
    if (i < m->count && strcmp(m->objects[i].key, key) == 0) {
        free(m->objects[i].key);
        free(m->objects[i].data);
        memmove(&m->objects[i], &m->objects[i + 1], (m->count - i - 1) * sizeof *m->objects);
        m->count--;
    } else {
        rc = mem_not_found(m, key);
    }
    return mem_leave(m, fault, SC_OP_DELETE, key, rc);
}

static const sc_store_ops mem_ops = {
    .version = SC_STORE_OPS_VERSION,
    .name = "mem",
    .caps = SC_CAP_ATOMIC_NOREPLACE | SC_CAP_CONDITIONAL_CREATE | SC_CAP_COMPARE_AND_SWAP |
            SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE,
    .get = mem_get,
    .head = mem_head,
    .put = mem_put,
    .put_if_absent = mem_put_if_absent,
    .put_if_match = mem_put_if_match,
    .list = mem_list,
    .del = mem_del,
    .close = NULL, /* stores outlive their handles */
    .get_bounded = mem_get_bounded,
};

int sc_mem_store_create(const sc_store_ops **ops, void **self, const char *name) {
    *ops = NULL;
    *self = NULL;
    if (!name || !*name) return sc_error_set(SC_EINVAL, "empty mem store name");
    pthread_mutex_lock(&registry_lock);
    mem_store *m = registry_find_locked(name);
    if (!m && (m = calloc(1, sizeof *m)) != NULL) {
        if ((m->name = strdup(name)) == NULL) {
            free(m);
            m = NULL;
        } else {
            pthread_mutex_init(&m->lock, NULL);
            m->env = *sc_env_default();
            m->next = registry;
            registry = m;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    if (!m) return sc_error_set(SC_ENOMEM, "out of memory creating mem store %s", name);
    *ops = &mem_ops;
    *self = m;
    return 0;
}

int sc_mem_store_arm_fault(const char *name, uint32_t op_mask, uint64_t nth, sc_mem_fault fault,
                           unsigned stall_ms) {
    mem_store *m = name ? registry_find(name) : NULL;
    if (!m) return sc_error_set(SC_EINVAL, "no mem store named %s", name ? name : "(null)");
    if (nth == 0 || fault == SC_MEM_FAULT_NONE || fault > SC_MEM_FAULT_STALL ||
        op_mask >= 1u << SC_OP_COUNT)
        return sc_error_set(SC_EINVAL, "mem://%s: invalid fault (op_mask %#x, nth %llu, kind %d)",
                            m->name, op_mask, (unsigned long long)nth, (int)fault);
    int rc = 0;
    pthread_mutex_lock(&m->lock);
    if (m->fault_count == MEM_FAULTS_MAX)
        rc = sc_error_set(SC_ELIMIT, "mem://%s: already %d faults armed", m->name, MEM_FAULTS_MAX);
    else
        m->faults[m->fault_count++] =
            (mem_fault){.op_mask = op_mask, .remaining = nth, .fault = fault, .stall_ms = stall_ms};
    pthread_mutex_unlock(&m->lock);
    return rc;
}

void sc_mem_store_reset(const char *name) {
    mem_store *m = name ? registry_find(name) : NULL;
    if (!m) return;
    pthread_mutex_lock(&m->lock);
    objects_clear(m);
    m->fault_count = 0;
    pthread_mutex_unlock(&m->lock);
}

int sc_mem_store_keys(sc_list_page *out, const char *name) {
    memset(out, 0, sizeof *out);
    mem_store *m = name ? registry_find(name) : NULL;
    if (!m) return sc_error_set(SC_EINVAL, "no mem store named %s", name ? name : "(null)");
    pthread_mutex_lock(&m->lock);
    int rc = m->count ? mem_collect(out, m, 0, "", m->count) : 0;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int sc_mem_store_set_env(const char *name, const sc_env *env) {
    mem_store *m = name ? registry_find(name) : NULL;
    if (!m) return sc_error_set(SC_EINVAL, "no mem store named %s", name ? name : "(null)");
    sc_env e;
    int rc = sc_env_install(&e, env);
    if (rc) return rc;
    pthread_mutex_lock(&m->lock);
    m->env = e;
    pthread_mutex_unlock(&m->lock);
    return 0;
}
