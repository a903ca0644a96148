/*
 * Batches of independent requests (store_batch.h). A concurrent backend gets one thread
 * per call (the caller's thread takes the first): the widest batch a commit sends is a
 * handful of requests, so a pool would save nothing a round trip does not dwarf. Every
 * call goes through the ordinary wrapper functions (store.c), so keys are checked,
 * counted and offered to fault hooks exactly as single calls are.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env_internal.h"
#include "base/error_internal.h"
#include "store/store_batch.h"
#include "store/store_internal.h"

/* The widest batch: more calls than this are a caller's mistake, not a batch. */
#define SC_STORE_BATCH_MAX 64

typedef struct batch_job {
    sc_store *store;
    sc_store_call *call;
} batch_job;

static void run_call(sc_store *store, sc_store_call *c) {
    sc_error_clear();
    switch (c->op) {
    case SC_OP_GET:
        c->rc = sc_store_get_bounded(store, &c->out_data, &c->out_len, &c->info, c->key, c->max_len);
        break;
    case SC_OP_HEAD:
        c->rc = sc_store_head(store, &c->info, c->key);
        break;
    case SC_OP_PUT:
        c->rc = c->hint ? sc_store_put_hint(store, c->key, c->data, c->len)
                        : sc_store_put(store, &c->info, c->key, c->data, c->len);
        break;
    case SC_OP_DELETE:
        c->rc = c->absent_ok ? sc_store_discard(store, c->key) : sc_store_delete(store, c->key);
        break;
    case SC_OP_LIST:
        c->rc = sc_store_list_all(store, &c->page, c->key);
        break;
    default:
        c->rc = sc_error_set(SC_EINVAL, "a batch cannot send %s (\"%s\")", sc_store_op_name(c->op),
                             c->key ? c->key : "");
        break;
    }
    /* The message lives in this thread's slot: keep it with the call. */
    if (c->rc) snprintf(c->message, sizeof c->message, "%s", sc_error_message());
    else c->message[0] = '\0';
}

static void *run_job(void *arg) {
    batch_job *j = arg;
    run_call(j->store, j->call);
    return NULL;
}

static int run_concurrently(sc_store *store, sc_store_call *calls, size_t n) {
    pthread_t threads[SC_STORE_BATCH_MAX];
    batch_job jobs[SC_STORE_BATCH_MAX];
    int started[SC_STORE_BATCH_MAX] = {0};
    for (size_t i = 1; i < n; i++) {
        jobs[i] = (batch_job){store, &calls[i]};
        started[i] = pthread_create(&threads[i], NULL, run_job, &jobs[i]) == 0;
    }
    /* A thread that could not start: its call is run here, after the first. */
    run_call(store, &calls[0]);
    for (size_t i = 1; i < n; i++) {
        if (started[i]) pthread_join(threads[i], NULL);
        else run_call(store, &calls[i]);
    }
    return 0;
}

/* One by one in a drawn order (Fisher-Yates over env's randomness). */
static void run_in_drawn_order(sc_store *store, const sc_env *env, sc_store_call *calls, size_t n) {
    size_t order[SC_STORE_BATCH_MAX];
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n; i > 1; i--) {
        uint32_t r = 0;
        sc_env_random(env, &r, sizeof r);
        size_t k = r % i, tmp = order[i - 1];
        order[i - 1] = order[k];
        order[k] = tmp;
    }
    for (size_t i = 0; i < n; i++) run_call(store, &calls[order[i]]);
}

int sc_store_batch(sc_store *store, const sc_env *env, sc_store_call *calls, size_t n) {
    if (n == 0) return 0;
    if (n > SC_STORE_BATCH_MAX)
        return sc_error_set(SC_EINVAL, "a batch of %zu requests (at most %d)", n, SC_STORE_BATCH_MAX);
    for (size_t i = 0; i < n; i++) {
        calls[i].rc = 0;
        calls[i].out_data = NULL;
        calls[i].out_len = 0;
        memset(&calls[i].info, 0, sizeof calls[i].info);
        memset(&calls[i].page, 0, sizeof calls[i].page);
        calls[i].message[0] = '\0';
    }
    uint64_t rounds = sc_store_rounds(store);
    if ((sc_store_caps(store) & SC_CAP_CONCURRENT) && !sc_store_has_fault_hook(store) && n > 1) {
        run_concurrently(store, calls, n);
        sc_store_rounds_set(store, rounds + 1);
    } else {
        run_in_drawn_order(store, env ? env : sc_env_default(), calls, n); /* each counted as sent */
    }
    sc_error_clear();
    return 0;
}

int sc_store_call_error(const sc_store_call *call) {
    if (!call->rc) return 0;
    return sc_error_set(call->rc, "%s", call->message[0] ? call->message : sc_error_name(call->rc));
}

void sc_store_call_clear(sc_store_call *call) {
    free(call->out_data);
    call->out_data = NULL;
    call->out_len = 0;
    sc_list_page_free(&call->page);
}
