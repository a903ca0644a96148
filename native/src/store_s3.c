/*
 * S3 backend: one libcurl easy handle per store (so connections are reused
 * across requests), requests signed with SigV4 (sigv4.c), XML answers read
 * by the bounded decoders of s3_xml.c. Semantics and configuration: see
 * store_s3.h.
 *
 * Every request goes through s3_exchange(), which decides whether a failed
 * attempt may be sent again: idempotent requests (GET, HEAD, LIST, plain
 * PUT, DELETE, multipart parts) on any transient failure; conditional PUTs
 * only when the attempt provably never reached the server or was refused
 * unapplied (503). What a final failure means is decided in one place,
 * s3_fail().
 */
#include "store_s3.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "error_internal.h"
#include "hash.h"
#include "s3_xml.h"
#include "sigv4.h"
#include "snapcommit/store.h"
#include "store_backends.h"

#define S3_MAGIC 0x53337374u /* "S3st": sc_s3_put_file() checks its `self` */
#define S3_TRIES 3           /* sends of one request, at most */
#define S3_BACKOFF_MS 50     /* before the second send; doubles */
#define S3_ERROR_BODY_MAX ((size_t)64 << 10)
#define S3_SMALL_BODY_MAX ((size_t)1 << 20)
#define S3_PREFIX_MAX 512
/* Servers close idle connections (S3 after ~20 s): do not reuse older ones. */
#define S3_MAX_CONN_AGE_S 15L
#define S3_MAX_QUERY 6
#define S3_MAX_HEADERS 4

typedef struct s3_store {
    uint32_t magic;
    CURL *curl;
    char *bucket;
    char *prefix;    /* "" or "a/b": keys are stored as prefix + "/" + key */
    char *location;  /* "s3://bucket[/prefix]", for messages */
    char *origin;    /* "https://host[:port]" */
    char *host;      /* the Host header, signed and sent */
    char *base_path; /* raw path before "/<object>": [endpoint path]["/bucket" in path style] */
    char *region;
    char *access_key;    /* NULL: anonymous, unsigned requests */
    char *secret_key;    /* never in a message */
    char *session_token; /* NULL when none; never in a message */
    char *ca_bundle;     /* AWS_CA_BUNDLE or the configured one, or NULL */
    int configured_keys; /* credentials from sc_store_config, not from AWS_* (for hints) */
    int configured_region;
    int insecure;
    long connect_timeout_ms;
    long request_timeout_ms;
    char curl_error[CURL_ERROR_SIZE];
} s3_store;

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

static int s3_error(const s3_store *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int s3_error(const s3_store *s, int code, const char *fmt, ...) {
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

/* ---- requests ---- */

typedef struct s3_req {
    const char *method;  /* GET HEAD PUT POST DELETE */
    const char *object;  /* full S3 key (prefix included); NULL = the bucket */
    sc_sigv4_pair query[S3_MAX_QUERY];
    size_t nquery;
    sc_sigv4_pair headers[S3_MAX_HEADERS]; /* extra headers, all signed */
    size_t nheaders;
    const uint8_t *body;
    size_t body_len;
    int conditional;     /* never re-sent once it may have arrived */
    size_t max_body;     /* largest success body accepted (0: S3_SMALL_BODY_MAX) */
} s3_req;

typedef struct s3_resp {
    long status;       /* 0: no complete HTTP answer */
    CURLcode cc;
    int maybe_applied; /* this attempt may have reached the server whole */
    int earlier_lost;  /* an earlier attempt of the same request lost its answer */
    int tries;
    int oom;
    int body_overflow;
    long status_seen; /* from the status line, during the transfer */
    sc_buf body;
    char etag[SC_ETAG_MAX];
    int etag_overflow;
    int64_t mtime_ms;
    uint64_t content_length;
    int have_length;
    char request_id[96];
    sc_s3_error_body err;
    char curl_error[CURL_ERROR_SIZE];
} s3_resp;

typedef struct xfer {
    const s3_req *req;
    s3_resp *resp;
    size_t read_pos;
    int resend_refused; /* libcurl wanted to send this request again and was told no */
} xfer;

static void resp_clear(s3_resp *r) {
    sc_buf_free(&r->body);
    int lost = r->earlier_lost, tries = r->tries;
    memset(r, 0, sizeof *r);
    r->earlier_lost = lost;
    r->tries = tries;
}

static void resp_free(s3_resp *r) { sc_buf_free(&r->body); }

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud) {
    xfer *x = ud;
    s3_resp *r = x->resp;
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
    s3_resp *r = x->resp;
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
 * connection died): refusing that for a conditional PUT turns a silent
 * re-send into an error we report as SC_EUNKNOWN.
 */
static int on_seek(void *ud, curl_off_t offset, int origin) {
    xfer *x = ud;
    if (x->req->conditional) {
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
static int s3_perform(s3_store *s, const s3_req *req, s3_resp *resp) {
    resp_clear(resp);
    resp->tries++;
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
    CURL *c = s->curl;
    curl_easy_reset(c); /* keeps the connection cache */
    s->curl_error[0] = '\0';
    curl_easy_setopt(c, CURLOPT_URL, (const char *)url.data);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, s->curl_error);
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
    /* An empty conditional body has nothing to rewind, so libcurl would re-send it
     * silently on a dead reused connection: give it a connection of its own. */
    if (req->conditional && req->body_len == 0) curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);

    resp->cc = curl_easy_perform(c);
    memcpy(resp->curl_error, s->curl_error, sizeof resp->curl_error);
    if (resp->oom) {
        rc = sc_error_set(SC_ENOMEM, "out of memory reading the answer to %s", req->method);
        goto done;
    }
    if (resp->cc == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
        resp->maybe_applied = 1;
    } else {
        /* Conservative: once any request byte went out (or libcurl tried to send the
         * request again), the server may have all of it. */
        long request_size = 0;
        curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &request_size);
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

static int code_is(const s3_resp *r, const char *code) { return strcmp(r->err.code, code) == 0; }

static int throttled(const s3_resp *r) {
    return r->status == 503 || r->status == 429 || code_is(r, "SlowDown") ||
           code_is(r, "ServiceUnavailable");
}

/* May this attempt be sent again? */
static int retryable(const s3_resp *r, int conditional) {
    if (r->cc != CURLE_OK) {
        if (r->body_overflow || tls_failure(r->cc)) return 0;
        return !r->maybe_applied || !conditional;
    }
    if (throttled(r)) return 1; /* refused before being applied */
    /* "Your socket connection to the server was not read from or written to": not applied. */
    if (r->status == 400 && code_is(r, "RequestTimeout")) return 1;
    if (r->status >= 500 && r->status != 501) return !conditional;
    return 0;
}

static int s3_exchange(s3_store *s, const s3_req *req, s3_resp *resp) {
    resp->earlier_lost = 0;
    resp->tries = 0;
    for (int attempt = 0;; attempt++) {
        int rc = s3_perform(s, req, resp);
        if (rc) return rc;
        if (!retryable(resp, req->conditional) || attempt + 1 >= S3_TRIES) return 0;
        if ((resp->cc != CURLE_OK && resp->maybe_applied) ||
            (resp->status >= 500 && !throttled(resp)))
            resp->earlier_lost = 1;
        sc_sleep_ms((int64_t)S3_BACKOFF_MS << attempt); /* sc-env-exempt: a real server's throttling */
    }
}

/* ---- what a failed exchange means ---- */

static const char *auth_hint(const s3_store *s, const s3_resp *r, const char *method) {
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

static int is_auth_failure(const s3_resp *r) {
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

static void request_id_suffix(char *out, size_t size, const s3_resp *r) {
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

static const s3_write_kind W_PUT = {"a plain overwrite", 0};
static const s3_write_kind W_CREATE = {"the conditional create (If-None-Match: *)", 1};
static const s3_write_kind W_CAS = {"the compare-and-swap (If-Match)", 1};
static const s3_write_kind W_DELETE = {"a delete", 0};
static const s3_write_kind W_MULTIPART = {"a multipart upload step", 0};

/* "..., so the claim ..." / "...; it claims nothing": whether a claim may have been made. */
static const char *claim_clause(const s3_write_kind *w) {
    return w->claim ? "this is a claim request and it WAS sent: the claim may or may not have "
                      "been made (reconcile by reading the key before deciding)"
                    : "the write may or may not have been applied; this request is not a claim, "
                      "so it made none";
}

/*
 * The code and message for a failed exchange of `method` on s3://bucket/object
 * (object NULL: the store's location). `write` (NULL for reads): the request
 * changes state, so a lost answer is SC_EUNKNOWN rather than SC_ETRANSIENT,
 * and the message says which request it was and whether it was a claim.
 */
static int s3_fail(const s3_store *s, const char *method, const char *object, const s3_resp *r,
                   const s3_write_kind *write) {
    char where[SC_S3_KEY_MAX + 320];
    if (object)
        snprintf(where, sizeof where, "s3://%s/%s", s->bucket, object);
    else
        snprintf(where, sizeof where, "%s", s->location);
    char rid[128];
    request_id_suffix(rid, sizeof rid, r);
    if (r->cc != CURLE_OK) {
        const char *why = r->curl_error[0] ? r->curl_error : curl_easy_strerror(r->cc);
        if (r->body_overflow)
            return s3_error(s, SC_EIO, "%s %s: the answer from %s is larger than accepted", method,
                            where, s->origin);
        if (tls_failure(r->cc))
            return s3_error(s, SC_EIO,
                            "%s %s: TLS verification of %s failed: %s (set AWS_CA_BUNDLE for a "
                            "private CA; SNAPCOMMIT_S3_INSECURE=1 disables the check and is only "
                            "for test servers)",
                            method, where, s->origin, why);
        if (write && (r->maybe_applied || r->earlier_lost))
            return s3_error(s, SC_EUNKNOWN,
                            "%s %s: the answer to %s was lost (no answer from %s after %d "
                            "send%s: %s); %s",
                            method, where, write->what, s->origin, r->tries,
                            r->tries == 1 ? "" : "s", why, claim_clause(write));
        return s3_error(s, SC_ETRANSIENT, "%s %s: %s did not answer after %d tries: %s", method,
                        where, s->origin, r->tries, why);
    }
    const char *code = r->err.code[0] ? r->err.code : NULL;
    const char *msg = r->err.message;
    if (is_auth_failure(r))
        return s3_error(s, SC_EAUTH, "S3 refused the credentials for %s %s: %s (%s)%s%s%s", method,
                        where, code ? code : r->status == 401 ? "HTTP 401" : "HTTP 403",
                        auth_hint(s, r, method), *msg ? ": " : "", msg, rid);
    if (r->status == 404) {
        if ((code && strcmp(code, "NoSuchBucket") == 0) || strcmp(method, "LIST") == 0)
            return s3_error(s, SC_EIO,
                            "%s %s: bucket \"%s\" does not exist at %s (NoSuchBucket)%s; create "
                            "it first: snapcommit never creates buckets",
                            method, where, s->bucket, s->origin, rid);
        if (code && strcmp(code, "NoSuchUpload") == 0)
            return s3_error(s, SC_EIO, "%s %s: the multipart upload is gone (NoSuchUpload)%s",
                            method, where, rid);
        return s3_error(s, SC_ENOTFOUND, "%s: no such object (%s)%s", where,
                        code ? code : "HTTP 404", rid);
    }
    if (r->status == 501 || (code && strcmp(code, "NotImplemented") == 0))
        return s3_error(s, SC_EUNSUPPORTED,
                        "%s %s: the server does not implement this request (%s)%s%s%s; for "
                        "servers without conditional writes set SNAPCOMMIT_S3_CONDITIONAL_WRITES=0",
                        method, where, code ? code : "HTTP 501", *msg ? ": " : "", msg, rid);
    if (write && r->earlier_lost)
        return s3_error(s, SC_EUNKNOWN,
                        "%s %s: the answer to an earlier send of %s was lost and the last of %d "
                        "sends failed (HTTP %ld %s); %s",
                        method, where, write->what, r->tries, r->status, code ? code : "",
                        claim_clause(write));
    if (throttled(r) || (r->status == 400 && code_is(r, "RequestTimeout")))
        return s3_error(s, SC_ETRANSIENT, "%s %s: S3 is throttling or unavailable (HTTP %ld %s) "
                                          "after %d tries%s",
                        method, where, r->status, code ? code : "", r->tries, rid);
    if (r->status >= 500 && write)
        return s3_error(s, SC_EUNKNOWN, "%s %s: S3 failed %s with HTTP %ld %s%s%s; %s", method,
                        where, write->what, r->status, code ? code : "", *msg ? ": " : "", msg,
                        claim_clause(write));
    if (r->status >= 500)
        return s3_error(s, SC_ETRANSIENT, "%s %s: S3 failed with HTTP %ld %s%s%s", method, where,
                        r->status, code ? code : "", *msg ? ": " : "", msg);
    if (r->status == 301 || r->status == 307 || code_is(r, "PermanentRedirect"))
        return s3_error(s, SC_EIO,
                        "%s %s: S3 redirected the request (HTTP %ld %s): check AWS_REGION and "
                        "the endpoint%s",
                        method, where, r->status, code ? code : "", rid);
    return s3_error(s, SC_EIO, "%s %s: HTTP %ld %s%s%s%s", method, where, r->status,
                    code ? code : "", *msg ? ": " : "", msg, rid);
}

/* ---- keys ---- */

/* prefix + "/" + key, within S3's 1024-byte limit. */
static int object_key(const s3_store *s, char **out, const char *key) {
    size_t plen = strlen(s->prefix), klen = strlen(key);
    size_t n = plen + (plen ? 1 : 0) + klen;
    if (n > SC_S3_KEY_MAX)
        return s3_error(s, SC_EINVAL, "%s/%.200s...: key too long for S3 (%zu bytes with the "
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

static void info_from(sc_object_info *info, const s3_resp *r, uint64_t size) {
    if (!info) return;
    info->size = size;
    info->mtime_ms = r->mtime_ms;
    snprintf(info->etag, sizeof info->etag, "%s", r->etag);
}

static int etag_check(const s3_store *s, const char *method, const char *object, const s3_resp *r) {
    if (!r->etag_overflow) return 0;
    return s3_error(s, SC_EIO, "%s s3://%s/%s: the ETag is longer than %d bytes", method, s->bucket,
                    object, SC_ETAG_MAX - 1);
}

/* ---- operations ---- */

static int s3_get(void *self, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                  const char *key) {
    s3_store *s = self;
    *out_data = NULL;
    *out_len = 0;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    s3_req req = {.method = "GET", .object = object, .max_body = SIZE_MAX};
    s3_resp resp = {0};
    rc = s3_exchange(s, &req, &resp);
    if (!rc && (resp.cc != CURLE_OK || resp.status != 200))
        rc = s3_fail(s, "GET", object, &resp, NULL);
    if (!rc) rc = etag_check(s, "GET", object, &resp);
    if (!rc) {
        info_from(out_info, &resp, resp.body.len);
        *out_len = resp.body.len;
        if (resp.body.len) {
            *out_data = resp.body.data; /* ownership moves to the caller */
            resp.body = (sc_buf)SC_BUF_INIT;
        }
    }
    resp_free(&resp);
    free(object);
    return rc;
}

/* HEAD of a full object key. */
static int head_object(s3_store *s, sc_object_info *out_info, const char *object) {
    s3_req req = {.method = "HEAD", .object = object};
    s3_resp resp = {0};
    int rc = s3_exchange(s, &req, &resp);
    if (!rc && (resp.cc != CURLE_OK || resp.status != 200))
        rc = s3_fail(s, "HEAD", object, &resp, NULL);
    if (!rc) rc = etag_check(s, "HEAD", object, &resp);
    if (!rc && !resp.have_length)
        rc = s3_error(s, SC_EIO, "HEAD s3://%s/%s: no Content-Length in the answer", s->bucket,
                      object);
    if (!rc && out_info) info_from(out_info, &resp, resp.content_length);
    resp_free(&resp);
    return rc;
}

static int s3_head(void *self, sc_object_info *out_info, const char *key) {
    s3_store *s = self;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    rc = head_object(s, out_info, object);
    free(object);
    return rc;
}

typedef enum { PUT_PLAIN, PUT_IF_ABSENT, PUT_IF_MATCH } put_mode;

static int put_success(s3_store *s, sc_object_info *out_info, const char *object,
                       const s3_resp *resp, size_t len) {
    int rc = etag_check(s, "PUT", object, resp);
    if (rc) return rc;
    info_from(out_info, resp, len);
    if (out_info) out_info->mtime_ms = 0; /* PUT answers carry no Last-Modified */
    return 0;
}

static int put_object(s3_store *s, sc_object_info *out_info, const char *object,
                      const uint8_t *data, size_t len, put_mode mode, const char *etag) {
    s3_req req = {.method = "PUT", .object = object, .body = data, .body_len = len};
    if (mode == PUT_IF_ABSENT) {
        req.headers[req.nheaders++] = (sc_sigv4_pair){"If-None-Match", "*"};
        req.conditional = 1;
    } else if (mode == PUT_IF_MATCH) {
        req.headers[req.nheaders++] = (sc_sigv4_pair){"If-Match", etag};
        req.conditional = 1;
    }
    const s3_write_kind *wkind =
        mode == PUT_IF_ABSENT ? &W_CREATE : mode == PUT_IF_MATCH ? &W_CAS : &W_PUT;
    s3_resp resp = {0};
    int rc = 0;
    /* Only a 409 on put_if_absent loops: it says our write was not applied. */
    for (int send = 0; send < S3_TRIES; send++) {
        rc = s3_exchange(s, &req, &resp);
        if (rc) break;
        if (resp.cc == CURLE_OK && resp.status >= 200 && resp.status < 300) {
            rc = put_success(s, out_info, object, &resp, len);
            break;
        }
        if (mode == PUT_PLAIN || resp.cc != CURLE_OK) {
            rc = s3_fail(s, "PUT", object, &resp, wkind);
            break;
        }
        if (mode == PUT_IF_ABSENT && resp.status == 412) {
            rc = s3_error(s, SC_EEXISTS, "s3://%s/%s already exists (If-None-Match: * refused)",
                          s->bucket, object);
            break;
        }
        if (mode == PUT_IF_ABSENT && resp.status == 409) {
            /* ConditionalRequestConflict: someone else's conditional write is in flight. */
            sc_object_info info;
            rc = head_object(s, &info, object);
            if (rc == 0) {
                rc = s3_error(s, SC_EEXISTS,
                              "s3://%s/%s already exists (created by a concurrent writer: 409 "
                              "%s, then found by HEAD)",
                              s->bucket, object, resp.err.code);
                break;
            }
            if (rc != SC_ENOTFOUND) break;
            rc = s3_error(s, SC_ETRANSIENT,
                          "PUT s3://%s/%s: concurrent conditional requests kept conflicting (409 "
                          "%s); nothing was written",
                          s->bucket, object, resp.err.code);
            sc_sleep_ms((int64_t)S3_BACKOFF_MS << send); /* sc-env-exempt: a real server's throttling */
            continue;
        }
        if (mode == PUT_IF_MATCH && (resp.status == 412 || resp.status == 409)) {
            if (resp.status == 412) {
                /* S3 answers 404 for a missing key; some servers answer 412: ask. */
                sc_object_info info;
                int hrc = head_object(s, &info, object);
                if (hrc == SC_ENOTFOUND) {
                    rc = s3_error(s, SC_ENOTFOUND,
                                  "s3://%s/%s: no such object (If-Match refused with 412, then "
                                  "HEAD found nothing)",
                                  s->bucket, object);
                    break;
                }
            }
            rc = s3_error(s, SC_EMODIFIED,
                          "s3://%s/%s changed: If-Match %s refused (HTTP %ld %s); nothing written",
                          s->bucket, object, etag, resp.status, resp.err.code);
            break;
        }
        rc = s3_fail(s, "PUT", object, &resp, wkind);
        break;
    }
    resp_free(&resp);
    return rc;
}

static int s3_put_mode(void *self, sc_object_info *out_info, const char *key, const uint8_t *data,
                       size_t len, put_mode mode, const char *etag) {
    s3_store *s = self;
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
    s3_store *s = self;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    sc_object_info info;
    rc = head_object(s, &info, object);
    if (rc == 0)
        rc = s3_error(s, SC_EEXISTS, "s3://%s/%s already exists", s->bucket, object);
    else if (rc == SC_ENOTFOUND)
        rc = put_object(s, out_info, object, data, len, PUT_PLAIN, NULL);
    free(object);
    return rc;
}

static int s3_del(void *self, const char *key) {
    s3_store *s = self;
    char *object = NULL;
    int rc = object_key(s, &object, key);
    if (rc) return rc;
    /* DELETE answers 204 whether or not the key existed: look first. */
    rc = head_object(s, NULL, object);
    if (!rc) {
        s3_req req = {.method = "DELETE", .object = object};
        s3_resp resp = {0};
        rc = s3_exchange(s, &req, &resp);
        if (!rc && (resp.cc != CURLE_OK || resp.status < 200 || resp.status >= 300))
            rc = s3_fail(s, "DELETE", object, &resp, &W_DELETE);
        resp_free(&resp);
    }
    free(object);
    return rc;
}

/* ---- list ---- */

static int list_push(sc_list_page *out, size_t *cap, const char *key) {
    if (out->count == *cap) {
        size_t ncap = *cap ? 2 * *cap : 64;
        char **keys = realloc(out->keys, ncap * sizeof *keys);
        if (!keys) return sc_error_set(SC_ENOMEM, "out of memory listing");
        out->keys = keys;
        *cap = ncap;
    }
    if (!(out->keys[out->count] = strdup(key)))
        return sc_error_set(SC_ENOMEM, "out of memory listing");
    out->count++;
    return 0;
}

static int s3_list(void *self, sc_list_page *out, const char *prefix, const char *start_after,
                   size_t max_keys) {
    s3_store *s = self;
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
            rc = s3_error(s, SC_EIO, "LIST %s: more than %zu pages without reaching %zu keys",
                          s->location, max_pages, max_keys);
            break;
        }
        size_t want = max_keys - out->count < 1000 ? max_keys - out->count : 1000;
        char want_text[24];
        snprintf(want_text, sizeof want_text, "%zu", want);
        s3_req req = {.method = "GET", .max_body = limits.max_body};
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
        s3_resp resp = {0};
        rc = s3_exchange(s, &req, &resp);
        if (!rc && (resp.cc != CURLE_OK || resp.status != 200))
            rc = s3_fail(s, "LIST", full_prefix.len ? (char *)full_prefix.data : NULL, &resp, NULL);
        sc_s3_list_result r = {0};
        if (!rc) {
            limits.max_keys = want;
            rc = sc_s3_xml_parse_list(&r, (const char *)resp.body.data, resp.body.len, &limits);
            if (rc)
                rc = sc_error_wrap(SC_EIO, "LIST %s (from %s)", s->location, s->origin);
        }
        resp_free(&resp);
        for (size_t i = 0; !rc && i < r.count; i++) {
            const char *k = r.keys[i];
            /* The contract is ascending bytewise order, strictly after start_after, under
             * the prefix: check rather than trust. */
            if (strncmp(k, (char *)full_prefix.data, full_prefix.len) != 0 ||
                (last.len && strcmp(k, (char *)last.data) <= 0) ||
                (start_after && strcmp(k, (char *)full_after.data) <= 0)) {
                rc = s3_error(s, SC_EIO,
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
                rc = s3_error(s, SC_EIO, "LIST %s: a truncated page with neither keys nor a "
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

/* ---- multipart upload ---- */

static int pread_all(int fd, uint8_t *buf, size_t len, off_t off) {
    while (len > 0) {
        ssize_t n = pread(fd, buf, len, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO; /* the file shrank under us */
            return -1;
        }
        buf += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}

static void md5(uint8_t out[16], const void *data, size_t len) {
    unsigned int n = 0;
    EVP_Digest(data, len, out, &n, EVP_md5(), NULL);
}

/* "\"<hex>\"" of an MD5, the ETag S3 gives a single-part object or one part. */
static void md5_etag(char out[35], const uint8_t digest[16]) {
    char hex[33];
    sc_hex_encode(hex, digest, 16);
    snprintf(out, 35, "\"%s\"", hex);
}

/* Does the object look like the one we completed (size and multipart ETag)? */
static int verify_completed(s3_store *s, const char *object, uint64_t size, const char *expected) {
    sc_object_info info;
    char saved[SC_MSG_MAX];
    msg_save(saved);
    int rc = head_object(s, &info, object);
    msg_restore(saved);
    return rc == 0 && info.size == size && strcmp(info.etag, expected) == 0;
}

static int upload_request(s3_store *s, s3_resp *resp, const char *method, const char *object,
                          const char *upload_id, const char *part_number, const uint8_t *body,
                          size_t len) {
    s3_req req = {.method = method, .object = object, .body = body, .body_len = len};
    if (!upload_id) {
        req.query[req.nquery++] = (sc_sigv4_pair){"uploads", NULL};
    } else {
        req.query[req.nquery++] = (sc_sigv4_pair){"uploadId", upload_id};
        if (part_number) req.query[req.nquery++] = (sc_sigv4_pair){"partNumber", part_number};
    }
    return s3_exchange(s, &req, resp);
}

static void abort_upload(s3_store *s, const char *object, const char *upload_id, int *aborted) {
    s3_resp resp = {0};
    *aborted = 0;
    if (upload_request(s, &resp, "DELETE", object, upload_id, NULL, NULL, 0) == 0 &&
        resp.cc == CURLE_OK && resp.status >= 200 && resp.status < 300)
        *aborted = 1;
    resp_free(&resp);
}

/* Append s to b with the five XML escapes. */
static int xml_escape(sc_buf *b, const char *s) {
    int rc = 0;
    for (; *s && !rc; s++) {
        switch (*s) {
        case '"': rc = sc_buf_append_str(b, "&quot;"); break;
        case '&': rc = sc_buf_append_str(b, "&amp;"); break;
        case '<': rc = sc_buf_append_str(b, "&lt;"); break;
        case '>': rc = sc_buf_append_str(b, "&gt;"); break;
        case '\'': rc = sc_buf_append_str(b, "&apos;"); break;
        default: rc = sc_buf_append_byte(b, (uint8_t)*s); break;
        }
    }
    return rc;
}

static int complete_upload(s3_store *s, const char *object, const char *upload_id,
                           char (*etags)[SC_ETAG_MAX], size_t nparts, uint64_t size,
                           const char *expected_etag) {
    sc_buf body = SC_BUF_INIT;
    int rc = sc_buf_append_str(
        &body, "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    for (size_t i = 0; i < nparts && !rc; i++) {
        rc = sc_buf_printf(&body, "<Part><PartNumber>%zu</PartNumber><ETag>", i + 1);
        if (!rc) rc = xml_escape(&body, etags[i]);
        if (!rc) rc = sc_buf_append_str(&body, "</ETag></Part>");
    }
    if (!rc) rc = sc_buf_append_str(&body, "</CompleteMultipartUpload>");
    if (rc) {
        sc_buf_free(&body);
        return rc;
    }
    int lost = 0;
    s3_resp resp = {0};
    rc = SC_EUNKNOWN;
    for (int attempt = 0; attempt < S3_TRIES; attempt++) {
        if (attempt) sc_sleep_ms((int64_t)S3_BACKOFF_MS << (attempt - 1)); /* sc-env-exempt: a real server */
        /* Sent by hand, not through s3_exchange: each answer needs a look of its own. */
        s3_req req = {.method = "POST", .object = object, .body = body.data, .body_len = body.len};
        req.query[req.nquery++] = (sc_sigv4_pair){"uploadId", upload_id};
        int prc = s3_perform(s, &req, &resp);
        if (prc) {
            rc = prc;
            break;
        }
        if (resp.cc != CURLE_OK) {
            if (resp.maybe_applied) lost = 1;
            rc = s3_fail(s, "POST", object, &resp, &W_MULTIPART);
            continue;
        }
        if (resp.status == 200) {
            int is_error = 0;
            char etag[SC_ETAG_MAX];
            sc_s3_error_body err;
            rc = sc_s3_xml_parse_complete(&is_error, etag, sizeof etag, &err,
                                          (const char *)resp.body.data, resp.body.len,
                                          S3_SMALL_BODY_MAX);
            if (rc) {
                rc = sc_error_wrap(SC_EUNKNOWN, "CompleteMultipartUpload s3://%s/%s", s->bucket,
                                   object);
                lost = 1;
                continue;
            }
            if (!is_error) break; /* done: rc is 0 */
            /* "200 OK" carrying an error: S3 documents it as retryable when internal. */
            resp.err = err;
            resp.status = strcmp(err.code, "SlowDown") == 0 ? 503 : 500;
            lost = 1;
            rc = s3_fail(s, "POST", object, &resp, &W_MULTIPART);
            continue;
        }
        if (resp.status == 404 && code_is(&resp, "NoSuchUpload") && lost) {
            /* An earlier, lost attempt may have completed it. */
            rc = verify_completed(s, object, size, expected_etag)
                     ? 0
                     : s3_error(s, SC_EUNKNOWN,
                                "CompleteMultipartUpload s3://%s/%s: the upload is gone after a "
                                "lost answer, and the object does not match it",
                                s->bucket, object);
            break;
        }
        rc = s3_fail(s, "POST", object, &resp, &W_MULTIPART);
        if (!retryable(&resp, 0)) break;
        if (resp.status >= 500) lost = 1;
    }
    resp_free(&resp);
    sc_buf_free(&body);
    /* After a lost answer every later failure may hide a success: look. */
    if (rc && rc != SC_ENOMEM && (lost || rc == SC_EUNKNOWN)) {
        if (verify_completed(s, object, size, expected_etag))
            rc = 0;
        else if (rc != SC_EUNKNOWN)
            rc = sc_error_wrap(SC_EUNKNOWN, "CompleteMultipartUpload s3://%s/%s: an earlier "
                                            "answer was lost",
                               s->bucket, object);
    }
    return rc;
}

int sc_s3_put_file(void *self, const char *key, const char *local_path, size_t part_size) {
    s3_store *s = self;
    if (!s || s->magic != S3_MAGIC)
        return sc_error_set(SC_EINVAL, "sc_s3_put_file: the store is not an s3 store");
    if (!sc_store_key_valid(key))
        return sc_error_set(SC_EINVAL, "sc_s3_put_file: invalid key \"%.200s\"", key ? key : "");
    if (!local_path) return sc_error_set(SC_EINVAL, "sc_s3_put_file: no local path");
    if (part_size == 0) part_size = SC_S3_PART_SIZE_DEFAULT;
    if (part_size < SC_S3_PART_SIZE_MIN || part_size > SC_S3_PART_SIZE_MAX)
        return sc_error_set(SC_EINVAL, "sc_s3_put_file: part size %zu outside S3's 5 MiB..5 GiB",
                            part_size);
    int fd = open(local_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return sc_error_set(SC_EIO, "%s: %s", local_path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int err = errno;
        close(fd);
        return sc_error_set(SC_EIO, "%s: %s", local_path,
                            S_ISREG(st.st_mode) ? strerror(err) : "not a regular file");
    }
    uint64_t size = (uint64_t)st.st_size;
    uint64_t nparts64 = size == 0 ? 1 : (size + part_size - 1) / part_size;
    if (nparts64 > SC_S3_PARTS_MAX) {
        close(fd);
        return sc_error_set(SC_EINVAL,
                            "%s: %llu bytes need %llu parts of %zu bytes, more than S3's %d: use "
                            "larger parts",
                            local_path, (unsigned long long)size, (unsigned long long)nparts64,
                            part_size, SC_S3_PARTS_MAX);
    }
    size_t nparts = (size_t)nparts64;
    size_t buf_len = size < part_size ? (size_t)size : part_size;
    uint8_t *buf = malloc(buf_len ? buf_len : 1);
    char *object = NULL;
    int rc = buf ? object_key(s, &object, key)
                 : sc_error_set(SC_ENOMEM, "out of memory for a %zu-byte part", buf_len);
    if (!rc && nparts == 1) {
        /* One part: a plain PUT is simpler and atomic all the same. */
        if (pread_all(fd, buf, (size_t)size, 0) != 0)
            rc = sc_error_set(SC_EIO, "reading %s: %s", local_path, strerror(errno));
        else
            rc = put_object(s, NULL, object, buf, (size_t)size, PUT_PLAIN, NULL);
        goto done_small;
    }
    if (rc) goto done_small;

    char *upload_id = NULL;
    char(*etags)[SC_ETAG_MAX] = calloc(nparts, sizeof *etags);
    uint8_t *digests = malloc(nparts * 16);
    int aborted = 0;
    if (!etags || !digests) {
        rc = sc_error_set(SC_ENOMEM, "out of memory for %zu parts", nparts);
        goto done;
    }
    s3_resp resp = {0};
    rc = upload_request(s, &resp, "POST", object, NULL, NULL, NULL, 0);
    if (!rc && (resp.cc != CURLE_OK || resp.status != 200))
        rc = s3_fail(s, "CreateMultipartUpload", object, &resp, NULL);
    if (!rc && sc_s3_xml_parse_upload_id(&upload_id, (const char *)resp.body.data, resp.body.len,
                                         S3_SMALL_BODY_MAX) != 0)
        rc = sc_error_wrap(SC_EIO, "s3://%s/%s", s->bucket, object);
    resp_free(&resp);
    if (rc) goto done;

    for (size_t i = 0; i < nparts && !rc; i++) {
        uint64_t off = (uint64_t)i * part_size;
        size_t len = size - off < part_size ? (size_t)(size - off) : part_size;
        if (pread_all(fd, buf, len, (off_t)off) != 0) {
            rc = sc_error_set(SC_EIO, "reading %s at %llu: %s", local_path,
                              (unsigned long long)off, strerror(errno));
            break;
        }
        md5(digests + 16 * i, buf, len);
        char number[16];
        snprintf(number, sizeof number, "%zu", i + 1);
        s3_resp presp = {0};
        rc = upload_request(s, &presp, "PUT", object, upload_id, number, buf, len);
        if (!rc && (presp.cc != CURLE_OK || presp.status != 200))
            rc = s3_fail(s, "UploadPart", object, &presp, &W_MULTIPART);
        if (!rc && (presp.etag_overflow || !presp.etag[0]))
            rc = s3_error(s, SC_EIO, "UploadPart %zu of s3://%s/%s: no usable ETag in the answer",
                          i + 1, s->bucket, object);
        if (!rc) {
            char expected[35];
            md5_etag(expected, digests + 16 * i);
            /* A plain-MD5 ETag must be this part's: anything else is corruption in transit. */
            if (strlen(presp.etag) == 34 && presp.etag[0] == '"' &&
                strspn(presp.etag + 1, "0123456789abcdef") == 32 &&
                strcmp(presp.etag, expected) != 0)
                rc = s3_error(s, SC_EIO, "UploadPart %zu of s3://%s/%s: ETag %s, expected %s",
                              i + 1, s->bucket, object, presp.etag, expected);
            snprintf(etags[i], SC_ETAG_MAX, "%s", presp.etag);
        }
        resp_free(&presp);
    }
    if (!rc) {
        uint8_t whole[16];
        md5(whole, digests, nparts * 16);
        char hex[33], expected[SC_ETAG_MAX];
        sc_hex_encode(hex, whole, 16);
        snprintf(expected, sizeof expected, "\"%s-%zu\"", hex, nparts);
        rc = complete_upload(s, object, upload_id, etags, nparts, size, expected);
    }
    if (rc) {
        /* Keep the message of the failure, not of the clean-up. */
        char saved[SC_MSG_MAX];
        msg_save(saved);
        abort_upload(s, object, upload_id, &aborted);
        if (rc == SC_EUNKNOWN && aborted)
            rc = sc_error_set(SC_ETRANSIENT, "%s (the upload was then aborted: nothing written)",
                              saved);
        else
            sc_error_set(rc, "%s", saved);
    }
done:
    free(upload_id);
    free(etags);
    free(digests);
done_small:
    free(object);
    free(buf);
    close(fd);
    return rc;
}

/* ---- configuration ---- */

static void s3_close(void *self) {
    s3_store *s = self;
    if (!s) return;
    if (s->curl) curl_easy_cleanup(s->curl);
    if (s->secret_key) OPENSSL_cleanse(s->secret_key, strlen(s->secret_key));
    if (s->session_token) OPENSSL_cleanse(s->session_token, strlen(s->session_token));
    s->magic = 0;
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

static const sc_store_ops s3_ops = {
    .version = SC_STORE_OPS_VERSION,
    .name = "s3",
    .caps = SC_CAP_CONDITIONAL_CREATE | SC_CAP_COMPARE_AND_SWAP | SC_CAP_LIST_AFTER_WRITE |
            SC_CAP_DURABLE,
    .get = s3_get,
    .head = s3_head,
    .put = s3_put,
    .put_if_absent = s3_put_if_absent,
    .put_if_match = s3_put_if_match,
    .list = s3_list,
    .del = s3_del,
    .close = s3_close,
};

/* SNAPCOMMIT_S3_CONDITIONAL_WRITES=0: no conditional caps, put_if_absent looks then writes. */
static const sc_store_ops s3_ops_plain = {
    .version = SC_STORE_OPS_VERSION,
    .name = "s3",
    .caps = SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE,
    .get = s3_get,
    .head = s3_head,
    .put = s3_put,
    .put_if_absent = s3_put_if_absent_emulated,
    .put_if_match = NULL,
    .list = s3_list,
    .del = s3_del,
    .close = s3_close,
};

static const char *env(const char *name) {
    const char *v = getenv(name); /* sc-env-exempt: sc_store_config's documented defaults */
    return v && *v ? v : NULL;
}

/* A configured string, else the environment variable `var` (NULL when neither is set). */
static const char *pick(const char *configured, const char *var) {
    return configured && *configured ? configured : var ? env(var) : NULL;
}

/* A 0/1 switch from `var`; *out keeps its default when unset. */
static int env_flag(int *out, const char *name) {
    const char *v = env(name);
    if (!v) return 0;
    if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
             !strcasecmp(v, "off"))
        *out = 0;
    else
        return sc_error_set(SC_EINVAL, "%s=\"%.40s\": expected 0 or 1", name, v);
    return 0;
}

/* A configured switch (-1 = unset) wins over the variable. */
static int cfg_flag(int *out, int configured, const char *field, const char *var) {
    if (configured == 0 || configured == 1) {
        *out = configured;
        return 0;
    }
    if (configured != -1)
        return sc_error_set(SC_EINVAL, "store configuration: %s is %d (expected -1, 0 or 1)", field,
                            configured);
    return env_flag(out, var);
}

static int cfg_ms(long *out, int64_t configured, const char *field, const char *name, long def) {
    *out = def;
    if (configured) {
        if (configured < 1 || configured > 3600000)
            return sc_error_set(SC_EINVAL,
                                "store configuration: %s %lld is not milliseconds, 1..3600000",
                                field, (long long)configured);
        *out = (long)configured;
        return 0;
    }
    const char *v = env(name);
    if (!v) return 0;
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 1 || n > 3600000)
        return sc_error_set(SC_EINVAL, "%s=\"%.40s\": expected milliseconds, 1..3600000", name, v);
    *out = n;
    return 0;
}

static int dup_into(char **out, const char *s, size_t len) {
    *out = strndup(s, len);
    return *out ? 0 : sc_error_set(SC_ENOMEM, "out of memory");
}

static int bucket_valid(const char *b, size_t len, int path_style) {
    if (path_style) {
        if (len < 1 || len > 255) return 0;
        for (size_t i = 0; i < len; i++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", b[i]))
                return 0;
        return 1;
    }
    /* A DNS label sequence: the bucket becomes part of the host name. */
    if (len < 3 || len > 63) return 0;
    for (size_t i = 0; i < len; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789.-", b[i])) return 0;
    return b[0] != '.' && b[0] != '-' && b[len - 1] != '.' && b[len - 1] != '-';
}

/* Split "http(s)://authority[/path]" into origin, authority and path (no trailing '/'). */
static int parse_endpoint(s3_store *s, char **authority, char **path, const char *url,
                          const char *var) {
    size_t scheme = strncmp(url, "https://", 8) == 0 ? 8 : strncmp(url, "http://", 7) == 0 ? 7 : 0;
    if (!scheme)
        return sc_error_set(SC_EINVAL, "%s=\"%.200s\": the endpoint must start with http:// or "
                                       "https://",
                            var, url);
    const char *a = url + scheme;
    size_t alen = strcspn(a, "/?#");
    if (alen == 0 || memchr(a, '@', alen) || a[alen] == '?' || a[alen] == '#')
        return sc_error_set(SC_EINVAL,
                            "%s=\"%.200s\": expected http(s)://host[:port][/path], without user "
                            "info, query or fragment",
                            var, url);
    const char *p = a + alen;
    size_t plen = strlen(p);
    while (plen && p[plen - 1] == '/') plen--;
    for (size_t i = 0; i < plen; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/", p[i]))
            return sc_error_set(SC_EINVAL, "%s=\"%.200s\": unsupported character in the path", var,
                                url);
    int rc = dup_into(&s->origin, url, scheme + alen);
    if (!rc) rc = dup_into(authority, a, alen);
    if (!rc) rc = dup_into(path, p, plen);
    return rc;
}

int sc_s3_store_create(const sc_store_ops **ops, void **self, const char *uri) {
    return sc_s3_store_create_config(ops, self, uri, NULL);
}

int sc_s3_store_create_config(const sc_store_ops **ops, void **self, const char *uri,
                              const sc_store_config *config) {
    sc_store_config unset;
    if (!config) {
        sc_store_config_init(&unset);
        config = &unset;
    }
    *ops = NULL;
    *self = NULL;
    if (!uri) return sc_error_set(SC_EINVAL, "s3 store: no location");
    const char *rest = strncmp(uri, "s3://", 5) == 0 ? uri + 5 : uri;
    size_t blen = strcspn(rest, "/");
    const char *p = rest + blen;
    while (*p == '/') p++;
    size_t plen = strlen(p);
    while (plen && p[plen - 1] == '/') plen--;
    if (blen == 0)
        return sc_error_set(SC_EINVAL, "%s: no bucket (expected s3://BUCKET/PREFIX)", uri);
    if (plen > S3_PREFIX_MAX)
        return sc_error_set(SC_EINVAL, "%.200s...: prefix longer than %d bytes", uri,
                            S3_PREFIX_MAX);
    if (plen) {
        char probe[S3_PREFIX_MAX + 1];
        memcpy(probe, p, plen);
        probe[plen] = '\0';
        if (!sc_store_key_valid(probe))
            return sc_error_set(SC_EINVAL, "%s: the prefix has an empty, \".\" or \"..\" segment",
                                uri);
    }

    s3_store *s = calloc(1, sizeof *s);
    if (!s) return sc_error_set(SC_ENOMEM, "out of memory");
    s->magic = S3_MAGIC;
    char *authority = NULL, *endpoint_path = NULL;
    int rc = dup_into(&s->bucket, rest, blen);
    if (!rc) rc = dup_into(&s->prefix, p, plen);
    if (!rc) {
        size_t n = 5 + blen + 1 + plen + 1;
        s->location = malloc(n);
        if (!s->location) rc = sc_error_set(SC_ENOMEM, "out of memory");
        else snprintf(s->location, n, "s3://%s%s%s", s->bucket, plen ? "/" : "", s->prefix);
    }

    /* Credentials: configured keys are one unit, never mixed with AWS_* (see store.h). */
    const char *id = NULL, *secret = NULL, *token = NULL;
    const char *id_name = "AWS_ACCESS_KEY_ID", *secret_name = "AWS_SECRET_ACCESS_KEY";
    const char *token_name = "AWS_SESSION_TOKEN";
    int cfg_keys = (config->access_key_id && *config->access_key_id) ||
                   (config->secret_access_key && *config->secret_access_key);
    if (config->anonymous) {
        /* Unsigned requests: no key of any source. */
    } else if (cfg_keys) {
        id = pick(config->access_key_id, NULL);
        secret = pick(config->secret_access_key, NULL);
        token = pick(config->session_token, NULL);
        id_name = "the configured access key id";
        secret_name = "the configured secret access key";
        token_name = "the configured session token";
        s->configured_keys = 1;
    } else {
        if (config->session_token && *config->session_token && !rc)
            rc = sc_error_set(SC_EINVAL, "store configuration: a session token without an access "
                                         "key id and secret access key");
        id = env("AWS_ACCESS_KEY_ID");
        secret = env("AWS_SECRET_ACCESS_KEY");
        token = env("AWS_SESSION_TOKEN");
    }
    if (!rc && (!id) != (!secret))
        rc = sc_error_set(SC_EINVAL, "%s is set but %s is not", id ? id_name : secret_name,
                          id ? secret_name : id_name);
    if (!rc && id) {
        rc = dup_into(&s->access_key, id, strlen(id));
        if (!rc) rc = dup_into(&s->secret_key, secret, strlen(secret));
        if (!rc && token) rc = dup_into(&s->session_token, token, strlen(token));
    }
    if (!rc && strpbrk(s->access_key ? s->access_key : "", "\r\n/"))
        rc = sc_error_set(SC_EINVAL, "%s has a '/' or a line break", id_name);
    if (!rc && strpbrk(s->session_token ? s->session_token : "", "\r\n"))
        rc = sc_error_set(SC_EINVAL, "%s has a line break", token_name);

    /* Region and endpoint. */
    const char *region = pick(config->region, NULL);
    const char *region_name = "the configured region";
    s->configured_region = region != NULL;
    if (!region) {
        region = env("AWS_REGION");
        region_name = "AWS_REGION";
    }
    if (!region) {
        region = env("AWS_DEFAULT_REGION");
        region_name = "AWS_DEFAULT_REGION";
    }
    if (!region) region = "us-east-1";
    if (!rc && (strlen(region) > 64 || strspn(region, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
                                           strlen(region)))
        rc = sc_error_set(SC_EINVAL, "%s \"%.64s\" is not a region name", region_name, region);
    if (!rc) rc = dup_into(&s->region, region, strlen(region));
    const char *endpoint = pick(config->endpoint, NULL);
    const char *endpoint_var = "the configured endpoint";
    if (!endpoint) {
        endpoint = env("AWS_ENDPOINT_URL_S3");
        endpoint_var = "AWS_ENDPOINT_URL_S3";
    }
    if (!endpoint) {
        endpoint = env("AWS_ENDPOINT_URL");
        endpoint_var = "AWS_ENDPOINT_URL";
    }
    int custom = endpoint != NULL;
    char default_endpoint[128];
    if (!endpoint) {
        snprintf(default_endpoint, sizeof default_endpoint, "https://s3.%s.amazonaws.com%s", region,
                 strncmp(region, "cn-", 3) == 0 ? ".cn" : "");
        endpoint = default_endpoint;
        endpoint_var = "the default endpoint";
    }
    if (!rc) rc = parse_endpoint(s, &authority, &endpoint_path, endpoint, endpoint_var);
    int path_style = custom;
    if (!rc) rc = cfg_flag(&path_style, config->path_style, "path_style", "SNAPCOMMIT_S3_PATH_STYLE");
    if (!rc && !bucket_valid(s->bucket, blen, path_style))
        rc = sc_error_set(SC_EINVAL,
                          "%s: \"%s\" is not a valid bucket name%s", uri, s->bucket,
                          path_style ? "" : " for virtual-hosted requests (3-63 of a-z 0-9 . -; "
                                            "path style (SNAPCOMMIT_S3_PATH_STYLE=1) allows more)");
    if (!rc) {
        sc_buf host = SC_BUF_INIT, base = SC_BUF_INIT;
        rc = path_style ? sc_buf_append_str(&host, authority)
                        : sc_buf_printf(&host, "%s.%s", s->bucket, authority);
        if (!rc) rc = path_style ? sc_buf_printf(&base, "%s/%s", endpoint_path, s->bucket)
                                 : sc_buf_append_str(&base, endpoint_path);
        if (!rc && (!sc_buf_cstr(&host) || !sc_buf_cstr(&base))) rc = SC_ENOMEM;
        if (!rc) {
            s->host = (char *)host.data;
            s->base_path = (char *)base.data;
        } else {
            sc_buf_free(&host);
            sc_buf_free(&base);
        }
    }

    /* Transport. */
    int conditional = 1, verify = 1;
    int insecure_env = 0;
    if (config->tls_verify == -1) {
        rc = rc ? rc : env_flag(&insecure_env, "SNAPCOMMIT_S3_INSECURE");
        verify = !insecure_env;
    } else if (!rc) {
        rc = cfg_flag(&verify, config->tls_verify, "tls_verify", NULL);
    }
    s->insecure = !verify;
    if (!rc)
        rc = cfg_flag(&conditional, config->conditional_writes, "conditional_writes",
                      "SNAPCOMMIT_S3_CONDITIONAL_WRITES");
    if (!rc)
        rc = cfg_ms(&s->connect_timeout_ms, config->connect_timeout_ms, "connect_timeout_ms",
                    "SNAPCOMMIT_S3_CONNECT_TIMEOUT_MS", 5000);
    if (!rc)
        rc = cfg_ms(&s->request_timeout_ms, config->request_timeout_ms, "request_timeout_ms",
                    "SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS", 30000);
    const char *ca = pick(config->ca_bundle, "AWS_CA_BUNDLE");
    if (!rc && ca) rc = dup_into(&s->ca_bundle, ca, strlen(ca));
    if (!rc) {
        pthread_once(&curl_once, curl_init_once);
        if (curl_init_result != CURLE_OK)
            rc = sc_error_set(SC_EIO, "libcurl initialisation failed: %s",
                              curl_easy_strerror(curl_init_result));
    }
    if (!rc && !(s->curl = curl_easy_init()))
        rc = sc_error_set(SC_EIO, "libcurl: cannot create a handle");
    free(authority);
    free(endpoint_path);
    if (rc) {
        s3_close(s);
        return rc;
    }
    *ops = conditional ? &s3_ops : &s3_ops_plain;
    *self = s;
    return 0;
}
