/*
 * The S3 test servers (gofakes3 and moto on 127.0.0.1), shared by the S3 suite and the store
 * conformance suite. They need scripts/s3-servers.sh start and its environment
 * (eval "$(scripts/s3-servers.sh env)"); without it the tests on them FAIL and say so, never skip.
 */
#ifndef SC_TEST_S3_H
#define SC_TEST_S3_H

#include <criterion/criterion.h>
#include <stdlib.h>

/* Every variable the S3 backend reads: cleared so that only what a test sets is seen. */
static const char *const tu_s3_managed_vars[] = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
    "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_CA_BUNDLE",
    "SNAPCOMMIT_S3_PATH_STYLE", "SNAPCOMMIT_S3_CONNECT_TIMEOUT_MS",
    "SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS", "SNAPCOMMIT_S3_INSECURE",
    "SNAPCOMMIT_S3_CONDITIONAL_WRITES"};

static inline void tu_s3_clear_env(void) {
    for (size_t i = 0; i < sizeof tu_s3_managed_vars / sizeof *tu_s3_managed_vars; i++)
        unsetenv(tu_s3_managed_vars[i]);
}

/* What scripts/s3-servers.sh env exports. */
static const char *const tu_s3_server_vars[] = {
    "SC_S3_BUCKET", "SC_GOFAKES3_ENDPOINT", "SC_GOFAKES3_ACCESS_KEY_ID",
    "SC_GOFAKES3_SECRET_ACCESS_KEY", "SC_MOTO_ENDPOINT", "SC_MOTO_ACCESS_KEY_ID",
    "SC_MOTO_SECRET_ACCESS_KEY", "SC_MOTO_AUTH"};

#define TU_S3_NOT_RUNNING                                                                          \
    "S3 test servers not running: run scripts/s3-servers.sh start "                               \
    "(and eval \"$(scripts/s3-servers.sh env)\"); %s is not set"

/* The first server variable that is not set, or NULL. Asserts nothing: safe in a fixture's init. */
static inline const char *tu_s3_missing_var(void) {
    for (size_t i = 0; i < sizeof tu_s3_server_vars / sizeof *tu_s3_server_vars; i++) {
        const char *v = getenv(tu_s3_server_vars[i]);
        if (!v || !*v) return tu_s3_server_vars[i];
    }
    return NULL;
}

/* A server variable; a test without it fails, loudly. */
static inline const char *tu_s3_server_env(const char *name) {
    const char *v = getenv(name);
    if (!v || !*v) cr_assert_fail(TU_S3_NOT_RUNNING, name);
    return v;
}

typedef enum { TU_GOFAKES3, TU_MOTO } tu_s3_server;

/* Point the S3 backend's environment at one server (after tu_s3_missing_var() said all is set). */
static inline void tu_s3_use_server(tu_s3_server which) {
    int g = which == TU_GOFAKES3;
    const char *endpoint = tu_s3_server_env(g ? "SC_GOFAKES3_ENDPOINT" : "SC_MOTO_ENDPOINT");
    const char *id = tu_s3_server_env(g ? "SC_GOFAKES3_ACCESS_KEY_ID" : "SC_MOTO_ACCESS_KEY_ID");
    const char *secret =
        tu_s3_server_env(g ? "SC_GOFAKES3_SECRET_ACCESS_KEY" : "SC_MOTO_SECRET_ACCESS_KEY");
    tu_s3_server_env("SC_S3_BUCKET");
    tu_s3_clear_env();
    setenv("AWS_ENDPOINT_URL_S3", endpoint, 1);
    setenv("AWS_ACCESS_KEY_ID", id, 1);
    setenv("AWS_SECRET_ACCESS_KEY", secret, 1);
    setenv("AWS_REGION", "us-east-1", 1);
    setenv("SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS", "20000", 1);
}

#endif
