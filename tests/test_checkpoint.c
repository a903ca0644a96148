/* What every snapshot we write names (its schema), and one Paimon checkpoint committed as
 * its append and compact snapshots (sc_table_commit_checkpoint). */
#include "sc_test_util.h"

#include "engine/state.h"
#include "format/table_schema.h"

/* schema/schema-<id> as a copy of the table's schema-0 with that id: what an ALTER TABLE leaves. */
static void add_schema(sc_table *t, int64_t id) {
    char key[64];
    sc_schema_key(key, 0);
    uint8_t *data;
    size_t len;
    cr_assert_eq(sc_store_get(sc_table_store(t), &data, &len, NULL, key), 0, "%s", sc_error_message());
    sc_table_schema s;
    cr_assert_eq(sc_schema_decode(&s, data, len, key), 0, "%s", sc_error_message());
    free(data);
    s.id = id;
    sc_buf b = SC_BUF_INIT;
    cr_assert_eq(sc_schema_encode(&b, &s), 0);
    sc_schema_key(key, id);
    cr_assert_eq(sc_store_put(sc_table_store(t), NULL, key, b.data, b.len), 0, "%s", sc_error_message());
    sc_buf_free(&b);
    sc_schema_clear(&s);
}

static int64_t snapshot_schema(sc_table *t, uint64_t id) {
    sc_snapshot s;
    cr_assert_eq(sc_table_read_snapshot(&s, NULL, t, id), 0, "%s", sc_error_message());
    int64_t v = s.schema_id;
    sc_snapshot_clear(&s);
    return v;
}

Test(schema_id, every_snapshot_names_the_latest_schema) {
    sc_table *t = tu_mem_table("ck-schema");
    sc_commit_result r;
    sc_file_entry a = tu_file("dt=1", 0, 0, 0, "data/a", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, t, "job", 1, SC_KIND_APPEND, 0, &a, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(snapshot_schema(t, 1), 0);
    /* An ALTER TABLE while this handle lives: its next commit sees it. */
    add_schema(t, 1);
    sc_file_entry b = tu_file("dt=1", 0, 0, 0, "data/b", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, t, "job", 2, SC_KIND_APPEND, 0, &b, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(snapshot_schema(t, 2), 1);
    /* Two more before a fresh handle opens: its first commit names the highest. */
    add_schema(t, 2);
    add_schema(t, 3);
    sc_table *fresh = tu_reopen("ck-schema");
    sc_file_entry c = tu_file("dt=1", 0, 0, 0, "data/c", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, fresh, "job", 3, SC_KIND_APPEND, 0, &c, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(snapshot_schema(fresh, 3), 3);
    /* Several since the last look: the highest, not just the next. */
    add_schema(t, 4);
    add_schema(t, 5);
    sc_file_entry d = tu_file("dt=1", 0, 0, 0, "data/d", 1, NULL, NULL);
    cr_assert_eq(tu_commit(&r, fresh, "job", 4, SC_KIND_APPEND, 0, &d, 1, NULL, 0), 0, "%s", sc_error_message());
    cr_assert_eq(snapshot_schema(fresh, 4), 5);
    cr_assert_eq(sc_table_fsck(fresh, NULL, NULL), 0, "%s", sc_error_message());
    sc_table_free(fresh);
    sc_table_free(t);
}
