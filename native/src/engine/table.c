/* Table handles: create, open, and the read-side queries. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/cache.h"
#include "base/error_internal.h"
#include "engine/index_state.h"
#include "engine/state.h"
#include "engine/table.h"
#include "format/changes.h"
#include "format/binary_row.h"
#include "format/partition.h"
#include "format/head_record.h"
#include "format/snapshot.h"
#include "store/store_batch.h"
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

/* How often init re-sends a create whose answer was lost and that read back absent. */
#define INIT_CREATE_TRIES 3

/*
 * Create `key` holding data/len where nothing is: 0 when it holds our bytes,
 * SC_EEXISTS when it holds other bytes. A lost answer (SC_EUNKNOWN: the
 * create may or may not have landed) is settled as a commit settles its
 * claim, by reading the object back: our bytes are ours, other bytes are
 * another writer's, nothing there means the request did not land and it is
 * sent again. A refused create is read back too, because the refusal may be
 * of our own earlier request that landed late.
 */
static int create_reconciled(sc_store *store, const char *key, const uint8_t *data, size_t len) {
    for (int attempt = 0; attempt < INIT_CREATE_TRIES; attempt++) {
        int rc = sc_store_put_if_absent(store, NULL, key, data, len);
        if (rc == 0) return 0;
        if (rc != SC_EEXISTS && rc != SC_EUNKNOWN) return sc_error_wrap(rc, "creating %s", key);
        int lost = rc == SC_EUNKNOWN;
        uint8_t *have = NULL;
        size_t have_len = 0;
        /* Ours are at most `len` bytes: anything larger is another writer's, refused unread. */
        rc = sc_store_get_bounded(store, &have, &have_len, NULL, key, len);
        if (rc == SC_ENOTFOUND) {
            sc_error_clear();
            continue; /* nothing there: our request did not land (or the object went again) */
        }
        if (rc == SC_ELIMIT || rc == SC_ECORRUPT) {
            sc_error_clear();
            return SC_EEXISTS;
        }
        if (rc) return sc_error_wrap(lost ? SC_EUNKNOWN : rc, "creating %s: reading it back after %s", key,
                                     lost ? "the answer was lost" : "the create was refused");
        int same = have_len == len && memcmp(have, data, len) == 0;
        free(have);
        if (same) {
            if (lost) sc_log(SC_LOG_INFO, "the answer to creating %s was lost; it holds our bytes: created", key);
            return 0;
        }
        return SC_EEXISTS;
    }
    return sc_error_set(SC_EUNKNOWN, "creating %s: the answer was lost %d times and it is still not there", key,
                        INIT_CREATE_TRIES);
}

/*
 * 1 when the table here is what an init of `schema` that stopped after
 * schema/schema-0 leaves (the same schema, apart from its time, in
 * schema-0, no later schema, no table.json, no snapshot): then a retried
 * init completes it.
 * 0 for anything else, which is a table of its own.
 */
static int half_made_by_init(sc_store *store, const sc_table_schema *schema) {
    char key[64];
    sc_schema_key(key, 0);
    uint8_t *data = NULL;
    size_t len = 0;
    sc_table_schema have;
    if (sc_store_get_bounded(store, &data, &len, NULL, key, SC_SCHEMA_MAX_BYTES) != 0) return 0;
    int rc = sc_schema_decode(&have, data, len, key);
    free(data);
    if (rc) return 0;
    sc_table_schema ours = *schema; /* a shallow copy, only encoded */
    ours.time_millis = have.time_millis;
    sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT;
    int same = sc_schema_encode(&a, &ours) == 0 && sc_schema_encode(&b, &have) == 0 && a.len == b.len &&
               memcmp(a.data, b.data, a.len) == 0;
    sc_buf_free(&a);
    sc_buf_free(&b);
    sc_schema_clear(&have);
    /* Nothing after it: schema-0 is the only schema file, no table.json, no snapshot. */
    static const struct { const char *prefix; size_t count; } only[] = {
        {"schema/schema-", 1}, {SC_TABLE_META_KEY, 0}, {"snapshot/", 0}};
    for (size_t i = 0; same && i < sizeof only / sizeof *only; i++) {
        sc_list_page page = {0};
        same = sc_store_list(store, &page, only[i].prefix, NULL, 2) == 0 && page.count == only[i].count;
        sc_list_page_free(&page);
    }
    sc_error_clear();
    return same;
}

/*
 * Write schema/schema-0, or adopt the one a Paimon table already has (no
 * schema given), or find the one a failed init of this schema left (then
 * this init completes that table).
 */
static int write_schema(sc_store *store, const sc_table_schema *schema) {
    char key[64];
    sc_schema_key(key, 0);
    sc_object_info info;
    int have = sc_store_head(store, &info, key) == 0;
    sc_error_clear();
    if (have && !schema) {
        /* A table snapcommit committed to that lost its table.json is not adopted a second time. */
        int lost = sc_store_head(store, &info, SC_HISTORY_MARKER_KEY) == 0;
        sc_error_clear();
        if (lost)
            return sc_error_set(SC_ECORRUPT, "%s exists: snapcommit committed to this table, whose %s was lost or "
                                             "deleted; restore it (see docs/operations.md) instead of adopting the "
                                             "table again", SC_HISTORY_MARKER_KEY, SC_TABLE_META_KEY);
        sc_log(SC_LOG_INFO, "adopting the Paimon table at this location (%s exists)", key);
        return 0;
    }
    if (!have) {
        sc_table_schema empty;
        int rc = schema ? 0 : sc_schema_empty(&empty);
        sc_buf text = SC_BUF_INIT;
        if (!rc) rc = sc_schema_encode(&text, schema ? schema : &empty);
        if (!schema) sc_schema_clear(&empty);
        /* A conditional create: two inits cannot both write it, and an existing table is never touched. */
        if (!rc) rc = create_reconciled(store, key, text.data, text.len);
        sc_buf_free(&text);
        if (rc != SC_EEXISTS) return rc;
        sc_error_clear();
    }
    if (schema && half_made_by_init(store, schema)) {
        sc_log(SC_LOG_INFO, "%s holds this schema and no table was made with it yet (an init that stopped "
                            "early): completing that table", key);
        return 0;
    }
    if (schema)
        return sc_error_set(SC_ETABLEEXISTS,
                            "a table already exists here (%s is present); open it, or init without a schema to adopt it", key);
    return sc_error_set(SC_ETABLEEXISTS, "a table already exists here (%s is present)", key);
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
     * existing table is never touched. Its bytes hold a fresh UUID, so bytes
     * read back after a lost answer are ours only if our request landed. */
    if (!rc) rc = create_reconciled(store, SC_TABLE_META_KEY, buf.data, buf.len);
    sc_buf_free(&buf);
    if (rc == SC_EEXISTS)
        return sc_error_set(SC_ETABLEEXISTS, "a table already exists here (%s is present)",
                            SC_TABLE_META_KEY);
    return rc;
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

/* The highest id among listed schema/schema-<id> keys; -1 when there is none. */
static int64_t schema_best(const sc_list_page *page) {
    int64_t best = -1;
    for (size_t i = 0; i < page->count; i++) {
        const char *digits = page->keys[i] + strlen("schema/schema-");
        char *end;
        errno = 0;
        long long id = strtoll(digits, &end, 10);
        if (!*digits || *end || errno || id < 0 || (digits[0] == '0' && digits[1])) continue; /* not a schema file */
        if (id > best) best = id;
    }
    return best;
}

/* init writes schema-0 before metadata/table.json, so a table without any lost it:
 * refused, never read as the empty schema (a commit would then add unpartitioned
 * files to a partitioned table). */
static int schema_lost(void) {
    return sc_error_set(SC_ECORRUPT, "schema/schema-0 is missing (the table's schema was lost; init writes it first)");
}

/* Decode schema-<id>'s bytes (rc: how reading them went), which must carry that id. */
static int schema_from(sc_table_schema *out, int rc, const uint8_t *data, size_t len, int64_t id, int listed) {
    char key[64];
    sc_schema_key(key, id);
    if (rc == SC_ENOTFOUND && listed) return sc_error_set(SC_ECORRUPT, "%s: listed but missing", key);
    if (rc == SC_ENOTFOUND) return sc_error_set(SC_ENOTFOUND, "%s is missing", key);
    if (rc) return sc_error_wrap(rc, "reading %s", key);
    rc = sc_schema_decode(out, data, len, key);
    if (!rc && out->id != id) {
        sc_schema_clear(out);
        rc = sc_error_set(SC_ECORRUPT, "%s: its field \"id\" is not %" PRId64, key, id);
    }
    return rc;
}

/* The table's current schema: the highest schema/schema-<id> (Paimon's ALTERs add schema-1, ...). */
static int load_schema(sc_table *t) {
    sc_list_page page = {0};
    int rc = sc_store_list_all(t->store, &page, "schema/schema-");
    if (rc) return sc_error_wrap(rc, "listing schema/");
    int64_t best = schema_best(&page);
    sc_list_page_free(&page);
    if (best < 0) return schema_lost();
    uint8_t *data = NULL;
    size_t len = 0;
    char key[64];
    sc_schema_key(key, best);
    rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_SCHEMA_MAX_BYTES);
    rc = schema_from(&t->schema, rc, data, len, best, 1);
    free(data);
    return rc;
}

/*
 * Every snapshot names the table's latest schema (Paimon's schemaId), and an
 * ALTER TABLE adds schema/schema-<k+1> with no snapshot: one HEAD of the next
 * id per commit sees it (outside the claim window). The handle's first commit
 * skips it, as the open just listed the schemas. A newer one is loaded whole
 * (a LIST finds the highest, should several ALTERs have run).
 */
int sc_table_refresh_schema(sc_table *t) {
    if (t->schema_just_listed) {
        t->schema_just_listed = 0;
        return 0;
    }
    char key[64];
    sc_schema_key(key, t->schema.id + 1);
    sc_object_info info;
    int rc = sc_store_head(t->store, &info, key);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return 0;
    }
    if (rc) return sc_error_wrap(rc, "looking for a newer schema (%s)", key);
    sc_table_schema old = t->schema;
    memset(&t->schema, 0, sizeof t->schema);
    rc = load_schema(t);
    if (rc) {
        sc_schema_clear(&t->schema);
        t->schema = old;
        return rc;
    }
    sc_log(SC_LOG_INFO, "the table's schema is now schema/schema-%" PRId64 " (was %" PRId64 ")", t->schema.id, old.id);
    sc_schema_clear(&old);
    return 0;
}

int sc_table_read_schema(sc_table_schema *out, sc_table *t, int64_t id) {
    char key[64];
    sc_schema_key(key, id);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = sc_store_get_bounded(t->store, &data, &len, NULL, key, SC_SCHEMA_MAX_BYTES);
    rc = schema_from(out, rc, data, len, id, 0);
    free(data);
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

/*
 * No metadata/table.json here. A schema/schema-0 makes it a Paimon table that
 * snapcommit has not adopted (1 in *out_paimon); without one there is no table.
 */
static int no_table_json(int *out_paimon, sc_store *store) {
    char why[512];
    snprintf(why, sizeof why, "%s", sc_error_message());
    char key[64];
    sc_schema_key(key, 0);
    sc_object_info info;
    int rc = sc_store_head(store, &info, key);
    *out_paimon = rc == 0;
    if (rc == SC_ENOTFOUND || rc == 0) sc_error_clear();
    if (rc == SC_ENOTFOUND) return sc_error_set(SC_ENOTABLE, "no table here (%s); create one with 'snapcommit init'", why);
    if (rc) return sc_error_wrap(rc, "%s is missing; checking for a Paimon table (%s)", SC_TABLE_META_KEY, key);
    /* snapcommit writes the history marker after its first commit: with it, table.json
     * was lost, and adopting the table again would give it a second identity. */
    rc = sc_store_head(store, &info, SC_HISTORY_MARKER_KEY);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return 0;
    }
    if (rc) return sc_error_wrap(rc, "%s is missing; checking %s", SC_TABLE_META_KEY, SC_HISTORY_MARKER_KEY);
    *out_paimon = 0;
    return sc_error_set(SC_ECORRUPT, "%s is missing, but %s shows that snapcommit committed to this table: its "
                                     "table.json was lost or deleted (restore it, see docs/operations.md; do not "
                                     "init it again)", SC_TABLE_META_KEY, SC_HISTORY_MARKER_KEY);
}

int sc_table_adoption_error(const char *location) {
    return sc_error_set(SC_ENOTABLE,
                        "this is a Paimon table that snapcommit has not adopted (%s without %s); commands that only "
                        "read work on it as it is, but to write run 'snapcommit init %s' (no --schema) to adopt it "
                        "first: that writes %s and changes nothing else",
                        "schema/schema-0", SC_TABLE_META_KEY, location ? location : "TABLE", SC_TABLE_META_KEY);
}

int sc_table_check_adopted(sc_table *t) {
    return t->unadopted ? sc_table_adoption_error(NULL) : 0;
}

/* The handle of a Paimon table without metadata/table.json: read-only (t->unadopted). */
static int unadopted_meta(sc_table *t) {
    t->unadopted = 1;
    t->meta.format_version = 0;
    t->meta.table_uuid[0] = '\0';
    t->meta.strategy = SC_STRATEGY_AUTO; /* none chosen yet */
    /* Discovery through snapshot/ (the hints, then a listing), as Paimon's readers find
     * snapshots; its claim is never reached: every write checks t->unadopted first. */
    t->strategy = &sc_strategy_rename;
    return 0;
}

/*
 * What an open reads. One by one: table.json, then the schema listing, then the
 * schema. On a concurrent store (S3) in two round trips instead: table.json, the
 * listing and snapshot/LATEST together, then the schema and the snapshot LATEST
 * names together. Those snapshot bytes go to the strategy (t->opened_*) as its first
 * guess, which a commit or discovery confirms before relying on it (strategy_file.c);
 * a strategy without guesses frees them (one GET of LATEST wasted per open).
 */
enum { OPEN_META, OPEN_SCHEMAS, OPEN_HINT, OPEN_FIRST };
enum { OPEN_SCHEMA, OPEN_SNAPSHOT, OPEN_SECOND };

static int concurrent_store(sc_store *store) { return (sc_store_caps(store) & SC_CAP_CONCURRENT) != 0; }

/* The first batch: calls[OPEN_META]'s answer stands in for the single GET of table.json. */
static int open_first(sc_store *store, sc_store_call calls[OPEN_FIRST]) {
    calls[OPEN_META] = (sc_store_call){.op = SC_OP_GET, .key = SC_TABLE_META_KEY, .max_len = SC_TABLE_META_MAX_BYTES};
    calls[OPEN_SCHEMAS] = (sc_store_call){.op = SC_OP_LIST, .key = "schema/schema-"};
    calls[OPEN_HINT] = (sc_store_call){.op = SC_OP_GET, .key = SC_LATEST_HINT_KEY, .max_len = SC_HINT_MAX_BYTES};
    return sc_store_batch(store, sc_store_env(store), calls, OPEN_FIRST);
}

/* The schema from the first batch's listing, with the snapshot LATEST named (a guess). */
static int open_second(sc_table *t, sc_store_call first[OPEN_FIRST]) {
    if (first[OPEN_SCHEMAS].rc) {
        sc_store_call_error(&first[OPEN_SCHEMAS]);
        return sc_error_wrap(first[OPEN_SCHEMAS].rc, "listing schema/");
    }
    int64_t best = schema_best(&first[OPEN_SCHEMAS].page);
    /* init writes schema-0 before table.json, but in one batch the listing may have run
     * before either: looked at again one by one before it counts as lost. */
    if (best < 0) return load_schema(t);
    uint64_t hint = 0;
    if (t->strategy->guess && !t->unadopted && first[OPEN_HINT].rc == 0 &&
        sc_hint_parse(&hint, first[OPEN_HINT].out_data, first[OPEN_HINT].out_len) != 0)
        hint = 0; /* damaged: discovery reports it */
    char schema_key[64], snapshot_key[64];
    sc_schema_key(schema_key, best);
    sc_store_call calls[OPEN_SECOND];
    calls[OPEN_SCHEMA] = (sc_store_call){.op = SC_OP_GET, .key = schema_key, .max_len = SC_SCHEMA_MAX_BYTES};
    size_t n = 1;
    if (hint) {
        sc_snapshot_key(snapshot_key, hint);
        calls[n++] = (sc_store_call){.op = SC_OP_GET, .key = snapshot_key, .max_len = SC_SNAPSHOT_MAX_BYTES};
    }
    int rc = sc_store_batch(t->store, &t->env, calls, n);
    if (rc) return rc;
    if (calls[OPEN_SCHEMA].rc == SC_ENOTFOUND) rc = load_schema(t); /* the same race: once more, one by one */
    else if (calls[OPEN_SCHEMA].rc) rc = schema_from(&t->schema, sc_store_call_error(&calls[OPEN_SCHEMA]), NULL, 0, best, 1);
    else rc = schema_from(&t->schema, calls[OPEN_SCHEMA].rc, calls[OPEN_SCHEMA].out_data, calls[OPEN_SCHEMA].out_len, best, 1);
    if (!rc && n > OPEN_SNAPSHOT && calls[OPEN_SNAPSHOT].rc == 0) { /* anything else: discovery explains it */
        t->opened_id = hint;
        t->opened_doc = calls[OPEN_SNAPSHOT].out_data;
        t->opened_len = calls[OPEN_SNAPSHOT].out_len;
        calls[OPEN_SNAPSHOT].out_data = NULL;
    }
    for (size_t i = 0; i < n; i++) sc_store_call_clear(&calls[i]);
    return rc;
}

static void table_discard(sc_table *t) {
    sc_schema_clear(&t->schema);
    free(t->opened_doc);
    free(t);
}

static int table_open(sc_table **out, sc_store *store, unsigned flags, const char *location) {
    *out = NULL;
    if (!store) return sc_error_set(SC_EINVAL, "NULL store");
    if (flags & ~(unsigned)SC_OPEN_READ_UNADOPTED) return sc_error_set(SC_EINVAL, "unknown open flags %#x", flags);
    sc_store_call first[OPEN_FIRST];
    int batched = concurrent_store(store), rc;
    if (batched && (rc = open_first(store, first)) != 0) return rc;
    uint8_t *data = NULL;
    size_t len = 0;
    int paimon = 0;
    if (batched) {
        rc = sc_store_call_error(&first[OPEN_META]);
        data = first[OPEN_META].out_data;
        len = first[OPEN_META].out_len;
        first[OPEN_META].out_data = NULL;
    } else {
        rc = sc_store_get_bounded(store, &data, &len, NULL, SC_TABLE_META_KEY, SC_TABLE_META_MAX_BYTES);
    }
    if (rc == SC_ENOTFOUND) {
        if ((rc = no_table_json(&paimon, store)) == 0 && !(flags & SC_OPEN_READ_UNADOPTED))
            rc = sc_table_adoption_error(location);
    } else if (rc) {
        rc = sc_error_wrap(rc, "reading %s", SC_TABLE_META_KEY);
    }
    sc_table *t = rc ? NULL : calloc(1, sizeof *t);
    if (!rc && !t) rc = sc_error_set(SC_ENOMEM, "out of memory");
    if (!rc && paimon) {
        rc = unadopted_meta(t);
    } else if (!rc) {
        rc = sc_table_meta_decode(&t->meta, data, len);
        if (!rc) rc = strategy_for(&t->strategy, t->meta.strategy, sc_store_caps(store));
    }
    free(data);
    if (!rc) {
        t->store = store;
        t->env = *sc_store_env(store);
        sc_retry_policy_default(&t->retry);
        sc_decode_limits_default(&t->limits);
        rc = batched ? open_second(t, first) : load_schema(t);
    }
    if (batched)
        for (size_t i = 0; i < OPEN_FIRST; i++) sc_store_call_clear(&first[i]);
    if (rc) {
        if (t) table_discard(t);
        return rc;
    }
    t->schema_just_listed = 1;
    if (t->strategy->open && (rc = t->strategy->open(t, &t->strategy_state)) != 0) {
        table_discard(t);
        return rc;
    }
    free(t->opened_doc); /* what the strategy did not take */
    t->opened_doc = NULL;
    t->opened_id = 0;
    /* Up to a million cached records; without memory for it, work uncached. */
    if (sc_cache_new(&t->cache, 1u << 20, 4096) != 0) t->cache = NULL;
    *out = t;
    return 0;
}

int sc_table_open(sc_table **out, sc_store *store) { return table_open(out, store, 0, NULL); }

int sc_table_open_with_flags(sc_table **out, sc_store *store, unsigned flags) {
    return table_open(out, store, flags, NULL);
}

int sc_table_open_location(sc_table **out, const char *location) {
    return sc_table_open_location_with_flags(out, location, NULL, 0);
}

int sc_table_open_location_with_config(sc_table **out, const char *location,
                                       const sc_store_config *config) {
    return sc_table_open_location_with_flags(out, location, config, 0);
}

int sc_table_open_location_with_flags(sc_table **out, const char *location, const sc_store_config *config,
                                      unsigned flags) {
    *out = NULL;
    sc_store *store;
    int rc = sc_store_open_with_config(&store, location, config);
    if (rc) return rc;
    rc = table_open(out, store, flags, location);
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
    free(t->index_cache_name);
    sc_index_vec_free(&t->index_cache);
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


/* Decode snapshot `id` from the bytes read for it (sc_table_read_snapshot's checks). */
static int snapshot_from(sc_snapshot *out, uint8_t out_hash[SC_SHA256_LEN], sc_table *t, uint64_t id,
                         const uint8_t *data, size_t len) {
    char key[64];
    sc_snapshot_key(key, id);
    if (out_hash) sc_sha256(out_hash, data, len);
    int rc = sc_snapshot_decode(out, data, len, key);
    if (rc) return rc;
    if (out->id != id) {
        uint64_t recorded = out->id;
        sc_snapshot_clear(out);
        return sc_error_set(SC_ECORRUPT, "%s: its field \"id\" is %" PRIu64 ", not %" PRIu64 " (a snapshot copied or moved under another name)",
                            key, recorded, id);
    }
    if (!out->foreign && t->unadopted) {
        /* One of ours in a table without table.json: that file was lost, not never written. */
        char other[sizeof out->table_uuid];
        memcpy(other, out->table_uuid, sizeof other);
        sc_snapshot_clear(out);
        return sc_error_set(SC_ECORRUPT, "%s: written by snapcommit for table %s, but %s is missing (lost or deleted: "
                                         "restore it, see docs/operations.md)", key, other, SC_TABLE_META_KEY);
    }
    if (!out->foreign && strcmp(out->table_uuid, t->meta.table_uuid) != 0) {
        char other[sizeof out->table_uuid]; /* named after the snapshot is cleared */
        memcpy(other, out->table_uuid, sizeof other);
        sc_snapshot_clear(out);
        return sc_error_set(SC_ECORRUPT, "%s: belongs to table %s, not this table (%s, named by %s)", key, other,
                            t->meta.table_uuid, SC_TABLE_META_KEY);
    }
    return 0;
}

int sc_table_read_snapshot(sc_snapshot *out, uint8_t out_hash[SC_SHA256_LEN], sc_table *t,
                           uint64_t id) {
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = t->strategy->read(t, &data, &len, id);
    if (rc == SC_ENOTFOUND) return sc_error_set(SC_ENOTFOUND, "snapshot %" PRIu64 " does not exist", id);
    if (rc) return sc_error_wrap(rc, "reading snapshot %" PRIu64, id);
    rc = snapshot_from(out, out_hash, t, id, data, len);
    free(data);
    return rc;
}

int sc_table_read_snapshots(sc_snapshot *out, sc_table *t, uint64_t first, size_t n) {
    if (n > SC_TABLE_SNAPSHOTS_BATCH) return sc_error_set(SC_EINVAL, "%zu snapshots in one batch (at most %d)", n,
                                                          SC_TABLE_SNAPSHOTS_BATCH);
    int batched = n > 1 && t->strategy->snapshot_files_are_history && concurrent_store(t->store);
    /* About 24 KB of calls: on the heap, not on a caller's (JNI) stack. */
    sc_store_call *calls = batched ? malloc(SC_TABLE_SNAPSHOTS_BATCH * sizeof *calls) : NULL;
    char(*keys)[64] = batched ? malloc(SC_TABLE_SNAPSHOTS_BATCH * sizeof *keys) : NULL;
    if (batched && (!calls || !keys)) batched = 0; /* one by one instead */
    for (size_t i = 0; batched && i < n; i++) {
        sc_snapshot_key(keys[i], first + i);
        calls[i] = (sc_store_call){.op = SC_OP_GET, .key = keys[i], .max_len = SC_SNAPSHOT_MAX_BYTES};
    }
    int rc = batched ? sc_store_batch(t->store, &t->env, calls, n) : 0;
    size_t done = 0;
    for (; !rc && done < n; done++) {
        if (batched && calls[done].rc == 0) {
            rc = snapshot_from(&out[done], NULL, t, first + done, calls[done].out_data, calls[done].out_len);
            if (rc) break;
            continue;
        }
        if ((rc = sc_table_read_snapshot(&out[done], NULL, t, first + done)) != 0) break; /* says why */
    }
    for (size_t i = 0; batched && i < n; i++) sc_store_call_clear(&calls[i]);
    free(calls);
    free(keys);
    if (rc)
        for (size_t i = 0; i < done; i++) sc_snapshot_clear(&out[i]);
    return rc;
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
    i->schema_id = s.schema_id;
    i->has_watermark = s.has_watermark;
    i->watermark = s.watermark;
    i->has_changelog_record_count = s.has_changelog_record_count;
    i->changelog_record_count = s.changelog_record_count;
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

/* The changelog files of one snapshot (sc_state_read_retained's read for sc_table_changelog_files). */
static int read_changelog(void *ctx, sc_table *t, uint64_t id) {
    sc_entry_vec *out = ctx;
    if (id == 0) return 0;
    sc_snapshot s;
    int rc = sc_table_read_snapshot(&s, NULL, t, id);
    if (rc) return rc;
    sc_manifest_file_vec metas = {0};
    if (s.changelog_manifest_list.name) rc = sc_state_load_list(&metas, t, &s.changelog_manifest_list);
    for (size_t i = 0; !rc && i < metas.count; i++) rc = sc_state_load_manifest(out, t, &metas.items[i]);
    sc_manifest_file_vec_free(&metas);
    sc_snapshot_clear(&s);
    if (rc) sc_entry_vec_free(out);
    return rc;
}

static int files_of(sc_file_list **out, sc_table *t, uint64_t id, const char *what, sc_state_read_fn read) {
    *out = NULL;
    sc_entry_vec live = {0};
    /* The latest read again if an expiration removes it meanwhile (never reported as damage). */
    int rc = sc_state_read_retained(t, id, what, read, &live);
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

int sc_table_files(sc_file_list **out, sc_table *t, uint64_t id) { return files_of(out, t, id, "files", read_live); }

/* ---- sc_table_files_each: the live files of a snapshot, one at a time ---- */

typedef struct files_each {
    uint64_t requested; /* 0: the latest */
    sc_file_fn fn;
    void *ctx;
    int started; /* fn was called: the read cannot start again */
    int stop_rc; /* fn's non-zero return */
} files_each;

static int files_each_emit(void *c, const sc_file_entry *f) {
    files_each *fe = c;
    fe->started = 1;
    int rc = fe->fn(fe->ctx, f);
    if (!rc) return 0;
    fe->stop_rc = rc;
    return SC_EINVAL; /* stops the walk; stop_rc is what counts */
}

static int files_each_read(void *c, sc_table *t, uint64_t id) {
    files_each *fe = c;
    if (id == 0) return 0;
    sc_snapshot s;
    int rc = sc_table_read_snapshot(&s, NULL, t, id);
    if (rc) return rc;
    rc = sc_state_live_each(NULL, t, &s, NULL, files_each_emit, fe);
    sc_snapshot_clear(&s);
    if (fe->stop_rc) {
        sc_error_clear();
        return 0; /* the caller stopped the walk: its code is returned */
    }
    uint64_t earliest = 0;
    /* Files already handed over cannot be taken back: an expiration that removed the
     * latest snapshot while it was walked ends the walk (run it again) instead of
     * starting it over (sc_state_read_retained), which would hand them over twice. */
    if (rc && fe->started && !fe->requested && sc_state_expired_under(&earliest, t, id, &rc))
        rc = sc_error_set(SC_ETRANSIENT, "files: an expiration removed snapshot %" PRIu64 " (history now starts at %" PRIu64
                                         ") while its files were listed; run it again", id, earliest);
    return rc;
}

int sc_table_files_each(sc_table *t, uint64_t id, sc_file_fn fn, void *ctx) {
    if (!t || !fn) return sc_error_set(SC_EINVAL, "sc_table_files_each: NULL table or callback");
    files_each fe = {id, fn, ctx, 0, 0};
    int rc = sc_state_read_retained(t, id, "files", files_each_read, &fe);
    return rc ? rc : fe.stop_rc;
}

int sc_table_changelog_files(sc_file_list **out, sc_table *t, uint64_t id) {
    return files_of(out, t, id, "changelog files", read_changelog);
}

/* The list and the vector that owns what its entries point to. */
typedef struct index_list {
    sc_index_list list;
    sc_index_vec vec;
} index_list;

/* The index files of one snapshot (sc_state_read_retained's read for sc_table_index_files). */
static int read_index(void *ctx, sc_table *t, uint64_t id) {
    sc_index_vec *out = ctx;
    if (id == 0) return 0;
    sc_snapshot s;
    int rc = sc_table_read_snapshot(&s, NULL, t, id);
    if (rc) return rc;
    if (s.index_manifest) rc = sc_index_state_load(out, t, s.index_manifest);
    sc_snapshot_clear(&s);
    return rc;
}

int sc_table_index_files(sc_index_list **out, sc_table *t, uint64_t id) {
    *out = NULL;
    index_list *l = calloc(1, sizeof *l);
    if (!l) return sc_error_set(SC_ENOMEM, "out of memory");
    int rc = sc_state_read_retained(t, id, "index files", read_index, &l->vec);
    if (!rc && !(l->list.entries = calloc(l->vec.count ? l->vec.count : 1, sizeof *l->list.entries)))
        rc = sc_error_set(SC_ENOMEM, "out of memory");
    if (rc) {
        sc_index_vec_free(&l->vec);
        free(l);
        return rc;
    }
    for (size_t i = 0; i < l->vec.count; i++) l->list.entries[i] = l->vec.items[i].entry;
    l->list.count = l->vec.count;
    *out = &l->list;
    return 0;
}

void sc_index_list_free(sc_index_list *list) {
    if (!list) return;
    index_list *l = (index_list *)(void *)list; /* the list is the first member */
    free(l->list.entries);
    sc_index_vec_free(&l->vec);
    free(l);
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

int sc_table_parse_checkpoint(sc_changes **out_append, sc_changes **out_compact, int *out_has_watermark,
                              int64_t *out_watermark, sc_table *t, const char *json, size_t len) {
    if (!out_append || !out_compact) return sc_error_set(SC_EINVAL, "NULL output");
    *out_append = *out_compact = NULL;
    if (!t || !json) return sc_error_set(SC_EINVAL, "NULL table or change-set text");
    return sc_changes_parse_checkpoint_json(out_append, out_compact, out_has_watermark, out_watermark, &t->schema, json,
                                            len);
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

int sc_table_parse_checkpoint_request(sc_changes **out_append, sc_changes **out_compact, int *out_has_watermark,
                                      int64_t *out_watermark, sc_overwrite_scope *out_scope, char **out_partition,
                                      sc_table *t, const char *json, size_t len) {
    if (!out_append || !out_compact || !out_scope || !out_partition) return sc_error_set(SC_EINVAL, "NULL output");
    *out_append = *out_compact = NULL;
    *out_partition = NULL;
    if (!t || !json) return sc_error_set(SC_EINVAL, "NULL table or change-set text");
    return sc_changes_parse_request_json(out_append, out_compact, out_has_watermark, out_watermark, out_scope,
                                         out_partition, &t->schema, json, len);
}
