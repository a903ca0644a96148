/* Snapshot documents and table metadata: round trips and fail-closed decoding. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "format/seal.h"
#include "format/snapshot.h"
#include "engine/replay.h"

static void sample(sc_snapshot *s, int watermarks) {
    memset(s, 0, sizeof *s);
    s->id = 42;
    s->schema_id = 3;
    strcpy(s->table_uuid, "0b7e8c1e-4d4e-4a9a-8f0e-2b7d52a2f0a1");
    strcpy(s->commit_uuid, "9f1c3a77-52c1-4e0f-bb0e-6b7f9e6d3c55");
    s->commit_user = strdup("job-\"quoted\"-\xc3\xa9");
    s->commit_identifier = 9007199254740993LL; /* beyond double precision */
    s->commit_kind = SC_KIND_COMPACT;
    s->time_millis = 1795989352607;
    s->total_record_count = 1000;
    s->delta_record_count = -20;
    s->file_count = 7;
    s->has_parent = 1;
    for (int i = 0; i < SC_SHA256_LEN; i++) s->parent_hash[i] = (uint8_t)(i * 7);
    s->base_manifest_list.name = strdup("manifest/manifest-list-a");
    s->base_manifest_list.length = 52;
    s->delta_manifest_list.name = strdup("manifest/manifest-list-b");
    s->delta_manifest_list.length = 152;
    s->delta_manifest_list.sha256[0] = 0xff;
    for (int i = 0; i < watermarks; i++) {
        char user[16];
        snprintf(user, sizeof user, "u%03d", i);
        sc_snapshot tmp = *s;
        cr_assert_eq(sc_replay_set_watermarks(s, &tmp, user, i, (uint64_t)(i % 42) + 1), 0);
    }
}

Test(snapshot_codec, round_trip) {
    sc_snapshot s, d;
    sample(&s, 5);
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_snapshot_encode(&b, &s), 0);
    cr_assert_eq(sc_snapshot_decode(&d, b.data, b.len, "snap"), 0, "%s", sc_error_message());
    cr_assert_eq(d.id, 42);
    cr_assert_str_eq(d.commit_user, s.commit_user);
    cr_assert_eq(d.commit_identifier, 9007199254740993LL);
    cr_assert_eq(d.commit_kind, SC_KIND_COMPACT);
    cr_assert_eq(d.delta_record_count, -20);
    cr_assert_eq(memcmp(d.parent_hash, s.parent_hash, SC_SHA256_LEN), 0);
    cr_assert_eq(d.delta_manifest_list.sha256[0], 0xff);
    cr_assert_eq(d.watermark_count, 5);
    cr_assert_eq(sc_snapshot_watermark(&d, "u003")->identifier, 3);
    cr_assert_null(sc_snapshot_watermark(&d, "nobody"));
    /* Canonical: re-encoding gives the same bytes. */
    sc_buf b2 = SC_BUF_INIT;
    cr_assert_eq(sc_snapshot_encode(&b2, &d), 0);
    cr_assert_eq(b2.len, b.len);
    cr_assert_eq(memcmp(b.data, b2.data, b.len), 0);
    sc_buf_free(&b);
    sc_buf_free(&b2);
    sc_snapshot_clear(&s);
    sc_snapshot_clear(&d);
}

Test(snapshot_codec, every_truncation_fails_closed) {
    sc_snapshot s, d;
    sample(&s, 3);
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_snapshot_encode(&b, &s), 0);
    for (size_t len = 0; len < b.len; len++) {
        int rc = sc_snapshot_decode(&d, b.data, len, "snapshot/snapshot-00000000000000000042");
        cr_assert_eq(rc, SC_ECORRUPT, "truncated to %zu of %zu bytes: %s", len, b.len, sc_error_name(rc));
        cr_assert(strstr(sc_error_message(), "snapshot-00000000000000000042"), "message must name the object: %s",
                  sc_error_message());
    }
    sc_buf_free(&b);
    sc_snapshot_clear(&s);
}

Test(snapshot_codec, every_bit_flip_fails_closed) {
    sc_snapshot s, d;
    sample(&s, 2);
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_snapshot_encode(&b, &s), 0);
    for (size_t i = 0; i < b.len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            b.data[i] ^= (uint8_t)(1u << bit);
            int rc = sc_snapshot_decode(&d, b.data, b.len, "snap");
            if (rc == 0) sc_snapshot_clear(&d);
            cr_assert_eq(rc, SC_ECORRUPT, "flip of bit %d in byte %zu decoded as %s", bit, i, sc_error_name(rc));
            b.data[i] ^= (uint8_t)(1u << bit);
        }
    }
    sc_buf_free(&b);
    sc_snapshot_clear(&s);
}

Test(snapshot_codec, invalid_fields_name_the_field) {
    /* A well-sealed document with a bad field: the seal is valid, the content is not. */
    static const struct {
        const char *from, *to, *field;
    } cases[] = {
        {"\"commitKind\":\"COMPACT\"", "\"commitKind\":\"MERGE\"", "commitKind"},
        {"\"id\":42", "\"id\":0", "id"},
        {"\"version\":1", "\"version\":2", "snapshot version"},
        {"\"fileCount\":7", "\"fileCount\":-1", "fileCount"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sc_snapshot s, d;
        sample(&s, 1);
        sc_buf b = SC_BUF_INIT;
        cr_assert_eq(sc_snapshot_encode(&b, &s), 0);
        sc_snapshot_clear(&s);
        /* Unseal, edit, reseal. */
        const char *text = sc_buf_cstr(&b);
        const char *seal = strstr(text, ",\"checksum\"");
        cr_assert_not_null(seal);
        char doc[8192];
        snprintf(doc, sizeof doc, "%.*s}", (int)(seal - text), text);
        char *at = strstr(doc, cases[c].from);
        cr_assert_not_null(at, "%s", cases[c].from);
        char edited[8192];
        snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - doc), doc, cases[c].to, at + strlen(cases[c].from));
        sc_buf e = SC_BUF_INIT;
        sc_buf_append_str(&e, edited);
        cr_assert_eq(sc_seal_json(&e), 0);
        cr_assert_eq(sc_snapshot_decode(&d, e.data, e.len, "snap"), SC_ECORRUPT, "case %zu", c);
        cr_assert(strstr(sc_error_message(), cases[c].field), "%s", sc_error_message());
        sc_buf_free(&e);
        sc_buf_free(&b);
    }
}

Test(snapshot_codec, table_meta_round_trip_and_damage) {
    sc_table_meta m = {1, "0b7e8c1e-4d4e-4a9a-8f0e-2b7d52a2f0a1", SC_STRATEGY_RENAME, 123}, d;
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_table_meta_encode(&b, &m), 0);
    cr_assert_eq(sc_table_meta_decode(&d, b.data, b.len), 0, "%s", sc_error_message());
    cr_assert_eq(d.strategy, SC_STRATEGY_RENAME);
    cr_assert_str_eq(d.table_uuid, m.table_uuid);
    for (size_t len = 0; len < b.len; len++) cr_assert_eq(sc_table_meta_decode(&d, b.data, len), SC_ECORRUPT);
    sc_buf_free(&b);
}

static long alloc_calls, alloc_fail_at = -1;
static void *failing_malloc(size_t n) {
    if (alloc_calls++ == alloc_fail_at) return NULL;
    return malloc(n);
}

/*
 * Every allocation of the encoder failing in turn: the encoding either fails or holds every
 * watermark. A snapshot claimed without one user's watermark would stop filtering that user's
 * replays (a failover would re-commit checkpoints already in the table).
 */
Test(snapshot_codec, out_of_memory_never_drops_a_watermark) {
    sc_snapshot s = {0};
    s.id = 5;
    strcpy(s.table_uuid, "00000000-0000-4000-8000-000000000001");
    strcpy(s.commit_uuid, "00000000-0000-4000-8000-000000000002");
    s.commit_user = "c";
    s.commit_identifier = 9;
    s.commit_kind = SC_KIND_APPEND;
    s.has_parent = 1;
    s.base_manifest_list.name = "manifest/manifest-list-a";
    s.delta_manifest_list.name = "manifest/manifest-list-b";
    sc_watermark w[3] = {{"a", 1, 2}, {"b", 2, 3}, {"c", 9, 5}};
    s.watermarks = w;
    s.watermark_count = 3;
    json_set_alloc_funcs(failing_malloc, free);
    int completed = 0;
    for (long fail = 0; fail < 2000 && !completed; fail++) {
        alloc_calls = 0;
        alloc_fail_at = fail;
        sc_buf out = SC_BUF_INIT;
        int rc = sc_snapshot_encode(&out, &s);
        alloc_fail_at = -1;
        completed = alloc_calls <= fail; /* no allocation failed: every one has been tried */
        if (rc == 0) {
            sc_snapshot d;
            cr_assert_eq(sc_snapshot_decode(&d, out.data, out.len, "encoded"), 0, "%s", sc_error_message());
            cr_assert_eq(d.watermark_count, 3,
                         "allocation %ld failed, yet the snapshot was encoded with %zu of 3 watermarks", fail,
                         d.watermark_count);
            sc_snapshot_clear(&d);
        }
        sc_buf_free(&out);
    }
    json_set_alloc_funcs(malloc, free);
    cr_assert(completed);
}
