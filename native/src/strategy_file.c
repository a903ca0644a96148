/*
 * Snapshot-file strategies: snapshot N is the object snapshot/snapshot-<N>,
 * claimed by creating it only if absent.
 *   rename       put_if_absent is an atomic no-replace publish (POSIX renameat2/link)
 *   conditional  put_if_absent is a conditional create (S3 If-None-Match: *)
 * Both find the latest snapshot from the LATEST hint, verified by probing the
 * next ids, so discovery costs O(1) requests while hints are current.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "store_backends.h"
#include "table_internal.h"

#define LATEST_HINT_KEY "snapshot/LATEST"
#define EARLIEST_HINT_KEY "snapshot/EARLIEST"
#define SNAPSHOT_PREFIX "snapshot/snapshot-"
/* Beyond this many probes past a stale hint, one LIST is cheaper. */
#define MAX_PROBES 8

/* A hint is a decimal id and a newline; anything else is ignored (hints are never trusted). */
static uint64_t read_hint(sc_table *t, const char *key) {
    uint8_t *data = NULL;
    size_t len = 0;
    uint64_t id = 0;
    if (sc_store_get(t->store, &data, &len, NULL, key) != 0) return 0;
    for (size_t i = 0; i < len && i < 21; i++) {
        if (data[i] == '\n') break;
        if (data[i] < '0' || data[i] > '9' || id > (UINT64_MAX - 9) / 10) {
            id = 0;
            break;
        }
        id = id * 10 + (uint64_t)(data[i] - '0');
    }
    free(data);
    sc_error_clear();
    return id;
}

static void write_hint(sc_table *t, const char *key, uint64_t id) {
    char text[32];
    int n = snprintf(text, sizeof text, "%" PRIu64 "\n", id);
    int rc = sc_store_put_hint(t->store, key, (const uint8_t *)text, (size_t)n);
    if (rc) sc_log(SC_LOG_WARN, "could not update hint %s to %" PRIu64 ": %s", key, id, sc_error_message());
}

static int exists(sc_table *t, uint64_t id, int *out) {
    char key[64];
    sc_snapshot_key(key, id);
    sc_object_info info;
    int rc = sc_store_head(t->store, &info, key);
    if (rc == 0 || rc == SC_ENOTFOUND) {
        *out = rc == 0;
        if (rc) sc_error_clear();
        return 0;
    }
    return rc;
}

/* Highest (or lowest) snapshot id by listing; 0 when there is none. */
static int scan_ids(sc_table *t, uint64_t after, int want_lowest, uint64_t *out) {
    char start[SC_STORE_KEY_MAX + 1] = ""; /* a whole key: a truncated one would list the same page again */
    if (after) sc_snapshot_key(start, after);
    *out = 0;
    for (;;) {
        sc_list_page page = {0};
        int rc = sc_store_list(t->store, &page, SNAPSHOT_PREFIX, start[0] ? start : NULL,
                               want_lowest ? 1 : 1000);
        if (rc) return sc_error_wrap(rc, "listing snapshots");
        for (size_t i = 0; i < page.count; i++) {
            uint64_t id;
            if (sc_snapshot_key_parse(&id, page.keys[i]) == 0) {
                if (want_lowest) {
                    *out = id;
                    sc_list_page_free(&page);
                    return 0;
                }
                *out = id;
            }
        }
        int more = page.truncated && page.count > 0;
        if (more) snprintf(start, sizeof start, "%s", page.keys[page.count - 1]);
        sc_list_page_free(&page);
        if (!more) return 0;
    }
}

static int file_latest(sc_table *t, uint64_t *out_id) {
    uint64_t id = read_hint(t, LATEST_HINT_KEY);
    int present = 0, rc;
    if (id && (rc = exists(t, id, &present)) != 0) return rc;
    if (!present) return scan_ids(t, 0, 0, out_id); /* no hint, or a hint ahead of reality */
    for (int probes = 0;; probes++) {
        if (probes == MAX_PROBES) {
            uint64_t listed;
            if ((rc = scan_ids(t, id, 0, &listed)) != 0) return rc;
            *out_id = listed > id ? listed : id;
            return 0;
        }
        int next;
        if ((rc = exists(t, id + 1, &next)) != 0) return rc;
        if (!next) break;
        id++;
    }
    *out_id = id;
    return 0;
}

static int file_earliest(sc_table *t, uint64_t *out_id) {
    uint64_t id = read_hint(t, EARLIEST_HINT_KEY);
    int present = 0, rc;
    if (id && (rc = exists(t, id, &present)) != 0) return rc;
    if (present) {
        /* Trusted once its snapshot exists: nothing expires snapshots yet, so
         * no older one can have been left behind by a lagging hint. */
        *out_id = id;
        return 0;
    }
    return scan_ids(t, 0, 1, out_id);
}

static int file_read(sc_table *t, uint8_t **out_data, size_t *out_len, uint64_t id) {
    char key[64];
    sc_snapshot_key(key, id);
    return sc_store_get(t->store, out_data, out_len, NULL, key);
}

static int file_claim(sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    char key[64];
    sc_snapshot_key(key, id);
    return sc_store_put_if_absent(t->store, NULL, key, data, len);
}

static void file_after_commit(sc_table *t, uint64_t id) {
    write_hint(t, LATEST_HINT_KEY, id);
    if (id == 1) write_hint(t, EARLIEST_HINT_KEY, id);
}

const sc_strategy sc_strategy_rename = {
    SC_STRATEGY_RENAME, SC_CAP_ATOMIC_NOREPLACE, file_latest, file_read, file_claim,
    file_after_commit,  file_earliest,
};

const sc_strategy sc_strategy_conditional = {
    SC_STRATEGY_CONDITIONAL, SC_CAP_CONDITIONAL_CREATE, file_latest, file_read, file_claim,
    file_after_commit,       file_earliest,
};
