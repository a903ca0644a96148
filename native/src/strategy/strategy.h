/* The table handle and the claim-strategy interface (internal). */
#ifndef SC_STRATEGY_H
#define SC_STRATEGY_H

#include <stdint.h>

#include "format/index_entry.h"
#include "format/manifest.h"
#include "format/snapshot.h"
#include "format/table_schema.h"
#include "base/log.h"
#include "snapcommit/table.h"
#include "store/store_batch.h"

typedef struct sc_strategy sc_strategy;

/* Requests a strategy adds to a caller's batch, with the storage their keys and bodies borrow. */
#define SC_STRATEGY_CALLS_MAX 6
typedef struct sc_strategy_calls {
    sc_store_call calls[SC_STRATEGY_CALLS_MAX];
    char keys[SC_STRATEGY_CALLS_MAX][64];
    char bodies[SC_STRATEGY_CALLS_MAX][24];
    size_t n;
} sc_strategy_calls;

struct sc_table {
    sc_store *store;
    int owns_store;
    sc_table_meta meta;
    sc_table_schema schema; /* the current schema (schema/schema-<highest id>) */
    /* The schema was listed by this handle's open and no commit has looked for a newer one
     * since: the handle's first commit trusts it (engine/table.c sc_table_refresh_schema). */
    int schema_just_listed;
    const sc_strategy *strategy;
    sc_retry_policy retry;
    sc_env env; /* time and randomness (complete: no NULL member); the store's at open */
    sc_decode_limits limits;
    struct sc_cache *cache; /* decoded manifests and lists; NULL = no caching */
    /* What strategy->open made for this handle (head: the last head record
     * and its ETag; tracker: TTL and decided versions); NULL for a strategy
     * without open. Only the strategy reads it; strategy->close frees it. */
    void *strategy_state;
    /* Snapshot-file strategies: the last discovery met a snapshot/LATEST that
     * does not parse. Reads go on without it; a claim refuses (strategy_file.c). */
    int latest_hint_damaged;
    /* A Paimon table without metadata/table.json, opened with
     * SC_OPEN_READ_UNADOPTED: read only (every write refuses it, engine/table.h). */
    int unadopted;
    /* metadata/history is known to exist (written or seen by this handle). */
    int history_marked;
    /* Set while the caller checks what discovery returns against the store afterwards, so
     * that a batched discovery may skip the look after its batch that proves no expiration
     * passed the snapshot it found (strategy_file.c probe_batched, latest_by_guess): a
     * commit discovering its base (engine/commit.c read_base; its post-claim check of
     * EARLIEST catches such a base), and the replay filter (engine/replay.c: an older
     * snapshot only holds older watermarks, so at worst it calls an identifier not yet
     * committed, and the commit that follows checks again). */
    int discovery_rechecked;
    /* Inline watermark bound of the snapshots this handle writes (engine/replay.c);
     * 0 = SC_WATERMARK_INLINE_USERS. Only tests and the simulation lower it. */
    size_t watermark_inline_users;
    /* The last snapshot this handle committed and when (monotonic ms), and the wait its
     * next commit owes the writers it beat (commit.c, yield_to_losers). */
    /* The index manifest this handle wrote last (name, decoded entries): its next commit
     * touching index files combines from it without reading it back (engine/commit.c). */
    char *index_cache_name;
    sc_index_vec index_cache;
    /* The live files counted after a Paimon commit (engine/commit.c build_snapshot): the
     * snapshot (id and hash) and its count, so that a retry on the same base does not walk
     * the table again inside its claim window. */
    uint64_t foreign_count_id;
    uint8_t foreign_count_hash[SC_SHA256_LEN];
    uint64_t foreign_count;
    /* On a concurrent store the open reads snapshot/LATEST and the snapshot it names
     * together with the schema (engine/table.c open_second): those bytes, for the
     * strategy's open to take (the first commit's guess, strategy_file.c), else freed. */
    uint64_t opened_id;
    uint8_t *opened_doc;
    size_t opened_len;
    uint64_t last_landed_id;
    int64_t last_landed_ms;
    int64_t yield_ms;
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
    /*
     * 1 when the snapshot/snapshot-<id> files are the snapshots themselves,
     * not copies published from another authority (head, tracker). Then the
     * history can be expired (expire deletes from that chain; the others'
     * authorities keep every version), a claim can land on an id an expiration
     * freed below snapshot/EARLIEST (commit.c check_in_history), files below
     * EARLIEST are an expiration in progress that remove-orphans must keep, and
     * fsck checks the chain of files and its hints.
     */
    int snapshot_files_are_history;
    /* Latest snapshot id (0 = none). */
    int (*latest)(sc_table *t, uint64_t *out_id);
    /*
     * Optional (NULL: latest). The latest id when snapshot `known` (>= 1) is
     * known to exist because another writer just won its claim: discovery
     * may start from `known` instead of from scratch, with the same rules
     * against gaps and lost snapshots as latest.
     */
    int (*latest_after)(sc_table *t, uint64_t known, uint64_t *out_id);
    /*
     * Optional (NULL: never asked). *out_taken = 1 when snapshot `id` exists
     * by now: one cheap look (a HEAD), so that an attempt whose base was
     * found long ago (a cold handle read many manifests since) can see that
     * its claim would be lost before it writes and claims.
     */
    int (*taken)(sc_table *t, uint64_t id, int *out_taken);
    /* Raw bytes of snapshot `id`; SC_ENOTFOUND when absent. */
    int (*read)(sc_table *t, uint8_t **out_data, size_t *out_len, uint64_t id);
    int (*claim)(sc_table *t, uint64_t id, const uint8_t *data, size_t len);
    /* Best-effort hints after a successful claim. */
    void (*after_commit)(sc_table *t, uint64_t id);
    /*
     * Optional (NULL: never guessed). A base known without a request: the snapshot
     * this handle claimed last, or the one its open read on a concurrent store (for a
     * short while), while nothing says it is not the latest (0: no guess).
     * guess_probes adds to `probe` the looks that confirm it, which the caller sends
     * in one batch with requests of its own (engine/commit.c: the attempt's writes);
     * guess_confirmed then returns 1 (it is the latest: build on it), 0 (it may not
     * be: discover the latest) or an error; *out_present says whether the guessed
     * snapshot itself was still there, *out_above an id above it seen there (0: none), where
     * discovery may start. A guess that was not confirmed is not made again until the
     * handle claims.
     */
    uint64_t (*guess)(sc_table *t);
    void (*guess_probes)(sc_table *t, uint64_t id, sc_strategy_calls *probe);
    int (*guess_confirmed)(sc_table *t, uint64_t id, const sc_strategy_calls *probe, int *out_present,
                           uint64_t *out_above);
    /* Earliest retained id (0 = none). */
    int (*earliest)(sc_table *t, uint64_t *out_id);
    /*
     * Optional (NULL: the strategy keeps nothing per handle). open makes the
     * per-handle state when the table is opened, with the store and
     * t->meta already set; the table stores it in t->strategy_state and
     * hands it to close (which accepts NULL) when the handle is freed.
     * open's errors fail sc_table_open.
     */
    int (*open)(sc_table *t, void **out_state);
    void (*close)(void *state);
    /*
     * Optional (NULL: nothing beyond the chain). sc_table_fsck calls it after
     * the chain from the earliest to the latest snapshot checked sound, for
     * what only the strategy can see (head: installed snapshot objects that
     * do not fit the head record). SC_ECORRUPT naming the object.
     */
    int (*fsck)(sc_table *t);
    /*
     * Optional (NULL: a claim above the latest is decided by its own writer
     * alone, so only its age protects what it wrote). Calls `visit` with the
     * snapshot document of every claim above `latest` whose outcome another
     * party may still decide (tracker: a commit file of a version without a
     * COMMIT-HINT, which any later writer may publish). Upkeep keeps what such
     * a document names however old it is. The document is valid during the
     * call only; a non-zero return of `visit` stops the walk and is returned.
     */
    int (*undecided)(sc_table *t, uint64_t latest,
                     int (*visit)(void *ctx, uint64_t id, const uint8_t *doc, size_t len), void *ctx);
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

/* Hints of the snapshot-file strategies and the history marker (docs/format.md). */
#define SC_LATEST_HINT_KEY "snapshot/LATEST"
#define SC_EARLIEST_HINT_KEY "snapshot/EARLIEST"
#define SC_HISTORY_MARKER_KEY "metadata/history"

/*
 * Parse a hint: a decimal snapshot id >= 1 (at most 20 digits, no sign or
 * blanks), optionally followed by one newline (Paimon writes none; older
 * snapcommit tables have one). SC_EINVAL for anything else.
 */
int sc_hint_parse(uint64_t *out_id, const uint8_t *data, size_t len); /* strategy_file.c */
/* The largest hint object read (LATEST, EARLIEST): an id is at most 20 digits and a
 * newline, so anything above this is damage, refused before it is read. */
#define SC_HINT_MAX_BYTES 32
/* Overwrite hint `key` with `id` as Paimon writes it (decimal, no newline).
 * Best effort: a failure is logged at WARN. */
void sc_hint_write(sc_table *t, const char *key, uint64_t id); /* strategy_file.c */
/*
 * Every id under snapshot/snapshot-, all pages, sorted numerically (unpadded
 * names do not sort in LIST order). A key there that is not a snapshot name
 * (sc_snapshot_key_parse) is SC_ECORRUPT naming it. *out_ids: caller frees.
 */
int sc_snapshot_ids_list(uint64_t **out_ids, size_t *out_count, sc_table *t); /* strategy_file.c */
/* Forget the snapshot bytes a snapshot-file handle keeps — those of the last
 * discovery for the read that follows it, and those of its own last claim (fsck
 * reads everything from the store). No-op for other strategies. */
void sc_strategy_forget_found(sc_table *t); /* strategy_file.c */

/*
 * head and tracker: publish snapshot `id` for Paimon's readers after a won
 * claim (docs/protocols.md "Publication"): snapshot/snapshot-<id> with the
 * authority's bytes (`data`, or read through the strategy when NULL), in id
 * order — an unpublished predecessor is copied from the authority first —
 * then LATEST (and EARLIEST when snapshot 1 was published). Best effort:
 * every failure is logged at WARN and left to the next commit or fsck.
 */
void sc_publish_snapshot(sc_table *t, uint64_t id, const uint8_t *data, size_t len); /* publish.c */
/*
 * fsck of the published copies of a head or tracker table whose authority
 * holds earliest..latest: every snapshot/snapshot-<id> there must hold the
 * authority's bytes (SC_ECORRUPT naming it otherwise); a missing one is
 * republished and a missing, damaged or lagging hint rewritten (WARN). A
 * published id above the authority's latest (re-read once: a commit may
 * have landed) is SC_ECORRUPT.
 */
int sc_publish_fsck(sc_table *t, uint64_t earliest, uint64_t latest); /* publish.c */

/*
 * After snapshot `id` was committed: make sure the history marker exists.
 * Snapshot 1 writes it; a later commit on a handle that has not seen it
 * checks once (one HEAD per handle) and writes it when missing — tables
 * from before the marker, or whose marker write failed, are then protected
 * too. Best effort (logged at WARN): the commit has already succeeded.
 */
void sc_table_note_history(sc_table *t, uint64_t id); /* history.c */
/*
 * fsck's check of the marker on a table with snapshots: SC_ECORRUPT for an
 * object the store refuses (a FIFO, a directory); a missing marker is
 * written and reported at WARN.
 */
int sc_table_fsck_history(sc_table *t); /* history.c */
/*
 * For a strategy's discovery that found no snapshot at all: *out 1 when the
 * history marker exists. The marker is written after snapshot 1, so a
 * discovery that saw no snapshot and then sees the marker may have raced
 * the first commit: it must look again, and only a second empty look after
 * seeing the marker is damage (sc_table_no_history_error()).
 */
int sc_table_history_marked(int *out, sc_table *t); /* history.c */
/* Record and return SC_ECORRUPT: no snapshot, but the marker says there were some. */
int sc_table_no_history_error(void); /* history.c */

#endif
