/*
 * S3 transport: one libcurl easy handle per store (so connections are reused
 * across requests), requests signed with SigV4 (sigv4.c), error bodies read
 * by the bounded decoder of s3_xml.c.
 *
 * Every request goes through sc_s3_exchange(), which decides whether a failed
 * attempt may be sent again: idempotent requests (GET, HEAD, LIST, plain
 * PUT, DELETE) on any transient failure; conditional PUTs and put_once (req->once)
 * only when the attempt provably never reached the server or S3 refused it
 * unapplied (503 or 429 with S3's own SlowDown document).
 * What a final failure means is decided in one place, sc_s3_fail().
 */
#include "s3/s3_transport.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/error_internal.h"
#include "base/clock.h"
#include "base/hash.h"

#define S3_ERROR_BODY_MAX ((size_t)64 << 10)
#define S3_SMALL_BODY_MAX ((size_t)1 << 20)
/* Servers close idle connections (S3 after ~20 s): do not reuse older ones. */
#define S3_MAX_CONN_AGE_S 15L

/* ---- messages: one place, scrubbed of the secrets ---- */

static void scrub(char *text, const char *secret) {
    if (!secret || !*secret) return;
    size_t n = strlen(secret);
    for (char *p = strstr(text, secret); p; p = strstr(p + n, secret)) memset(p, '*', n);
    /* A message cut short may end in the first bytes of a secret. */
    size_t len = strlen(text);
    for (size_t k = n - 1 < len ? n - 1 : len; k >= 6; k--) {
        if (memcmp(text + len - k, secret, k) == 0) {
            memset(text + len - k, '*', k);
            break;
        }
    }
}

int sc_s3_error(const sc_s3_store *s, int code, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    scrub(text, s->secret_key);
    scrub(text, s->session_token);
    return sc_error_set(code, "%s", text);
}

/* Keep the current message across a step whose own messages are not the story. */
#define SC_MSG_MAX 2048
static void msg_save(char out[SC_MSG_MAX]) {
    if (sc_error_has_message())
        snprintf(out, SC_MSG_MAX, "%s", sc_error_message());
    else
        out[0] = '\0';
}

static void msg_restore(const char saved[SC_MSG_MAX]) {
    if (saved[0])
        sc_error_set(SC_EIO, "%s", saved);
    else
        sc_error_clear();
}

void sc_s3_store_free(sc_s3_store *s) {
    if (!s) return;
    for (size_t i = 0; i < s->idle_count; i++) curl_easy_cleanup(s->idle[i]);
    if (s->pool_ready) pthread_mutex_destroy(&s->pool_lock);
    if (s->secret_key) OPENSSL_cleanse(s->secret_key, strlen(s->secret_key));
    if (s->session_token) OPENSSL_cleanse(s->session_token, strlen(s->session_token));
    free(s->bucket);
    free(s->prefix);
    free(s->location);
    free(s->origin);
    free(s->host);
    free(s->base_path);
    free(s->region);
    free(s->access_key);
    free(s->secret_key);
    free(s->session_token);
    free(s->ca_bundle);
    free(s);
}

/* ---- requests ---- */

typedef struct xfer {
    const sc_s3_req *req;
    sc_s3_resp *resp;
    size_t read_pos;
    int resend_refused; /* libcurl wanted to send this request again and was told no */
} xfer;

static void resp_clear(sc_s3_resp *r) {
    sc_buf_free(&r->body);
    int lost = r->earlier_lost, tries = r->tries;
    memset(r, 0, sizeof *r);
    r->earlier_lost = lost;
    r->tries = tries;
}

void sc_s3_resp_free(sc_s3_resp *r) { sc_buf_free(&r->body); }

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud) {
    xfer *x = ud;
    sc_s3_resp *r = x->resp;
    size_t len = size * nmemb;
    if (r->status_seen >= 300) {
        /* Error bodies only feed messages: keep the first 64 KiB. */
        size_t room = r->body.len < S3_ERROR_BODY_MAX ? S3_ERROR_BODY_MAX - r->body.len : 0;
        if (room && sc_buf_append(&r->body, data, len < room ? len : room)) {
            r->oom = 1;
            return 0;
        }
        return len;
    }
    size_t cap = x->req->max_body ? x->req->max_body : S3_SMALL_BODY_MAX;
    if (len > cap - r->body.len) {
        r->body_overflow = 1;
        return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
    }
    if (sc_buf_append(&r->body, data, len)) {
        r->oom = 1;
        return 0;
    }
    return len;
}

static int header_is(const char *line, size_t name_len, const char *name) {
    return strlen(name) == name_len && strncasecmp(line, name, name_len) == 0;
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *ud) {
    xfer *x = ud;
    sc_s3_resp *r = x->resp;
    size_t len = size * nmemb;
    if (len >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        /* A new response (after an interim 1xx, or a re-send): forget the last one's headers. */
        r->etag[0] = '\0';
        r->etag_overflow = 0;
        r->mtime_ms = 0;
        r->have_length = 0;
        r->request_id[0] = '\0';
        const char *sp = memchr(line, ' ', len);
        r->status_seen = sp && (size_t)(sp - line) + 4 <= len ? strtol(sp + 1, NULL, 10) : 0;
        return len;
    }
    const char *colon = memchr(line, ':', len);
    if (!colon) return len;
    size_t name_len = (size_t)(colon - line);
    const char *v = colon + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t vlen = (size_t)(end - v);
    char value[128];
    int fits = vlen < sizeof value;
    if (fits) {
        memcpy(value, v, vlen);
        value[vlen] = '\0';
    }
    if (header_is(line, name_len, "etag")) {
        if (vlen >= sizeof r->etag) {
            r->etag_overflow = 1;
        } else {
            memcpy(r->etag, v, vlen);
            r->etag[vlen] = '\0';
        }
    } else if (header_is(line, name_len, "last-modified") && fits) {
        time_t t = curl_getdate(value, NULL);
        r->mtime_ms = t > 0 ? (int64_t)t * 1000 : 0;
    } else if (header_is(line, name_len, "content-length") && fits) {
        char *e = NULL;
        errno = 0;
        unsigned long long n = strtoull(value, &e, 10);
        if (!errno && e != value && *e == '\0') {
            r->content_length = n;
            r->have_length = 1;
        }
    } else if (header_is(line, name_len, "x-amz-request-id") && vlen < sizeof r->request_id) {
        memcpy(r->request_id, v, vlen);
        r->request_id[vlen] = '\0';
    }
    return len;
}

static size_t on_read(char *buf, size_t size, size_t nmemb, void *ud) {
    xfer *x = ud;
    size_t room = size * nmemb, left = x->req->body_len - x->read_pos;
    size_t n = left < room ? left : room;
    if (n) memcpy(buf, x->req->body + x->read_pos, n);
    x->read_pos += n;
    return n;
}

/*
 * libcurl rewinds the body only to send the request again (after a reused
 * connection died): refusing that for a request sent once turns a silent
 * re-send into an error we report as SC_EUNKNOWN.
 */
static int on_seek(void *ud, curl_off_t offset, int origin) {
    xfer *x = ud;
    if (x->req->once) {
        x->resend_refused = 1;
        return CURL_SEEKFUNC_FAIL;
    }
    if (origin != SEEK_SET || offset < 0 || (uint64_t)offset > x->req->body_len)
        return CURL_SEEKFUNC_FAIL;
    x->read_pos = (size_t)offset;
    return CURL_SEEKFUNC_OK;
}

/* The request never left this host: nothing can have been applied. */
static int never_sent(CURLcode cc) {
    switch (cc) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
        return 1;
    default:
        return 0;
    }
}

static int tls_failure(CURLcode cc) {
    return cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE ||
           cc == CURLE_SSL_CERTPROBLEM || cc == CURLE_SSL_ISSUER_ERROR ||
           cc == CURLE_SSL_PINNEDPUBKEYNOTMATCH || cc == CURLE_SSL_INVALIDCERTSTATUS;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_result = CURLE_FAILED_INIT;

static void curl_init_once(void) { curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* An idle easy handle of the pool, or a new one (NULL: out of memory). */
static CURL *handle_take(sc_s3_store *s) {
    CURL *c = NULL;
    pthread_mutex_lock(&s->pool_lock);
    if (s->idle_count) c = s->idle[--s->idle_count];
    pthread_mutex_unlock(&s->pool_lock);
    return c ? c : curl_easy_init();
}

/* Back to the pool with its connections; beyond SC_S3_POOL idle handles it is closed. */
static void handle_give(sc_s3_store *s, CURL *c) {
    pthread_mutex_lock(&s->pool_lock);
    if (s->idle_count < SC_S3_POOL) {
        s->idle[s->idle_count++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&s->pool_lock);
    if (c) curl_easy_cleanup(c);
}

static struct curl_slist *add_header(struct curl_slist *list, int *failed, const char *name,
                                     const char *value) {
    if (*failed) return list;
    char line[8192];
    int n = snprintf(line, sizeof line, "%s:%s%s", name, *value ? " " : "", value);
    struct curl_slist *next =
        n > 0 && (size_t)n < sizeof line ? curl_slist_append(list, line) : NULL;
    if (!next) {
        *failed = 1;
        return list;
    }
    return next;
}

/*
 * One attempt of `req`. Returns 0 whenever the attempt ran (resp says what
 * came back, if anything), or a code for a local failure (SC_ENOMEM,
 * SC_EINVAL from signing).
 */
static int s3_perform(sc_s3_store *s, const sc_s3_req *req, sc_s3_resp *resp) {
    resp_clear(resp);
    resp->tries++;
    __atomic_add_fetch(&s->sent, 1, __ATOMIC_RELAXED);
    sc_buf path = SC_BUF_INIT, url = SC_BUF_INIT, auth = SC_BUF_INIT;
    struct curl_slist *headers = NULL;
    int rc = sc_buf_append_str(&path, s->base_path);
    if (!rc && req->object) rc = sc_buf_printf(&path, "/%s", req->object);
    if (!rc && path.len == 0) rc = sc_buf_append_byte(&path, '/');
    const char *raw_path = rc ? NULL : sc_buf_cstr(&path);
    if (!rc && !raw_path) rc = SC_ENOMEM;
    if (!rc) rc = sc_buf_append_str(&url, s->origin);
    if (!rc) rc = sc_sigv4_uri_encode(&url, raw_path, path.len, 1);
    if (!rc && req->nquery) {
        rc = sc_buf_append_byte(&url, '?');
        if (!rc) rc = sc_sigv4_canonical_query(&url, req->query, req->nquery);
    }
    if (!rc && !sc_buf_cstr(&url)) rc = SC_ENOMEM;

    uint8_t digest[SC_SHA256_LEN];
    char payload_hash[SC_SHA256_HEX_LEN + 1];
    sc_sha256(digest, req->body ? (const void *)req->body : (const void *)"", req->body_len);
    sc_hex_encode(payload_hash, digest, sizeof digest);
    char amz_date[SC_SIGV4_AMZ_DATE_LEN + 1];
    if (!rc) rc = sc_sigv4_amz_date(amz_date, time(NULL)); /* sc-env-exempt: signatures need real time */
    if (!rc && s->access_key) {
        sc_sigv4_request sreq = {req->method, raw_path, req->query, req->nquery,
                                 req->headers, req->nheaders, payload_hash};
        sc_sigv4_credentials cred = {s->access_key, s->secret_key, s->session_token};
        rc = sc_sigv4_sign_s3(&auth, &sreq, s->host, &cred, amz_date, s->region);
    }
    int failed = 0;
    if (!rc) {
        headers = add_header(headers, &failed, "Host", s->host);
        headers = add_header(headers, &failed, "x-amz-date", amz_date);
        headers = add_header(headers, &failed, "x-amz-content-sha256", payload_hash);
        if (s->session_token)
            headers = add_header(headers, &failed, "x-amz-security-token", s->session_token);
        if (s->access_key)
            headers = add_header(headers, &failed, "Authorization", (const char *)auth.data);
        for (size_t i = 0; i < req->nheaders; i++)
            headers = add_header(headers, &failed, req->headers[i].name, req->headers[i].value);
        /* No "Expect: 100-continue" round trip before bodies. */
        headers = add_header(headers, &failed, "Expect", "");
        if (failed) rc = sc_error_set(SC_ENOMEM, "out of memory building request headers");
    }
    if (rc) goto done;

    xfer x = {req, resp, 0, 0};
    CURL *c = handle_take(s);
    if (!c) {
        rc = sc_error_set(SC_ENOMEM, "libcurl: cannot create a handle for %s", req->method);
        goto done;
    }
    curl_easy_reset(c); /* keeps the connection cache */
    curl_easy_setopt(c, CURLOPT_URL, (const char *)url.data);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, resp->curl_error);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(c, CURLOPT_MAXAGE_CONN, S3_MAX_CONN_AGE_S);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, s->connect_timeout_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, s->request_timeout_ms);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "snapcommit/0.1");
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    if (s->insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (s->ca_bundle) {
        curl_easy_setopt(c, CURLOPT_CAINFO, s->ca_bundle);
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
    if (strcmp(req->method, "GET") == 0) {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    } else if (strcmp(req->method, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (strcmp(req->method, "PUT") == 0 || strcmp(req->method, "POST") == 0) {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->body_len);
        curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(c, CURLOPT_READDATA, &x);
        curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, on_seek);
        curl_easy_setopt(c, CURLOPT_SEEKDATA, &x);
        if (req->method[1] == 'O') curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "POST");
    } else {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
    }
    /* An empty body sent once has nothing to rewind, so libcurl would re-send it
     * silently on a dead reused connection: give it a connection of its own. */
    if (req->once && req->body_len == 0) curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);

    resp->curl_error[0] = '\0';
    resp->cc = curl_easy_perform(c);
    if (resp->cc == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
    long request_size = 0;
    curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &request_size);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL); /* resp's buffer is not the handle's */
    handle_give(s, c);
    if (resp->oom) {
        rc = sc_error_set(SC_ENOMEM, "out of memory reading the answer to %s", req->method);
        goto done;
    }
    if (resp->cc == CURLE_OK) {
        resp->maybe_applied = 1;
    } else {
        /* Conservative: once any request byte went out (or libcurl tried to send the
         * request again), the server may have all of it. */
        resp->maybe_applied = x.resend_refused || (!never_sent(resp->cc) && request_size > 0);
        resp->status = 0;
    }
    if (resp->status >= 300 && resp->body.len) {
        /* Best effort: a body that is not an S3 error document leaves err empty, and the
         * decoder's complaint is not the story. */
        char saved[SC_MSG_MAX];
        msg_save(saved);
        if (sc_s3_xml_parse_error(&resp->err, (const char *)resp->body.data, resp->body.len,
                                  S3_ERROR_BODY_MAX) != 0)
            memset(&resp->err, 0, sizeof resp->err);
        msg_restore(saved);
    }
done:
    curl_slist_free_all(headers);
    if (auth.data) OPENSSL_cleanse(auth.data, auth.cap);
    sc_buf_free(&auth);
    sc_buf_free(&path);
    sc_buf_free(&url);
    return rc;
}

static int code_is(const sc_s3_resp *r, const char *code) { return strcmp(r->err.code, code) == 0; }

static int throttled(const sc_s3_resp *r) {
    return r->status == 503 || r->status == 429 || code_is(r, "SlowDown") ||
           code_is(r, "ServiceUnavailable");
}

/*
 * S3 throttles a request before applying it and says so in its error document (SlowDown,
 * ServiceUnavailable). A 503 or 429 without that document (or naming another code) was not
 * S3 saying so: something between us and S3 (a proxy or load balancer) may answer so after
 * its upstream connection broke with the request already applied.
 */
static int refused_unapplied(const sc_s3_resp *r) {
    return code_is(r, "SlowDown") || code_is(r, "ServiceUnavailable");
}

/* May this attempt be sent again? A request sent once only when it was not applied. */
static int retryable(const sc_s3_resp *r, int once) {
    if (r->cc != CURLE_OK) {
        if (r->body_overflow || tls_failure(r->cc)) return 0;
        return !r->maybe_applied || !once;
    }
    if (throttled(r)) return !once || refused_unapplied(r);
    /* "Your socket connection to the server was not read from or written to": not applied. */
    if (r->status == 400 && code_is(r, "RequestTimeout")) return 1;
    if (r->status >= 500 && r->status != 501) return !once;
    return 0;
}

int sc_s3_exchange(sc_s3_store *s, const sc_s3_req *req, sc_s3_resp *resp) {
    resp->earlier_lost = 0;
    resp->tries = 0;
    for (int attempt = 0;; attempt++) {
        int rc = s3_perform(s, req, resp);
        if (rc) return rc;
        if (!retryable(resp, req->once) || attempt + 1 >= SC_S3_TRIES) return 0;
        if ((resp->cc != CURLE_OK && resp->maybe_applied) ||
            (throttled(resp) ? !refused_unapplied(resp) : resp->status >= 500))
            resp->earlier_lost = 1;
        sc_sleep_ms((int64_t)SC_S3_BACKOFF_MS << attempt); /* sc-env-exempt: a real server's throttling */
    }
}

int sc_s3_transport_open(sc_s3_store *s) {
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_result != CURLE_OK)
        return sc_error_set(SC_EIO, "libcurl initialisation failed: %s",
                            curl_easy_strerror(curl_init_result));
    if (pthread_mutex_init(&s->pool_lock, NULL) != 0)
        return sc_error_set(SC_EIO, "cannot initialise the S3 handle pool's lock");
    s->pool_ready = 1;
    /* One handle at once: a configuration libcurl cannot serve fails the open, not a request. */
    if (!(s->idle[0] = curl_easy_init()))
        return sc_error_set(SC_EIO, "libcurl: cannot create a handle");
    s->idle_count = 1;
    return 0;
}

/* ---- what a failed exchange means ---- */

static const char *auth_hint(const sc_s3_store *s, const sc_s3_resp *r, const char *method) {
    /* Name where the value came from: the configuration or the AWS_* variable. */
    int cfg = s->configured_keys;
    if (code_is(r, "SignatureDoesNotMatch"))
        return cfg ? "check the configured secret access key" : "check AWS_SECRET_ACCESS_KEY";
    if (code_is(r, "InvalidAccessKeyId"))
        return cfg ? "check the configured access key id" : "check AWS_ACCESS_KEY_ID";
    if (code_is(r, "ExpiredToken") || code_is(r, "InvalidToken") ||
        code_is(r, "TokenRefreshRequired"))
        return cfg ? "check the configured session token: temporary credentials expire"
                   : "check AWS_SESSION_TOKEN: temporary credentials expire";
    if (code_is(r, "RequestTimeTooSkewed")) return "check this machine's clock";
    if (code_is(r, "AuthorizationHeaderMalformed"))
        return s->configured_region ? "check the configured region: it must be the bucket's region"
                                    : "check AWS_REGION: it must be the bucket's region";
    if (code_is(r, "AccessDenied") || code_is(r, "AllAccessDisabled"))
        return "check the bucket policy and IAM permissions for this key";
    if (strcmp(method, "HEAD") == 0)
        return "HEAD answers carry no reason; a missing key answers 403 without s3:ListBucket";
    return "check the credentials and permissions";
}

static int is_auth_failure(const sc_s3_resp *r) {
    static const char *const codes[] = {
        "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "ExpiredToken",
        "InvalidToken", "TokenRefreshRequired", "RequestTimeTooSkewed",
        "AuthorizationHeaderMalformed", "AllAccessDisabled", "InvalidSecurity",
        "AccountProblem", "MissingSecurityHeader"};
    if (r->status == 401 || r->status == 403) return 1;
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (code_is(r, codes[i])) return 1;
    return 0;
}

static void request_id_suffix(char *out, size_t size, const sc_s3_resp *r) {
    const char *id = r->err.request_id[0] ? r->err.request_id : r->request_id;
    if (*id)
        snprintf(out, size, " (request id %.100s)", id);
    else
        out[0] = '\0';
}

/* What a state-changing request is, for the message of a lost answer (NULL: a read). */
typedef struct s3_write_kind {
    const char *what; /* "a plain overwrite" */
    int claim;        /* the request decides who owns the key */
} s3_write_kind;

/* Indexed by sc_s3_write. */
static const s3_write_kind write_kinds[] = {
    [SC_S3_PUT] = {"a plain overwrite", 0},
    [SC_S3_PUT_ONCE] = {"a plain overwrite sent once", 0},
    [SC_S3_CREATE] = {"the conditional create (If-None-Match: *)", 1},
    [SC_S3_CAS] = {"the compare-and-swap (If-Match)", 1},
    [SC_S3_DELETE] = {"a delete", 0},
};

/* "..., so the claim ..." / "...; it claims nothing": whether a claim may have been made. */
static const char *claim_clause(const s3_write_kind *w) {
    return w->claim ? "this is a claim request and it WAS sent: the claim may or may not have "
                      "been made (reconcile by reading the key before deciding)"
                    : "the write may or may not have been applied; this request is not a claim, "
                      "so it made none";
}

int sc_s3_fail(const sc_s3_store *s, const char *method, const char *object, const sc_s3_resp *r,
               sc_s3_write kind) {
    const s3_write_kind *write = kind == SC_S3_READ ? NULL : &write_kinds[kind];
    char where[SC_S3_KEY_MAX + 320];
    if (object)
        snprintf(where, sizeof where, "s3://%s/%s", s->bucket, object);
    else
        snprintf(where, sizeof where, "%s", s->location);
    char rid[128];
    request_id_suffix(rid, sizeof rid, r);
    if (r->cc != CURLE_OK) {
        const char *why = r->curl_error[0] ? r->curl_error : curl_easy_strerror(r->cc);
        /* Set for success bodies only: a write answered so was applied. */
        if (r->body_overflow)
            return sc_s3_error(s, write ? SC_EUNKNOWN : SC_EIO, "%s %s: the answer from %s is larger than accepted%s",
                               method, where, s->origin, write ? " (the write was applied)" : "");
        if (tls_failure(r->cc))
            return sc_s3_error(s, SC_EIO,
                               "%s %s: TLS verification of %s failed: %s (set AWS_CA_BUNDLE for "
                               "a private CA; SNAPCOMMIT_S3_INSECURE=1 disables the check and is "
                               "only for test servers)",
                               method, where, s->origin, why);
        if (write && (r->maybe_applied || r->earlier_lost))
            return sc_s3_error(s, SC_EUNKNOWN,
                               "%s %s: the answer to %s was lost (no answer from %s after %d "
                               "send%s: %s); %s",
                               method, where, write->what, s->origin, r->tries,
                               r->tries == 1 ? "" : "s", why, claim_clause(write));
        return sc_s3_error(s, SC_ETRANSIENT, "%s %s: %s did not answer after %d tries: %s", method,
                           where, s->origin, r->tries, why);
    }
    const char *code = r->err.code[0] ? r->err.code : NULL;
    const char *msg = r->err.message;
    if (is_auth_failure(r))
        return sc_s3_error(s, SC_EAUTH, "S3 refused the credentials for %s %s: %s (%s)%s%s%s",
                           method, where, code ? code : r->status == 401 ? "HTTP 401" : "HTTP 403",
                           auth_hint(s, r, method), *msg ? ": " : "", msg, rid);
    if (r->status == 404) {
        if ((code && strcmp(code, "NoSuchBucket") == 0) || strcmp(method, "LIST") == 0)
            return sc_s3_error(s, SC_EIO,
                               "%s %s: bucket \"%s\" does not exist at %s (NoSuchBucket)%s; create "
                               "it first: snapcommit never creates buckets",
                               method, where, s->bucket, s->origin, rid);
        return sc_s3_error(s, SC_ENOTFOUND, "%s: no such object (%s)%s", where,
                           code ? code : "HTTP 404", rid);
    }
    if (r->status == 501 || (code && strcmp(code, "NotImplemented") == 0))
        return sc_s3_error(s, SC_EUNSUPPORTED,
                           "%s %s: the server does not implement this request (%s)%s%s%s; for "
                           "servers without conditional writes set "
                           "SNAPCOMMIT_S3_CONDITIONAL_WRITES=0",
                           method, where, code ? code : "HTTP 501", *msg ? ": " : "", msg, rid);
    if (write && r->earlier_lost)
        return sc_s3_error(s, SC_EUNKNOWN,
                           "%s %s: the answer to an earlier send of %s was lost and the last of %d "
                           "sends failed (HTTP %ld %s); %s",
                           method, where, write->what, r->tries, r->status, code ? code : "",
                           claim_clause(write));
    /* A plain write's last send too: the earlier ones may all have been refused unapplied. */
    if (write && throttled(r) && !refused_unapplied(r))
        return sc_s3_error(s, SC_EUNKNOWN,
                           "%s %s: HTTP %ld %s to %s without S3's error document saying SlowDown or "
                           "ServiceUnavailable: something between snapcommit and %s may have "
                           "answered after the request reached S3; %s",
                           method, where, r->status, code ? code : "", write->what, s->origin,
                           claim_clause(write));
    if (throttled(r) || (r->status == 400 && code_is(r, "RequestTimeout")))
        return sc_s3_error(s, SC_ETRANSIENT, "%s %s: S3 is throttling or unavailable (HTTP %ld %s) "
                                          "after %d tries%s",
                           method, where, r->status, code ? code : "", r->tries, rid);
    if (r->status >= 500 && write)
        return sc_s3_error(s, SC_EUNKNOWN, "%s %s: S3 failed %s with HTTP %ld %s%s%s; %s", method,
                           where, write->what, r->status, code ? code : "", *msg ? ": " : "", msg,
                           claim_clause(write));
    if (r->status >= 500)
        return sc_s3_error(s, SC_ETRANSIENT, "%s %s: S3 failed with HTTP %ld %s%s%s", method, where,
                           r->status, code ? code : "", *msg ? ": " : "", msg);
    if (r->status == 301 || r->status == 307 || code_is(r, "PermanentRedirect"))
        return sc_s3_error(s, SC_EIO,
                           "%s %s: S3 redirected the request (HTTP %ld %s): check AWS_REGION and "
                           "the endpoint%s",
                           method, where, r->status, code ? code : "", rid);
    return sc_s3_error(s, SC_EIO, "%s %s: HTTP %ld %s%s%s%s", method, where, r->status,
                       code ? code : "", *msg ? ": " : "", msg, rid);
}
