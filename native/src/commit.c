/*
 * The commit engine (Paimon's semantics, BRIEF §4):
 *   read latest → replay filter → conflict check → write immutable manifests
 *   → claim N+1 → on a lost claim re-read, re-check what changed since, back
 *   off and retry → publish hints.
 * An unknown claim outcome is reconciled (read back our commit UUID, or the
 * watermark) before anything else happens; it is never assumed to have failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backoff.h"
#include "conflict.h"
#include "env_internal.h"
#include "error_internal.h"
#include "fileset.h"
#include "state.h"
#include "table_internal.h"

/* Above this many manifests in a base list, the next commit rewrites them merged. */
#define SC_MANIFEST_MERGE_THRESHOLD 32
/* Entries per manifest when merged (keeps partition ranges tight and objects bounded). */
#define SC_MANIFEST_MERGE_CHUNK 100000

typedef struct commit_state {
    sc_table *t;
    const sc_commit_request *req;
    char commit_uuid[SC_UUID_TEXT_LEN + 1];
    sc_partition_set parts;
    sc_entry_vec deletes; /* the live records removed, as stored (per attempt for OVERWRITE) */
    /* Objects written by this commit, deleted again if it fails for sure. */
    char **written;
    size_t written_count;
    /* The delta manifest list, written once (per attempt for OVERWRITE). */
    sc_object_ref delta_list;
    int64_t delta_rows;
    int64_t delta_files;
} commit_state;

static int remember(commit_state *cs, const char *key) {
    char **w = realloc(cs->written, (cs->written_count + 1) * sizeof *w);
    if (!w) return sc_error_set(SC_ENOMEM, "out of memory");
    cs->written = w;
    if (!(w[cs->written_count] = strdup(key))) return sc_error_set(SC_ENOMEM, "out of memory");
    cs->written_count++;
    return 0;
}

/* Write an immutable object under a fresh unique name. */
static int put_unique(commit_state *cs, sc_object_ref *out, const char *prefix, const sc_buf *body) {
    char uuid[SC_UUID_TEXT_LEN + 1], key[128];
    int rc = sc_env_uuid_text(&cs->t->env, uuid);
    if (rc) return rc;
    snprintf(key, sizeof key, "manifest/%s-%s", prefix, uuid);
    rc = sc_store_put(cs->t->store, NULL, key, body->data, body->len);
    if (rc) return sc_error_wrap(rc, "writing %s", key);
    if ((rc = remember(cs, key)) != 0) return rc;
    out->name = strdup(key);
    if (!out->name) return sc_error_set(SC_ENOMEM, "out of memory");
    sc_sha256(out->sha256, body->data, body->len);
    out->length = body->len;
    return 0;
}

static void describe_range(sc_manifest_meta *m, const sc_entry_vec *v, size_t from, size_t to) {
    sc_bytes min = v->items[from].file.partition, max = min;
    for (size_t i = from; i < to; i++) {
        sc_bytes p = v->items[i].file.partition;
        if (sc_bytes_compare(p, min) < 0) min = p;
        if (sc_bytes_compare(p, max) > 0) max = p;
        if (v->items[i].kind == SC_ENTRY_ADD) m->added++;
        else m->deleted++;
    }
    m->min_partition = (uint8_t *)min.data;
    m->min_partition_len = min.len;
    m->max_partition = (uint8_t *)max.data;
    m->max_partition_len = max.len;
}

/* Write entries [from, to) of v as one manifest and add its meta to `list`. */
static int write_manifest(commit_state *cs, sc_meta_vec *list, const sc_entry_vec *v, size_t from,
                          size_t to) {
    sc_entry_vec part = {v->items + from, to - from, to - from}; /* borrowed view */
    sc_buf body = SC_BUF_INIT;
    sc_object_ref ref = {0};
    int rc = sc_manifest_encode(&body, &part);
    if (!rc) rc = put_unique(cs, &ref, "manifest", &body);
    if (!rc) {
        sc_manifest_meta m = {0};
        m.name = ref.name;
        memcpy(m.sha256, ref.sha256, SC_SHA256_LEN);
        m.length = ref.length;
        describe_range(&m, v, from, to);
        rc = sc_meta_vec_push(list, &m);
    }
    free(ref.name);
    sc_buf_free(&body);
    return rc;
}

static int write_list(commit_state *cs, sc_object_ref *out, const sc_meta_vec *list) {
    sc_buf body = SC_BUF_INIT;
    int rc = sc_manifest_list_encode(&body, list);
    if (!rc) rc = put_unique(cs, out, "manifest-list", &body);
    sc_buf_free(&body);
    return rc;
}

static void ref_clear(sc_object_ref *r) {
    free(r->name);
    memset(r, 0, sizeof *r);
}

/* The delta: deletes first, so a file moved between levels (delete + add) merges right. */
static int write_delta(commit_state *cs) {
    const sc_changes *c = cs->req->changes;
    const sc_entry_vec *deletes = &cs->deletes;
    sc_entry_vec all = {0};
    sc_meta_vec list = {0};
    int rc = 0;
    cs->delta_rows = 0;
    cs->delta_files = 0;
    for (size_t i = 0; !rc && i < deletes->count; i++) {
        rc = sc_entry_vec_push(&all, SC_ENTRY_DELETE, &deletes->items[i].file);
        if (!rc && __builtin_sub_overflow(cs->delta_rows, deletes->items[i].file.rows, &cs->delta_rows))
            rc = sc_error_set(SC_EINVAL, "the row counts of the deleted files overflow a 64-bit count");
        cs->delta_files--;
    }
    for (size_t i = 0; !rc && i < c->adds.count; i++) {
        rc = sc_entry_vec_push(&all, SC_ENTRY_ADD, &c->adds.items[i].file);
        if (!rc && __builtin_add_overflow(cs->delta_rows, c->adds.items[i].file.rows, &cs->delta_rows))
            rc = sc_error_set(SC_EINVAL, "the row counts of the added files overflow a 64-bit count (%s declares %" PRId64 ")",
                              c->adds.items[i].file.file, c->adds.items[i].file.rows);
        cs->delta_files++;
    }
    if (!rc && all.count) rc = write_manifest(cs, &list, &all, 0, all.count);
    ref_clear(&cs->delta_list);
    if (!rc) rc = write_list(cs, &cs->delta_list, &list);
    sc_meta_vec_free(&list);
    sc_entry_vec_free(&all);
    return rc;
}

static int by_partition(const void *pa, const void *pb) {
    const sc_manifest_entry *a = pa, *b = pb;
    int c = sc_bytes_compare(a->file.partition, b->file.partition);
    if (c) return c;
    return a->file.bucket < b->file.bucket ? -1 : a->file.bucket > b->file.bucket;
}

/*
 * The base list of snapshot N+1 is everything N held: N's base and delta
 * manifests. When that grows past the threshold, merge it into a few
 * manifests of live files sorted by partition — an occasional O(table) read
 * that keeps every later read short.
 */
static int write_base(commit_state *cs, sc_object_ref *out, const sc_snapshot *latest) {
    sc_meta_vec list = {0};
    int rc = 0;
    if (latest) {
        rc = sc_state_load_list(&list, cs->t, &latest->base_manifest_list);
        if (!rc) rc = sc_state_load_list(&list, cs->t, &latest->delta_manifest_list);
    }
    if (!rc && list.count > SC_MANIFEST_MERGE_THRESHOLD) {
        sc_entry_vec live = {0};
        sc_meta_vec merged = {0};
        rc = sc_state_live_files(&live, cs->t, latest, NULL);
        if (!rc && live.count) qsort(live.items, live.count, sizeof *live.items, by_partition);
        for (size_t from = 0; !rc && from < live.count; from += SC_MANIFEST_MERGE_CHUNK) {
            size_t to = from + SC_MANIFEST_MERGE_CHUNK < live.count ? from + SC_MANIFEST_MERGE_CHUNK : live.count;
            rc = write_manifest(cs, &merged, &live, from, to);
        }
        if (!rc) {
            sc_meta_vec_free(&list);
            list = merged;
            memset(&merged, 0, sizeof merged);
            sc_log(SC_LOG_INFO, "merged the manifests of snapshot %" PRIu64 " into %zu", latest->id, list.count);
        }
        sc_meta_vec_free(&merged);
        sc_entry_vec_free(&live);
    }
    if (!rc) rc = write_list(cs, out, &list);
    sc_meta_vec_free(&list);
    return rc;
}

static int build_snapshot(commit_state *cs, sc_buf *out, const sc_snapshot *latest,
                          const uint8_t latest_hash[SC_SHA256_LEN], const sc_object_ref *base) {
    const sc_commit_request *req = cs->req;
    sc_snapshot s = {0};
    s.id = latest ? latest->id + 1 : 1;
    memcpy(s.table_uuid, cs->t->meta.table_uuid, sizeof s.table_uuid);
    memcpy(s.commit_uuid, cs->commit_uuid, sizeof s.commit_uuid);
    s.commit_user = (char *)req->commit_user;
    s.commit_identifier = req->identifier;
    s.commit_kind = req->kind;
    s.time_millis = sc_env_now_ms(&cs->t->env);
    s.delta_record_count = cs->delta_rows;
    /* A count the reader would reject must never be written: it would make the table unreadable. */
    if (__builtin_add_overflow(latest ? latest->total_record_count : 0, cs->delta_rows, &s.total_record_count) ||
        s.total_record_count < 0)
        return sc_error_set(SC_EINVAL, "the table's record count would leave 0..%" PRId64 " (snapshot %" PRIu64
                                       " holds %" PRId64 ", this commit adds %" PRId64 ")",
                            INT64_MAX, latest ? latest->id : 0, latest ? latest->total_record_count : 0, cs->delta_rows);
    s.file_count = (uint64_t)((int64_t)(latest ? latest->file_count : 0) + cs->delta_files);
    if (latest) {
        s.has_parent = 1;
        memcpy(s.parent_hash, latest_hash, SC_SHA256_LEN);
    }
    s.base_manifest_list = *base;
    s.delta_manifest_list = cs->delta_list;
    int rc = sc_snapshot_set_watermarks(&s, latest, req->commit_user, req->identifier, s.id);
    if (!rc) rc = sc_snapshot_encode(out, &s);
    for (size_t i = 0; i < s.watermark_count; i++) free(s.watermarks[i].user);
    free(s.watermarks);
    return rc;
}

static int validate_request(const sc_commit_request *req) {
    if (!req || !req->changes) return sc_error_set(SC_EINVAL, "commit request and its changes are required");
    if (!req->commit_user || !*req->commit_user)
        return sc_error_set(SC_EINVAL, "commit user must be non-empty");
    if (strlen(req->commit_user) > SC_USER_MAX_LEN)
        return sc_error_set(SC_EINVAL, "commit user is longer than %d bytes", SC_USER_MAX_LEN);
    if (!sc_utf8_valid(req->commit_user))
        return sc_error_set(SC_EINVAL, "commit user is not valid UTF-8");
    int rc = sc_name_check("commit user", (const uint8_t *)req->commit_user, strlen(req->commit_user));
    if (rc) return rc;
    if (req->identifier < 0)
        return sc_error_set(SC_EINVAL, "identifier %" PRId64 " is negative", req->identifier);
    if (!sc_commit_kind_name(req->kind)) return sc_error_set(SC_EINVAL, "unknown commit kind %d", (int)req->kind);
    return 0;
}

enum { LANDED_NONE = 0, LANDED_OURS = 1, LANDED_OTHER = 2 };

/* Whose snapshot is at `id`: LANDED_* by our commit UUID, or a negative read error. */
static int landed_at(commit_state *cs, uint64_t id) {
    sc_snapshot s;
    int rc = sc_table_read_snapshot(&s, NULL, cs->t, id);
    if (rc == SC_ENOTFOUND) {
        sc_error_clear();
        return LANDED_NONE;
    }
    if (rc) return rc;
    int mine = strcmp(s.commit_uuid, cs->commit_uuid) == 0;
    sc_snapshot_clear(&s);
    return mine ? LANDED_OURS : LANDED_OTHER;
}

static void stats_diff(sc_store_stats *out, const sc_store_stats *before, const sc_store_stats *after) {
    for (int i = 0; i < SC_OP_COUNT; i++) out->ops[i] = after->ops[i] - before->ops[i];
    out->bytes_read = after->bytes_read - before->bytes_read;
    out->bytes_written = after->bytes_written - before->bytes_written;
}

static void cleanup_written(commit_state *cs) {
    for (size_t i = 0; i < cs->written_count; i++) {
        if (sc_store_delete(cs->t->store, cs->written[i]) != 0)
            sc_log(SC_LOG_DEBUG, "could not remove unreferenced %s", cs->written[i]);
    }
}

static int commit_loop(commit_state *cs, sc_commit_result *res) {
    sc_table *t = cs->t;
    const sc_commit_request *req = cs->req;
    int64_t started = sc_env_monotonic_ms(&t->env);
    /* Snapshot through which the changes are known valid against the live files. */
    uint64_t validated = 0;
    int have_validated = 0;
    int delta_written = 0;
    uint64_t unknown_id = 0; /* claim whose answer was lost, until reconciled */
    int had_unknown = 0;     /* any claim of this commit had an unknown outcome */

    for (int attempt = 0;; attempt++) {
        uint64_t latest_id = 0;
        sc_snapshot latest = {0};
        uint8_t latest_hash[SC_SHA256_LEN] = {0};
        sc_object_ref base = {0};
        sc_buf doc = SC_BUF_INIT;
        int rc = t->strategy->latest(t, &latest_id);
        if (!rc && latest_id) rc = sc_table_read_snapshot(&latest, latest_hash, t, latest_id);
        if (rc) goto fail;

        /* Replay filter and reconciliation, from the latest snapshot alone. */
        const sc_watermark *w = latest_id ? sc_snapshot_watermark(&latest, req->commit_user) : NULL;
        if (unknown_id && unknown_id <= latest_id) {
            int who = landed_at(cs, unknown_id);
            if (who < 0) {
                rc = who;
                goto fail;
            }
            if (who == LANDED_OURS) goto reconciled;
            if (who == LANDED_OTHER) unknown_id = 0; /* that id is taken: our claim cannot land */
        }
        if (w && w->identifier == req->identifier && had_unknown) {
            /* The watermark names our identifier: ours if the snapshot carries our UUID. */
            int who = landed_at(cs, w->snapshot_id);
            if (who < 0) {
                rc = who;
                goto fail;
            }
            if (who == LANDED_OURS) {
                unknown_id = w->snapshot_id;
                goto reconciled;
            }
        }
        if (w && w->identifier >= req->identifier) {
            res->existing_snapshot = w->identifier == req->identifier ? w->snapshot_id : 0;
            rc = sc_error_set(SC_ECOMMITTED,
                              "user \"%s\" already committed identifier %" PRId64
                              " (snapshot %" PRIu64 "); identifier %" PRId64 " is %s: nothing written",
                              req->commit_user, w->identifier, w->snapshot_id, req->identifier,
                              w->identifier == req->identifier ? "a replay" : "not above the watermark");
            goto fail;
        }
        if (req->base_snapshot > latest_id) {
            rc = sc_error_set(SC_EINVAL, "base snapshot %" PRIu64 " is newer than the latest snapshot %" PRIu64,
                              req->base_snapshot, latest_id);
            goto fail;
        }

        /*
         * Conflicts. The first attempt checks the live files of the touched
         * partitions (cached manifests make that cheap for a long-lived
         * handle), even on an empty table and even when the caller names a
         * base snapshot: a delta that deletes a file that is not live would
         * make every later read fail, so it is never written on trust. When
         * the caller planned against an older base, the snapshots since are
         * checked first, for the message that names who changed what.
         * Retries after a lost claim check only what was committed since.
         */
        if (!have_validated && req->base_snapshot && req->base_snapshot < latest_id &&
            req->kind != SC_KIND_OVERWRITE)
            rc = sc_conflict_check_since(t, req->base_snapshot, &latest, req->changes, req->kind, &cs->parts);
        if (!rc && (req->kind == SC_KIND_OVERWRITE || !have_validated)) {
            sc_entry_vec_free(&cs->deletes);
            rc = sc_conflict_check_full(&cs->deletes, t, latest_id ? &latest : NULL, req->changes, req->kind,
                                        &cs->parts);
            delta_written = 0;
        } else if (!rc && latest_id > validated) {
            rc = sc_conflict_check_since(t, validated, &latest, req->changes, req->kind, &cs->parts);
        }
        if (rc) goto fail;
        validated = latest_id;
        have_validated = 1;

        if (!delta_written) {
            if ((rc = write_delta(cs)) != 0) goto fail;
            delta_written = 1;
        }
        if ((rc = write_base(cs, &base, latest_id ? &latest : NULL)) != 0) goto fail;
        if ((rc = build_snapshot(cs, &doc, latest_id ? &latest : NULL, latest_hash, &base)) != 0) goto fail;

        uint64_t id = latest_id + 1;
        res->attempts++;
        rc = t->strategy->claim(t, id, doc.data, doc.len);
        if (rc == SC_EEXISTS && !had_unknown) {
            /* Certainly lost: no snapshot can name this attempt's base list. */
            if (sc_store_delete(t->store, base.name) != 0) sc_error_clear();
        }
        if (rc == SC_EUNKNOWN) {
            res->unknown_outcomes++;
            unknown_id = id;
            had_unknown = 1;
            sc_log(SC_LOG_WARN, "claim of snapshot %" PRIu64 " by user %s (identifier %" PRId64 ") has an unknown outcome; reconciling",
                   id, req->commit_user, req->identifier);
            int who = landed_at(cs, id);
            /* Visible is not yet durable: only a successful sync makes it a success. */
            if (who == LANDED_OURS) rc = sc_store_sync(t->store) == 0 ? 0 : SC_EUNKNOWN;
            else if (who == LANDED_OTHER) {
                rc = SC_EEXISTS;
                unknown_id = 0;
            } else rc = SC_EUNKNOWN; /* absent or unreadable: decide on the next attempt */
        }
        if (rc == 0) {
            res->snapshot_id = id;
            t->strategy->after_commit(t, id);
            if (id == 1) sc_table_mark_history(t); /* tells a lost history from a new table */
            sc_log(SC_LOG_INFO, "committed snapshot %" PRIu64 " (user %s, identifier %" PRId64 ", %s)", id,
                   req->commit_user, req->identifier, sc_commit_kind_name(req->kind));
        } else if (rc == SC_EEXISTS || rc == SC_EUNKNOWN) {
            if (rc == SC_EEXISTS) res->lost_claims++;
            sc_log(SC_LOG_WARN, "%s the claim of snapshot %" PRIu64 " (user %s, identifier %" PRId64 ", %s); attempt %d of %d",
                   rc == SC_EEXISTS ? "lost" : "could not confirm", id, req->commit_user, req->identifier,
                   sc_commit_kind_name(req->kind), attempt + 1, t->retry.max_retries + 1);
        }
        ref_clear(&base);
        sc_buf_free(&doc);
        sc_snapshot_clear(&latest);
        if (rc == 0) return 0;
        if (rc != SC_EEXISTS && rc != SC_EUNKNOWN) {
            if (!unknown_id) return rc;
            /* The message must not read as "not committed": the earlier claim may have landed. */
            return sc_error_wrap(SC_EUNKNOWN, "the outcome of the claim of snapshot %" PRIu64 " is unknown (it may have landed), and then",
                                 unknown_id);
        }

        if (attempt >= t->retry.max_retries) {
            if (unknown_id)
                return sc_error_set(SC_EUNKNOWN, "claim of snapshot %" PRIu64 " could not be reconciled after %d attempts",
                                    unknown_id, attempt + 1);
            return sc_error_set(SC_ERETRIES, "gave up after %d lost claims (user %s, identifier %" PRId64 "); raise the retry limit (CLI --max-retries, Flink commit.max-retries) or the retry waits",
                                attempt + 1, req->commit_user, req->identifier);
        }
        uint32_t r = 0;
        sc_env_random(&t->env, &r, sizeof r);
        int64_t wait = sc_backoff_wait_ms(&t->retry, attempt, r);
        if (t->retry.timeout_ms > 0 && sc_env_monotonic_ms(&t->env) - started + wait > t->retry.timeout_ms) {
            if (unknown_id)
                return sc_error_set(SC_EUNKNOWN,
                                    "commit timeout of %" PRId64 " ms exceeded after %d attempts while the outcome of "
                                    "the claim of snapshot %" PRIu64 " is unknown: it may have landed; check with last-committed",
                                    t->retry.timeout_ms, attempt + 1, unknown_id);
            return sc_error_set(SC_ETIMEOUT, "commit timeout of %" PRId64 " ms exceeded after %d attempts; nothing was committed",
                                t->retry.timeout_ms, attempt + 1);
        }
        sc_env_sleep_ms(&t->env, wait);
        continue;
    reconciled:
        if (sc_store_sync(t->store) != 0) {
            sc_snapshot_clear(&latest);
            return sc_error_wrap(SC_EUNKNOWN, "snapshot %" PRIu64 " is ours and visible, but making it durable failed",
                                 unknown_id);
        }
        res->snapshot_id = unknown_id;
        t->strategy->after_commit(t, unknown_id);
        if (unknown_id == 1) sc_table_mark_history(t);
        sc_log(SC_LOG_INFO, "reconciled: snapshot %" PRIu64 " is ours (user %s, identifier %" PRId64 ")",
               unknown_id, req->commit_user, req->identifier);
        sc_snapshot_clear(&latest);
        return 0;
    fail:
        ref_clear(&base);
        sc_buf_free(&doc);
        sc_snapshot_clear(&latest);
        if (unknown_id && rc != SC_ECOMMITTED) {
            if (rc != SC_EUNKNOWN)
                sc_error_wrap(SC_EUNKNOWN, "the outcome of the claim of snapshot %" PRIu64 " is unknown (it may have landed), and then",
                              unknown_id);
            return SC_EUNKNOWN;
        }
        return rc;
    }
}

int sc_table_commit(sc_commit_result *out, sc_table *t, const sc_commit_request *req) {
    sc_commit_result local;
    sc_commit_result *res = out ? out : &local;
    memset(res, 0, sizeof *res);
    if (!t) return sc_error_set(SC_EINVAL, "NULL table");
    int rc = validate_request(req);
    if (rc) return rc;
    sc_error_clear();
    commit_state cs = {0};
    cs.t = t;
    cs.req = req;
    sc_store_stats before, after;
    sc_store_stats_get(&before, t->store);
    int64_t started = sc_env_monotonic_ms(&t->env);
    rc = sc_env_uuid_text(&t->env, cs.commit_uuid);
    if (!rc) rc = sc_partition_set_build(&cs.parts, &req->changes->adds, &req->changes->deletes);
    if (!rc) rc = commit_loop(&cs, res);
    /* Objects of a commit that certainly did not land are garbage; with an
     * unknown outcome they may be referenced, so they stay. */
    if (rc && rc != SC_EUNKNOWN) {
        char message[1024];
        snprintf(message, sizeof message, "%s", sc_error_message());
        cleanup_written(&cs);
        sc_error_set(rc, "%s", message); /* the clean-up's own calls must not hide why we failed */
    }
    sc_store_stats_get(&after, t->store);
    stats_diff(&res->stats, &before, &after);
    res->elapsed_ms = sc_env_monotonic_ms(&t->env) - started;
    for (size_t i = 0; i < cs.written_count; i++) free(cs.written[i]);
    free(cs.written);
    ref_clear(&cs.delta_list);
    sc_entry_vec_free(&cs.deletes);
    sc_partition_set_free(&cs.parts);
    return rc;
}
