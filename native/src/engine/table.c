/* Table handles: create, open, and the read-side queries. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/cache.h"
#include "base/error_internal.h"
#include "engine/state.h"
#include "format/changes.h"
#include "format/binary_row.h"
#include "format/partition.h"
#include <jansson.h>
#include "store/store_internal.h"
#include "strategy/strategy.h"
#include "base/env_internal.h"

static int strategy_for(const sc_strategy **out, sc_strategy_kind kind, uint32_t caps) {
    const sc_strategy *s = sc_strategy_get(kind);
    if (!s)
        return sc_error_set(SC_EUNSUPPORTED, "strategy \"%s\" is not available in this build",
                            sc_strategy_name(kind) ? sc_strategy_name(kind) : "?");
    uint32_t missing = s->required_caps & ~caps;
    if (missing) {
        static const struct { uint32_t cap; const char *what; } names[] = {
            {SC_CAP_ATOMIC_NOREPLACE, "an atomic no-replace publish"}, {SC_CAP_CONDITIONAL_CREATE, "conditional creation"},
            {SC_CAP_COMPARE_AND_SWAP, "compare-and-swap"}, {SC_CAP_LIST_AFTER_WRITE, "list-after-write"},
            {SC_CAP_DURABLE, "durable writes"}};
        char what[192] = "";
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            size_t n = strlen(what);
            if (missing & names[i].cap) snprintf(what + n, sizeof what - n, "%s%s", n ? " and " : "", names[i].what);
        }
        return sc_error_set(SC_EUNSUPPORTED, "strategy \"%s\" needs %s, which this store does not offer",
                            sc_strategy_name(kind), what);
    }
    *out = s;
    return 0;
}

/* Write schema/schema-0, or adopt the one a Paimon table already has (no schema given). */
static int write_schema(sc_store *store, const sc_table_schema *schema) {
    char key[64];
    sc_schema_key(key, 0);
    sc_object_info info;
    int have = sc_store_head(store, &info, key) == 0;
    sc_error_clear();
    if (have && schema)
        return sc_error_set(SC_ETABLEEXISTS,
                            "a table already exists here (%s is present); open it, or init without a schema to adopt it", key);
    if (have) {
        sc_log(SC_LOG_INFO, "adopting the Paimon table at this location (%s exists)", key);
        return 0;
    }
    sc_table_schema empty;
    int rc = schema ? 0 : sc_schema_empty(&empty);
    sc_buf text = SC_BUF_INIT;
    if (!rc) rc = sc_schema_encode(&text, schema ? schema : &empty);
    if (!schema) sc_schema_clear(&empty);
    /* put-if-absent: two inits cannot both write it, and an existing table is never touched */
    if (!rc) rc = sc_store_put_if_absent(store, NULL, key, text.data, text.len);
    sc_buf_free(&text);
    if (rc == SC_EEXISTS) return sc_error_set(SC_ETABLEEXISTS, "a table already exists here (%s is present)", key);
    if (rc) return sc_error_wrap(rc, "creating %s", key);
    return 0;
}

static int table_create(sc_store *store, sc_strategy_kind strategy, const sc_table_schema *schema) {
    /* The location must exist before anything is written: a server that creates a
     * missing bucket on the first PUT would otherwise hide a mistyped bucket name. */
    int rc = sc_store_check(store);
    if (rc) return sc_error_wrap(rc, "checking the location before creating a table");
    /* A strategy the store does not even declare what it needs for is refused
     * before the probe writes anything (no probe directory left behind). */
    const sc_strategy *s;
    if (strategy != SC_STRATEGY_AUTO && (rc = strategy_for(&s, strategy, sc_store_caps(store))) != 0) return rc;
    /* Choose from what the store demonstrably honours, not from what it declares. */
    uint32_t caps;
    rc = sc_strategy_probe(&caps, store);
    if (rc) return rc;
    sc_strategy_kind chosen = strategy == SC_STRATEGY_AUTO ? sc_strategy_choose(caps) : strategy;
    rc = strategy_for(&s, chosen, caps);
    if (rc && sc_strategy_get(chosen) &&
        (sc_store_caps(store) & sc_strategy_get(chosen)->required_caps) == sc_strategy_get(chosen)->required_caps)
        return sc_error_wrap(rc, "the %s store declares what strategy \"%s\" needs, but the probe showed it does not honour it",
                             sc_store_backend_name(store), sc_strategy_name(chosen));
    if (rc) return rc;
    const sc_env *env = sc_store_env(store);
    sc_table_meta meta = {SC_FORMAT_VERSION, "", chosen, sc_env_now_ms(env)};
    if ((rc = sc_env_uuid_text(env, meta.table_uuid)) != 0) return rc;
    /* The schema goes first: a table.json without its schema would be a table no reader can open. */
    if ((rc = write_schema(store, schema)) != 0) return rc;
    sc_buf buf = SC_BUF_INIT;
    rc = sc_table_meta_encode(&buf, &meta);
    /* Conditional create: two concurrent inits cannot both succeed, and an
     * existing table is never touched. */
    if (!rc) rc = sc_store_put_if_absent(store, NULL, SC_TABLE_META_KEY, buf.data, buf.len);
    sc_buf_free(&buf);
    if (rc == SC_EEXISTS)
        return sc_error_set(SC_ETABLEEXISTS, "a table already exists here (%s is present)",
                            SC_TABLE_META_KEY);
    if (rc) return sc_error_wrap(rc, "creating %s", SC_TABLE_META_KEY);
    return 0;
}

int sc_table_raise_format(sc_table *t, int version) {
    if (t->meta.format_version >= version) return 0;
    sc_table_meta meta = t->meta;
    meta.format_version = version;
    sc_buf buf = SC_BUF_INIT;
    int rc = sc_table_meta_encode(&buf, &meta);
    /* A plain put: every writer raising it writes the same bytes, and the claim that
     * follows makes it durable before any snapshot depends on it. */
    if (!rc) rc = sc_store_put(t->store, NULL, SC_TABLE_META_KEY, buf.data, buf.len);
    sc_buf_free(&buf);
    if (rc) return sc_error_wrap(rc, "raising %s to table format version %d", SC_TABLE_META_KEY, version);
    sc_log(SC_LOG_INFO, "%s raised to table format version %d (writers of version %d can no longer open the table)",
           SC_TABLE_META_KEY, version, t->meta.format_version);
    t->meta.format_version = version;
    return 0;
}

int sc_table_create(sc_store *store, sc_strategy_kind strategy) {
    return sc_table_create_with_schema(store, strategy, NULL, 0);
}

int sc_table_schema_json(char **out, size_t *out_len, sc_table *t) {
    *out = NULL;
    *out_len = 0;
    sc_buf text = SC_BUF_INIT;
    int rc = sc_schema_encode(&text, &t->schema);
    if (!rc) rc = sc_buf_append_byte(&text, 0);
    if (rc) {
        sc_buf_free(&text);
        return rc;
    }
    *out_len = text.len - 1;
    *out = (char *)text.data; /* the buffer's malloc()ed bytes: the caller free()s them */
    return 0;
}

/*
 * The table's current schema: the highest schema/schema-<id> (Paimon's ALTERs
 * add schema-1, ...). init writes schema-0 before metadata/table.json, so a table
 * without any lost it: refused, never read as the empty schema (a commit would then
 * add unpartitioned files to a partitioned table).
 */
static int load_schema(sc_table *t) {
    sc_list_page page = {0};
    int rc = sc_store_list_all(t->store, &page, "schema/schema-");
    if (rc) return sc_error_wrap(rc, "listing schema/");
    int64_t best = -1;
    for (size_t i = 0; i < page.count; i++) {
        const char *digits = page.keys[i] + strlen("schema/schema-");
        char *end;
        errno = 0;
        long long id = strtoll(digits, &end, 10);
        if (!*digits || *end || errno || id < 0 || (digits[0] == '0' && digits[1])) continue; /* not a schema file */
        if (id > best) best = id;
    }
    sc_list_page_free(&page);
    if (best < 0)
        return sc_error_set(SC_ECORRUPT, "schema/schema-0 is missing (the table's schema was lost; init writes it first)");
    char key[64];
    sc_schema_key(key, best);
    uint8_t *data = NULL;
    size_t len = 0;
    rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_SCHEMA_MAX_BYTES);
    if (rc == SC_ENOTFOUND) rc = sc_error_set(SC_ECORRUPT, "%s: listed but missing", key);
    if (rc) return sc_error_wrap(rc, "reading %s", key);
    rc = sc_schema_decode(&t->schema, data, len, key);
    free(data);
    if (!rc && t->schema.id != best) {
        sc_schema_clear(&t->schema);
        rc = sc_error_set(SC_ECORRUPT, "%s: its field \"id\" is not %" PRId64, key, best);
    }
    return rc;
}

int sc_table_create_with_schema(sc_store *store, sc_strategy_kind strategy, const char *schema_json, size_t len) {
    if (!store) return sc_error_set(SC_EINVAL, "NULL store");
    /* Bad input is refused before anything is written (not even the probe). */
    sc_table_schema schema;
    int rc = schema_json ? sc_schema_decode(&schema, (const uint8_t *)schema_json, len, NULL) : 0;
    if (rc) return sc_error_wrap(rc, "schema");
    if (schema_json && !schema.time_millis) schema.time_millis = sc_env_now_ms(sc_store_env(store));
    rc = table_create(store, strategy, schema_json ? &schema : NULL);
    if (schema_json) sc_schema_clear(&schema);
    if (rc) {
        /* A failed init leaves nothing behind: the directories this handle made (the
         * root and its parents, metadata/) go again, each only while empty, so neither
         * a table that exists nor anything else is touched. The failure's message stays. */
        char message[1024];
        snprintf(message, sizeof message, "%s", sc_error_message());
        sc_store_remove_created_dirs(store, "");
        sc_error_set(rc, "%s", message);
    }
    return rc;
}

int sc_table_open(sc_table **out, sc_store *store) {
    *out = NULL;
    if (!store) return sc_error_set(SC_EINVAL, "NULL store");
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = sc_store_get_bounded(store, &data, &len, NULL, SC_TABLE_META_KEY, SC_TABLE_META_MAX_BYTES);
    if (rc == SC_ENOTFOUND) {
        char why[512];
        snprintf(why, sizeof why, "%s", sc_error_message());
        return sc_error_set(SC_ENOTABLE, "no table here (%s); create one with 'snapcommit init'", why);
    }
    if (rc) return sc_error_wrap(rc, "reading %s", SC_TABLE_META_KEY);
    sc_table *t = calloc(1, sizeof *t);
    if (!t) {
        free(data);
        return sc_error_set(SC_ENOMEM, "out of memory");
    }
    rc = sc_table_meta_decode(&t->meta, data, len);
    free(data);
    if (!rc) rc = strategy_for(&t->strategy, t->meta.strategy, sc_store_caps(store));
    if (rc) {
        free(t);
        return rc;
    }
    t->store = store;
    t->env = *sc_store_env(store);
    sc_retry_policy_default(&t->retry);
    sc_decode_limits_default(&t->limits);
    if ((rc = load_schema(t)) != 0) {
        free(t);
        return rc;
    }
    if (t->strategy->open && (rc = t->strategy->open(t, &t->strategy_state)) != 0) {
        sc_schema_clear(&t->schema);
        free(t);
        return rc;
    }
    /* Up to a million cached records; without memory for it, work uncached. */
    if (sc_cache_new(&t->cache, 1u << 20, 4096) != 0) t->cache = NULL;
    *out = t;
    return 0;
}

int sc_table_open_location(sc_table **out, const char *location) {
    return sc_table_open_location_with_config(out, location, NULL);
}

int sc_table_open_location_with_config(sc_table **out, const char *location,
                                       const sc_store_config *config) {
    *out = NULL;
    sc_store *store;
    int rc = sc_store_open_with_config(&store, location, config);
    if (rc) return rc;
    rc = sc_table_open(out, store);
    if (rc) {
        sc_store_free(store);
        return rc;
    }
    (*out)->owns_store = 1;
    return 0;
}

void sc_table_free(sc_table *t) {
    if (!t) return;
    if (t->strategy->close) t->strategy->close(t->strategy_state);
    if (t->owns_store) sc_store_free(t->store);
    sc_schema_clear(&t->schema);
    sc_cache_free(t->cache);
    free(t);
}

void sc_table_set_retry_policy(sc_table *t, const sc_retry_policy *p) { t->retry = *p; }
int sc_table_set_env(sc_table *t, const sc_env *env) {
    if (!t) return sc_error_set(SC_EINVAL, "NULL table");
    return sc_env_install(&t->env, env);
}
sc_strategy_kind sc_table_strategy(const sc_table *t) { return t->meta.strategy; }
const char *sc_table_uuid(const sc_table *t) { return t->meta.table_uuid; }
sc_store *sc_table_store(sc_table *t) { return t->store; }

int sc_table_read_snapshot(sc_snapshot *out, uint8_t out_hash[SC_SHA256_LEN], sc_table *t,
                           uint64_t id) {
    uint8_t *data = NULL;
    size_t len = 0;
    char key[64];
    sc_snapshot_key(key, id);
    int rc = t->strategy->read(t, &data, &len, id);
    if (rc == SC_ENOTFOUND) return sc_error_set(SC_ENOTFOUND, "snapshot %" PRIu64 " does not exist", id);
    if (rc) return sc_error_wrap(rc, "reading snapshot %" PRIu64, id);
    if (out_hash) sc_sha256(out_hash, data, len);
    rc = sc_snapshot_decode(out, data, len, key);
    free(data);
    if (rc) return rc;
    if (out->id != id) {
        uint64_t recorded = out->id;
        sc_snapshot_clear(out);
        return sc_error_set(SC_ECORRUPT, "%s: its field \"id\" is %" PRIu64 ", not %" PRIu64 " (a snapshot copied or moved under another name)",
                            key, recorded, id);
    }
    if (!out->foreign && strcmp(out->table_uuid, t->meta.table_uuid) != 0) {
        sc_snapshot_clear(out);
        return sc_error_set(SC_ECORRUPT, "%s: belongs to table %s, not this table (%s)", key,
                            out->table_uuid, t->meta.table_uuid);
    }
    return 0;
}

int sc_table_latest_id(uint64_t *out, sc_table *t) { return t->strategy->latest(t, out); }
int sc_table_earliest_id(uint64_t *out, sc_table *t) { return t->strategy->earliest(t, out); }

int sc_table_snapshot_info(sc_snapshot_info **out, sc_table *t, uint64_t id) {
    *out = NULL;
    sc_snapshot s;
    int rc = sc_table_read_snapshot(&s, NULL, t, id);
    if (rc) return rc;
    sc_snapshot_info *i = calloc(1, sizeof *i);
    if (!i) {
        sc_snapshot_clear(&s);
        return sc_error_set(SC_ENOMEM, "out of memory");
    }
    i->id = s.id;
    i->commit_user = s.commit_user;
    s.commit_user = NULL;
    i->commit_identifier = s.commit_identifier;
    i->commit_kind = s.commit_kind;
    i->time_millis = s.time_millis;
    i->total_record_count = s.total_record_count;
    i->delta_record_count = s.delta_record_count;
    i->file_count = s.file_count;
    if (s.has_parent) sc_hex_encode(i->parent_hash, s.parent_hash, SC_SHA256_LEN);
    sc_snapshot_clear(&s);
    *out = i;
    return 0;
}

void sc_snapshot_info_free(sc_snapshot_info *i) {
    if (!i) return;
    free(i->commit_user);
    free(i);
}

/* The live files of one snapshot (sc_state_read_retained's read for sc_table_files). */
static int read_live(void *ctx, sc_table *t, uint64_t id) {
    sc_entry_vec *live = ctx;
    if (id == 0) return 0;
    sc_snapshot s;
    int rc = sc_table_read_snapshot(&s, NULL, t, id);
    if (rc) return rc;
    rc = sc_state_live_files(live, t, &s, NULL);
    sc_snapshot_clear(&s);
    if (rc) sc_entry_vec_free(live);
    return rc;
}

int sc_table_files(sc_file_list **out, sc_table *t, uint64_t id) {
    *out = NULL;
    sc_entry_vec live = {0};
    /* The latest read again if an expiration removes it meanwhile (never reported as damage). */
    int rc = sc_state_read_retained(t, id, "files", read_live, &live);
    if (rc) return rc;
    sc_file_list *list = calloc(1, sizeof *list);
    /* Hand the vector's storage over: entries are laid out as sc_manifest_entry. */
    if (list) list->entries = calloc(live.count ? live.count : 1, sizeof *list->entries);
    if (!list || !list->entries) {
        free(list);
        sc_entry_vec_free(&live);
        return sc_error_set(SC_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < live.count; i++) list->entries[i] = live.items[i].file;
    list->count = live.count;
    free(live.items); /* the field buffers now belong to list->entries */
    *out = list;
    return 0;
}

void sc_file_list_free(sc_file_list *list) {
    if (!list) return;
    sc_entry_vec v = {calloc(list->count ? list->count : 1, sizeof(sc_manifest_entry)), list->count,
                      list->count};
    if (v.items) {
        for (size_t i = 0; i < list->count; i++) v.items[i].file = list->entries[i];
        sc_entry_vec_free(&v);
    }
    free(list->entries);
    free(list);
}

int sc_table_parse_changes(sc_changes **out, sc_table *t, const char *json, size_t len) {
    *out = NULL;
    if (!t || !json) return sc_error_set(SC_EINVAL, "NULL table or change-set text");
    return sc_changes_parse_json_schema(out, &t->schema, json, len);
}

static int buf_to_string(char **out, sc_buf *b) {
    int rc = sc_buf_append_byte(b, 0);
    if (rc) {
        sc_buf_free(b);
        return rc;
    }
    *out = (char *)b->data; /* the buffer's malloc()ed bytes: the caller free()s them */
    return 0;
}

int sc_table_partition_spec(char **out, sc_table *t, sc_bytes partition) {
    *out = NULL;
    sc_buf b = SC_BUF_INIT;
    int rc = sc_partition_spec(&b, &t->schema, partition.data, partition.len, "partition");
    if (rc) {
        sc_buf_free(&b);
        return rc;
    }
    return buf_to_string(out, &b);
}

int sc_table_file_path(char **out, sc_table *t, const sc_file_entry *e) {
    *out = NULL;
    sc_buf b = SC_BUF_INIT;
    int rc = sc_partition_bucket_dir(&b, &t->schema, e->partition.data, e->partition.len, e->bucket, "partition");
    if (!rc) rc = sc_buf_printf(&b, "/%s", e->file);
    if (rc) {
        sc_buf_free(&b);
        return rc;
    }
    return buf_to_string(out, &b);
}

int sc_table_key_json(char **out, sc_table *t, sc_bytes key) {
    *out = NULL;
    const sc_table_schema *s = &t->schema;
    if (!s->trimmed_key_count || !key.data) return sc_error_set(SC_EINVAL, "the table has no primary key");
    json_t *arr = json_array();
    int rc = arr ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < s->trimmed_key_count; i++) {
        const sc_data_type *type = &s->trimmed_key_types[i];
        sc_datum d;
        rc = sc_row_get(&d, key.data, key.len, type, i, "key");
        if (rc) break;
        json_t *v = NULL;
        sc_buf text = SC_BUF_INIT;
        if (d.is_null) v = json_null();
        else if (type->root == SC_TYPE_BOOLEAN) v = json_boolean(d.i);
        else if (type->root >= SC_TYPE_TINYINT && type->root <= SC_TYPE_BIGINT) v = json_integer((json_int_t)d.i);
        else if ((rc = sc_datum_to_text(&text, &d, type)) == 0) v = json_stringn((const char *)text.data, text.len);
        sc_buf_free(&text);
        if (!rc && (!v || json_array_append_new(arr, v) != 0)) rc = sc_error_set(SC_EINVAL, "key field %zu is not printable as JSON", i);
    }
    char *text = rc ? NULL : json_dumps(arr, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(arr);
    if (!rc && !text) rc = sc_error_set(SC_ENOMEM, "out of memory");
    *out = text;
    return rc;
}
