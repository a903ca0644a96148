/* AWS Signature Version 4 with OpenSSL HMAC-SHA256 (see sigv4.h). */
#include "s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"
#include "base/hash.h"

/* Longest header name we sign; real ones are far shorter. */
#define HEADER_NAME_MAX 128

static int unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.' || c == '~';
}

int sc_sigv4_uri_encode(sc_buf *out, const char *s, size_t len, int keep_slash) {
    static const char hex[] = "0123456789ABCDEF";
    /* Worst case every byte becomes three: reserve once, overflow-checked. */
    if (len > (SIZE_MAX - 1) / 3) return sc_error_set(SC_ELIMIT, "URI component too long");
    int rc = sc_buf_reserve(out, 3 * len);
    if (rc) return rc;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c) || (keep_slash && c == '/')) {
            out->data[out->len++] = c;
        } else {
            out->data[out->len++] = '%';
            out->data[out->len++] = (uint8_t)hex[c >> 4];
            out->data[out->len++] = (uint8_t)hex[c & 15];
        }
    }
    return 0;
}

/* ---- canonical query ---- */

typedef struct enc_pair {
    size_t name_at, name_len, value_at, value_len; /* offsets into one buffer */
} enc_pair;

static int compare_span(const sc_buf *b, size_t a_at, size_t a_len, size_t b_at, size_t b_len) {
    size_t n = a_len < b_len ? a_len : b_len;
    int c = n ? memcmp(b->data + a_at, b->data + b_at, n) : 0;
    if (c) return c;
    return a_len < b_len ? -1 : a_len > b_len;
}

int sc_sigv4_canonical_query(sc_buf *out, const sc_sigv4_pair *query, size_t count) {
    if (count > SC_SIGV4_MAX_QUERY)
        return sc_error_set(SC_EINVAL, "sigv4: %zu query parameters (at most %d)", count,
                            SC_SIGV4_MAX_QUERY);
    if (count == 0) return 0;
    sc_buf enc = SC_BUF_INIT;
    enc_pair pairs[SC_SIGV4_MAX_QUERY];
    int rc = 0;
    for (size_t i = 0; i < count && !rc; i++) {
        if (!query[i].name) {
            rc = sc_error_set(SC_EINVAL, "sigv4: query parameter %zu has no name", i);
            break;
        }
        const char *value = query[i].value ? query[i].value : "";
        pairs[i].name_at = enc.len;
        rc = sc_sigv4_uri_encode(&enc, query[i].name, strlen(query[i].name), 0);
        if (rc) break;
        pairs[i].name_len = enc.len - pairs[i].name_at;
        pairs[i].value_at = enc.len;
        rc = sc_sigv4_uri_encode(&enc, value, strlen(value), 0);
        pairs[i].value_len = enc.len - pairs[i].value_at;
    }
    /* Insertion sort: at most SC_SIGV4_MAX_QUERY entries. */
    for (size_t i = 1; i < count && !rc; i++) {
        enc_pair p = pairs[i];
        size_t j = i;
        while (j > 0) {
            const enc_pair *q = &pairs[j - 1];
            int c = compare_span(&enc, q->name_at, q->name_len, p.name_at, p.name_len);
            if (c == 0) c = compare_span(&enc, q->value_at, q->value_len, p.value_at, p.value_len);
            if (c <= 0) break;
            pairs[j] = pairs[j - 1];
            j--;
        }
        pairs[j] = p;
    }
    for (size_t i = 0; i < count && !rc; i++) {
        if (i) rc = sc_buf_append_byte(out, '&');
        if (!rc) rc = sc_buf_append(out, enc.data + pairs[i].name_at, pairs[i].name_len);
        if (!rc) rc = sc_buf_append_byte(out, '=');
        if (!rc) rc = sc_buf_append(out, enc.data + pairs[i].value_at, pairs[i].value_len);
    }
    sc_buf_free(&enc);
    return rc;
}

/* ---- canonical headers ---- */

static int token_char(unsigned char c) {
    /* RFC 9110 tchar */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Append value trimmed, with inner runs of spaces and tabs collapsed to one space. */
static int append_trimmed(sc_buf *out, const char *value) {
    const char *p = value;
    while (*p == ' ' || *p == '\t') p++;
    int pending_space = 0;
    for (; *p; p++) {
        if (*p == ' ' || *p == '\t') {
            pending_space = 1;
            continue;
        }
        int rc = 0;
        if (pending_space) rc = sc_buf_append_byte(out, ' ');
        if (!rc) rc = sc_buf_append_byte(out, (uint8_t)*p);
        if (rc) return rc;
        pending_space = 0;
    }
    return 0;
}

int sc_sigv4_canonical_request(sc_buf *out, sc_buf *signed_headers, const sc_sigv4_request *req) {
    out->len = 0;
    if (signed_headers) signed_headers->len = 0;
    if (!req->method || !*req->method || !req->path || req->path[0] != '/' || !req->payload_hash)
        return sc_error_set(SC_EINVAL, "sigv4: request needs a method, an absolute path and a "
                                       "payload hash");
    size_t n = req->header_count;
    if (n > SC_SIGV4_MAX_HEADERS)
        return sc_error_set(SC_EINVAL, "sigv4: %zu headers to sign (at most %d)", n,
                            SC_SIGV4_MAX_HEADERS);
    char names[SC_SIGV4_MAX_HEADERS][HEADER_NAME_MAX + 1];
    size_t order[SC_SIGV4_MAX_HEADERS];
    for (size_t i = 0; i < n; i++) {
        const char *name = req->headers[i].name;
        const char *value = req->headers[i].value;
        size_t len = name ? strlen(name) : 0;
        if (len == 0 || len > HEADER_NAME_MAX)
            return sc_error_set(SC_EINVAL, "sigv4: header %zu has an empty or overlong name", i);
        for (size_t k = 0; k < len; k++) {
            unsigned char c = (unsigned char)name[k];
            if (!token_char(c))
                return sc_error_set(SC_EINVAL, "sigv4: header name \"%.*s\" is not an HTTP token",
                                    (int)len, name);
            names[i][k] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
        }
        names[i][len] = '\0';
        if (!value || strpbrk(value, "\r\n"))
            return sc_error_set(SC_EINVAL, "sigv4: header %s has no value or a line break",
                                names[i]);
        order[i] = i;
    }
    /* Stable insertion sort by lowercase name: duplicates keep their given order. */
    for (size_t i = 1; i < n; i++) {
        size_t v = order[i], j = i;
        while (j > 0 && strcmp(names[order[j - 1]], names[v]) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }

    sc_buf sh = SC_BUF_INIT;
    int rc = sc_buf_append_str(out, req->method);
    if (!rc) rc = sc_buf_append_byte(out, '\n');
    if (!rc) rc = sc_sigv4_uri_encode(out, req->path, strlen(req->path), 1);
    if (!rc) rc = sc_buf_append_byte(out, '\n');
    if (!rc) rc = sc_sigv4_canonical_query(out, req->query, req->query_count);
    if (!rc) rc = sc_buf_append_byte(out, '\n');
    for (size_t i = 0; i < n && !rc; i++) {
        const char *name = names[order[i]];
        int repeat = i > 0 && strcmp(names[order[i - 1]], name) == 0;
        if (repeat) {
            /* The previous line ended with '\n': replace it by ',' and go on with this value. */
            out->len--;
            rc = sc_buf_append_byte(out, ',');
        } else {
            if (sh.len) rc = sc_buf_append_byte(&sh, ';');
            if (!rc) rc = sc_buf_append_str(&sh, name);
            if (!rc) rc = sc_buf_append_str(out, name);
            if (!rc) rc = sc_buf_append_byte(out, ':');
        }
        if (!rc) rc = append_trimmed(out, req->headers[order[i]].value);
        if (!rc) rc = sc_buf_append_byte(out, '\n');
    }
    if (!rc) rc = sc_buf_append_byte(out, '\n');
    if (!rc) rc = sc_buf_append(out, sh.data, sh.len);
    if (!rc) rc = sc_buf_append_byte(out, '\n');
    if (!rc) rc = sc_buf_append_str(out, req->payload_hash);
    if (!rc && signed_headers) rc = sc_buf_append(signed_headers, sh.data, sh.len);
    if (!rc) {
        sc_buf_cstr(out);
        if (signed_headers) sc_buf_cstr(signed_headers);
    }
    sc_buf_free(&sh);
    return rc;
}

/* ---- string to sign, key, signature ---- */

static int amz_date_valid(const char *d) {
    if (!d || strlen(d) != SC_SIGV4_AMZ_DATE_LEN || d[8] != 'T' || d[15] != 'Z') return 0;
    for (int i = 0; i < 15; i++)
        if (i != 8 && (d[i] < '0' || d[i] > '9')) return 0;
    return 1;
}

int sc_sigv4_string_to_sign(sc_buf *out, const char *amz_date, const char *region,
                            const char *service, const char *canonical_request, size_t len) {
    out->len = 0;
    if (!amz_date_valid(amz_date))
        return sc_error_set(SC_EINVAL, "sigv4: date \"%s\" is not YYYYMMDDTHHMMSSZ",
                            amz_date ? amz_date : "(null)");
    if (!region || !service) return sc_error_set(SC_EINVAL, "sigv4: region and service required");
    uint8_t digest[SC_SHA256_LEN];
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_sha256(digest, canonical_request, len);
    sc_hex_encode(hex, digest, sizeof digest);
    int rc = sc_buf_printf(out, "AWS4-HMAC-SHA256\n%s\n%.8s/%s/%s/aws4_request\n%s", amz_date,
                           amz_date, region, service, hex);
    if (!rc) sc_buf_cstr(out);
    return rc;
}

static int hmac(uint8_t out[SC_SIGV4_KEY_LEN], const void *key, size_t key_len, const void *msg,
                size_t msg_len) {
    unsigned int n = 0;
    if (key_len > INT32_MAX ||
        !HMAC(EVP_sha256(), key, (int)key_len, msg, msg_len, out, &n) || n != SC_SIGV4_KEY_LEN)
        return sc_error_set(SC_EIO, "sigv4: HMAC-SHA256 failed in OpenSSL");
    return 0;
}

int sc_sigv4_signing_key(uint8_t out[SC_SIGV4_KEY_LEN], const char *secret, const char *date,
                         const char *region, const char *service) {
    if (!secret || !date || !region || !service)
        return sc_error_set(SC_EINVAL, "sigv4: signing key needs secret, date, region, service");
    sc_buf k = SC_BUF_INIT;
    int rc = sc_buf_append_str(&k, "AWS4");
    if (!rc) rc = sc_buf_append_str(&k, secret);
    uint8_t a[SC_SIGV4_KEY_LEN], b[SC_SIGV4_KEY_LEN];
    if (!rc) rc = hmac(a, k.data, k.len, date, strlen(date));
    if (!rc) rc = hmac(b, a, sizeof a, region, strlen(region));
    if (!rc) rc = hmac(a, b, sizeof b, service, strlen(service));
    if (!rc) rc = hmac(out, a, sizeof a, "aws4_request", 12);
    /* The derived keys are as good as the secret for a day: do not leave them around. */
    if (k.data) OPENSSL_cleanse(k.data, k.cap);
    OPENSSL_cleanse(a, sizeof a);
    OPENSSL_cleanse(b, sizeof b);
    sc_buf_free(&k);
    return rc;
}

/* Lowercase hex HMAC-SHA256 of the string to sign under key, into out (65 bytes).
 * SC_EIO on failure. */
static int signature_hex(char out[SC_SIGV4_SIGNATURE_HEX_LEN + 1], const uint8_t key[SC_SIGV4_KEY_LEN],
                         const char *string_to_sign, size_t len) {
    uint8_t mac[SC_SIGV4_KEY_LEN];
    int rc = hmac(mac, key, SC_SIGV4_KEY_LEN, string_to_sign, len);
    if (rc) return rc;
    sc_hex_encode(out, mac, sizeof mac);
    return 0;
}

int sc_sigv4_authorization(sc_buf *out, const sc_sigv4_request *req,
                           const sc_sigv4_credentials *cred, const char *amz_date,
                           const char *region, const char *service) {
    out->len = 0;
    if (!cred || !cred->access_key_id || !*cred->access_key_id || !cred->secret_access_key)
        return sc_error_set(SC_EINVAL, "sigv4: no credentials to sign with");
    sc_buf canonical = SC_BUF_INIT, signed_headers = SC_BUF_INIT, sts = SC_BUF_INIT;
    uint8_t key[SC_SIGV4_KEY_LEN];
    char sig[SC_SIGV4_SIGNATURE_HEX_LEN + 1];
    int rc = sc_sigv4_canonical_request(&canonical, &signed_headers, req);
    if (!rc)
        rc = sc_sigv4_string_to_sign(&sts, amz_date, region, service, (const char *)canonical.data,
                                     canonical.len);
    char date[9];
    if (!rc) {
        memcpy(date, amz_date, 8);
        date[8] = '\0';
        rc = sc_sigv4_signing_key(key, cred->secret_access_key, date, region, service);
    }
    if (!rc) rc = signature_hex(sig, key, (const char *)sts.data, sts.len);
    if (!rc)
        rc = sc_buf_printf(out,
                           "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request,SignedHeaders=%s,"
                           "Signature=%s",
                           cred->access_key_id, date, region, service,
                           sc_buf_cstr(&signed_headers), sig);
    if (!rc) sc_buf_cstr(out);
    OPENSSL_cleanse(key, sizeof key);
    sc_buf_free(&canonical);
    sc_buf_free(&signed_headers);
    sc_buf_free(&sts);
    return rc;
}

static int is_reserved_s3_header(const char *name) {
    static const char *const reserved[] = {"host", "x-amz-content-sha256", "x-amz-date",
                                           "x-amz-security-token"};
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (strcasecmp(name, reserved[i]) == 0) return 1;
    return 0;
}

int sc_sigv4_sign_s3(sc_buf *authorization, const sc_sigv4_request *req, const char *host,
                     const sc_sigv4_credentials *cred, const char *amz_date, const char *region) {
    authorization->len = 0;
    if (req->header_count > SC_SIGV4_MAX_HEADERS - 4)
        return sc_error_set(SC_EINVAL, "sigv4: %zu extra headers to sign (at most %d)",
                            req->header_count, SC_SIGV4_MAX_HEADERS - 4);
    if (!host || !*host) return sc_error_set(SC_EINVAL, "sigv4: no host to sign");
    sc_sigv4_pair headers[SC_SIGV4_MAX_HEADERS];
    size_t n = 0;
    for (size_t i = 0; i < req->header_count; i++) {
        if (req->headers[i].name && is_reserved_s3_header(req->headers[i].name))
            return sc_error_set(SC_EINVAL, "sigv4: header %s is added by the signer",
                                req->headers[i].name);
        headers[n++] = req->headers[i];
    }
    headers[n++] = (sc_sigv4_pair){"host", host};
    headers[n++] = (sc_sigv4_pair){"x-amz-content-sha256", req->payload_hash};
    headers[n++] = (sc_sigv4_pair){"x-amz-date", amz_date};
    if (cred && cred->session_token && *cred->session_token)
        headers[n++] = (sc_sigv4_pair){"x-amz-security-token", cred->session_token};
    sc_sigv4_request full = *req;
    full.headers = headers;
    full.header_count = n;
    return sc_sigv4_authorization(authorization, &full, cred, amz_date, region, "s3");
}

int sc_sigv4_amz_date(char out[SC_SIGV4_AMZ_DATE_LEN + 1], time_t t) {
    struct tm tm;
    if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 < 1970 || tm.tm_year + 1900 > 9999) {
        out[0] = '\0';
        return sc_error_set(SC_EINVAL, "sigv4: time %lld cannot be formatted", (long long)t);
    }
    if (strftime(out, SC_SIGV4_AMZ_DATE_LEN + 1, "%Y%m%dT%H%M%SZ", &tm) != SC_SIGV4_AMZ_DATE_LEN) {
        out[0] = '\0';
        return sc_error_set(SC_EINVAL, "sigv4: time %lld cannot be formatted", (long long)t);
    }
    return 0;
}
