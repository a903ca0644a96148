/*
 * The history marker (docs/format.md): metadata/history, written after
 * snapshot 1 and read by every strategy's discovery to tell "a table whose
 * snapshots were lost" from "a new, empty table". With the strategies, not
 * in engine/table.c, because discovery is the strategies' job.
 */
#include <inttypes.h>

#include "base/error_internal.h"
#include "strategy/strategy.h"

/*
 * Write the history marker metadata/history (best effort, logged at WARN):
 * called after snapshot 1 is committed. Its presence means "this table has
 * had snapshots", outside the strategy's own keys (snapshot/, head/,
 * tracker/), so that losing those is told apart from a new empty table.
 * Returns the store's code.
 */
static int mark_history(sc_table *t) {
    static const char body[] = "snapshot 1 was committed; the history of this table is not empty\n";
    int rc = sc_store_put(t->store, NULL, SC_HISTORY_MARKER_KEY, (const uint8_t *)body, sizeof body - 1);
    if (rc) sc_log(SC_LOG_WARN, "could not write %s: %s", SC_HISTORY_MARKER_KEY, sc_error_message());
    else t->history_marked = 1;
    return rc;
}

int sc_table_history_marked(int *out, sc_table *t) {
    *out = 0;
    sc_object_info info;
    int rc = sc_store_head(t->store, &info, SC_HISTORY_MARKER_KEY);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return 0;
    }
    if (rc) return sc_error_wrap(rc, "checking %s", SC_HISTORY_MARKER_KEY);
    *out = 1;
    t->history_marked = 1;
    return 0;
}

int sc_table_no_history_error(void) {
    return sc_error_set(SC_ECORRUPT, "no snapshot found, but %s records that this table had snapshots: its history "
                                     "was deleted or replaced (a missing or replaced snapshot/ directory?)",
                        SC_HISTORY_MARKER_KEY);
}

void sc_table_note_history(sc_table *t, uint64_t id) {
    if (t->history_marked) return;
    if (id != 1) {
        int marked;
        int rc = sc_table_history_marked(&marked, t);
        if (rc) {
            /* A FIFO or a directory there: fsck reports it as damage. */
            sc_log(SC_LOG_WARN, "snapshot %" PRIu64 " committed, but %s", id, sc_error_message());
            return;
        }
        if (marked) return;
        sc_log(SC_LOG_WARN, "%s was missing (a table adopted from Paimon, one from before the marker, or its write failed): writing it now",
               SC_HISTORY_MARKER_KEY);
    }
    (void)mark_history(t); /* logged there */
}

int sc_table_fsck_history(sc_table *t) {
    int marked;
    int rc = sc_table_history_marked(&marked, t);
    if (rc) return rc;
    if (marked) return 0;
    sc_log(SC_LOG_WARN, "fsck: %s was missing although the table has snapshots (a table adopted from Paimon, one from before the marker, "
                        "or its write failed): writing it, so that a later loss of the history is detected",
           SC_HISTORY_MARKER_KEY);
    if ((rc = mark_history(t)) != 0) return sc_error_wrap(rc, "fsck: writing the missing %s", SC_HISTORY_MARKER_KEY);
    return 0;
}
