/*
 * A deliberately broken claim strategy, registered only inside the
 * simulation: snapshot N+1 is "claimed" with a plain put, so when two
 * writers race for the same id the last one silently overwrites the first,
 * whose commit was already acknowledged. This is the bug of Paimon issue
 * #5762 (renaming onto an existing snapshot on an object store). The
 * simulation must report a violation for it within a few hundred schedules;
 * a test asserts that it does, which shows the invariants can fail.
 */
#include "naive.h"

static int naive_claim(sc_table *t, uint64_t id, const uint8_t *data, size_t len) {
    char key[64];
    sc_snapshot_key(key, id);
    return sc_store_put(t->store, NULL, key, data, len); /* no condition: last writer wins */
}

/* Discovery, reads and hints are the conditional strategy's; only the claim is broken. */
static int naive_latest(sc_table *t, uint64_t *out_id) {
    return sc_strategy_conditional.latest(t, out_id);
}
static int naive_read(sc_table *t, uint8_t **out_data, size_t *out_len, uint64_t id) {
    return sc_strategy_conditional.read(t, out_data, out_len, id);
}
static void naive_after_commit(sc_table *t, uint64_t id) {
    sc_strategy_conditional.after_commit(t, id);
}
static int naive_earliest(sc_table *t, uint64_t *out_id) {
    return sc_strategy_conditional.earliest(t, out_id);
}

/* Like the conditional strategy, no open/close: nothing is kept per handle. */
const sc_strategy sim_strategy_naive = {
    .kind = SC_STRATEGY_CONDITIONAL,
    .required_caps = SC_CAP_CONDITIONAL_CREATE,
    .latest = naive_latest,
    .read = naive_read,
    .claim = naive_claim,
    .after_commit = naive_after_commit,
    .earliest = naive_earliest,
};

void sim_use_naive(sc_table *t) {
    /* The handle was opened with the conditional strategy: release what its open made
     * (the naive strategy keeps nothing per handle) before swapping it in. */
    if (t->strategy->close) t->strategy->close(t->strategy_state);
    t->strategy_state = NULL;
    t->strategy = &sim_strategy_naive;
}
