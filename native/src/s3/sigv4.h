/*
 * AWS Signature Version 4 (internal): canonical request, string to sign,
 * signing key and Authorization header, with OpenSSL HMAC-SHA256.
 *
 * Pure functions without I/O or clocks, so that the published AWS examples
 * serve as literal test vectors (tests/test_sigv4.c). Everything follows
 * the S3 flavour of SigV4: paths are URI-encoded once and never normalised
 * ("a//b" and "a/./b" are signed as sent), query names and values are
 * encoded with '/' escaped and sorted, header names are lowercased, values
 * trimmed with inner runs of spaces collapsed, and duplicate headers joined
 * with ',' in the order given.
 *
 * The store builds the request URL with sc_sigv4_uri_encode() and
 * sc_sigv4_canonical_query() too, so that what is sent is byte for byte
 * what is signed.
 */
#ifndef SC_SIGV4_H
#define SC_SIGV4_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/buf.h"

/* Limits on what one request may carry; more is SC_EINVAL. */
#define SC_SIGV4_MAX_HEADERS 32
#define SC_SIGV4_MAX_QUERY 32

#define SC_SIGV4_KEY_LEN 32             /* HMAC-SHA256 output */
#define SC_SIGV4_SIGNATURE_HEX_LEN 64   /* lowercase hex, NUL excluded */
#define SC_SIGV4_AMZ_DATE_LEN 16        /* "20130524T000000Z", NUL excluded */

/* The SHA-256 of the empty string, in hex: the payload hash of bodiless requests. */
#define SC_SIGV4_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* A header or query parameter. Query values may be NULL (signed as ""). */
typedef struct sc_sigv4_pair {
    const char *name;
    const char *value;
} sc_sigv4_pair;

typedef struct sc_sigv4_request {
    const char *method;          /* "GET", "PUT", ... */
    const char *path;            /* raw (unencoded) absolute path, e.g. "/bucket/test$file.text" */
    const sc_sigv4_pair *query;  /* raw (unencoded) names and values, any order */
    size_t query_count;
    const sc_sigv4_pair *headers; /* every header to sign, names in any case */
    size_t header_count;
    const char *payload_hash;    /* lowercase hex SHA-256 of the body, or "UNSIGNED-PAYLOAD" */
} sc_sigv4_request;

typedef struct sc_sigv4_credentials {
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token; /* NULL or "" when the credentials are long-lived */
} sc_sigv4_credentials;

/*
 * Append the URI encoding of s[0..len) to out: every byte except
 * A-Z a-z 0-9 - _ . ~ becomes %XX (uppercase hex); '/' is kept when
 * keep_slash is 1 (paths) and escaped otherwise (query names and values).
 * Errors: SC_ENOMEM, SC_ELIMIT.
 */
int sc_sigv4_uri_encode(sc_buf *out, const char *s, size_t len, int keep_slash);

/*
 * Append the canonical query string of `count` raw pairs: each name and
 * value encoded, sorted by encoded name then value, joined "n=v&n=v".
 * Errors: SC_EINVAL (more than SC_SIGV4_MAX_QUERY pairs, NULL name),
 * SC_ENOMEM.
 */
int sc_sigv4_canonical_query(sc_buf *out, const sc_sigv4_pair *query, size_t count);

/*
 * The canonical request of `req` into *out (cleared first) and its
 * SignedHeaders list ("host;range;x-amz-date") into *signed_headers
 * (cleared first; may be NULL).
 * Errors: SC_EINVAL (missing method/path/payload hash, a path not starting
 * with '/', too many headers or parameters, a header name that is empty or
 * has characters outside the HTTP token set, a CR or LF in a value),
 * SC_ENOMEM.
 */
int sc_sigv4_canonical_request(sc_buf *out, sc_buf *signed_headers, const sc_sigv4_request *req);

/*
 * The string to sign for a canonical request into *out (cleared first):
 * "AWS4-HMAC-SHA256\n<amz_date>\n<yyyymmdd>/<region>/<service>/aws4_request\n<hex sha256>".
 * Errors: SC_EINVAL (amz_date not of the form YYYYMMDDTHHMMSSZ), SC_ENOMEM.
 */
int sc_sigv4_string_to_sign(sc_buf *out, const char *amz_date, const char *region,
                            const char *service, const char *canonical_request, size_t len);

/*
 * The signing key HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date), region), service), "aws4_request")
 * for date "YYYYMMDD". Errors: SC_EINVAL (NULL argument), SC_EIO (OpenSSL failure).
 */
int sc_sigv4_signing_key(uint8_t out[SC_SIGV4_KEY_LEN], const char *secret, const char *date,
                         const char *region, const char *service);

/*
 * The Authorization header value for `req`, signed as of amz_date, into
 * *out (cleared first):
 * "AWS4-HMAC-SHA256 Credential=<id>/<date>/<region>/<service>/aws4_request,
 *  SignedHeaders=<list>,Signature=<hex>" (one line, no spaces after commas,
 * as in the S3 documentation). `req` must already carry every header to be
 * signed; see sc_sigv4_sign_s3() for the S3 set.
 * Errors: as sc_sigv4_canonical_request(), plus SC_EINVAL for missing
 * credentials.
 */
int sc_sigv4_authorization(sc_buf *out, const sc_sigv4_request *req,
                           const sc_sigv4_credentials *cred, const char *amz_date,
                           const char *region, const char *service);

/*
 * S3 request signing. Signs req->headers plus the headers every S3 request
 * carries: host, x-amz-content-sha256 (= req->payload_hash), x-amz-date and,
 * when cred->session_token is set, x-amz-security-token. The caller must
 * send exactly those values: `host` as the Host header, amz_date as
 * x-amz-date, and so on. req->headers must not repeat them.
 * Errors: as sc_sigv4_authorization(), SC_EINVAL when req->headers has more
 * than SC_SIGV4_MAX_HEADERS - 4 entries or repeats one of the four.
 */
int sc_sigv4_sign_s3(sc_buf *authorization, const sc_sigv4_request *req, const char *host,
                     const sc_sigv4_credentials *cred, const char *amz_date, const char *region);

/* Format t (UTC) as "YYYYMMDDTHHMMSSZ" into out (17 bytes). SC_EINVAL when t is out of range. */
int sc_sigv4_amz_date(char out[SC_SIGV4_AMZ_DATE_LEN + 1], time_t t);

#endif
