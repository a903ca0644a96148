/*
 * The head strategy end to end on the mem store (commits, races, lost
 * responses, damage) and capability probing (posix, mem, lying stores).
 */
#include "sc_test_util.h"

#include <pthread.h>
#include <unistd.h>

#include "base/hash.h"
#include "engine/state.h"
#include "format/head_record.h"
#include "store/store_backends.h"
#include "strategy/strategy.h"

#define HEAD_KEY "head/CURRENT"

/* A fresh mem table with the head strategy; the table owns its store. */
static sc_table *head_table(const char *name) {
    return tu_mem_table_with(name, (tu_table_opts){SC_STRATEGY_HEAD, 10, 5});
}

static void object_key_of(char out[96], sc_table *t, uint64_t id) {
    uint8_t *data;
    size_t len;
    cr_assert_eq(t->strategy->read(t, &data, &len, id), 0, "%s", sc_error_message());
    uint8_t h[32];
    char hex[65];
    sc_sha256(h, data, len);
    sc_hex_encode(hex, h, 32);
    snprintf(out, 96, "head/snapshot-%s", hex);
    free(data);
}

/* ---- committing ---- */

Test(head, commits_publish_through_the_head_record) {
    sc_table *t = head_table("h-basic");
    for (int i = 1; i <= 5; i++) {
        sc_commit_result r;
        cr_assert_eq(tu_commit_one(&r, t, "job", i), 0, "%s", sc_error_message());
        cr_assert_eq(r.snapshot_id, (uint64_t)i);
        cr_assert_eq(r.attempts, 1);
    }
    cr_assert_eq(tu_latest(t), 5);
    uint64_t earliest = 0;
    cr_assert_eq(sc_table_earliest_id(&earliest, t), 0, "%s", sc_error_message());
    cr_assert_eq(earliest, 1);
    /* The head stays the authority; readers of Paimon's layout get copies (test_strategy_publish.c). */
    cr_assert_eq(tu_count_keys("h-basic", "snapshot/snapshot-", NULL), 5, "every snapshot published for Paimon's readers");
    cr_assert_eq(tu_count_keys("h-basic", "head/snapshot-", NULL), 5);
    cr_assert_eq(tu_count_keys("h-basic", HEAD_KEY, NULL), 1);
    cr_assert_eq(tu_count_keys("h-basic", "metadata/probe-", NULL), 0, "the probe cleans up");
    cr_assert_eq(tu_file_count(t), 5);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());

    /* The record names the latest snapshot: its bytes, its commit, its user and its predecessor. */
    uint8_t *raw;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &raw, &len, NULL, HEAD_KEY), 0);
    sc_head_record rec;
    cr_assert_eq(sc_head_decode(&rec, raw, len, HEAD_KEY), 0, "%s", sc_error_message());
    free(raw);
    cr_assert_eq(rec.revision, 5);
    cr_assert_eq(rec.commit_identifier, 5);
    cr_assert_eq(rec.has_predecessor, 1);
    uint8_t pub[16];
    sc_head_publisher_uuid(pub, "job");
    cr_assert_eq(memcmp(pub, rec.publisher_uuid, 16), 0);
    sc_snapshot s;
    uint8_t hash[32];
    cr_assert_eq(sc_table_read_snapshot(&s, hash, t, 5), 0);
    uint8_t commit[16];
    cr_assert_eq(sc_uuid_parse(commit, s.commit_uuid), 0);
    cr_assert_eq(memcmp(commit, rec.publication_uuid, 16), 0, "publication UUID = commitUuid");
    cr_assert_eq(memcmp(hash, rec.snapshot_sha256, 32), 0);
    sc_snapshot_clear(&s);

    /* A fresh handle walks back through parent hashes. */
    sc_table *t2 = tu_reopen("h-basic");
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, t2, 2), 0, "%s", sc_error_message());
    cr_assert_eq(info->commit_identifier, 2);
    sc_snapshot_info_free(info);
    cr_assert_eq(sc_table_snapshot_info(&info, t2, 6), SC_ENOTFOUND);
    sc_table_free(t2);
    /* Replays are filtered as with every strategy. */
    cr_assert_eq(tu_commit_one(NULL, t, "job", 5), SC_ECOMMITTED);
    sc_table_free(t);
}

Test(head, requests_per_uncontended_commit) {
    sc_table *t = head_table("h-cost");
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "job", 1), 0);
    for (int i = 2; i <= 4; i++) cr_assert_eq(tu_commit_one(&r, t, "job", i), 0);
    const sc_store_stats *st = &r.stats;
    uint64_t total = 0;
    for (int op = 0; op < SC_OP_COUNT; op++) total += st->ops[op];
    fprintf(stderr, "head, uncontended commit: get %lu head %lu put %lu put_if_absent %lu put_if_match %lu list %lu delete %lu = %lu\n",
            (unsigned long)st->ops[SC_OP_GET], (unsigned long)st->ops[SC_OP_HEAD], (unsigned long)st->ops[SC_OP_PUT],
            (unsigned long)st->ops[SC_OP_PUT_IF_ABSENT], (unsigned long)st->ops[SC_OP_PUT_IF_MATCH],
            (unsigned long)st->ops[SC_OP_LIST], (unsigned long)st->ops[SC_OP_DELETE], (unsigned long)total);
    cr_assert_eq(st->ops[SC_OP_PUT_IF_MATCH], 1, "one swap");
    cr_assert_eq(st->ops[SC_OP_PUT_IF_ABSENT], 2, "one immutable snapshot object, one published copy");
    cr_assert_eq(st->ops[SC_OP_LIST], 0, "discovery needs no LIST");
    cr_assert_eq(st->ops[SC_OP_HEAD], 2, "discovery needs no probing; publication checks its predecessor; the "
                                         "commit looks for a newer schema");
    /* 10 for the claim, + HEAD snapshot-(N-1), put-if-absent snapshot-N, PUT LATEST, HEAD of the next schema. */
    cr_assert_leq(total, 14);
    sc_table_free(t);
}

/* ---- racing writers ---- */

#define RACE_THREADS 8
#define RACE_COMMITS 25

typedef struct racer {
    const char *location;
    int index;
    int failures;
    int lost;
    char message[512];
} racer;

static void *race_main(void *arg) {
    racer *me = arg;
    sc_table *t;
    if (sc_table_open_location(&t, me->location) != 0) {
        snprintf(me->message, sizeof me->message, "open: %s", sc_error_message());
        me->failures++;
        return NULL;
    }
    sc_retry_policy p = {1000, 1, 4, 0};
    sc_table_set_retry_policy(t, &p);
    char user[32];
    snprintf(user, sizeof user, "writer-%d", me->index);
    for (int i = 1; i <= RACE_COMMITS; i++) {
        sc_commit_result r = {0};
        int rc = tu_commit_one(&r, t, user, i); /* one file, data-<user>-<i>; asserts nothing (a worker thread) */
        me->lost += r.lost_claims;
        if (rc) {
            me->failures++;
            snprintf(me->message, sizeof me->message, "%s identifier %d: %s", user, i, sc_error_message());
        }
    }
    sc_table_free(t);
    return NULL;
}

/* 8 threads × 25 commits, each thread its own handle on the same store; `faults` lost
 * responses armed on the swap and on object installation land on whoever comes by. */
static void race(const char *name, int faults) {
    char location[64];
    snprintf(location, sizeof location, "mem://%s", name);
    sc_table *t = head_table(name);
    for (int i = 0; i < faults; i++) {
        uint32_t op = i % 4 == 3 ? 1u << SC_OP_PUT_IF_ABSENT : 1u << SC_OP_PUT_IF_MATCH;
        cr_assert_eq(sc_mem_store_arm_fault(name, op, (uint64_t)(3 + 11 * i), SC_MEM_FAULT_LOSE_RESPONSE, 0), 0);
    }
    pthread_t threads[RACE_THREADS];
    racer racers[RACE_THREADS];
    for (int i = 0; i < RACE_THREADS; i++) {
        racers[i] = (racer){.location = location, .index = i};
        cr_assert_eq(pthread_create(&threads[i], NULL, race_main, &racers[i]), 0);
    }
    int lost = 0;
    for (int i = 0; i < RACE_THREADS; i++) {
        pthread_join(threads[i], NULL);
        cr_assert_eq(racers[i].failures, 0, "%s", racers[i].message);
        lost += racers[i].lost;
    }
    const uint64_t total = RACE_THREADS * RACE_COMMITS;
    cr_assert_eq(tu_latest(t), total);
    int seen[RACE_THREADS][RACE_COMMITS + 1];
    memset(seen, 0, sizeof seen);
    for (uint64_t id = 1; id <= total; id++) {
        sc_snapshot_info *info;
        cr_assert_eq(sc_table_snapshot_info(&info, t, id), 0, "snapshot %lu: %s", (unsigned long)id, sc_error_message());
        int w = -1;
        cr_assert_eq(sscanf(info->commit_user, "writer-%d", &w), 1);
        cr_assert(w >= 0 && w < RACE_THREADS && info->commit_identifier >= 1 && info->commit_identifier <= RACE_COMMITS);
        seen[w][info->commit_identifier]++;
        sc_snapshot_info_free(info);
    }
    for (int w = 0; w < RACE_THREADS; w++)
        for (int i = 1; i <= RACE_COMMITS; i++)
            cr_assert_eq(seen[w][i], 1, "writer-%d identifier %d committed %d times", w, i, seen[w][i]);
    cr_assert_eq(tu_file_count(t), total);
    if (!faults) cr_assert_eq(tu_count_keys(name, "head/snapshot-", NULL), total, "lost claims leave no snapshot objects behind");
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    fprintf(stderr, "head race (%d lost responses armed): %d threads x %d commits, %d lost claims\n", faults,
            RACE_THREADS, RACE_COMMITS, lost);
    sc_table_free(t);
}

Test(head, racing_writers_get_contiguous_ids_each_commit_once, .timeout = 120) { race("h-race", 0); }

Test(head, racing_writers_with_lost_responses_commit_each_once, .timeout = 120) { race("h-race-faults", 16); }

/* ---- lost claims and lost responses ---- */

typedef struct intruder_ctx {
    const char *store;
    int remaining;
    int fired;
} intruder_ctx;

/* Before our swap, another handle on the same store commits first. */
static int intruder(void *vctx, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    intruder_ctx *ctx = vctx;
    if (op != SC_OP_PUT_IF_MATCH || strcmp(key, HEAD_KEY) != 0 || ctx->remaining == 0) return 0;
    ctx->remaining--;
    sc_table *other = tu_reopen(ctx->store);
    cr_assert_eq(tu_commit_one(NULL, other, "intruder", ++ctx->fired), 0, "%s", sc_error_message());
    sc_table_free(other);
    return 0;
}

Test(head, lost_claim_is_retried_on_the_new_head) {
    sc_table *t = head_table("h-lost");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    intruder_ctx ctx = {"h-lost", 2, 0};
    sc_store_set_fault_hook(sc_table_store(t), intruder, &ctx);
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "me", 2), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(r.lost_claims, 2);
    cr_assert_eq(r.snapshot_id, 4);
    cr_assert_eq(tu_latest(t), 4);
    cr_assert_eq(tu_count_keys("h-lost", "head/snapshot-", NULL), 4, "a lost claim leaves no snapshot object behind");
    cr_assert_eq(tu_file_count(t), 4);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

Test(head, lost_response_of_the_swap_is_reconciled_once) {
    sc_table *t = head_table("h-unknown");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    /* The swap is applied, its answer lost: the same bytes are re-sent, refused, and the head shows ours. */
    cr_assert_eq(sc_mem_store_arm_fault("h-unknown", 1u << SC_OP_PUT_IF_MATCH, 1, SC_MEM_FAULT_LOSE_RESPONSE, 0), 0);
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "me", 2), 0, "%s", sc_error_message());
    cr_assert_eq(r.snapshot_id, 2);
    cr_assert_eq(r.stats.ops[SC_OP_PUT_IF_MATCH], 2, "the same request re-sent once");
    cr_assert_eq(tu_latest(t), 2, "committed exactly once");
    cr_assert_eq(tu_file_count(t), 2);
    cr_assert_eq(tu_count_keys("h-unknown", "head/snapshot-", NULL), 2);
    /* And again on the next commit, with a fresh handle. */
    sc_table *t2 = tu_reopen("h-unknown");
    tu_fast_retries(t2, 10, 5);
    cr_assert_eq(sc_mem_store_arm_fault("h-unknown", 1u << SC_OP_PUT_IF_MATCH, 1, SC_MEM_FAULT_LOSE_RESPONSE, 0), 0);
    cr_assert_eq(tu_commit_one(&r, t2, "me", 3), 0, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t2), 3);
    cr_assert_eq(sc_table_fsck(t2, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t2);
    sc_table_free(t);
}

/* On the re-send of a swap whose first answer was lost, another writer has already moved on. */
static int intrude_on_resend(void *vctx, sc_store_op op, const char *key, uint64_t call) {
    (void)call;
    intruder_ctx *ctx = vctx;
    if (op != SC_OP_PUT_IF_MATCH || strcmp(key, HEAD_KEY) != 0) return 0;
    if (ctx->fired++ != 1) return 0; /* the second send */
    sc_table *other = tu_reopen(ctx->store);
    cr_assert_eq(tu_commit_one(NULL, other, "intruder", 1), 0, "%s", sc_error_message());
    sc_table_free(other);
    return 0;
}

Test(head, lost_response_then_overtaken_is_still_ours) {
    sc_table *t = head_table("h-overtaken");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    cr_assert_eq(sc_mem_store_arm_fault("h-overtaken", 1u << SC_OP_PUT_IF_MATCH, 1, SC_MEM_FAULT_LOSE_RESPONSE, 0), 0);
    intruder_ctx ctx = {"h-overtaken", 0, 0};
    sc_store_set_fault_hook(sc_table_store(t), intrude_on_resend, &ctx);
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "me", 2), 0, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(r.snapshot_id, 2, "our swap landed at 2 before the intruder's 3");
    cr_assert_eq(r.lost_claims, 0);
    cr_assert_eq(tu_latest(t), 3);
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, t, 2), 0);
    cr_assert_str_eq(info->commit_user, "me");
    sc_snapshot_info_free(info);
    cr_assert_eq(tu_file_count(t), 3);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(t);
}

Test(head, lost_responses_at_genesis_are_reconciled) {
    /* 1st put_if_absent: the snapshot object; 2nd: the genesis head. */
    for (uint64_t nth = 1; nth <= 2; nth++) {
        sc_table *t = head_table("h-genesis");
        cr_assert_eq(sc_mem_store_arm_fault("h-genesis", 1u << SC_OP_PUT_IF_ABSENT, nth, SC_MEM_FAULT_LOSE_RESPONSE, 0), 0);
        sc_commit_result r;
        cr_assert_eq(tu_commit_one(&r, t, "me", 1), 0, "nth %lu: %s", (unsigned long)nth, sc_error_message());
        cr_assert_eq(r.snapshot_id, 1);
        cr_assert_eq(tu_latest(t), 1);
        cr_assert_eq(tu_count_keys("h-genesis", "head/snapshot-", NULL), 1);
        cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
        sc_table_free(t);
    }
}

static int lose_swap_requests(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    int *left = ctx;
    (void)call;
    if (op == SC_OP_PUT_IF_MATCH && strcmp(key, HEAD_KEY) == 0 && *left != 0) {
        if (*left > 0) (*left)--;
        return SC_EUNKNOWN; /* never reached storage, but the caller cannot know */
    }
    return 0;
}

Test(head, lost_requests_are_re_sent_with_the_same_precondition) {
    sc_table *t = head_table("h-lostreq");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    int left = 2;
    sc_store_set_fault_hook(sc_table_store(t), lose_swap_requests, &left);
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "me", 2), 0, "%s", sc_error_message());
    cr_assert_eq(r.attempts, 1, "resolved inside one claim");
    cr_assert_eq(r.stats.ops[SC_OP_PUT_IF_MATCH], 1, "only the third send reached the store");
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(tu_latest(t), 2);
    sc_table_free(t);
}

Test(head, unresolvable_swap_is_reported_unknown) {
    sc_table *t = head_table("h-unknown-final");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    sc_retry_policy p = {2, 1, 1, 0};
    sc_table_set_retry_policy(t, &p);
    int forever = -1;
    sc_store_set_fault_hook(sc_table_store(t), lose_swap_requests, &forever);
    sc_commit_result r;
    cr_assert_eq(tu_commit_one(&r, t, "me", 2), SC_EUNKNOWN, "%s", sc_error_message());
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    cr_assert_eq(tu_latest(t), 1);
    /* The caller retries later: the identifier is not yet committed, so it lands once. */
    cr_assert_eq(tu_commit_one(&r, t, "me", 2), 0, "%s", sc_error_message());
    cr_assert_eq(tu_latest(t), 2);
    sc_table_free(t);
}

/* ---- damage ---- */

Test(head, corrupt_head_record_fails_naming_it) {
    sc_table *t = head_table("h-corrupt");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    cr_assert_eq(tu_commit_one(NULL, t, "me", 2), 0);
    sc_store *s = sc_table_store(t);
    uint8_t *raw;
    size_t len;
    cr_assert_eq(sc_store_get(s, &raw, &len, NULL, HEAD_KEY), 0);
    cr_assert_eq(len, 256);

    /* garbage */
    cr_assert_eq(sc_store_put(s, NULL, HEAD_KEY, (const uint8_t *)"garbage", 7), 0);
    sc_table *fresh = tu_reopen("h-corrupt");
    uint64_t id;
    cr_assert_eq(sc_table_latest_id(&id, fresh), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), HEAD_KEY), "%s", sc_error_message());
    cr_assert_eq(tu_commit_one(NULL, fresh, "me", 3), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), HEAD_KEY), "%s", sc_error_message());
    sc_table_free(fresh);

    /* one flipped bit: the footer catches it */
    raw[80] ^= 4;
    cr_assert_eq(sc_store_put(s, NULL, HEAD_KEY, raw, len), 0);
    cr_assert_eq(sc_table_latest_id(&id, t), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "footer"), "%s", sc_error_message());
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), SC_ECORRUPT);
    free(raw);
    sc_table_free(t);
}

Test(head, head_of_another_table_is_corrupt) {
    sc_table *a = head_table("h-table-a");
    sc_table *b = head_table("h-table-b");
    cr_assert_eq(tu_commit_one(NULL, a, "me", 1), 0);
    uint8_t *raw;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(a), &raw, &len, NULL, HEAD_KEY), 0);
    cr_assert_eq(sc_store_put(sc_table_store(b), NULL, HEAD_KEY, raw, len), 0);
    free(raw);
    uint64_t id;
    cr_assert_eq(sc_table_latest_id(&id, b), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "tableUuid"), "%s", sc_error_message());
    sc_table_free(a);
    sc_table_free(b);
}

Test(head, missing_selected_snapshot_is_corrupt_not_a_fallback) {
    sc_table *t = head_table("h-missing");
    for (int i = 1; i <= 3; i++) cr_assert_eq(tu_commit_one(NULL, t, "me", i), 0);
    char key[96];
    object_key_of(key, t, 3);
    cr_assert_eq(sc_store_delete(sc_table_store(t), key), 0);
    sc_table *fresh = tu_reopen("h-missing");
    tu_fast_retries(fresh, 10, 5);
    cr_assert_eq(tu_latest(fresh), 3, "the head still says 3");
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, fresh, 3), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), key), "%s", sc_error_message());
    cr_assert_eq(tu_commit_one(NULL, fresh, "me", 4), SC_ECORRUPT, "no commit on top of a missing snapshot");
    cr_assert_eq(sc_table_files(&(sc_file_list *){NULL}, fresh, 0), SC_ECORRUPT);
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), SC_ECORRUPT);
    cr_assert_eq(tu_latest(fresh), 3, "nothing was published");
    sc_table_free(fresh);
    sc_table_free(t);
}

Test(head, damaged_snapshot_object_is_corrupt) {
    sc_table *t = head_table("h-damaged");
    for (int i = 1; i <= 3; i++) cr_assert_eq(tu_commit_one(NULL, t, "me", i), 0);
    char key[96];
    object_key_of(key, t, 2);
    uint8_t *data;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &data, &len, NULL, key), 0);
    data[len / 2] ^= 1;
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, data, len), 0);
    free(data);
    sc_table *fresh = tu_reopen("h-damaged");
    sc_snapshot_info *info;
    cr_assert_eq(sc_table_snapshot_info(&info, fresh, 1), SC_ECORRUPT, "the walk to 1 passes the damaged 2");
    cr_assert(strstr(sc_error_message(), key), "%s", sc_error_message());
    cr_assert_eq(sc_table_snapshot_info(&info, fresh, 3), 0, "%s", sc_error_message());
    sc_snapshot_info_free(info);
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), SC_ECORRUPT);
    sc_table_free(fresh);
    sc_table_free(t);
}

Test(head, rollback_of_the_head_is_detected) {
    sc_table *t = head_table("h-rollback");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    uint8_t *old;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &old, &len, NULL, HEAD_KEY), 0);
    cr_assert_eq(tu_commit_one(NULL, t, "me", 2), 0);
    cr_assert_eq(tu_latest(t), 2);
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, HEAD_KEY, old, len), 0);
    free(old);
    uint64_t id;
    cr_assert_eq(sc_table_latest_id(&id, t), SC_ECORRUPT, "this handle saw revision 2");
    cr_assert(strstr(sc_error_message(), "rolled back"), "%s", sc_error_message());
    sc_table_free(t);
}

/* head/CURRENT rolled back by storage to an older, valid record. A fresh handle
 * cannot tell from the head alone; fsck finds the installed objects that do not fit it. */
static void put_back(sc_table *t, const uint8_t *rec, size_t len) {
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, HEAD_KEY, rec, len), 0, "%s", sc_error_message());
}

Test(head, fsck_finds_a_head_rolled_back_by_two_revisions) {
    sc_table *t = head_table("h-fsck-rb2");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    uint8_t *rev1;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &rev1, &len, NULL, HEAD_KEY), 0);
    cr_assert_eq(tu_commit_one(NULL, t, "me", 2), 0);
    cr_assert_eq(tu_commit_one(NULL, t, "me", 3), 0);
    cr_assert_eq(sc_table_fsck(t, NULL, NULL), 0, "%s", sc_error_message());
    put_back(t, rev1, len);
    free(rev1);
    sc_table *fresh = tu_reopen("h-fsck-rb2");
    cr_assert_eq(tu_latest(fresh), 1, "a fresh handle sees only the (valid) old record");
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), SC_ECORRUPT, "fsck must find snapshot 3's object above the head");
    cr_assert(strstr(sc_error_message(), "snapshot 3 is installed, but head/CURRENT is at revision 1") &&
                  strstr(sc_error_message(), "head/snapshot-") && strstr(sc_error_message(), "rolled back"),
              "%s", sc_error_message());
    sc_table_free(fresh);
    sc_table_free(t);
}

Test(head, fsck_finds_a_rollback_that_was_built_on_again) {
    sc_table *t = head_table("h-fsck-rb-built");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    uint8_t *rev1;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &rev1, &len, NULL, HEAD_KEY), 0);
    cr_assert_eq(tu_commit_one(NULL, t, "me", 2), 0);
    cr_assert_eq(tu_commit_one(NULL, t, "me", 3), 0);
    put_back(t, rev1, len);
    free(rev1);
    /* A new writer reuses id 2: the head is now at 2 again, with another snapshot 2. */
    sc_table *fresh = tu_reopen("h-fsck-rb-built");
    cr_assert_eq(tu_commit_one(NULL, fresh, "other", 1), 0, "%s", sc_error_message());
    cr_assert_eq(tu_latest(fresh), 2);
    sc_table *checker = tu_reopen("h-fsck-rb-built");
    cr_assert_eq(sc_table_fsck(checker, NULL, NULL), SC_ECORRUPT);
    cr_assert(strstr(sc_error_message(), "snapshot 3 whose parent is not snapshot 2 of the chain"), "%s",
              sc_error_message());
    sc_table_free(checker);
    sc_table_free(fresh);
    sc_table_free(t);
}

/* A one-step rollback is what a writer that crashed between installing its object and swapping
 * the head leaves behind: fsck accepts both (documented as not detectable). */
static int fail_head_swaps(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    (void)ctx, (void)call;
    return op == SC_OP_PUT_IF_MATCH && strcmp(key, HEAD_KEY) == 0 ? SC_EIO : 0;
}

Test(head, fsck_accepts_an_object_one_above_the_head) {
    sc_table *t = head_table("h-fsck-crash");
    cr_assert_eq(tu_commit_one(NULL, t, "me", 1), 0);
    sc_store_set_fault_hook(sc_table_store(t), fail_head_swaps, NULL);
    cr_assert_neq(tu_commit_one(NULL, t, "me", 2), 0, "the swap was made to fail");
    sc_store_set_fault_hook(sc_table_store(t), NULL, NULL);
    sc_list_page page;
    cr_assert_eq(sc_store_list_all(sc_table_store(t), &page, "head/snapshot-"), 0);
    cr_assert_eq(page.count, 2, "snapshot 2's object stays installed above the head");
    sc_list_page_free(&page);
    sc_table *fresh = tu_reopen("h-fsck-crash");
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), 0, "%s", sc_error_message());
    cr_assert_eq(tu_commit_one(NULL, fresh, "me", 2), 0, "%s", sc_error_message());
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(fresh);
    sc_table_free(t);
}

/* ---- capability probing ---- */

static int lookup_strategy(const char *loc, sc_strategy_kind *out) {
    sc_table *t;
    int rc = sc_table_open_location(&t, loc);
    if (rc) return rc;
    *out = sc_table_strategy(t);
    sc_table_free(t);
    return 0;
}

Test(probe, mem_store_probes_to_conditional) {
    sc_mem_store_reset("p-mem");
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, "mem://p-mem"), 0);
    uint32_t caps;
    cr_assert_eq(sc_strategy_probe(&caps, s), 0, "%s", sc_error_message());
    cr_assert_eq(caps, sc_store_caps(s), "mem honours everything it declares");
    cr_assert_eq(tu_count_keys("p-mem", "", NULL), 0, "the probe leaves nothing behind");
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_store_free(s);
    sc_strategy_kind k;
    cr_assert_eq(lookup_strategy("mem://p-mem", &k), 0);
    cr_assert_eq(k, SC_STRATEGY_CONDITIONAL);
    cr_assert_eq(tu_count_keys("p-mem", "metadata/probe-", NULL), 0);
}

Test(probe, posix_store_probes_to_rename) {
    char dir[] = "/tmp/sc-probe-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    sc_store *s;
    cr_assert_eq(sc_store_open(&s, dir), 0, "%s", sc_error_message());
    uint32_t caps;
    cr_assert_eq(sc_strategy_probe(&caps, s), 0, "%s", sc_error_message());
    cr_assert(caps & SC_CAP_ATOMIC_NOREPLACE);
    cr_assert_eq(caps & (SC_CAP_CONDITIONAL_CREATE | SC_CAP_COMPARE_AND_SWAP), 0);
    cr_assert_eq(tu_create(s, SC_STRATEGY_HEAD), SC_EUNSUPPORTED, "posix cannot swap a head");
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_list_page page;
    cr_assert_eq(sc_store_list_all(s, &page, "metadata/"), 0);
    cr_assert_eq(page.count, 1, "only table.json remains");
    cr_assert_str_eq(page.keys[0], SC_TABLE_META_KEY);
    sc_list_page_free(&page);
    sc_store_free(s);
    sc_strategy_kind k;
    cr_assert_eq(lookup_strategy(dir, &k), 0);
    cr_assert_eq(k, SC_STRATEGY_RENAME);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A backend that declares every capability but whose conditional writes ignore their condition. */
static const sc_store_ops *real_mem_ops;

static int lying_put_if_absent(void *self, sc_object_info *info, const char *key, const uint8_t *data, size_t len) {
    return real_mem_ops->put(self, info, key, data, len);
}

static int lying_put_if_match(void *self, sc_object_info *info, const char *key, const uint8_t *data, size_t len,
                              const char *etag) {
    (void)etag;
    return real_mem_ops->put(self, info, key, data, len);
}

static sc_store *lying_store(const char *name, int lie_create, int lie_cas, uint32_t drop_caps) {
    static sc_store_ops ops[4];
    static int next;
    void *self;
    sc_mem_store_reset(name);
    cr_assert_eq(sc_mem_store_create(&real_mem_ops, &self, name), 0);
    sc_store_ops *o = &ops[next++ % 4];
    *o = *real_mem_ops;
    o->name = "lying-mem";
    o->caps &= ~drop_caps;
    if (lie_create) o->put_if_absent = lying_put_if_absent;
    if (lie_cas) o->put_if_match = lying_put_if_match;
    sc_store *s;
    cr_assert_eq(sc_store_wrap(&s, o, self), 0, "%s", sc_error_message());
    return s;
}

Test(probe, lying_conditional_create_is_detected) {
    sc_store *s = lying_store("p-lie-create", 1, 0, 0);
    uint32_t caps;
    cr_assert_eq(sc_strategy_probe(&caps, s), 0, "%s", sc_error_message());
    cr_assert_eq(caps & (SC_CAP_CONDITIONAL_CREATE | SC_CAP_ATOMIC_NOREPLACE), 0, "caps %#x", caps);
    cr_assert(caps & SC_CAP_COMPARE_AND_SWAP, "the honest CAS is kept");
    cr_assert_eq(tu_create(s, SC_STRATEGY_CONDITIONAL), SC_EUNSUPPORTED);
    cr_assert(strstr(sc_error_message(), "probe"), "%s", sc_error_message());
    cr_assert_eq(tu_create(s, SC_STRATEGY_HEAD), SC_EUNSUPPORTED);
    cr_assert_eq(tu_create(s, SC_STRATEGY_RENAME), SC_EUNSUPPORTED);
    /* Auto may only fall back to the list-based protocol (when this build has it). */
    int rc = tu_create(s, SC_STRATEGY_AUTO);
    if (rc == 0) {
        sc_table *t;
        cr_assert_eq(sc_table_open(&t, s), 0);
        cr_assert_eq(sc_table_strategy(t), SC_STRATEGY_TRACKER);
        sc_table_free(t);
    } else {
        cr_assert_eq(rc, SC_EUNSUPPORTED, "%s", sc_error_message());
    }
    cr_assert_eq(tu_count_keys("p-lie-create", "metadata/probe-", NULL), 0);
    sc_store_free(s);
}

Test(probe, lying_compare_and_swap_is_detected) {
    sc_store *s = lying_store("p-lie-cas", 0, 1, 0);
    uint32_t caps;
    cr_assert_eq(sc_strategy_probe(&caps, s), 0, "%s", sc_error_message());
    cr_assert_eq(caps & SC_CAP_COMPARE_AND_SWAP, 0);
    cr_assert(caps & SC_CAP_CONDITIONAL_CREATE);
    cr_assert_eq(tu_create(s, SC_STRATEGY_HEAD), SC_EUNSUPPORTED);
    cr_assert(strstr(sc_error_message(), "compare-and-swap"), "%s", sc_error_message());
    cr_assert_eq(tu_create(s, SC_STRATEGY_AUTO), 0, "%s", sc_error_message());
    sc_table *t;
    cr_assert_eq(sc_table_open(&t, s), 0);
    cr_assert_eq(sc_table_strategy(t), SC_STRATEGY_CONDITIONAL);
    sc_table_free(t);
    sc_store_free(s);
}

Test(probe, opening_a_head_table_without_cas_fails_clearly) {
    sc_table *t = head_table("p-open");
    sc_table_free(t);
    /* Same contents, a handle that does not declare CAS. */
    sc_store *s;
    void *self;
    const sc_store_ops *mem;
    cr_assert_eq(sc_mem_store_create(&mem, &self, "p-open"), 0);
    static sc_store_ops no_cas;
    no_cas = *mem;
    no_cas.caps &= ~(uint32_t)SC_CAP_COMPARE_AND_SWAP;
    no_cas.put_if_match = NULL;
    cr_assert_eq(sc_store_wrap(&s, &no_cas, self), 0);
    cr_assert_eq(sc_table_open(&t, s), SC_EUNSUPPORTED);
    cr_assert(strstr(sc_error_message(), "compare-and-swap"), "%s", sc_error_message());
    sc_store_free(s);
}

/* ---- every store operation of a head commit failing in turn ---- */

Test(head, each_store_operation_fails_in_turn) {
    static const sc_mem_fault kinds[] = {SC_MEM_FAULT_FAIL, SC_MEM_FAULT_LOSE_RESPONSE};
    for (size_t k = 0; k < 2; k++) {
        for (int n = 1;; n++) {
            const char *name = "h-fault";
            sc_table *t = head_table(name);
            cr_assert_eq(tu_commit_one(NULL, t, "u", 1), 0);
            sc_table_free(t);
            t = tu_reopen(name); /* a fresh handle: its first GET of the head is faultable too */
            tu_fast_retries(t, 10, 5);
            cr_assert_eq(sc_mem_store_arm_fault(name, 0, (uint64_t)n, kinds[k], 0), 0);
            sc_commit_result r;
            int rc = tu_commit_one(&r, t, "u", 2);
            sc_table_free(t);
            uint64_t ops = 0;
            for (int op = 0; op < SC_OP_COUNT; op++) ops += r.stats.ops[op];
            if ((uint64_t)n > ops) break; /* the fault never fired: every op has been covered */
            /* Rebuild the faulted state to check it. */
            sc_table *t2 = head_table(name);
            cr_assert_eq(tu_commit_one(NULL, t2, "u", 1), 0);
            sc_table_free(t2);
            t2 = tu_reopen(name);
            tu_fast_retries(t2, 10, 5);
            cr_assert_eq(sc_mem_store_arm_fault(name, 0, (uint64_t)n, kinds[k], 0), 0);
            int rc2 = tu_commit_one(NULL, t2, "u", 2);
            sc_table_free(t2);
            cr_assert_eq(rc, rc2, "fault runs must be deterministic");
            tu_check_whole_or_nothing(name, rc2, (int)kinds[k], n, "data/u-2");
            cr_assert_lt(n, 200);
        }
    }
}
