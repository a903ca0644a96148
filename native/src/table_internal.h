/* The table handle and the claim-strategy interface (internal). */
#ifndef SC_TABLE_INTERNAL_H
#define SC_TABLE_INTERNAL_H

#include <stdint.h>

#include "manifest.h"
#include "snapshot.h"
#include "snapcommit/table.h"

typedef struct sc_strategy sc_strategy;

struct sc_table {
    sc_store *store;
    int owns_store;
    sc_table_meta meta;
    const sc_strategy *strategy;
    sc_retry_policy retry;
    sc_env env; /* time and randomness (complete: no NULL member); the store's at open */
    sc_decode_limits limits;
    struct sc_cache *cache; /* decoded manifests and lists; NULL = no caching */
    /* Per-handle state a strategy keeps between calls (head: the last head
     * record and its ETag); freed with strategy_state_free in sc_table_free. */
    void *strategy_state;
    void (*strategy_state_free)(void *state);
};

/*
 * How snapshot N+1 is claimed and how the latest snapshot is found.
 * claim returns 0 (won), SC_EEXISTS (another writer holds that id),
 * SC_EUNKNOWN (answer lost: the caller reconciles) or a store error.
 */
struct sc_strategy {
    sc_strategy_kind kind;
    /* capability bits the store must have (all of them) */
    uint32_t required_caps;
    /* Latest snapshot id (0 = none). */
    int (*latest)(sc_table *t, uint64_t *out_id);
    /* Raw bytes of snapshot `id`; SC_ENOTFOUND when absent. */
    int (*read)(sc_table *t, uint8_t **out_data, size_t *out_len, uint64_t id);
    int (*claim)(sc_table *t, uint64_t id, const uint8_t *data, size_t len);
    /* Best-effort hints after a successful claim. */
    void (*after_commit)(sc_table *t, uint64_t id);
    /* Earliest retained id (0 = none). */
    int (*earliest)(sc_table *t, uint64_t *out_id);
};

/* Strategy implementations (one file each). */
extern const sc_strategy sc_strategy_rename;      /* strategy_file.c */
extern const sc_strategy sc_strategy_conditional; /* strategy_file.c */
extern const sc_strategy sc_strategy_head;        /* strategy_head.c */
extern const sc_strategy sc_strategy_tracker;     /* strategy_tracker.c */

/* The strategy implementing `kind`, or NULL when this build has none. */
const sc_strategy *sc_strategy_get(sc_strategy_kind kind);
/* Choose a strategy from capability bits (auto). */
sc_strategy_kind sc_strategy_choose(uint32_t caps);
/*
 * Exercise `store` under metadata/probe-<uuid>/ (put_if_absent twice,
 * put_if_match with a stale and a current ETag, a LIST; cleaned up after)
 * and set *out_caps to the capabilities observed AND declared.
 * Errors: the store's own codes when it cannot be probed at all.
 */
int sc_strategy_probe(uint32_t *out_caps, sc_store *store); /* strategy_probe.c */

/* Read and decode snapshot `id`; also returns the raw bytes' SHA-256 when
 * `out_hash` is non-NULL. */
int sc_table_read_snapshot(sc_snapshot *out, uint8_t out_hash[SC_SHA256_LEN], sc_table *t,
                           uint64_t id);

/* Hints of the snapshot-file strategies and the history marker (docs/format.md). */
#define SC_LATEST_HINT_KEY "snapshot/LATEST"
#define SC_EARLIEST_HINT_KEY "snapshot/EARLIEST"
#define SC_HISTORY_MARKER_KEY "metadata/history"

/*
 * Parse a hint: a decimal snapshot id >= 1 (at most 20 digits, no sign or
 * blanks), optionally followed by one newline. SC_EINVAL for anything else.
 */
int sc_hint_parse(uint64_t *out_id, const uint8_t *data, size_t len); /* strategy_file.c */

/*
 * Write the history marker metadata/history (best effort, logged at WARN):
 * called after snapshot 1 is committed. Its presence means "this table has
 * had snapshots", outside the strategy's own keys (snapshot/, head/,
 * tracker/), so that losing those is told apart from a new empty table.
 */
void sc_table_mark_history(sc_table *t); /* table.c */
/*
 * For a strategy's discovery that found no snapshot at all: *out 1 when the
 * history marker exists. The marker is written after snapshot 1, so a
 * discovery that saw no snapshot and then sees the marker may have raced
 * the first commit: it must look again, and only a second empty look after
 * seeing the marker is damage (sc_table_no_history_error()).
 */
int sc_table_history_marked(int *out, sc_table *t); /* table.c */
/* Record and return SC_ECORRUPT: no snapshot, but the marker says there were some. */
int sc_table_no_history_error(void); /* table.c */

/* Logging through the process-wide handler. */
void sc_log(sc_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
