/*
 * tracker strategy (seed 000, list-based two-phase claim): knobs and
 * maintenance that are not part of the sc_strategy interface. Internal:
 * used by tests and, later, the CLI. See docs/tracker.md.
 */
#ifndef SC_STRATEGY_TRACKER_H
#define SC_STRATEGY_TRACKER_H

#include <stdint.h>

#include "strategy/strategy.h"

/* Default TTL of an attempt (ms): the seed's 30 s. sc_store_config.tracker_ttl_ms
 * of the table's store overrides it; unset, the environment variable
 * SNAPCOMMIT_TRACKER_TTL_MS does, for every handle opened after. */
#define SC_TRACKER_DEFAULT_TTL_MS 30000

/*
 * Set the TTL of this handle's tracker table to ttl_ms (> 0); the self-fence
 * becomes ttl_ms / 2. Every client of a table must use the same TTL.
 * Errors: SC_EINVAL (not a tracker table, ttl_ms <= 1), SC_ENOMEM.
 */
int sc_tracker_set_ttl(sc_table *t, int64_t ttl_ms);

/* The TTL this handle uses (configuration, else SNAPCOMMIT_TRACKER_TTL_MS, else the default); 0 on error. */
int64_t sc_tracker_ttl_ms(sc_table *t);

/*
 * Archive and clean versions older than the latest `keep` (at least 2)
 * decided ones: move tracker/ entries to archive/, delete sub-tracker
 * entries, PRE_COMMIT files of losing sub-versions and their losing commit
 * files. Never deletes COMMIT-HINT, the winning pair, or the EXPIRED-HINT of
 * a losing sub-version, so snapshots stay readable and a stalled client can
 * never find an old sub-version empty again. Not on the claim path.
 * *out_archived (may be NULL) receives the number of versions archived.
 * Errors: SC_EINVAL (not a tracker table), store errors.
 *
 * No production caller yet, on purpose: it is kept for the table upkeep of
 * issue 12 (snapshot expiration), which decides when `keep` versions are
 * enough and will call it off the claim path, next to moving EARLIEST. Until
 * then test_strategy_tracker (tracker/cleanup_archives_without_breaking_readers)
 * keeps it honest.
 */
int sc_tracker_cleanup(sc_table *t, uint64_t keep, uint64_t *out_archived);

#endif
