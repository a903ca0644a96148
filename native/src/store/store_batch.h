/*
 * Independent requests sent together (internal): the writes a commit must make durable
 * before its claim, and the looks that confirm its base, cost one round trip instead of
 * one each. Nothing here orders them: a caller puts into one batch only requests that
 * may complete in any order, and waits for the whole batch before anything that
 * depends on them (the claim comes after every write it publishes).
 */
#ifndef SC_STORE_BATCH_H
#define SC_STORE_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "snapcommit/store.h"

struct sc_env;

#define SC_STORE_CALL_MESSAGE 512

/* One request of a batch and its answer. */
typedef struct sc_store_call {
    sc_store_op op;      /* SC_OP_GET (bounded by max_len), SC_OP_HEAD, SC_OP_PUT, SC_OP_DELETE, SC_OP_LIST */
    /* SC_OP_LIST: `key` is the prefix; every key under it, all pages (sc_store_list_all) */
    int hint;            /* SC_OP_PUT of an advisory object (sc_store_put_hint) */
    int absent_ok;       /* SC_OP_DELETE whether or not the key exists (sc_store_discard) */
    const char *key;     /* borrowed for the call */
    const uint8_t *data; /* SC_OP_PUT: borrowed for the call */
    size_t len;
    size_t max_len; /* SC_OP_GET: the largest object accepted (SIZE_MAX: any) */
    /* The answer: rc as the single call would return it; a GET's bytes (owned by the
     * call: sc_store_call_clear frees them) and the object's info. */
    int rc;
    uint8_t *out_data;
    size_t out_len;
    sc_object_info info;
    sc_list_page page; /* SC_OP_LIST's keys (owned by the call) */
    char message[SC_STORE_CALL_MESSAGE]; /* sc_error_message() of a failed call */
} sc_store_call;

/*
 * Send `calls[0..n)` and wait for every answer. On a store with SC_CAP_CONCURRENT (and
 * no fault hook) they go out at once, one thread each; otherwise one by one, in an
 * order drawn from `env`'s randomness, so that the deterministic simulation tries the
 * orders a concurrent store may produce. Either way the batch counts as one round trip
 * (sc_store_rounds). Each call's rc says how it went; the return value is 0, or
 * SC_ENOMEM / SC_EINVAL when the batch itself could not be run (then no call was sent).
 */
int sc_store_batch(sc_store *store, const struct sc_env *env, sc_store_call *calls, size_t n);

/* Record the failed call's message on this thread and return its rc (0 when it succeeded). */
int sc_store_call_error(const sc_store_call *call);

/* Free what the call's answer holds (bytes, listed keys); the request fields are kept. */
void sc_store_call_clear(sc_store_call *call);

#endif
