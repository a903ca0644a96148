/*
 * S3 transport (internal): one configured connection to a bucket (sc_s3_store:
 * settings from s3_config.c, a small pool of libcurl easy handles, so that several
 * threads may send requests at once: SC_CAP_CONCURRENT), sending one request
 * with SigV4 signing and bounded retries (sc_s3_exchange), and turning a
 * failed exchange into a code and a scrubbed message (sc_s3_fail). The
 * operations on top are in store_s3.c; semantics in store_s3.h.
 */
#ifndef SC_S3_TRANSPORT_H
#define SC_S3_TRANSPORT_H

#include <curl/curl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "s3/s3_xml.h"
#include "s3/sigv4.h"
#include "snapcommit/backend.h"

#define SC_S3_TRIES 3           /* sends of one request, at most */
#define SC_S3_BACKOFF_MS 50     /* before the second send; doubles */
#define SC_S3_MAX_QUERY 6
#define SC_S3_MAX_HEADERS 4

/* Idle easy handles kept, each with its connection: a commit's batch before its claim usually
 * holds about a dozen requests; a wider one makes (and closes) the handles beyond. */
#define SC_S3_POOL 16

typedef struct sc_s3_store {
    /* Idle easy handles; a request takes one (or makes one) and gives it back. */
    pthread_mutex_t pool_lock;
    CURL *idle[SC_S3_POOL];
    size_t idle_count;
    int pool_ready; /* pool_lock is initialised */
    uint64_t sent;  /* HTTP requests sent, re-sends included (__atomic: batches send from threads) */
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
} sc_s3_store;

/* Free every field (secrets wiped first) and `s` itself. Accepts NULL. */
void sc_s3_store_free(sc_s3_store *s);

typedef struct sc_s3_req {
    const char *method;  /* GET HEAD PUT POST DELETE */
    const char *object;  /* full S3 key (prefix included); NULL = the bucket */
    sc_sigv4_pair query[SC_S3_MAX_QUERY];
    size_t nquery;
    sc_sigv4_pair headers[SC_S3_MAX_HEADERS]; /* extra headers, all signed */
    size_t nheaders;
    const uint8_t *body;
    size_t body_len;
    int once;            /* never re-sent once it may have arrived: conditional PUTs, put_once */
    size_t max_body;     /* largest success body accepted (0: S3_SMALL_BODY_MAX) */
} sc_s3_req;

typedef struct sc_s3_resp {
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
} sc_s3_resp;

/*
 * Make s->curl (libcurl's global set-up runs once per process).
 * Errors: SC_EIO.
 */
int sc_s3_transport_open(sc_s3_store *s);

/*
 * Send `req`, again after a transient failure when that is safe (see the
 * comment in s3_transport.c), at most SC_S3_TRIES times. Returns 0 whenever
 * an answer or a final failure is in *resp (free it with resp_free), or a
 * code for a local failure (SC_ENOMEM, SC_EINVAL from signing).
 */
int sc_s3_exchange(sc_s3_store *s, const sc_s3_req *req, sc_s3_resp *resp);
void sc_s3_resp_free(sc_s3_resp *r);

/* What a state-changing request is, for the message of a lost answer. */
typedef enum sc_s3_write {
    SC_S3_READ = 0,  /* not a write: a lost answer is SC_ETRANSIENT */
    SC_S3_PUT,       /* a plain overwrite */
    SC_S3_PUT_ONCE,  /* a plain overwrite sent at most once (put_once) */
    SC_S3_CREATE,    /* the conditional create (If-None-Match: *), a claim */
    SC_S3_CAS,       /* the compare-and-swap (If-Match), a claim */
    SC_S3_DELETE,
} sc_s3_write;

/*
 * The code and message for a failed exchange of `method` on s3://bucket/object
 * (object NULL: the store's location). A write's lost answer is SC_EUNKNOWN
    * rather than SC_ETRANSIENT, and the message says whether it was a claim.
    */
int sc_s3_fail(const sc_s3_store *s, const char *method, const char *object, const sc_s3_resp *r,
               sc_s3_write write);

/* Record `code` with a message scrubbed of the secret key and session token. */
int sc_s3_error(const sc_s3_store *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
