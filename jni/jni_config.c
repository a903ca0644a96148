/*
 * Store configuration from Java (io.snapcommit.jni.StoreConfig.toNative()):
 * a byte[][] of SCJ_CFG_COUNT NUL-terminated UTF-8 strings, null = unset,
 * marshalled into an sc_store_config for one open call. Nothing is written
 * to the process environment: each store gets its own settings, so two jobs
 * in one JVM can use different credentials.
 */
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#include "jni_internal.h"

/* Parse a decimal int64 option; 0 and an exception pending on a bad value. */
static int parse_i64(JNIEnv *env, const char *text, int64_t *out, const char *what) {
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end) {
        scj_throw(env, scj.illegal_argument, what);
        return 0;
    }
    *out = v;
    return 1;
}

int scj_config_from(JNIEnv *env, jobjectArray arr, sc_store_config *out, scj_config_strings *keep) {
    sc_store_config_init(out);
    memset(keep, 0, sizeof *keep);
    if (!arr) return 0;
    if ((*env)->GetArrayLength(env, arr) != SCJ_CFG_COUNT) {
        scj_throw(env, scj.illegal_argument, "store configuration has the wrong number of fields");
        return -1;
    }
    for (int i = 0; i < SCJ_CFG_COUNT; i++) {
        jbyteArray item = (jbyteArray)(*env)->GetObjectArrayElement(env, arr, i);
        if ((*env)->ExceptionCheck(env)) goto fail;
        /* The message names no value: a field may be a secret. */
        keep->s[i] = scj_cstr(env, item, "store configuration field is not NUL-terminated UTF-8", 1);
        if (item) (*env)->DeleteLocalRef(env, item);
        if ((*env)->ExceptionCheck(env)) goto fail;
    }
    out->endpoint = keep->s[SCJ_CFG_ENDPOINT];
    out->region = keep->s[SCJ_CFG_REGION];
    out->access_key_id = keep->s[SCJ_CFG_ACCESS_KEY];
    out->secret_access_key = keep->s[SCJ_CFG_SECRET_KEY];
    out->session_token = keep->s[SCJ_CFG_SESSION_TOKEN];
    out->ca_bundle = keep->s[SCJ_CFG_CA_BUNDLE];
    int64_t v;
    static const struct {
        int index;
        const char *what;
    } ints[] = {
        {SCJ_CFG_PATH_STYLE, "s3 path style must be -1, 0 or 1"},
        {SCJ_CFG_TLS_VERIFY, "s3 TLS verification must be -1, 0 or 1"},
        {SCJ_CFG_CONDITIONAL, "s3 conditional writes must be -1, 0 or 1"},
        {SCJ_CFG_CONNECT_TIMEOUT, "s3 connect timeout must be milliseconds"},
        {SCJ_CFG_REQUEST_TIMEOUT, "s3 request timeout must be milliseconds"},
        {SCJ_CFG_TRACKER_TTL, "tracker TTL must be milliseconds"},
        {SCJ_CFG_ANONYMOUS, "s3 anonymous must be 0 or 1"},
    };
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        const char *text = keep->s[ints[i].index];
        if (!text) continue;
        if (!parse_i64(env, text, &v, ints[i].what)) goto fail;
        switch (ints[i].index) {
        case SCJ_CFG_PATH_STYLE: out->path_style = (int)v; break;
        case SCJ_CFG_TLS_VERIFY: out->tls_verify = (int)v; break;
        case SCJ_CFG_CONDITIONAL: out->conditional_writes = (int)v; break;
        case SCJ_CFG_CONNECT_TIMEOUT: out->connect_timeout_ms = v; break;
        case SCJ_CFG_REQUEST_TIMEOUT: out->request_timeout_ms = v; break;
        case SCJ_CFG_TRACKER_TTL: out->tracker_ttl_ms = v; break;
        default: out->anonymous = (int)v; break;
        }
    }
    return 0;
fail:
    scj_config_release(keep);
    sc_store_config_init(out);
    return -1;
}

void scj_config_release(scj_config_strings *keep) {
    for (int i = 0; i < SCJ_CFG_COUNT; i++) {
        if (!keep->s[i]) continue;
        /* Secrets do not linger in freed memory. */
        OPENSSL_cleanse(keep->s[i], strlen(keep->s[i]));
        free(keep->s[i]);
        keep->s[i] = NULL;
    }
}
