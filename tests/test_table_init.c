/* init under store faults: every write of init losing its answer or failing, and an init retried after it. */
#include <criterion/criterion.h>
#include <string.h>

#include "sc_test_util.h"

/* A second schema, for an init that must not complete a table made with TU_SCHEMA. */
#define OTHER_SCHEMA "{\"fields\":[{\"name\":\"id\",\"type\":\"INT\"}],\"partitionKeys\":[],\"primaryKeys\":[]}"

static uint64_t ops_of(sc_store *s) {
    sc_store_stats st;
    sc_store_stats_get(&st, s);
    uint64_t n = 0;
    for (int op = 0; op < SC_OP_COUNT; op++) n += st.ops[op];
    return n;
}

/* The table at mem://name is whole: it opens, fsck passes, a commit lands, and (unless a
 * delete of the probe failed: remove-orphans takes such leftovers) nothing of the probe is left. */
static void check_sound(const char *name, const char *what, int probe_may_remain) {
    sc_table *t = tu_reopen(name);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s: %s", what, sc_error_message());
    cr_assert_eq(tu_latest(t), 0, "%s", what);
    cr_assert_eq(tu_commit_one(NULL, t, "u", 1), 0, "%s: commit: %s", what, sc_error_message());
    cr_assert_eq(tu_latest(t), 1, "%s", what);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s: %s", what, sc_error_message());
    sc_table_free(t);
    if (!probe_may_remain) cr_assert_eq(tu_count_keys(name, "metadata/probe-", NULL), 0, "%s: the probe left objects", what);
}

/*
 * Fault the nth store operation of an init (every operation in turn, until init issues
 * fewer): init succeeds, or fails and an init retried with the same schema completes the
 * table. Either way the table is then sound.
 */
static void each_init_op_faulted(sc_mem_fault kind, sc_strategy_kind strategy) {
    const char *name = "init-fault";
    char loc[64];
    snprintf(loc, sizeof loc, "mem://%s", name);
    for (uint64_t n = 1;; n++) {
        sc_mem_store_reset(name);
        sc_store *s;
        cr_assert_eq(sc_store_open(&s, loc), 0);
        cr_assert_eq(sc_mem_store_arm_fault(name, 0, n, kind, 0), 0);
        int rc = tu_create(s, strategy);
        uint64_t ops = ops_of(s);
        if (n > ops) { /* the fault never fired: every operation has been covered */
            cr_assert_eq(rc, 0, "%s", sc_error_message());
            sc_store_free(s);
            break;
        }
        char what[128];
        snprintf(what, sizeof what, "fault %d at operation %lu of %lu", (int)kind, (unsigned long)n, (unsigned long)ops);
        if (rc) {
            cr_assert(rc == SC_EIO || rc == SC_EUNKNOWN, "%s: init failed with %s: %s", what, sc_error_name(rc),
                      sc_error_message());
            int again = tu_create(s, strategy);
            cr_assert_eq(again, 0, "%s: init failed with %s, and a retried init with %s: %s", what, sc_error_name(rc),
                         sc_error_name(again), sc_error_message());
        }
        /* A complete table is never created again. */
        cr_assert_eq(tu_create(s, strategy), SC_ETABLEEXISTS, "%s", what);
        sc_store_free(s);
        check_sound(name, what, kind == SC_MEM_FAULT_FAIL);
        cr_assert_lt(n, 100, "init should not need 100 store operations");
    }
    sc_mem_store_reset(name);
}

Test(init_faults, every_lost_answer_is_reconciled) {
    each_init_op_faulted(SC_MEM_FAULT_LOSE_RESPONSE, SC_STRATEGY_AUTO);
}

Test(init_faults, every_failed_write_leaves_a_table_a_retried_init_completes) {
    each_init_op_faulted(SC_MEM_FAULT_FAIL, SC_STRATEGY_AUTO);
}

Test(init_faults, lost_answers_with_the_head_strategy) {
    each_init_op_faulted(SC_MEM_FAULT_LOSE_RESPONSE, SC_STRATEGY_HEAD);
}

/* The answer to schema-0's create lost: init reads it back, finds its own bytes and goes on. */
Test(init_faults, lost_answer_of_schema_0_is_ours) {
    const char *name = "init-schema-lost";
    sc_mem_store_reset(name);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, "mem://init-schema-lost"), 0);
    /* The probe's create comes first, then schema-0's, then table.json's. */
    cr_assert_eq(sc_mem_store_arm_fault(name, 1u << SC_OP_PUT_IF_ABSENT, 3, SC_MEM_FAULT_LOSE_RESPONSE, 0), 0);
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
    check_sound(name, "schema-0's answer lost", 0);
    sc_mem_store_reset(name);
}

/* An init that stopped after schema-0: retried with another schema, the table exists;
 * retried with its own, it is completed. */
Test(init_faults, half_made_table_is_completed_only_by_its_own_schema) {
    const char *name = "init-half";
    sc_mem_store_reset(name);
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, "mem://init-half"), 0);
    cr_assert_eq(sc_mem_store_arm_fault(name, 1u << SC_OP_PUT_IF_ABSENT, 4, SC_MEM_FAULT_FAIL, 0), 0);
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), SC_EIO, "%s", sc_error_message());
    cr_assert_eq(tu_count_keys(name, "schema/schema-0", NULL), 1);
    cr_assert_eq(tu_count_keys(name, "metadata/table.json", NULL), 0);
    cr_assert_eq(sc_table_create_with_schema(s, SC_STRATEGY_AUTO, OTHER_SCHEMA, strlen(OTHER_SCHEMA)), SC_ETABLEEXISTS);
    cr_assert(strstr(sc_error_message(), "schema/schema-0 is present"), "%s", sc_error_message());
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
    check_sound(name, "completed by a retried init", 0);
    sc_mem_store_reset(name);
}

/* A Paimon table with snapshots and the same schema is not a half-made one: init with a schema refuses it. */
Test(init_faults, table_with_snapshots_is_not_half_made) {
    const char *name = "init-used";
    sc_table *t = tu_mem_table(name);
    cr_assert_eq(tu_commit_one(NULL, t, "u", 1), 0, "%s", sc_error_message());
    sc_store *s = sc_table_store(t);
    cr_assert_eq(sc_store_delete(s, "metadata/table.json"), 0);
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), SC_ETABLEEXISTS, "%s", sc_error_message());
    sc_table_free(t);
    sc_mem_store_reset(name);
}
