/*
 * tracker strategy (seed 000, list-based two-phase claim): what is not part
 * of the sc_strategy interface, the TTL. Internal. See docs/tracker.md.
 */
#ifndef SC_STRATEGY_TRACKER_H
#define SC_STRATEGY_TRACKER_H

#include <stdint.h>

#include "strategy/strategy.h"

/* Default TTL of an attempt (ms): the seed's 30 s. sc_store_config.tracker_ttl_ms
 * of the table's store overrides it; unset, the environment variable
 * SNAPCOMMIT_TRACKER_TTL_MS does, for every handle opened after. */
#define SC_TRACKER_DEFAULT_TTL_MS 30000

/* The TTL this handle uses (configuration, else SNAPCOMMIT_TRACKER_TTL_MS, else the default); 0 on error. */
int64_t sc_tracker_ttl_ms(sc_table *t);

#endif
