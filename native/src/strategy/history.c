/*
 * The history marker (docs/format.md): metadata/history, written after
 * snapshot 1 and read by every strategy's discovery to tell "a table whose
 * snapshots were lost" from "a new, empty table". With the strategies, not
 * in engine/table.c, because discovery is the strategies' job.
 */
#include "base/error_internal.h"
#include "strategy/strategy.h"

void sc_table_mark_history(sc_table *t) {
    static const char body[] = "snapshot 1 was committed; the history of this table is not empty\n";
    int rc = sc_store_put(t->store, NULL, SC_HISTORY_MARKER_KEY, (const uint8_t *)body, sizeof body - 1);
    if (rc) sc_log(SC_LOG_WARN, "could not write %s: %s", SC_HISTORY_MARKER_KEY, sc_error_message());
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
    return 0;
}

int sc_table_no_history_error(void) {
    return sc_error_set(SC_ECORRUPT, "no snapshot found, but %s records that this table had snapshots: its history "
                                     "was deleted or replaced (a missing or replaced snapshot/ directory?)",
                        SC_HISTORY_MARKER_KEY);
}
