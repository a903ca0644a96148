/*
 * The S3 backend, three ways (the store conformance cases, races with
 * exactly one winner included, run on both servers in
 * test_store_conformance.c):
 *  - against gofakes3 (atomic conditional writes, no signature checks) and
 *    moto: ETags as S3 makes them, prefixes, >1000-key pagination through
 *    continuation tokens;
 *  - against moto with IAM authentication on (AWS-shaped error bodies,
 *    SigV4 verified): error mapping, wrong credentials, secrets kept out of
 *    messages;
 *  - against a scripted HTTP server inside this process: what each failure
 *    means (lost answers, 5xx, 409, 412, throttling, timeouts, a dead reused
 *    connection) and that a conditional PUT is never sent twice.
 *
 * The first two need scripts/s3-servers.sh start and its environment
 * (eval "$(scripts/s3-servers.sh env)"); without it those tests FAIL and
 * say so, they never skip.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/clock.h"
#include "base/env_internal.h"
#include "snapcommit/error.h"
#include "snapcommit/store.h"
#include "store/store_backends.h"
#include "store/store_internal.h"
#include "snapcommit/table.h"
#include "s3/store_s3.h"
#include "strategy/strategy_tracker.h"

#include "sc_test_assert.h"
#include "sc_test_s3.h"
#include "sc_test_store.h"

#define MESSAGE_HAS(needle)                                                                  \
    cr_assert(strstr(sc_error_message(), (needle)), "message lacks \"%s\": %s", (needle), \
              sc_error_message())

/* ---- environment ---- */

static sc_store *open_s3(const char *location) {
    const sc_store_ops *ops = NULL;
    void *self = NULL;
    OK(sc_s3_store_create(&ops, &self, location));
    sc_store *s = NULL;
    OK(sc_store_wrap(&s, ops, self));
    return s;
}

/* Each test runs in its own process: one fixture, under a prefix no other test uses. */
static struct {
    tu_s3_server which;
    char location[256];
    sc_store *store;
    const char *missing; /* the variable that was not set, reported by the test body */
} fx;

static void open_fixture(tu_s3_server which) {
    /* A failed assertion here would read as a crash in set-up: leave it to the test body. */
    if ((fx.missing = tu_s3_missing_var()) != NULL) return;
    tu_s3_use_server(which);
    uint8_t rnd[6];
    char hex[13];
    OK(sc_random_bytes(rnd, sizeof rnd));
    sc_hex_encode(hex, rnd, sizeof rnd);
    fx.which = which;
    list_truncated_may_overreport = which == TU_GOFAKES3;
    snprintf(fx.location, sizeof fx.location, "s3://%s/sc-test-%s/table", getenv("SC_S3_BUCKET"),
             hex);
    fx.store = open_s3(fx.location);
}

static void gofakes3_init(void) { open_fixture(TU_GOFAKES3); }
static void moto_init(void) { open_fixture(TU_MOTO); }
static void fixture_fini(void) { sc_store_free(fx.store); }

/* First thing in every test on the servers: fail, loudly, when they are not there. */
static void fixture_ready(void) {
    if (fx.missing) cr_assert_fail(TU_S3_NOT_RUNNING, fx.missing);
}

/* Every case body once, registered against both servers. */
#define S3_CASE(name)                                                                  \
    static void case_##name(sc_store *s);                                             \
    Test(s3, name##_gofakes3, .init = gofakes3_init, .fini = fixture_fini) {          \
        fixture_ready();                                                              \
        case_##name(fx.store);                                                        \
    }                                                                                 \
    Test(s3, name##_moto, .init = moto_init, .fini = fixture_fini) {                  \
        fixture_ready();                                                              \
        case_##name(fx.store);                                                        \
    }                                                                                 \
    static void case_##name(sc_store *s)

/* The single-part S3 ETag: the quoted hex MD5 of the bytes. */
static void md5_etag(char out[35], const void *data, size_t len) {
    unsigned char d[16];
    unsigned int n = 0;
    EVP_Digest(data, len, d, &n, EVP_md5(), NULL);
    char hex[33];
    sc_hex_encode(hex, d, 16);
    snprintf(out, 35, "\"%s\"", hex);
}

/* ==== S3's own: ETags, prefixes, continuation tokens (both servers) ==== */

/* On S3 an ETag is a content hash, not a version: the quoted hex MD5, and the same bytes keep it. */
S3_CASE(etag_is_the_quoted_md5_of_the_bytes) {
    sc_object_info info, again, head;
    char etag[35];
    OK(sc_store_put(s, &info, "small", TEXT("hello")));
    md5_etag(etag, "hello", 5);
    cr_assert_str_eq(info.etag, etag, "ETags come back verbatim, quotes included");
    OK(sc_store_put(s, &again, "small", TEXT("hello")));
    cr_assert_str_eq(again.etag, info.etag);
    cr_assert_eq(again.etag[0], '"');
    OK(sc_store_head(s, &head, "small"));
    cr_assert_str_eq(head.etag, etag);
}

S3_CASE(prefix_isolation) {
    put_text(s, "k", "inside");
    /* A store one level up sees the key under its prefix; a sibling sees nothing. */
    char parent[256], sibling[300];
    snprintf(parent, sizeof parent, "%s", fx.location);
    *strrchr(parent, '/') = '\0';
    snprintf(sibling, sizeof sibling, "%s/other/", parent);
    sc_store *up = open_s3(parent), *side = open_s3(sibling);
    expect_text(up, "table/k", "inside");
    expect_list(up, "", NULL, 10, 0, KEYS("table/k"));
    expect_list(side, "", NULL, 10, 0, NO_KEYS);
    uint8_t *data;
    size_t len;
    FAILS(SC_ENOTFOUND, sc_store_get(side, &data, &len, NULL, "k"));
    sc_store_free(up);
    sc_store_free(side);
}

/* 1,050 keys: pages of 1,000 and continuation tokens, in order, through both paths. */
enum { MANY = 1050, WRITERS = 8 };
static char many_keys[MANY][32];

typedef struct writer_arg {
    int first;
    atomic_int *errors;
} writer_arg;

static void *many_writer(void *arg) {
    writer_arg *w = arg;
    sc_store *s = NULL;
    const sc_store_ops *ops;
    void *self;
    if (sc_s3_store_create(&ops, &self, fx.location) || sc_store_wrap(&s, ops, self)) {
        atomic_fetch_add(w->errors, 1);
        return NULL;
    }
    for (int i = w->first; i < MANY; i += WRITERS)
        if (sc_store_put(s, NULL, many_keys[i], TEXT(many_keys[i]))) atomic_fetch_add(w->errors, 1);
    sc_store_free(s);
    return NULL;
}

S3_CASE(list_over_1000_keys) {
    for (int i = 0; i < MANY; i++)
        /* Every fifth key one level deeper, to cross "directories" inside a page. */
        snprintf(many_keys[i], sizeof many_keys[i], i % 5 ? "page/%05d" : "page/sub/%05d", i);
    atomic_int errors = 0;
    pthread_t threads[WRITERS];
    writer_arg args[WRITERS];
    for (int t = 0; t < WRITERS; t++) {
        args[t] = (writer_arg){t, &errors};
        cr_assert_eq(pthread_create(&threads[t], NULL, many_writer, &args[t]), 0);
    }
    for (int t = 0; t < WRITERS; t++) pthread_join(threads[t], NULL);
    cr_assert_eq(atomic_load(&errors), 0, "writers failed");
    put_text(s, "pagf", "outside the prefix");

    sc_store_stats_reset(s);
    sc_list_page all;
    OK(sc_store_list_all(s, &all, "page/"));
    cr_assert_eq(all.count, MANY);
    cr_assert_eq(all.truncated, 0);
    for (size_t i = 1; i < all.count; i++)
        cr_assert_lt(strcmp(all.keys[i - 1], all.keys[i]), 0, "not ascending at %zu: %s, %s", i,
                     all.keys[i - 1], all.keys[i]);
    cr_assert_str_eq(all.keys[0], "page/00001");
    cr_assert_str_eq(all.keys[MANY - 1], "page/sub/01045");
    sc_list_page_free(&all);
    sc_store_stats stats;
    sc_store_stats_get(&stats, s);
    cr_assert_eq(stats.ops[SC_OP_LIST], 2, "1,050 keys take 2 pages, took %llu",
                 (unsigned long long)stats.ops[SC_OP_LIST]);

    /* One backend call asked for more than a page follows the continuation token itself. */
    sc_list_page page;
    OK(sc_store_list(s, &page, "page/", NULL, MANY));
    cr_assert_eq(page.count, MANY);
    check_truncated(s, &page, "page/", MANY, 0, "list(page/, max 1050)");
    sc_list_page_free(&page);
    OK(sc_store_list(s, &page, "page/", NULL, MANY - 1));
    cr_assert_eq(page.count, MANY - 1);
    cr_assert_eq(page.truncated, 1);
    sc_list_page_free(&page);
    OK(sc_store_list(s, &page, "page/", "page/01000", 2000));
    /* page/01001..01049 without the multiples of 5 (40), then all 210 of page/sub/. */
    cr_assert_eq(page.count, 250, "after page/01000: %zu", page.count);
    sc_list_page_free(&page);
}

/* ==== moto: credentials and secrets ==== */

static void require_moto_auth(void) {
    const char *auth = tu_s3_server_env("SC_MOTO_AUTH");
    cr_assert_str_eq(auth, "1",
                     "moto runs without signature checks (SC_MOTO_AUTH=%s): restart it with "
                     "scripts/s3-servers.sh stop && scripts/s3-servers.sh start",
                     auth);
}

Test(s3, signatures_verified_by_moto, .init = moto_init, .fini = fixture_fini) {
    fixture_ready();
    require_moto_auth();
    put_text(fx.store, "signed", "by the right secret");
    /* A wrong secret, for every kind of request. */
    const char *wrong = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzWRONGKEY";
    setenv("AWS_SECRET_ACCESS_KEY", wrong, 1);
    sc_store *bad = open_s3(fx.location);
    uint8_t *data;
    size_t len;
    sc_object_info info;
    sc_list_page page;
    FAILS(SC_EAUTH, sc_store_get(bad, &data, &len, &info, "signed"));
    MESSAGE_HAS("S3 refused the credentials for GET s3://");
    MESSAGE_HAS("SignatureDoesNotMatch (check AWS_SECRET_ACCESS_KEY)");
    cr_assert_null(strstr(sc_error_message(), wrong), "the secret leaked: %s", sc_error_message());
    FAILS(SC_EAUTH, sc_store_put(bad, NULL, "x", TEXT("x")));
    cr_assert_null(strstr(sc_error_message(), wrong));
    FAILS(SC_EAUTH, sc_store_put_if_absent(bad, NULL, "x", TEXT("x")));
    FAILS(SC_EAUTH, sc_store_list(bad, &page, "", NULL, 10));
    MESSAGE_HAS("SignatureDoesNotMatch");
    FAILS(SC_EAUTH, sc_store_head(bad, &info, "signed"));
    cr_assert_null(strstr(sc_error_message(), wrong));
    FAILS(SC_EAUTH, sc_store_delete(bad, "signed"));
    sc_store_free(bad);
    /* An unknown key id. */
    setenv("AWS_ACCESS_KEY_ID", "AKIAUNKNOWNUNKNOWN00", 1);
    bad = open_s3(fx.location);
    FAILS(SC_EAUTH, sc_store_get(bad, &data, &len, &info, "signed"));
    MESSAGE_HAS("InvalidAccessKeyId (check AWS_ACCESS_KEY_ID)");
    cr_assert_null(strstr(sc_error_message(), wrong));
    sc_store_free(bad);
    /* Nothing was written by the refused requests. */
    expect_text(fx.store, "signed", "by the right secret");
    FAILS(SC_ENOTFOUND, sc_store_head(fx.store, &info, "x"));
}

Test(s3, moto_error_bodies, .init = moto_init, .fini = fixture_fini) {
    fixture_ready();
    require_moto_auth();
    sc_object_info v1;
    OK(sc_store_put_if_absent(fx.store, &v1, "k", TEXT("one")));
    FAILS(SC_EEXISTS, sc_store_put_if_absent(fx.store, NULL, "k", TEXT("two")));
    MESSAGE_HAS("already exists");
    FAILS(SC_EMODIFIED, sc_store_put_if_match(fx.store, NULL, "k", TEXT("two"), "\"0000\""));
    MESSAGE_HAS("PreconditionFailed");
    FAILS(SC_ENOTFOUND, sc_store_put_if_match(fx.store, NULL, "missing", TEXT("x"), v1.etag));
    MESSAGE_HAS("NoSuchKey");
    uint8_t *data;
    size_t len;
    FAILS(SC_ENOTFOUND, sc_store_get(fx.store, &data, &len, NULL, "missing"));
    MESSAGE_HAS("NoSuchKey");
    MESSAGE_HAS("request id ");
    /* A bucket that does not exist is an I/O error, never "object not found". */
    sc_store *nob = open_s3("s3://no-such-bucket-here/t");
    FAILS(SC_EIO, sc_store_get(nob, &data, &len, NULL, "k"));
    MESSAGE_HAS("NoSuchBucket");
    sc_list_page page;
    FAILS(SC_EIO, sc_store_list(nob, &page, "", NULL, 10));
    sc_store_free(nob);
}


/* ==== per-store configuration: two stores, two credentials, one process ==== */

/* Everything a failing call may show a user: messages and log lines, concatenated. */
static char captured[1 << 16];
static size_t captured_len;

static void capture(const char *text) {
    size_t n = strlen(text);
    if (captured_len + n + 2 > sizeof captured) return;
    memcpy(captured + captured_len, text, n);
    captured_len += n;
    captured[captured_len++] = '\n';
    captured[captured_len] = '\0';
}

static void capture_log(void *ctx, sc_log_level level, const char *message) {
    (void)ctx, (void)level;
    capture(message);
}

static void moto_config(sc_store_config *c) {
    sc_store_config_init(c);
    c->endpoint = tu_s3_server_env("SC_MOTO_ENDPOINT");
    c->region = "us-east-1";
    c->access_key_id = tu_s3_server_env("SC_MOTO_ACCESS_KEY_ID");
    c->secret_access_key = tu_s3_server_env("SC_MOTO_SECRET_ACCESS_KEY");
    c->request_timeout_ms = 20000;
}

Test(s3, two_stores_two_credentials_moto, .init = moto_init, .fini = fixture_fini) {
    fixture_ready();
    require_moto_auth();
    /* The environment names a third, useless identity: configuration must win over it. */
    tu_s3_clear_env();
    setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:1", 1);
    setenv("AWS_ACCESS_KEY_ID", "AKIAENVIRONMENTKEY00", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "environment-secret-not-used", 1);
    sc_log_set_handler(capture_log, NULL);
    const char *wrong = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzCONFIGWRONG";
    const char *token = "FQoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789";
    sc_store_config good_cfg, bad_cfg, gofakes3_cfg;
    moto_config(&good_cfg);
    moto_config(&bad_cfg);
    bad_cfg.secret_access_key = wrong;
    sc_store_config token_cfg;
    moto_config(&token_cfg);
    token_cfg.secret_access_key = wrong;
    token_cfg.session_token = token;
    sc_store_config_init(&gofakes3_cfg);
    gofakes3_cfg.endpoint = tu_s3_server_env("SC_GOFAKES3_ENDPOINT");
    gofakes3_cfg.access_key_id = tu_s3_server_env("SC_GOFAKES3_ACCESS_KEY_ID");
    gofakes3_cfg.secret_access_key = tu_s3_server_env("SC_GOFAKES3_SECRET_ACCESS_KEY");
    sc_store *good = NULL, *bad = NULL, *other = NULL;
    OK(sc_store_open_with_config(&good, fx.location, &good_cfg));
    OK(sc_store_open_with_config(&bad, fx.location, &bad_cfg));
    OK(sc_store_open_with_config(&other, fx.location, &gofakes3_cfg));
    /* The caller's strings are copied at open: scribbling over them changes nothing. */
    char scratch[64];
    snprintf(scratch, sizeof scratch, "%s", tu_s3_server_env("SC_MOTO_SECRET_ACCESS_KEY"));
    good_cfg.secret_access_key = scratch;
    memset(scratch, 'x', sizeof scratch - 1);
    /* Interleaved: the wrong secret fails, the right one works, before and after. */
    put_text(good, "two-creds", "moto, right secret");
    FAILS(SC_EAUTH, sc_store_put(bad, NULL, "two-creds", TEXT("wrong secret")));
    capture(sc_error_message());
    MESSAGE_HAS("SignatureDoesNotMatch");
    MESSAGE_HAS("check the configured secret access key");
    expect_text(good, "two-creds", "moto, right secret");
    uint8_t *data;
    size_t len;
    sc_object_info info;
    sc_list_page page;
    FAILS(SC_EAUTH, sc_store_get(bad, &data, &len, &info, "two-creds"));
    capture(sc_error_message());
    FAILS(SC_EAUTH, sc_store_put_if_absent(bad, NULL, "claim", TEXT("x")));
    capture(sc_error_message());
    FAILS(SC_EAUTH, sc_store_list(bad, &page, "", NULL, 10));
    capture(sc_error_message());
    FAILS(SC_EAUTH, sc_store_head(bad, &info, "two-creds"));
    capture(sc_error_message());
    FAILS(SC_EAUTH, sc_store_delete(bad, "two-creds"));
    capture(sc_error_message());
    FAILS(SC_EAUTH, sc_store_check(bad));
    capture(sc_error_message());
    /* Temporary credentials moto does not know: refused, token masked as well. */
    sc_store *bad_token = NULL;
    OK(sc_store_open_with_config(&bad_token, fx.location, &token_cfg));
    FAILS(SC_EAUTH, sc_store_put(bad_token, NULL, "two-creds", TEXT("bad token")));
    capture(sc_error_message());
    MESSAGE_HAS("check the configured session token");
    FAILS(SC_EAUTH, sc_store_check(bad_token));
    capture(sc_error_message());
    sc_store_free(bad_token);
    /* A table on the wrong credentials: create and open fail the same way. */
    FAILS(SC_EAUTH, sc_table_create(bad, SC_STRATEGY_AUTO));
    capture(sc_error_message());
    sc_table *t = NULL;
    FAILS(SC_EAUTH, sc_table_open_location_with_config(&t, fx.location, &bad_cfg));
    capture(sc_error_message());
    OK(sc_store_check(good));
    /* A second server with a third identity, in the same process, at the same time. */
    put_text(other, "two-creds", "gofakes3");
    expect_text(other, "two-creds", "gofakes3");
    expect_text(good, "two-creds", "moto, right secret");
    sc_log_set_handler(NULL, NULL);
    cr_assert(captured_len > 0);
    cr_assert_null(strstr(captured, wrong), "the secret leaked: %s", captured);
    cr_assert_null(strstr(captured, token), "the session token leaked: %s", captured);
    cr_assert_null(strstr(captured, "CONFIGWRONG"), "part of the secret leaked: %s", captured);
    cr_assert_null(strstr(captured, tu_s3_server_env("SC_MOTO_SECRET_ACCESS_KEY")), "%s", captured);
    sc_store_free(other);
    sc_store_free(bad);
    sc_store_free(good);
}

/* Conditional creates of init whose answers are lost (a timeout after S3 applied them): init
 * reads schema-0 and table.json back, finds its own bytes and completes the table. */
static int lose_init_creates(void *ctx, sc_store_op op, const char *key, uint64_t call) {
    int *lost = ctx;
    (void)call;
    int bit = op != SC_OP_PUT_IF_ABSENT ? 0 : strcmp(key, "schema/schema-0") == 0 ? 1
                                            : strcmp(key, "metadata/table.json") == 0 ? 2 : 0;
    if (!bit || (*lost & bit)) return 0;
    *lost |= bit;
    return SC_FAULT_LOSE_RESPONSE;
}

S3_CASE(init_settles_lost_answers) {
    static const char schema[] = "{\"fields\":[{\"name\":\"id\",\"type\":\"INT\"}],\"partitionKeys\":[],\"primaryKeys\":[]}";
    int lost = 0;
    sc_store_set_fault_hook(s, lose_init_creates, &lost);
    OK(sc_table_create_with_schema(s, SC_STRATEGY_AUTO, schema, strlen(schema)));
    sc_store_set_fault_hook(s, NULL, NULL);
    cr_assert_eq(lost, 3, "both answers were lost");
    sc_table *t = NULL;
    OK(sc_table_open(&t, s));
    OK(sc_table_fsck(t, NULL, NULL));
    sc_table_free(t);
}

Test(s3, init_refuses_a_missing_bucket_moto, .init = moto_init, .fini = fixture_fini) {
    fixture_ready();
    sc_store *nob = open_s3("s3://no-such-bucket-h8/t");
    FAILS(SC_EIO, sc_table_create(nob, SC_STRATEGY_AUTO));
    MESSAGE_HAS("bucket \"no-such-bucket-h8\" does not exist");
    MESSAGE_HAS("snapcommit never creates buckets");
    FAILS(SC_EIO, sc_store_check(nob));
    MESSAGE_HAS("NoSuchBucket");
    sc_store_free(nob);
    OK(sc_store_check(fx.store));
}

/* ==== configuration (no server needed) ==== */

static int create_rc(const char *uri) {
    const sc_store_ops *ops = NULL;
    void *self = NULL;
    int rc = sc_s3_store_create(&ops, &self, uri);
    if (rc == 0) ops->close(self);
    else cr_assert_null(self);
    return rc;
}

Test(s3_config, uris_and_settings) {
    tu_s3_clear_env();
    OK(create_rc("s3://bucket"));
    OK(create_rc("s3://bucket/"));
    OK(create_rc("s3://bucket/a/b/"));
    OK(create_rc("bucket/a"));
    FAILS(SC_EINVAL, create_rc("s3://"));
    FAILS(SC_EINVAL, create_rc("s3:///prefix"));
    FAILS(SC_EINVAL, create_rc("s3://bucket/a//b"));
    FAILS(SC_EINVAL, create_rc("s3://bucket/a/../b"));
    /* Virtual-hosted (the default for AWS) needs a DNS-safe bucket name. */
    FAILS(SC_EINVAL, create_rc("s3://Bucket_Name/x"));
    setenv("SNAPCOMMIT_S3_PATH_STYLE", "1", 1);
    OK(create_rc("s3://Bucket_Name/x"));
    setenv("SNAPCOMMIT_S3_PATH_STYLE", "maybe", 1);
    FAILS(SC_EINVAL, create_rc("s3://bucket/x"));
    tu_s3_clear_env();
    setenv("AWS_ACCESS_KEY_ID", "AKIA0000", 1);
    FAILS(SC_EINVAL, create_rc("s3://bucket/x"));
    MESSAGE_HAS("AWS_SECRET_ACCESS_KEY is not");
    tu_s3_clear_env();
    setenv("AWS_SECRET_ACCESS_KEY", "only-the-secret", 1);
    FAILS(SC_EINVAL, create_rc("s3://bucket/x"));
    cr_assert_null(strstr(sc_error_message(), "only-the-secret"));
    tu_s3_clear_env();
    static const char *const bad_endpoints[] = {"ftp://h", "127.0.0.1:9000", "http://",
                                                "http://user:pw@h", "http://h/p?q=1",
                                                "http://h/a%20b"};
    for (size_t i = 0; i < sizeof bad_endpoints / sizeof *bad_endpoints; i++) {
        setenv("AWS_ENDPOINT_URL", bad_endpoints[i], 1);
        FAILS(SC_EINVAL, create_rc("s3://bucket/x"));
    }
    setenv("AWS_ENDPOINT_URL", "https://minio.example:9000/base/", 1);
    OK(create_rc("s3://bucket/x"));
    tu_s3_clear_env();
    setenv("SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS", "0", 1);
    FAILS(SC_EINVAL, create_rc("s3://bucket/x"));
    setenv("SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS", "12x", 1);
    FAILS(SC_EINVAL, create_rc("s3://bucket/x"));
    tu_s3_clear_env();
    setenv("AWS_REGION", "us east", 1);
    FAILS(SC_EINVAL, create_rc("s3://bucket/x"));
    /* A key too long for S3 once the prefix is added. */
    tu_s3_clear_env();
    sc_store *s = open_s3("s3://bucket/some/prefix");
    char key[SC_STORE_KEY_MAX + 1];
    memset(key, 'k', SC_STORE_KEY_MAX);
    key[SC_STORE_KEY_MAX] = '\0';
    FAILS(SC_EINVAL, sc_store_put(s, NULL, key, TEXT("x")));
    sc_store_free(s);
}

Test(s3_config, conditional_writes_off) {
    tu_s3_clear_env();
    setenv("SNAPCOMMIT_S3_CONDITIONAL_WRITES", "0", 1);
    sc_store *s = open_s3("s3://bucket/x");
    cr_assert_eq(sc_store_caps(s), SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE | SC_CAP_CONCURRENT);
    FAILS(SC_EUNSUPPORTED, sc_store_put_if_match(s, NULL, "k", TEXT("x"), "\"e\""));
    sc_store_free(s);
}

/* ==== a scripted HTTP server: what each failure means ==== */

typedef enum { ANSWER, CLOSE_SILENTLY, HANG } fake_action;

typedef struct fake_step {
    fake_action action;
    const char *status_line; /* "200 OK" */
    const char *headers;     /* extra header lines, each ending "\r\n" */
    const char *body;
} fake_step;

#define FAKE_MAX_REQUESTS 64
#define FAKE_MAX_CONNECTIONS 32

typedef struct fake_server {
    int listen_fd;
    int port;
    const fake_step *steps;
    size_t nsteps; /* past the last step, the last one repeats */
    pthread_t thread;
    pthread_t conn_threads[FAKE_MAX_CONNECTIONS];
    atomic_int stop;
    atomic_int requests; /* also the index of the next step */
    atomic_int connections;
    pthread_mutex_t lock;
    char method[FAKE_MAX_REQUESTS][8];
    char target[FAKE_MAX_REQUESTS][256];
    char head[FAKE_MAX_REQUESTS][2048];
} fake_server;

static fake_server fake;

/* Read one request (head and Content-Length body) from fd; 0 on EOF, error or stop. */
static int fake_read_request(fake_server *f, int fd, char *head, size_t head_cap) {
    size_t len = 0;
    for (int waited = 0; waited < 10000;) {
        char *end = len ? memmem(head, len, "\r\n\r\n", 4) : NULL;
        if (end) {
            size_t head_len = (size_t)(end - head) + 4;
            size_t body = 0;
            for (char *p = head; p < end; p = strstr(p, "\r\n") + 2)
                if (strncasecmp(p, "Content-Length:", 15) == 0) body = strtoul(p + 15, NULL, 10);
            /* Drain the body (the tests send small ones; a client never pipelines). */
            size_t have = len - head_len;
            while (have < body) {
                char sink[4096];
                struct pollfd p = {fd, POLLIN, 0};
                if (poll(&p, 1, 2000) <= 0) return 0;
                ssize_t n = read(fd, sink, sizeof sink);
                if (n <= 0) return 0;
                have += (size_t)n;
            }
            head[head_len - 2] = '\0';
            return 1;
        }
        if (len + 1 >= head_cap || atomic_load(&f->stop)) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, 50);
        if (r == 0) {
            waited += 50;
            continue;
        }
        ssize_t n = read(fd, head + len, head_cap - 1 - len);
        if (n <= 0) return 0;
        len += (size_t)n;
    }
    return 0;
}

/* One connection: answer requests by the script until told to drop it or the client leaves. */
static void *fake_conn(void *arg) {
    fake_server *f = &fake;
    int fd = (int)(intptr_t)arg;
    char head[8192];
    while (fake_read_request(f, fd, head, sizeof head)) {
        pthread_mutex_lock(&f->lock);
        int i = atomic_fetch_add(&f->requests, 1);
        if (i < FAKE_MAX_REQUESTS) {
            sscanf(head, "%7s %255s", f->method[i], f->target[i]);
            snprintf(f->head[i], sizeof f->head[i], "%.2047s", head);
        }
        pthread_mutex_unlock(&f->lock);
        const fake_step *st = &f->steps[(size_t)i < f->nsteps ? (size_t)i : f->nsteps - 1];
        if (st->action == CLOSE_SILENTLY) break;
        if (st->action == HANG) {
            /* Until the client gives up (it closes) or the test ends. */
            for (int waited = 0; waited < 5000 && !atomic_load(&f->stop); waited += 50) {
                struct pollfd q = {fd, POLLIN, 0};
                char c;
                if (poll(&q, 1, 50) > 0 && read(fd, &c, 1) <= 0) break;
            }
            break;
        }
        char out[8192];
        /* HEAD answers carry headers only; a step for HEAD sets its own Content-Length. */
        int is_head = strncmp(head, "HEAD ", 5) == 0;
        const char *body = st->body && !is_head ? st->body : "";
        char length[48] = "";
        if (!is_head) snprintf(length, sizeof length, "Content-Length: %zu\r\n", strlen(body));
        int n = snprintf(out, sizeof out, "HTTP/1.1 %s\r\n%s%s\r\n", st->status_line,
                         st->headers ? st->headers : "", length);
        if (n < 0 || (size_t)n >= sizeof out || write(fd, out, (size_t)n) != n) break;
        /* The body on its own: it may be larger than the head's buffer. */
        size_t blen = strlen(body), sent = 0;
        while (sent < blen) {
            ssize_t w = write(fd, body + sent, blen - sent);
            if (w <= 0) break;
            sent += (size_t)w;
        }
        if (sent < blen) break;
    }
    close(fd);
    return NULL;
}

static void *fake_main(void *arg) {
    fake_server *f = arg;
    while (!atomic_load(&f->stop)) {
        struct pollfd p = {f->listen_fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0) continue;
        int fd = accept(f->listen_fd, NULL, NULL);
        if (fd < 0) continue;
        /* Counted before its thread starts: that thread may answer (or close) at once, and a
         * test that has seen the answer counts the connections. Only this thread writes it. */
        int c = atomic_load(&f->connections);
        if (c >= FAKE_MAX_CONNECTIONS) {
            close(fd);
            continue;
        }
        atomic_store(&f->connections, c + 1);
        if (pthread_create(&f->conn_threads[c], NULL, fake_conn, (void *)(intptr_t)fd) != 0) {
            atomic_store(&f->connections, c);
            close(fd);
        }
    }
    for (int c = 0; c < atomic_load(&f->connections); c++) pthread_join(f->conn_threads[c], NULL);
    return NULL;
}

static void fake_start(const fake_step *steps, size_t nsteps) {
    memset(&fake, 0, sizeof fake);
    pthread_mutex_init(&fake.lock, NULL);
    fake.steps = steps;
    fake.nsteps = nsteps;
    fake.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fake.listen_fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fake.listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(fake.listen_fd, 16), 0);
    socklen_t alen = sizeof a;
    getsockname(fake.listen_fd, (struct sockaddr *)&a, &alen);
    fake.port = ntohs(a.sin_port);
    cr_assert_eq(pthread_create(&fake.thread, NULL, fake_main, &fake), 0);
}

static void fake_stop(void) {
    atomic_store(&fake.stop, 1);
    pthread_join(fake.thread, NULL);
    close(fake.listen_fd);
    pthread_mutex_destroy(&fake.lock);
}

/* A store on the fake server; `steps` is what the server answers, in order. */
static sc_store *fake_store(const fake_step *steps, size_t nsteps) {
    fake_start(steps, nsteps);
    tu_s3_clear_env();
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", fake.port);
    setenv("AWS_ENDPOINT_URL_S3", endpoint, 1);
    setenv("AWS_ACCESS_KEY_ID", "AKIAFAKE", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-that-must-not-leak", 1);
    setenv("SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS", "1500", 1);
    return open_s3("s3://bucket/t");
}

#define STEPS(...)                 \
    ((const fake_step[]){__VA_ARGS__}), \
        sizeof((const fake_step[]){__VA_ARGS__}) / sizeof(fake_step)
#define OK_PUT {ANSWER, "200 OK", "ETag: \"0cc175b9c0f1b6a831c399e269772661\"\r\n", NULL}
#define OK_GET \
    {ANSWER, "200 OK", "ETag: \"e\"\r\nLast-Modified: Wed, 21 Oct 2015 07:28:00 GMT\r\n", "body"}
#define HEAD_200 {ANSWER, "200 OK", "ETag: \"e\"\r\nContent-Length: 4\r\n", NULL}
#define HEAD_404 {ANSWER, "404 Not Found", NULL, NULL}
#define ERR(status, code)                                    \
    {ANSWER, status, "Content-Type: application/xml\r\n",     \
     "<Error><Code>" code "</Code><Message>m</Message>"      \
     "<RequestId>RID</RequestId></Error>"}

/* What the server recorded is read under its lock. A connection thread records a request
 * before it answers, but when the step closes the connection instead, only the kernel orders
 * that record before the client's EOF, and ThreadSanitizer does not see that order. */
static int count_method(const char *method) {
    pthread_mutex_lock(&fake.lock);
    int n = 0, total = atomic_load(&fake.requests);
    for (int i = 0; i < total && i < FAKE_MAX_REQUESTS; i++)
        n += strcmp(fake.method[i], method) == 0;
    pthread_mutex_unlock(&fake.lock);
    return n;
}

/* The head of request `i` as recorded (a copy, taken under the lock as above). */
static const char *seen_head(int i) {
    static char copy[sizeof fake.head[0]];
    pthread_mutex_lock(&fake.lock);
    snprintf(copy, sizeof copy, "%s", fake.head[i]);
    pthread_mutex_unlock(&fake.lock);
    return copy;
}

Test(s3_fake, requests_carry_signature_and_no_expect) {
    sc_store *s = fake_store(STEPS(OK_PUT));
    uint8_t body[70000];
    memset(body, 'b', sizeof body);
    sc_object_info info;
    OK(sc_store_put_if_absent(s, &info, "dir/a b", body, sizeof body));
    cr_assert_str_eq(info.etag, "\"0cc175b9c0f1b6a831c399e269772661\"");
    cr_assert_eq(atomic_load(&fake.requests), 1);
    const char *h = fake.head[0];
    cr_assert_str_eq(fake.target[0], "/bucket/t/dir/a%20b");
    cr_assert(strstr(h, "If-None-Match: *\r\n"), "%s", h);
    cr_assert(strstr(h, "x-amz-content-sha256: "), "%s", h);
    cr_assert(strstr(h, "x-amz-date: "), "%s", h);
    cr_assert(strstr(h, "Authorization: AWS4-HMAC-SHA256 Credential=AKIAFAKE/"), "%s", h);
    cr_assert(strstr(h, "SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date,"),
              "%s", h);
    char host[64];
    snprintf(host, sizeof host, "Host: 127.0.0.1:%d\r\n", fake.port);
    cr_assert(strstr(h, host), "%s", h);
    cr_assert_null(strcasestr(h, "Expect:"), "100-continue must be off: %s", h);
    cr_assert_null(strstr(h, "fake-secret"), "%s", h);
    sc_store_free(s);
    fake_stop();
}

Test(s3_fake, connections_are_reused) {
    sc_store *s = fake_store(STEPS(OK_GET));
    for (int i = 0; i < 5; i++) expect_text(s, "k", "body");
    cr_assert_eq(atomic_load(&fake.requests), 5);
    cr_assert_eq(atomic_load(&fake.connections), 1, "one connection for 5 requests, saw %d",
                 atomic_load(&fake.connections));
    sc_store_free(s);
    fake_stop();
}

Test(s3_fake, lost_answer_conditional_sent_once) {
    sc_store *s = fake_store(STEPS({CLOSE_SILENTLY, NULL, NULL, NULL}));
    /* The message says which request's answer was lost and that it was a claim, sent once. */
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "claim", TEXT("mine")));
    MESSAGE_HAS("PUT s3://bucket/t/claim: the answer to the conditional create "
                "(If-None-Match: *) was lost");
    MESSAGE_HAS("after 1 send:");
    MESSAGE_HAS("this is a claim request and it WAS sent: the claim may or may not have been made");
    cr_assert_eq(count_method("PUT"), 1, "a conditional PUT was sent %d times",
                 count_method("PUT"));
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "claim-empty", NULL, 0));
    cr_assert_eq(count_method("PUT"), 2);
    FAILS(SC_EUNKNOWN, sc_store_put_if_match(s, NULL, "head", TEXT("next"), "\"e\""));
    MESSAGE_HAS("the answer to the compare-and-swap (If-Match) was lost");
    MESSAGE_HAS("claim request and it WAS sent");
    cr_assert_eq(count_method("PUT"), 3);
    /* Idempotent requests are sent again: 3 tries each; a plain PUT is no claim and says so. */
    FAILS(SC_EUNKNOWN, sc_store_put(s, NULL, "plain", TEXT("x")));
    MESSAGE_HAS("the answer to a plain overwrite was lost");
    MESSAGE_HAS("after 3 sends");
    MESSAGE_HAS("this request is not a claim, so it made none");
    cr_assert_null(strstr(sc_error_message(), "WAS sent"), "%s", sc_error_message());
    cr_assert_eq(count_method("PUT"), 6);
    uint8_t *data;
    size_t len;
    FAILS(SC_ETRANSIENT, sc_store_get(s, &data, &len, NULL, "k"));
    cr_assert_eq(count_method("GET"), 3);
    sc_store_free(s);
    fake_stop();
}

Test(s3_fake, dead_reused_connection_not_resent_by_curl) {
    /* The GET leaves a kept-alive connection; the server reads the PUT on it and drops it.
     * libcurl would silently send the PUT again on a fresh connection: not a conditional one. */
    sc_store *s = fake_store(STEPS(OK_GET, {CLOSE_SILENTLY, NULL, NULL, NULL}, OK_PUT));
    expect_text(s, "k", "body");
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "claim", TEXT("mine")));
    MESSAGE_HAS("the claim may or may not have been made");
    cr_assert_eq(count_method("PUT"), 1, "the conditional PUT went out %d times",
                 count_method("PUT"));
    sc_store_free(s);
    fake_stop();
    /* An empty conditional body gets a fresh connection, so it cannot be re-sent either. */
    s = fake_store(STEPS(OK_GET, {CLOSE_SILENTLY, NULL, NULL, NULL}, OK_PUT));
    expect_text(s, "k", "body");
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "claim", NULL, 0));
    cr_assert_eq(count_method("PUT"), 1);
    cr_assert_eq(atomic_load(&fake.connections), 2);
    sc_store_free(s);
    fake_stop();
    /* A plain PUT may be re-sent, and is. */
    s = fake_store(STEPS(OK_GET, {CLOSE_SILENTLY, NULL, NULL, NULL}, OK_PUT));
    expect_text(s, "k", "body");
    OK(sc_store_put(s, NULL, "plain", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 2);
    sc_store_free(s);
    fake_stop();
}

/* HTTP requests the store has sent (re-sends included). */
static uint64_t sent_by(sc_store *s) { return sc_s3_store_requests_sent(sc_store_backend_self(s)); }

/* put_once is a plain PUT the transport treats like a conditional one: after an attempt that
 * may have been applied it is never sent again, so at most one copy can land (one mtime). */
Test(s3_fake, put_once_sent_once) {
    /* A lost answer: unknown after one send (a plain put goes out three times, above). */
    sc_store *s = fake_store(STEPS({CLOSE_SILENTLY, NULL, NULL, NULL}));
    FAILS(SC_EUNKNOWN, sc_store_put_once(s, NULL, "commit-file", TEXT("doc")));
    MESSAGE_HAS("PUT s3://bucket/t/commit-file: the answer to a plain overwrite sent once was lost");
    MESSAGE_HAS("after 1 send:");
    MESSAGE_HAS("this request is not a claim, so it made none");
    cr_assert_eq(count_method("PUT"), 1, "put_once was sent %d times", count_method("PUT"));
    cr_assert_eq(sent_by(s), 1);
    const char *h = seen_head(0); /* answered by a close: see count_method */
    cr_assert_null(strstr(h, "If-None-Match"), "%s", h);
    cr_assert_null(strstr(h, "If-Match"), "%s", h);
    sc_store_free(s);
    fake_stop();
    /* libcurl's own silent re-send on a dead reused connection is refused too. */
    s = fake_store(STEPS(OK_GET, {CLOSE_SILENTLY, NULL, NULL, NULL}, OK_PUT));
    expect_text(s, "k", "body");
    FAILS(SC_EUNKNOWN, sc_store_put_once(s, NULL, "commit-file", TEXT("doc")));
    cr_assert_eq(count_method("PUT"), 1, "put_once went out %d times", count_method("PUT"));
    sc_store_free(s);
    fake_stop();
    /* A 500 may have been applied: unknown, not sent again. */
    s = fake_store(STEPS(ERR("500 Internal Server Error", "InternalError")));
    FAILS(SC_EUNKNOWN, sc_store_put_once(s, NULL, "commit-file", TEXT("doc")));
    MESSAGE_HAS("S3 failed a plain overwrite sent once with HTTP 500");
    cr_assert_eq(count_method("PUT"), 1);
    cr_assert_eq(sent_by(s), 1);
    sc_store_free(s);
    fake_stop();
    /* 503 SlowDown was refused unapplied: sent again, then it lands; counted as one put. */
    s = fake_store(STEPS(ERR("503 Slow Down", "SlowDown"), OK_PUT));
    sc_store_stats_reset(s);
    OK(sc_store_put_once(s, NULL, "commit-file", TEXT("doc")));
    cr_assert_eq(count_method("PUT"), 2);
    cr_assert_eq(sent_by(s), 2);
    sc_store_stats st;
    sc_store_stats_get(&st, s);
    cr_assert_eq(st.ops[SC_OP_PUT], 1);
    sc_store_free(s);
    fake_stop();
}

/* A write the server applied and answered in a way we cannot keep (an ETag longer than we
 * store, a success body past the cap) is an unknown outcome, never a definite failure: a
 * claim that landed must not be taken for one that did not, whose manifests are deleted. */
Test(s3_fake, an_applied_write_with_an_unusable_answer_is_unknown) {
    char long_etag[256];
    snprintf(long_etag, sizeof long_etag, "ETag: \"%0*d\"\r\n", SC_ETAG_MAX + 8, 0);
    sc_store *s = fake_store(STEPS({ANSWER, "200 OK", long_etag, NULL}));
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "snapshot-7", TEXT("doc")));
    MESSAGE_HAS("applied, but the ETag of its answer is longer than");
    cr_assert_eq(count_method("PUT"), 1);
    sc_store_free(s);
    fake_stop();
    size_t big = ((size_t)1 << 20) + 4096; /* past the transport's cap on success bodies */
    char *body = malloc(big + 1);
    cr_assert_not_null(body);
    memset(body, 'x', big);
    body[big] = '\0';
    s = fake_store(STEPS({ANSWER, "200 OK", "ETag: \"e\"\r\n", body}));
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "snapshot-7", TEXT("doc")));
    MESSAGE_HAS("is larger than accepted (the write was applied)");
    cr_assert_eq(count_method("PUT"), 1, "never sent again");
    sc_store_free(s);
    fake_stop();
    free(body);
}

Test(s3_fake, server_errors) {
    /* 500 on a conditional write: unknown, never re-sent. */
    sc_store *s = fake_store(STEPS(ERR("500 Internal Server Error", "InternalError")));
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "claim", TEXT("x")));
    MESSAGE_HAS("InternalError");
    MESSAGE_HAS("S3 failed the conditional create (If-None-Match: *) with HTTP 500");
    MESSAGE_HAS("claim request and it WAS sent");
    cr_assert_eq(count_method("PUT"), 1);
    /* ... a read is retried, then transient. */
    uint8_t *data;
    size_t len;
    FAILS(SC_ETRANSIENT, sc_store_get(s, &data, &len, NULL, "k"));
    cr_assert_eq(count_method("GET"), 3);
    sc_store_free(s);
    fake_stop();
    /* 503 SlowDown was not applied: even a conditional write is sent again, then succeeds. */
    s = fake_store(STEPS(ERR("503 Slow Down", "SlowDown"), OK_PUT));
    OK(sc_store_put_if_absent(s, NULL, "claim", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 2);
    sc_store_free(s);
    fake_stop();
    s = fake_store(STEPS(ERR("503 Slow Down", "SlowDown")));
    FAILS(SC_ETRANSIENT, sc_store_put_if_absent(s, NULL, "claim", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 3);
    MESSAGE_HAS("SlowDown");
    sc_store_free(s);
    fake_stop();
    /* A 503 without S3's error document came from something in between (a proxy whose
     * upstream may have applied the claim): a request sent once is not sent again, and its
     * outcome is unknown. A plain write is idempotent and is sent again. */
    s = fake_store(STEPS({ANSWER, "503 Service Unavailable", NULL, "upstream reset"}));
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "claim", TEXT("x")));
    MESSAGE_HAS("without S3's error document");
    MESSAGE_HAS("claim request and it WAS sent");
    cr_assert_eq(count_method("PUT"), 1, "never sent again");
    sc_store_free(s);
    fake_stop();
    s = fake_store(STEPS({ANSWER, "429 Too Many Requests", NULL, NULL}));
    FAILS(SC_EUNKNOWN, sc_store_put_once(s, NULL, "pre-commit", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 1, "never sent again");
    sc_store_free(s);
    fake_stop();
    s = fake_store(STEPS({ANSWER, "503 Service Unavailable", NULL, NULL}, OK_PUT));
    OK(sc_store_put(s, NULL, "k", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 2);
    sc_store_free(s);
    fake_stop();
    /* ... and when every send gets one, whether the first was applied is unknown. */
    s = fake_store(STEPS({ANSWER, "429 Too Many Requests", NULL, NULL}));
    FAILS(SC_EUNKNOWN, sc_store_put(s, NULL, "k", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 3);
    sc_store_free(s);
    fake_stop();
    /* ... and when only the last send gets one: the sends before were refused unapplied,
     * but the last may have reached S3 (as a 500 there would have). */
    s = fake_store(STEPS(ERR("503 Slow Down", "SlowDown"), ERR("503 Slow Down", "SlowDown"),
                         {ANSWER, "503 Service Unavailable", NULL, NULL}));
    FAILS(SC_EUNKNOWN, sc_store_put(s, NULL, "k", TEXT("x")));
    MESSAGE_HAS("without S3's error document");
    cr_assert_eq(count_method("PUT"), 3);
    sc_store_free(s);
    fake_stop();
    /* S3 says it refused a request unapplied with SlowDown or ServiceUnavailable: a 503 whose
     * document names another code is not that, and a claim is not sent again. */
    s = fake_store(STEPS(ERR("503 Service Unavailable", "InternalError"), OK_PUT));
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(s, NULL, "claim", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 1, "never sent again");
    sc_store_free(s);
    fake_stop();
    /* 400 is an I/O error naming the code; 501 is unsupported. */
    s = fake_store(STEPS(ERR("400 Bad Request", "InvalidArgument"),
                         ERR("501 Not Implemented", "NotImplemented")));
    FAILS(SC_EIO, sc_store_put(s, NULL, "k", TEXT("x")));
    MESSAGE_HAS("HTTP 400 InvalidArgument");
    FAILS(SC_EUNSUPPORTED, sc_store_put_if_absent(s, NULL, "k", TEXT("x")));
    MESSAGE_HAS("SNAPCOMMIT_S3_CONDITIONAL_WRITES=0");
    sc_store_free(s);
    fake_stop();
}

Test(s3_fake, conflicts_409_and_412) {
    /* 409 on put_if_absent, then the key exists: lost to a concurrent writer. */
    sc_store *s = fake_store(STEPS(ERR("409 Conflict", "ConditionalRequestConflict"), HEAD_200));
    FAILS(SC_EEXISTS, sc_store_put_if_absent(s, NULL, "claim", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 1);
    cr_assert_eq(count_method("HEAD"), 1);
    sc_store_free(s);
    fake_stop();
    /* 409, then still absent: ours was not applied, so it is sent again, and wins. */
    s = fake_store(STEPS(ERR("409 Conflict", "ConditionalRequestConflict"), HEAD_404, OK_PUT));
    OK(sc_store_put_if_absent(s, NULL, "claim", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 2);
    cr_assert(strstr(fake.head[2], "If-None-Match: *"), "%s", fake.head[2]);
    sc_store_free(s);
    fake_stop();
    /* 409 on put_if_match: modified, re-read. */
    s = fake_store(STEPS(ERR("409 Conflict", "ConditionalRequestConflict")));
    FAILS(SC_EMODIFIED, sc_store_put_if_match(s, NULL, "head", TEXT("x"), "\"e\""));
    cr_assert_eq(count_method("PUT"), 1);
    sc_store_free(s);
    fake_stop();
    /* 412 on put_if_match: modified when the key is there, not found when it is not. */
    s = fake_store(STEPS(ERR("412 Precondition Failed", "PreconditionFailed"), HEAD_200,
                         ERR("412 Precondition Failed", "PreconditionFailed"), HEAD_404));
    FAILS(SC_EMODIFIED, sc_store_put_if_match(s, NULL, "head", TEXT("x"), "\"e\""));
    cr_assert(strstr(fake.head[0], "If-Match: \"e\"\r\n"), "etag sent verbatim: %s", fake.head[0]);
    FAILS(SC_ENOTFOUND, sc_store_put_if_match(s, NULL, "head", TEXT("x"), "\"e\""));
    sc_store_free(s);
    fake_stop();
}

Test(s3_fake, timeouts) {
    sc_store *s = fake_store(STEPS({HANG, NULL, NULL, NULL}));
    setenv("SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS", "300", 1);
    sc_store *quick = open_s3("s3://bucket/t");
    FAILS(SC_EUNKNOWN, sc_store_put_if_absent(quick, NULL, "claim", TEXT("x")));
    cr_assert_eq(count_method("PUT"), 1);
    uint8_t *data;
    size_t len;
    FAILS(SC_ETRANSIENT, sc_store_get(quick, &data, &len, NULL, "k"));
    cr_assert_eq(count_method("GET"), 3);
    sc_store_free(quick);
    sc_store_free(s);
    fake_stop();
}

Test(s3_fake, connection_refused_is_transient_and_safe_to_resend) {
    /* A port with nobody listening: nothing was sent, so even a claim is simply transient. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t alen = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &alen);
    close(fd); /* bound, then released: connecting is refused */
    tu_s3_clear_env();
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", ntohs(a.sin_port));
    setenv("AWS_ENDPOINT_URL_S3", endpoint, 1);
    sc_store *s = open_s3("s3://bucket/t"); /* anonymous: no credentials set */
    FAILS(SC_ETRANSIENT, sc_store_put_if_absent(s, NULL, "claim", TEXT("x")));
    MESSAGE_HAS("did not answer after 3 tries");
    sc_object_info info;
    FAILS(SC_ETRANSIENT, sc_store_head(s, &info, "k"));
    sc_store_free(s);
}

Test(s3_fake, secrets_scrubbed_from_messages) {
    /* A server that echoes the secret and the token back in its error body. */
    sc_store *s = fake_store(STEPS(
        {ANSWER, "403 Forbidden", NULL,
         "<Error><Code>SignatureDoesNotMatch</Code><Message>secret fake-secret-that-must-not-leak "
         "token TOKEN-SHOULD-NOT-LEAK-123</Message></Error>"},
        {ANSWER, "400 Bad Request", NULL,
         "<Error><Code>InvalidArgument</Code><Message>fake-secret-that-must-not-leak</Message>"
         "</Error>"}));
    setenv("AWS_SESSION_TOKEN", "TOKEN-SHOULD-NOT-LEAK-123", 1);
    sc_store *t = open_s3("s3://bucket/t");
    uint8_t *data;
    size_t len;
    FAILS(SC_EAUTH, sc_store_get(t, &data, &len, NULL, "k"));
    MESSAGE_HAS("SignatureDoesNotMatch (check AWS_SECRET_ACCESS_KEY)");
    cr_assert_null(strstr(sc_error_message(), "fake-secret-that-must-not-leak"), "%s",
                   sc_error_message());
    cr_assert_null(strstr(sc_error_message(), "TOKEN-SHOULD-NOT-LEAK"), "%s", sc_error_message());
    FAILS(SC_EIO, sc_store_put(t, NULL, "k", TEXT("x")));
    cr_assert_null(strstr(sc_error_message(), "fake-secret"), "%s", sc_error_message());
    /* The token is sent and signed. */
    cr_assert(strstr(fake.head[0], "x-amz-security-token: TOKEN-SHOULD-NOT-LEAK-123\r\n"));
    cr_assert(strstr(fake.head[0], ";x-amz-security-token,"), "%s", fake.head[0]);
    sc_store_free(t);
    sc_store_free(s);
    fake_stop();
}

/* A server that creates buckets on the first write (as some do): init must look first. */
Test(s3_fake, init_checks_the_bucket_and_never_relies_on_autocreate) {
    sc_store *s = fake_store(STEPS(
        {ANSWER, "404 Not Found", "Content-Type: application/xml\r\n",
         "<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message>"
         "<BucketName>bucket</BucketName></Error>"},
        OK_PUT));
    FAILS(SC_EIO, sc_table_create(s, SC_STRATEGY_AUTO));
    MESSAGE_HAS("bucket \"bucket\" does not exist at http://127.0.0.1:");
    MESSAGE_HAS("snapcommit never creates buckets");
    cr_assert_eq(count_method("PUT"), 0, "init wrote %d objects into a missing bucket",
                 count_method("PUT"));
    cr_assert_eq(atomic_load(&fake.requests), 1);
    cr_assert(strstr(fake.target[0], "list-type=2&max-keys=1&prefix=t%2F"), "%s", fake.target[0]);
    sc_store_free(s);
    fake_stop();
}

/* Configured fields win over the environment, and configured keys never borrow its token. */
Test(s3_fake, configuration_wins_over_environment) {
    fake_start(STEPS(OK_PUT));
    tu_s3_clear_env();
    /* The environment points nowhere useful and names other credentials. */
    setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:1", 1);
    setenv("AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
    setenv("AWS_SESSION_TOKEN", "ENV-TOKEN-NOT-FOR-CONFIGURED-KEYS", 1);
    setenv("AWS_REGION", "eu-west-1", 1);
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", fake.port);
    sc_store_config c;
    sc_store_config_init(&c);
    c.endpoint = endpoint;
    c.region = "ap-south-1";
    c.access_key_id = "AKIACONFIGURED";
    c.secret_access_key = "configured-secret";
    c.request_timeout_ms = 1500;
    sc_store *s = NULL;
    OK(sc_store_open_with_config(&s, "s3://bucket/t", &c));
    OK(sc_store_put(s, NULL, "k", TEXT("x")));
    const char *h = fake.head[0];
    cr_assert(strstr(h, "Credential=AKIACONFIGURED/"), "%s", h);
    cr_assert(strstr(h, "/ap-south-1/s3/aws4_request"), "%s", h);
    cr_assert_null(strstr(h, "x-amz-security-token"), "the environment's token was sent: %s", h);
    sc_store_free(s);
    /* Unset fields still come from the environment (here: the credentials and their token). */
    c.access_key_id = c.secret_access_key = NULL;
    OK(sc_store_open_with_config(&s, "s3://bucket/t", &c));
    OK(sc_store_put(s, NULL, "k", TEXT("x")));
    h = fake.head[1];
    cr_assert(strstr(h, "Credential=AKIAENVIRONMENT/"), "%s", h);
    cr_assert(strstr(h, "x-amz-security-token: ENV-TOKEN-NOT-FOR-CONFIGURED-KEYS\r\n"), "%s", h);
    sc_store_free(s);
    /* anonymous: unsigned even though the environment has keys. */
    c.anonymous = 1;
    OK(sc_store_open_with_config(&s, "s3://bucket/t", &c));
    OK(sc_store_put(s, NULL, "k", TEXT("x")));
    cr_assert_null(strstr(fake.head[2], "Authorization:"), "%s", fake.head[2]);
    sc_store_free(s);
    fake_stop();
    /* Bad configurations name the field, never a secret's value. */
    sc_store_config_init(&c);
    c.secret_access_key = "half-of-a-pair-secret";
    FAILS(SC_EINVAL, sc_store_open_with_config(&s, "s3://bucket/t", &c));
    MESSAGE_HAS("the configured secret access key is set but the configured access key id is not");
    cr_assert_null(strstr(sc_error_message(), "half-of-a-pair"), "%s", sc_error_message());
    sc_store_config_init(&c);
    c.session_token = "lonely-token";
    FAILS(SC_EINVAL, sc_store_open_with_config(&s, "s3://bucket/t", &c));
    cr_assert_null(strstr(sc_error_message(), "lonely-token"), "%s", sc_error_message());
    sc_store_config_init(&c);
    c.request_timeout_ms = -5;
    FAILS(SC_EINVAL, sc_store_open_with_config(&s, "s3://bucket/t", &c));
    MESSAGE_HAS("request_timeout_ms");
    sc_store_config_init(&c);
    c.path_style = 7;
    FAILS(SC_EINVAL, sc_store_open_with_config(&s, "s3://bucket/t", &c));
    MESSAGE_HAS("path_style");
    sc_store_config_init(&c);
    c.endpoint = "ftp://nowhere";
    FAILS(SC_EINVAL, sc_store_open_with_config(&s, "s3://bucket/t", &c));
    MESSAGE_HAS("the configured endpoint");
    /* A struct never initialised is refused rather than read as garbage. */
    sc_store_config raw;
    memset(&raw, 0, sizeof raw);
    FAILS(SC_EINVAL, sc_store_open_with_config(&s, "s3://bucket/t", &raw));
    MESSAGE_HAS("sc_store_config_init");
    /* Path style and TLS switches from the configuration win over the environment. */
    tu_s3_clear_env();
    setenv("SNAPCOMMIT_S3_PATH_STYLE", "0", 1);
    sc_store_config_init(&c);
    c.path_style = 1;
    OK(sc_store_open_with_config(&s, "s3://Bucket_Name/x", &c));
    sc_store_free(s);
    setenv("SNAPCOMMIT_S3_INSECURE", "banana", 1);
    c.tls_verify = 1;
    OK(sc_store_open_with_config(&s, "s3://bucket/x", &c));
    sc_store_free(s);
    tu_s3_clear_env();
}

/* The tracker's TTL is part of the store's configuration; the environment is the default. */
Test(s3_config, tracker_ttl_from_configuration) {
    setenv("SNAPCOMMIT_TRACKER_TTL_MS", "45000", 1);
    sc_mem_store_reset("cfg-ttl");
    sc_store_config c;
    sc_store_config_init(&c);
    c.tracker_ttl_ms = 1234;
    sc_store *s = NULL;
    OK(sc_store_open_with_config(&s, "mem://cfg-ttl", &c));
    OK(sc_table_create(s, SC_STRATEGY_TRACKER));
    sc_table *t = NULL;
    OK(sc_table_open(&t, s));
    cr_assert_eq(sc_tracker_ttl_ms(t), 1234);
    sc_table_free(t);
    sc_store_free(s);
    OK(sc_table_open_location(&t, "mem://cfg-ttl"));
    cr_assert_eq(sc_tracker_ttl_ms(t), 45000, "unset: the environment is the default");
    sc_table_free(t);
    c.tracker_ttl_ms = 1;
    FAILS(SC_EINVAL, sc_store_open_with_config(&s, "mem://cfg-ttl", &c));
    unsetenv("SNAPCOMMIT_TRACKER_TTL_MS");
}

Test(s3_fake, listings_checked_not_trusted) {
    const char *unsorted = "<ListBucketResult><IsTruncated>false</IsTruncated>"
                           "<Contents><Key>t/b</Key></Contents><Contents><Key>t/a</Key></Contents>"
                           "</ListBucketResult>";
    const char *outside = "<ListBucketResult><IsTruncated>false</IsTruncated>"
                          "<Contents><Key>elsewhere/a</Key></Contents></ListBucketResult>";
    const char *too_many = "<ListBucketResult><IsTruncated>false</IsTruncated>"
                           "<Contents><Key>t/a</Key></Contents><Contents><Key>t/b</Key></Contents>"
                           "</ListBucketResult>";
    const char *markers = "<ListBucketResult><IsTruncated>false</IsTruncated>"
                          "<Contents><Key>t/</Key></Contents><Contents><Key>t/a</Key></Contents>"
                          "<Contents><Key>t/d/</Key></Contents></ListBucketResult>";
    const char *doctype = "<!DOCTYPE x [<!ENTITY a \"b\">]><ListBucketResult/>";
    sc_store *s = fake_store(STEPS({ANSWER, "200 OK", NULL, unsorted},
                                   {ANSWER, "200 OK", NULL, outside},
                                   {ANSWER, "200 OK", NULL, too_many},
                                   {ANSWER, "200 OK", NULL, markers},
                                   {ANSWER, "200 OK", NULL, doctype}));
    sc_list_page page;
    FAILS(SC_EIO, sc_store_list(s, &page, "", NULL, 10));
    MESSAGE_HAS("out of order");
    FAILS(SC_EIO, sc_store_list(s, &page, "", NULL, 10));
    FAILS(SC_EIO, sc_store_list(s, &page, "", NULL, 1));
    MESSAGE_HAS("more than 1 keys");
    /* Folder markers are not store keys. */
    OK(sc_store_list(s, &page, "", NULL, 10));
    expect_page(&page, KEYS("a"), "markers");
    sc_list_page_free(&page);
    FAILS(SC_EIO, sc_store_list(s, &page, "", NULL, 10));
    MESSAGE_HAS("DOCTYPE");
    cr_assert(strstr(fake.target[0], "list-type=2&max-keys=10&prefix=t%2F"), "%s", fake.target[0]);
    sc_store_free(s);
    fake_stop();
}
