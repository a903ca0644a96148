/*
 * S3 backend operations: get, head, put (plain, sent once, If-None-Match, If-Match),
 * list and delete mapped onto the sc_store_ops table, over the transport of
 * s3_transport.c; the store is configured by s3_config.c. Semantics: see
 * store_s3.h.
 */
#include "s3/store_s3.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error_internal.h"
#include "base/clock.h"
#include "base/hash.h"
#include "s3/s3_config.h"
#include "s3/s3_transport.h"
#include "base/vec.h"
#include "s3/s3_xml.h"
#include "snapcommit/store.h"

/* ---- keys ---- */

/* prefix + "/" + key, within S3's 1024-byte limit. */
static int object_key(const sc_s3_store *s, char **out, const char *key) {
    size_t plen = strlen(s->prefix), klen = strlen(key);
    size_t n = plen + (plen ? 1 : 0) + klen;
    if (n > SC_S3_KEY_MAX)
        return sc_s3_error(s, SC_EINVAL, "%s/%.200s...: key too long for S3 (%zu bytes with the "
                                         "prefix, at most %d)",
                           s->location, key, n, SC_S3_KEY_MAX);
    char *k = malloc(n + 1);
    if (!k) return sc_error_set(SC_ENOMEM, "out of memory");
    memcpy(k, s->prefix, plen);
    if (plen) k[plen] = '/';
    memcpy(k + plen + (plen ? 1 : 0), key, klen + 1);
    *out = k;
    return 0;
}

static void info_from(sc_object_info *info, const sc_s3_resp *r, uint64_t size) {
    if (!info) return;
    info->size = size;
    info->mtime_ms = r->mtime_ms;
    snprintf(info->etag, sizeof info->etag, "%s", r->etag);
}

static int etag_check(const sc_s3_store *s, const char *method, const char *object,
                      const sc_s3_resp *r) {
    if (!r->etag_overflow) return 0;
    return sc_s3_error(s, SC_EIO, "%s s3://%s/%s: the ETag is longer than %d bytes", method,
                       s->bucket, object, SC_ETAG_MAX - 1);
}

/* ---- operations ---- */

/*
 * GET, accepting a body of at most max_len bytes (SIZE_MAX: any). A larger
 * one is cut off by the transport's write callback once the body passes the
 * cap (the transfer is aborted, never retried), so at most about max_len
 * bytes plus one network chunk are ever held.
 */
static int s3_get_bounded(void *self, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                          const char *key, size_t max_len) {
    sc_s3_store *s = self;
    *out_data = NULL;
    *out_len = 0;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    /* The transport reads max_body 0 as its small default: a cap of 0 asks for 1 and
     * checks below. */
    sc_s3_req req = {.method = "GET", .object = object, .max_body = max_len ? max_len : 1};
    sc_s3_resp resp = {0};
    rc = sc_s3_exchange(s, &req, &resp);
    if (!rc && resp.body_overflow) { /* set for success bodies only */
        char where[SC_S3_KEY_MAX + 320];
        snprintf(where, sizeof where, "s3://%s/%s", s->bucket, object);
        rc = sc_backend_too_large(where, resp.content_length, resp.have_length, max_len);
    }
    if (!rc && (resp.cc != CURLE_OK || resp.status != 200))
        rc = sc_s3_fail(s, "GET", object, &resp, SC_S3_READ);
    if (!rc) rc = etag_check(s, "GET", object, &resp);
    if (!rc && resp.body.len > max_len) {
        char where[SC_S3_KEY_MAX + 320];
        snprintf(where, sizeof where, "s3://%s/%s", s->bucket, object);
        rc = sc_backend_too_large(where, resp.body.len, 1, max_len);
    }
    if (!rc) {
        info_from(out_info, &resp, resp.body.len);
        *out_len = resp.body.len;
        if (resp.body.len) {
            *out_data = resp.body.data; /* ownership moves to the caller */
            resp.body = (sc_buf)SC_BUF_INIT;
        }
    }
    sc_s3_resp_free(&resp);
    free(object);
    return rc;
}

static int s3_get(void *self, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                  const char *key) {
    return s3_get_bounded(self, out_data, out_len, out_info, key, SIZE_MAX);
}

/* HEAD of a full object key. */
static int head_object(sc_s3_store *s, sc_object_info *out_info, const char *object) {
    sc_s3_req req = {.method = "HEAD", .object = object};
    sc_s3_resp resp = {0};
    int rc = sc_s3_exchange(s, &req, &resp);
    if (!rc && (resp.cc != CURLE_OK || resp.status != 200))
        rc = sc_s3_fail(s, "HEAD", object, &resp, SC_S3_READ);
    if (!rc) rc = etag_check(s, "HEAD", object, &resp);
    if (!rc && !resp.have_length)
        rc = sc_s3_error(s, SC_EIO, "HEAD s3://%s/%s: no Content-Length in the answer", s->bucket,
                         object);
    if (!rc && out_info) info_from(out_info, &resp, resp.content_length);
    sc_s3_resp_free(&resp);
    return rc;
}

static int s3_head(void *self, sc_object_info *out_info, const char *key) {
    sc_s3_store *s = self;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    rc = head_object(s, out_info, object);
    free(object);
    return rc;
}

/* PUT_ONCE: a plain PUT that the transport never sends again once it may have arrived. */
typedef enum { PUT_PLAIN, PUT_ONCE, PUT_IF_ABSENT, PUT_IF_MATCH } put_mode;

static int put_success(sc_s3_store *s, sc_object_info *out_info, const char *object,
                       const sc_s3_resp *resp, size_t len) {
    /* The write was applied: an answer we cannot keep must not read as a failure, or a
     * claim that landed would be taken for one that did not (and its manifests deleted). */
    if (resp->etag_overflow)
        return sc_s3_error(s, SC_EUNKNOWN, "PUT s3://%s/%s: applied, but the ETag of its answer is longer "
                           "than %d bytes; the outcome is reconciled as unknown",
                           s->bucket, object, SC_ETAG_MAX - 1);
    info_from(out_info, resp, len);
    if (out_info) out_info->mtime_ms = 0; /* PUT answers carry no Last-Modified */
    return 0;
}

static int put_object(sc_s3_store *s, sc_object_info *out_info, const char *object,
                      const uint8_t *data, size_t len, put_mode mode, const char *etag) {
    sc_s3_req req = {.method = "PUT", .object = object, .body = data, .body_len = len,
                     .once = mode != PUT_PLAIN};
    if (mode == PUT_IF_ABSENT)
        req.headers[req.nheaders++] = (sc_sigv4_pair){"If-None-Match", "*"};
    else if (mode == PUT_IF_MATCH)
        req.headers[req.nheaders++] = (sc_sigv4_pair){"If-Match", etag};
    static const sc_s3_write kinds[] = {[PUT_PLAIN] = SC_S3_PUT, [PUT_ONCE] = SC_S3_PUT_ONCE,
                                        [PUT_IF_ABSENT] = SC_S3_CREATE, [PUT_IF_MATCH] = SC_S3_CAS};
    sc_s3_write wkind = kinds[mode];
    sc_s3_resp resp = {0};
    int rc = 0;
    /* Only a 409 on put_if_absent loops: it says our write was not applied. */
    for (int send = 0; send < SC_S3_TRIES; send++) {
        rc = sc_s3_exchange(s, &req, &resp);
        if (rc) break;
        if (resp.cc == CURLE_OK && resp.status >= 200 && resp.status < 300) {
            rc = put_success(s, out_info, object, &resp, len);
            break;
        }
        if (mode == PUT_PLAIN || mode == PUT_ONCE || resp.cc != CURLE_OK) {
            rc = sc_s3_fail(s, "PUT", object, &resp, wkind);
            break;
        }
        if (mode == PUT_IF_ABSENT && resp.status == 412) {
            rc = sc_s3_error(s, SC_EEXISTS, "s3://%s/%s already exists (If-None-Match: * refused)",
                             s->bucket, object);
            break;
        }
        if (mode == PUT_IF_ABSENT && resp.status == 409) {
            /* ConditionalRequestConflict: someone else's conditional write is in flight. */
            sc_object_info info;
            rc = head_object(s, &info, object);
            if (rc == 0) {
                rc = sc_s3_error(s, SC_EEXISTS,
                                 "s3://%s/%s already exists (created by a concurrent writer: 409 "
                                 "%s, then found by HEAD)",
                                 s->bucket, object, resp.err.code);
                break;
            }
            if (rc != SC_ENOTFOUND) break;
            rc = sc_s3_error(s, SC_ETRANSIENT,
                             "PUT s3://%s/%s: concurrent conditional requests kept conflicting "
                             "(409 %s); nothing was written",
                             s->bucket, object, resp.err.code);
            sc_sleep_ms((int64_t)SC_S3_BACKOFF_MS << send); /* sc-env-exempt: a real server's throttling */
            continue;
        }
        if (mode == PUT_IF_MATCH && (resp.status == 412 || resp.status == 409)) {
            if (resp.status == 412) {
                /* S3 answers 404 for a missing key; some servers answer 412: ask. */
                sc_object_info info;
                int hrc = head_object(s, &info, object);
                if (hrc == SC_ENOTFOUND) {
                    rc = sc_s3_error(s, SC_ENOTFOUND,
                                     "s3://%s/%s: no such object (If-Match refused with 412, then "
                                     "HEAD found nothing)",
                                     s->bucket, object);
                    break;
                }
            }
            rc = sc_s3_error(s, SC_EMODIFIED,
                             "s3://%s/%s changed: If-Match %s refused (HTTP %ld %s); nothing "
                             "written",
                             s->bucket, object, etag, resp.status, resp.err.code);
            break;
        }
        rc = sc_s3_fail(s, "PUT", object, &resp, wkind);
        break;
    }
    sc_s3_resp_free(&resp);
    return rc;
}

static int s3_put_mode(void *self, sc_object_info *out_info, const char *key, const uint8_t *data,
                       size_t len, put_mode mode, const char *etag) {
    sc_s3_store *s = self;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    rc = put_object(s, out_info, object, data, len, mode, etag);
    free(object);
    return rc;
}

static int s3_put(void *self, sc_object_info *out_info, const char *key, const uint8_t *data,
                  size_t len) {
    return s3_put_mode(self, out_info, key, data, len, PUT_PLAIN, NULL);
}

/* One copy at most can land, so the object has one mtime (the tracker judges it). */
static int s3_put_once(void *self, sc_object_info *out_info, const char *key, const uint8_t *data,
                       size_t len) {
    return s3_put_mode(self, out_info, key, data, len, PUT_ONCE, NULL);
}

static int s3_put_if_absent(void *self, sc_object_info *out_info, const char *key,
                            const uint8_t *data, size_t len) {
    return s3_put_mode(self, out_info, key, data, len, PUT_IF_ABSENT, NULL);
}

static int s3_put_if_match(void *self, sc_object_info *out_info, const char *key,
                           const uint8_t *data, size_t len, const char *etag) {
    if (!etag || !*etag || strpbrk(etag, "\r\n"))
        return sc_error_set(SC_EINVAL, "put_if_match \"%s\": empty or malformed etag", key);
    return s3_put_mode(self, out_info, key, data, len, PUT_IF_MATCH, etag);
}

/* Without conditional writes: look, then write. Not atomic, and the caps say so. */
static int s3_put_if_absent_emulated(void *self, sc_object_info *out_info, const char *key,
                                     const uint8_t *data, size_t len) {
    sc_s3_store *s = self;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    sc_object_info info;
    rc = head_object(s, &info, object);
    if (rc == 0)
        rc = sc_s3_error(s, SC_EEXISTS, "s3://%s/%s already exists", s->bucket, object);
    else if (rc == SC_ENOTFOUND)
        rc = put_object(s, out_info, object, data, len, PUT_PLAIN, NULL);
    free(object);
    return rc;
}

/* One DELETE, no look first: S3 answers 204 whether or not the key existed. */
static int s3_discard(void *self, const char *key) {
    sc_s3_store *s = self;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    sc_s3_req req = {.method = "DELETE", .object = object};
    sc_s3_resp resp = {0};
    rc = sc_s3_exchange(s, &req, &resp);
    if (!rc && (resp.cc != CURLE_OK || resp.status < 200 || resp.status >= 300))
        rc = sc_s3_fail(s, "DELETE", object, &resp, SC_S3_DELETE);
    sc_s3_resp_free(&resp);
    free(object);
    return rc;
}

static int s3_del(void *self, const char *key) {
    sc_s3_store *s = self;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    /* DELETE answers 204 whether or not the key existed: look first. */
    rc = head_object(s, NULL, object);
    free(object);
    return rc ? rc : s3_discard(self, key);
}

/* ---- list ---- */

static int list_push(sc_list_page *out, size_t *cap, const char *key) {
    int rc;
    SC_VEC_RESERVE(rc, out->keys, *cap, out->count + 1, 64, "the listed keys");
    if (rc) return rc;
    if (!(out->keys[out->count] = strdup(key)))
        return sc_error_set(SC_ENOMEM, "out of memory listing");
    out->count++;
    return 0;
}

static int s3_list(void *self, sc_list_page *out, const char *prefix, const char *start_after,
                   size_t max_keys) {
    sc_s3_store *s = self;
    memset(out, 0, sizeof *out);
    size_t plen = strlen(s->prefix);
    size_t strip = plen ? plen + 1 : 0;
    sc_buf full_prefix = SC_BUF_INIT, full_after = SC_BUF_INIT, last = SC_BUF_INIT;
    int rc = sc_buf_printf(&full_prefix, "%s%s%s", s->prefix, plen ? "/" : "", prefix);
    if (!rc && start_after)
        rc = sc_buf_printf(&full_after, "%s%s%s", s->prefix, plen ? "/" : "", start_after);
    if (!rc && (!sc_buf_cstr(&full_prefix) || !sc_buf_cstr(&full_after) || !sc_buf_cstr(&last)))
        rc = SC_ENOMEM;
    char *token = NULL;
    size_t cap = 0;
    int truncated = 0;
    sc_s3_xml_limits limits;
    sc_s3_xml_limits_default(&limits);
    /* Every page but a server's odd empty truncated one yields keys: bound the walk anyway. */
    size_t max_pages = max_keys / 1000 + 16;
    for (size_t page = 0; !rc; page++) {
        if (page >= max_pages) {
            rc = sc_s3_error(s, SC_EIO, "LIST %s: more than %zu pages without reaching %zu keys",
                             s->location, max_pages, max_keys);
            break;
        }
        size_t want = max_keys - out->count < 1000 ? max_keys - out->count : 1000;
        char want_text[24];
        snprintf(want_text, sizeof want_text, "%zu", want);
        sc_s3_req req = {.method = "GET", .max_body = limits.max_body};
        req.query[req.nquery++] = (sc_sigv4_pair){"list-type", "2"};
        req.query[req.nquery++] = (sc_sigv4_pair){"max-keys", want_text};
        if (full_prefix.len)
            req.query[req.nquery++] = (sc_sigv4_pair){"prefix", (char *)full_prefix.data};
        if (token)
            req.query[req.nquery++] = (sc_sigv4_pair){"continuation-token", token};
        else if (last.len)
            req.query[req.nquery++] = (sc_sigv4_pair){"start-after", (char *)last.data};
        else if (start_after)
            req.query[req.nquery++] = (sc_sigv4_pair){"start-after", (char *)full_after.data};
        sc_s3_resp resp = {0};
        rc = sc_s3_exchange(s, &req, &resp);
        if (!rc && (resp.cc != CURLE_OK || resp.status != 200))
            rc = sc_s3_fail(s, "LIST", full_prefix.len ? (char *)full_prefix.data : NULL, &resp,
                            SC_S3_READ);
        sc_s3_list_result r = {0};
        if (!rc) {
            limits.max_keys = want;
            rc = sc_s3_xml_parse_list(&r, (const char *)resp.body.data, resp.body.len, &limits);
            if (rc)
                rc = sc_error_wrap(SC_EIO, "LIST %s (from %s)", s->location, s->origin);
        }
        sc_s3_resp_free(&resp);
        for (size_t i = 0; !rc && i < r.count; i++) {
            const char *k = r.keys[i];
            /* The contract is ascending bytewise order, strictly after start_after, under
             * the prefix: check rather than trust. */
            if (strncmp(k, (char *)full_prefix.data, full_prefix.len) != 0 ||
                (last.len && strcmp(k, (char *)last.data) <= 0) ||
                (start_after && strcmp(k, (char *)full_after.data) <= 0)) {
                rc = sc_s3_error(s, SC_EIO,
                                 "LIST %s: the server returned \"%.200s\" out of order or outside "
                                 "the prefix",
                                 s->location, k);
                break;
            }
            last.len = 0;
            rc = sc_buf_append_str(&last, k);
            if (!rc && !sc_buf_cstr(&last)) rc = SC_ENOMEM;
            /* Folder markers ("dir/") and keys other tools made ("a//b") are not store keys. */
            if (!rc && sc_store_key_valid(k + strip)) rc = list_push(out, &cap, k + strip);
        }
        if (!rc) {
            truncated = r.truncated;
            free(token);
            token = r.next_token;
            r.next_token = NULL;
            if (truncated && !token && r.count == 0)
                rc = sc_s3_error(s, SC_EIO, "LIST %s: a truncated page with neither keys nor a "
                                         "continuation token",
                                 s->location);
        }
        sc_s3_list_result_free(&r);
        if (rc || !truncated) break;
        /* Enough keys: stop, and say more follow. Keys skipped as invalid count as seen. */
        if (out->count >= max_keys) break;
    }
    free(token);
    sc_buf_free(&full_prefix);
    sc_buf_free(&full_after);
    sc_buf_free(&last);
    if (rc) {
        sc_list_page_free(out);
        return rc;
    }
    out->truncated = truncated;
    if (out->count == 0) {
        free(out->keys);
        out->keys = NULL;
    }
    return 0;
}

static void s3_close(void *self) { sc_s3_store_free(self); }

uint64_t sc_s3_store_requests_sent(const void *self) {
    const sc_s3_store *s = self;
    return __atomic_load_n(&s->sent, __ATOMIC_RELAXED);
}

static const sc_store_ops s3_ops = {
    .version = SC_STORE_OPS_VERSION,
    .name = "s3",
    .caps = SC_CAP_CONDITIONAL_CREATE | SC_CAP_COMPARE_AND_SWAP | SC_CAP_LIST_AFTER_WRITE |
            SC_CAP_DURABLE | SC_CAP_CONCURRENT,
    .get = s3_get,
    .head = s3_head,
    .put = s3_put,
    .put_if_absent = s3_put_if_absent,
    .put_if_match = s3_put_if_match,
    .list = s3_list,
    .del = s3_del,
    .close = s3_close,
    .get_bounded = s3_get_bounded,
    .discard = s3_discard,
    .put_once = s3_put_once,
};

/* SNAPCOMMIT_S3_CONDITIONAL_WRITES=0: no conditional caps, put_if_absent looks then writes. */
static const sc_store_ops s3_ops_plain = {
    .version = SC_STORE_OPS_VERSION,
    .name = "s3",
    .caps = SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE | SC_CAP_CONCURRENT,
    .get = s3_get,
    .head = s3_head,
    .put = s3_put,
    .put_if_absent = s3_put_if_absent_emulated,
    .put_if_match = NULL,
    .list = s3_list,
    .del = s3_del,
    .close = s3_close,
    .get_bounded = s3_get_bounded,
    .discard = s3_discard,
    .put_once = s3_put_once,
};

int sc_s3_store_create(const sc_store_ops **ops, void **self, const char *uri) {
    return sc_s3_store_create_config(ops, self, uri, NULL);
}

int sc_s3_store_create_config(const sc_store_ops **ops, void **self, const char *uri,
                              const sc_store_config *config) {
    *ops = NULL;
    *self = NULL;
    sc_s3_store *s = NULL;
    int conditional = 1;
    int rc = sc_s3_config_load(&s, &conditional, uri, config);
    if (!rc) rc = sc_s3_transport_open(s);
    if (rc) {
        sc_s3_store_free(s);
        return rc;
    }
    *ops = conditional ? &s3_ops : &s3_ops_plain;
    *self = s;
    return 0;
}
