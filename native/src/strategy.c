/* The registry of claim strategies and the automatic choice among them. */
#include "table_internal.h"

const sc_strategy *sc_strategy_get(sc_strategy_kind kind) {
    switch (kind) {
    case SC_STRATEGY_RENAME: return &sc_strategy_rename;
    case SC_STRATEGY_CONDITIONAL: return &sc_strategy_conditional;
    default: return NULL; /* head and tracker: not in this build yet */
    }
}

/* Prefer the cheapest safe claim the store can honour: one conditional
 * create, then an atomic rename, then the list-based tracker protocol. */
sc_strategy_kind sc_strategy_choose(uint32_t caps) {
    if (caps & SC_CAP_CONDITIONAL_CREATE) return SC_STRATEGY_CONDITIONAL;
    if (caps & SC_CAP_ATOMIC_NOREPLACE) return SC_STRATEGY_RENAME;
    return SC_STRATEGY_TRACKER;
}
