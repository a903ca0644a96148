/*
 * S3 configuration: sc_store_config fields, else the environment, else the
 * defaults (the table in store_s3.h and snapcommit/store.h) -> the settings
 * of one sc_s3_store. Nothing here sends a request.
 */
#include "s3/s3_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/error_internal.h"

#define S3_PREFIX_MAX 512

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
static int parse_endpoint(sc_s3_store *s, char **authority, char **path, const char *url,
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

int sc_s3_config_load(sc_s3_store **out, int *out_conditional, const char *uri,
                      const sc_store_config *config) {
    sc_store_config unset;
    if (!config) {
        sc_store_config_init(&unset);
        config = &unset;
    }
    *out = NULL;
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

    sc_s3_store *s = calloc(1, sizeof *s);
    if (!s) return sc_error_set(SC_ENOMEM, "out of memory");
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
    if (!rc)
        rc = cfg_flag(&path_style, config->path_style, "path_style", "SNAPCOMMIT_S3_PATH_STYLE");
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

    /* Transport settings. */
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
    free(authority);
    free(endpoint_path);
    if (rc) {
        sc_s3_store_free(s);
        return rc;
    }
    *out_conditional = conditional;
    *out = s;
    return 0;
}
