/* Backfilling the history marker metadata/history (docs/format.md). */
#include <inttypes.h>

#include "error_internal.h"
#include "table_internal.h"

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
        sc_log(SC_LOG_WARN, "%s was missing (a table from before the marker, or its write failed): writing it now",
               SC_HISTORY_MARKER_KEY);
    }
    (void)sc_table_mark_history(t); /* logged there */
}

int sc_table_fsck_history(sc_table *t) {
    int marked;
    int rc = sc_table_history_marked(&marked, t);
    if (rc) return rc;
    if (marked) return 0;
    sc_log(SC_LOG_WARN, "fsck: %s was missing although the table has snapshots (a table from before the marker, "
                        "or its write failed): writing it, so that a later loss of the history is detected",
           SC_HISTORY_MARKER_KEY);
    if ((rc = sc_table_mark_history(t)) != 0) return sc_error_wrap(rc, "fsck: writing the missing %s", SC_HISTORY_MARKER_KEY);
    return 0;
}
