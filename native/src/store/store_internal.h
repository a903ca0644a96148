/* The store wrapper's internal interface (store.c), for layers above the store. */
#ifndef SC_STORE_INTERNAL_H
#define SC_STORE_INTERNAL_H

#include <stdint.h>

#include "snapcommit/store.h"

/* sc_store_config.tracker_ttl_ms of the open call, 0 when unset. */
int64_t sc_store_tracker_ttl_ms(const sc_store *store);

#endif
