/*
 * Capability probing: a store's declared capability bits are a claim; before
 * a table commits to a strategy for life, exercise the store and keep only
 * what it demonstrably honours (observed ∩ declared). A store whose
 * put_if_absent silently overwrites, or whose put_if_match ignores the ETag,
 * would otherwise lose snapshots — the failure Paimon #5762 describes.
 *
 * Everything happens under metadata/probe-<uuid>/ (a fresh prefix per probe)
 * and is deleted afterwards:
 *   create  put_if_absent twice: 0, then SC_EEXISTS, and the first bytes stay
 *   cas     put twice (two ETags), put_if_match with the stale ETag must be
 *           SC_EMODIFIED and change nothing, with the current one must succeed
 *   list    a LIST of the prefix must show what was just written
 * SC_CAP_DURABLE cannot be observed and is passed through as declared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "store/store_internal.h"
#include "strategy/strategy.h"
#include "base/env_internal.h"

#define PROBE_KEYS 3

typedef struct probe {
    sc_store *store;
    char prefix[96];
    char keys[PROBE_KEYS][128];
    int written[PROBE_KEYS];
} probe;

enum { KEY_CREATE = 0, KEY_CAS, KEY_LIST };

/* 1 when `key` holds exactly `want`; 0 when it holds something else; < 0 on error. */
static int holds(probe *p, const char *key, const char *want) {
    uint8_t *data;
    size_t len;
    /* The probe's values are short: a larger object is not ours (and is not read). */
    int rc = sc_store_get_bounded(p->store, &data, &len, NULL, key, strlen(want) + 64);
    if (rc) return sc_error_wrap(rc, "probe: reading back %s", key);
    int same = len == strlen(want) && memcmp(data, want, len) == 0;
    free(data);
    return same;
}

static int put_value(probe *p, int k, const char *value, char etag[SC_ETAG_MAX]) {
    sc_object_info info;
    p->written[k] = 1; /* before the write: a failed one may still have landed (its answer lost) */
    int rc = sc_store_put(p->store, &info, p->keys[k], (const uint8_t *)value, strlen(value));
    if (rc) return sc_error_wrap(rc, "probe: writing %s", p->keys[k]);
    if (!info.etag[0] && sc_store_head(p->store, &info, p->keys[k]) != 0)
        return sc_error_wrap(SC_EIO, "probe: stat of %s", p->keys[k]);
    memcpy(etag, info.etag, SC_ETAG_MAX);
    return 0;
}

/* put_if_absent: 1 honoured, 0 not, < 0 store error. */
static int probe_create(probe *p) {
    const char *key = p->keys[KEY_CREATE];
    /* Set before the create: whatever is there afterwards goes (a failed create may have
     * landed, its answer lost). */
    p->written[KEY_CREATE] = 1;
    int rc = sc_store_put_if_absent(p->store, NULL, key, (const uint8_t *)"first", 5);
    if (rc == SC_EEXISTS) {
        sc_log(SC_LOG_WARN, "store probe: put_if_absent of the fresh key %s reported it present", key);
        return 0;
    }
    if (rc) return sc_error_wrap(rc, "probe: creating %s", key);
    rc = sc_store_put_if_absent(p->store, NULL, key, (const uint8_t *)"second", 6);
    if (rc == 0) {
        sc_log(SC_LOG_WARN, "store probe: a second put_if_absent of %s succeeded: conditional create is not honoured", key);
        return 0;
    }
    if (rc != SC_EEXISTS) return sc_error_wrap(rc, "probe: creating %s again", key);
    rc = holds(p, key, "first");
    if (rc == 0) sc_log(SC_LOG_WARN, "store probe: a refused put_if_absent of %s still replaced it", key);
    return rc;
}

/* put_if_match: 1 honoured, 0 not, < 0 store error. */
static int probe_cas(probe *p) {
    const char *key = p->keys[KEY_CAS];
    char stale[SC_ETAG_MAX], current[SC_ETAG_MAX];
    int rc = put_value(p, KEY_CAS, "v1", stale);
    if (!rc) rc = put_value(p, KEY_CAS, "v2", current);
    if (rc) return rc;
    if (!stale[0] || !current[0] || strcmp(stale, current) == 0) {
        sc_log(SC_LOG_WARN, "store probe: %s got no distinct ETags per version: no compare-and-swap", key);
        return 0;
    }
    rc = sc_store_put_if_match(p->store, NULL, key, (const uint8_t *)"v3", 2, stale);
    if (rc == SC_EUNSUPPORTED) return 0;
    if (rc == 0) {
        sc_log(SC_LOG_WARN, "store probe: put_if_match of %s with a stale ETag succeeded: compare-and-swap is not honoured", key);
        return 0;
    }
    if (rc != SC_EMODIFIED) return sc_error_wrap(rc, "probe: compare-and-swap of %s with a stale ETag", key);
    if ((rc = holds(p, key, "v2")) <= 0) {
        if (rc == 0) sc_log(SC_LOG_WARN, "store probe: a refused put_if_match of %s still replaced it", key);
        return rc;
    }
    rc = sc_store_put_if_match(p->store, NULL, key, (const uint8_t *)"v3", 2, current);
    if (rc == SC_EMODIFIED || rc == SC_ENOTFOUND) {
        sc_log(SC_LOG_WARN, "store probe: put_if_match of %s with its current ETag was refused", key);
        return 0;
    }
    if (rc) return sc_error_wrap(rc, "probe: compare-and-swap of %s", key);
    return holds(p, key, "v3");
}

/* LIST after write: 1 every written key is listed, 0 not, < 0 store error. */
static int probe_list(probe *p) {
    char etag[SC_ETAG_MAX];
    int rc = put_value(p, KEY_LIST, "l", etag);
    if (rc) return rc;
    sc_list_page page;
    if ((rc = sc_store_list(p->store, &page, p->prefix, NULL, 10)) != 0)
        return sc_error_wrap(rc, "probe: listing %s", p->prefix);
    int ok = 1;
    for (int k = 0; k < PROBE_KEYS; k++) {
        if (!p->written[k]) continue;
        int seen = 0;
        for (size_t i = 0; i < page.count; i++) seen |= strcmp(page.keys[i], p->keys[k]) == 0;
        ok &= seen;
    }
    sc_list_page_free(&page);
    if (!ok) sc_log(SC_LOG_WARN, "store probe: a LIST of %s missed keys just written", p->prefix);
    return ok;
}

static void cleanup(probe *p) {
    for (int k = 0; k < PROBE_KEYS; k++) {
        if (p->written[k] && sc_store_delete(p->store, p->keys[k]) != 0)
            sc_log(SC_LOG_DEBUG, "store probe: could not remove %s: %s", p->keys[k], sc_error_message());
    }
    /* A file system keeps the emptied metadata/probe-<uuid>/ directory: take it back. */
    sc_store_remove_created_dirs(p->store, p->prefix);
}

int sc_strategy_probe(uint32_t *out_caps, sc_store *store) {
    *out_caps = 0;
    if (!store) return sc_error_set(SC_EINVAL, "NULL store");
    uint32_t declared = sc_store_caps(store);
    uint32_t observed = declared & (SC_CAP_DURABLE | SC_CAP_CONCURRENT); /* not observable: as declared */
    char uuid[SC_UUID_TEXT_LEN + 1];
    int rc = sc_env_uuid_text(sc_store_env(store), uuid);
    if (rc) return rc;
    probe p;
    memset(&p, 0, sizeof p);
    p.store = store;
    snprintf(p.prefix, sizeof p.prefix, "metadata/probe-%s/", uuid);
    static const char *names[PROBE_KEYS] = {"create", "cas", "list"};
    for (int k = 0; k < PROBE_KEYS; k++) snprintf(p.keys[k], sizeof p.keys[k], "%s%s", p.prefix, names[k]);

    uint32_t create_caps = declared & (SC_CAP_ATOMIC_NOREPLACE | SC_CAP_CONDITIONAL_CREATE);
    if (create_caps) {
        if ((rc = probe_create(&p)) < 0) goto out;
        if (rc) observed |= create_caps;
    }
    if (declared & SC_CAP_COMPARE_AND_SWAP) {
        if ((rc = probe_cas(&p)) < 0) goto out;
        if (rc) observed |= SC_CAP_COMPARE_AND_SWAP;
    }
    if (declared & SC_CAP_LIST_AFTER_WRITE) {
        if ((rc = probe_list(&p)) < 0) goto out;
        if (rc) observed |= SC_CAP_LIST_AFTER_WRITE;
    }
    rc = 0;
out:
    if (rc) {
        char message[1024];
        snprintf(message, sizeof message, "%s", sc_error_message());
        cleanup(&p);
        return sc_error_set(rc, "probing the %s store under %s: %s", sc_store_backend_name(store), p.prefix, message);
    }
    cleanup(&p);
    sc_error_clear();
    *out_caps = observed;
    if (observed != declared)
        sc_log(SC_LOG_WARN, "the %s store declares capabilities %#x but honours only %#x", sc_store_backend_name(store),
               (unsigned)declared, (unsigned)observed);
    return 0;
}
