/* Bounded expat decoders for S3 XML bodies (see s3_xml.h). */
#include "s3/s3_xml.h"

#include <expat.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error_internal.h"
#include "base/vec.h"

/* Fields the decoders collect. */
typedef enum field {
    F_NONE = 0,
    F_KEY,
    F_TRUNCATED,
    F_TOKEN,
    F_CODE,
    F_MESSAGE,
    F_REQUEST_ID,
} field;

typedef enum doc_kind { DOC_LIST, DOC_ERROR } doc_kind;

typedef struct xml_ctx {
    XML_Parser parser;
    doc_kind kind;
    const char *what; /* for messages: "ListObjectsV2 response", ... */
    int depth;
    int error_root;   /* the root is <Error> */
    int in_contents;  /* inside a depth-2 <Contents> */
    int contents_key; /* that <Contents> had its <Key> */
    field capturing;
    int capture_depth;
    size_t capture_limit;
    int capture_truncates; /* 1: cut at the limit; 0: refuse with SC_ELIMIT */
    sc_buf text;
    int rc; /* first failure, set by fail() */

    const sc_s3_xml_limits *limits;
    sc_s3_list_result *list;
    size_t keys_cap;
    int saw_truncated;
    sc_s3_error_body *err;
} xml_ctx;

static int fail(xml_ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Record the first failure with the parser's position and stop it. */
static int fail(xml_ctx *c, int code, const char *fmt, ...) {
    if (c->rc) return c->rc;
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    c->rc = sc_error_set(code, "%s: %s at line %lu, column %lu", c->what, detail,
                         (unsigned long)XML_GetCurrentLineNumber(c->parser),
                         (unsigned long)XML_GetCurrentColumnNumber(c->parser));
    XML_StopParser(c->parser, XML_FALSE);
    return c->rc;
}

static void begin_capture(xml_ctx *c, field f, size_t limit, int truncates) {
    c->capturing = f;
    c->capture_depth = c->depth;
    c->capture_limit = limit;
    c->capture_truncates = truncates;
    c->text.len = 0;
}

static int root_expected(const xml_ctx *c, const char *name, int *is_error) {
    *is_error = strcmp(name, "Error") == 0;
    switch (c->kind) {
    case DOC_LIST: return strcmp(name, "ListBucketResult") == 0;
    case DOC_ERROR: return *is_error;
    }
    return 0;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs) {
    (void)attrs;
    xml_ctx *c = ud;
    if (c->rc) return;
    c->depth++;
    if (c->depth > SC_S3_XML_MAX_DEPTH) {
        fail(c, SC_ECORRUPT, "elements nested deeper than %d", SC_S3_XML_MAX_DEPTH);
        return;
    }
    if (c->capturing) {
        fail(c, SC_ECORRUPT, "element <%.64s> inside a text field", name);
        return;
    }
    if (c->depth == 1) {
        if (!root_expected(c, name, &c->error_root))
            fail(c, SC_ECORRUPT, "unexpected root element <%.64s>", name);
        return;
    }
    if (c->error_root) {
        if (c->depth != 2) return;
        if (strcmp(name, "Code") == 0)
            begin_capture(c, F_CODE, sizeof c->err->code - 1, 1);
        else if (strcmp(name, "Message") == 0)
            begin_capture(c, F_MESSAGE, sizeof c->err->message - 1, 1);
        else if (strcmp(name, "RequestId") == 0)
            begin_capture(c, F_REQUEST_ID, sizeof c->err->request_id - 1, 1);
        return;
    }
    switch (c->kind) {
    case DOC_LIST:
        if (c->depth == 2) {
            if (strcmp(name, "Contents") == 0) {
                if (c->list->count >= c->limits->max_keys) {
                    fail(c, SC_ELIMIT, "more than %zu keys", c->limits->max_keys);
                    return;
                }
                c->in_contents = 1;
                c->contents_key = 0;
            } else if (strcmp(name, "IsTruncated") == 0) {
                begin_capture(c, F_TRUNCATED, 16, 0);
            } else if (strcmp(name, "NextContinuationToken") == 0) {
                begin_capture(c, F_TOKEN, SC_S3_TOKEN_MAX, 0);
            }
        } else if (c->depth == 3 && c->in_contents && strcmp(name, "Key") == 0) {
            if (c->contents_key) {
                fail(c, SC_ECORRUPT, "two <Key> elements in one <Contents>");
                return;
            }
            begin_capture(c, F_KEY, c->limits->max_key_len, 0);
        }
        break;
    case DOC_ERROR: break;
    }
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len) {
    xml_ctx *c = ud;
    if (c->rc || !c->capturing || len <= 0) return;
    size_t n = (size_t)len;
    if (c->text.len + n > c->capture_limit) {
        if (!c->capture_truncates) {
            fail(c, SC_ELIMIT, "a text field longer than %zu bytes", c->capture_limit);
            return;
        }
        n = c->capture_limit - c->text.len;
    }
    int rc = sc_buf_append(&c->text, s, n);
    if (rc) fail(c, rc, "out of memory");
}

/* The captured text as a new C string. */
static char *take_text(xml_ctx *c) {
    char *s = malloc(c->text.len + 1);
    if (!s) {
        fail(c, SC_ENOMEM, "out of memory");
        return NULL;
    }
    if (c->text.len) memcpy(s, c->text.data, c->text.len);
    s[c->text.len] = '\0';
    return s;
}

static void copy_text(xml_ctx *c, char *dst, size_t size) {
    size_t n = c->text.len < size - 1 ? c->text.len : size - 1;
    if (n) memcpy(dst, c->text.data, n);
    dst[n] = '\0';
}

static void finish_capture(xml_ctx *c) {
    field f = c->capturing;
    c->capturing = F_NONE;
    switch (f) {
    case F_KEY: {
        if (c->text.len == 0 || memchr(c->text.data, '\0', c->text.len)) {
            fail(c, SC_ECORRUPT, "an empty key");
            return;
        }
        sc_s3_list_result *l = c->list;
        /* The count is bounded by max_keys when <Contents> opens. */
        int rc;
        SC_VEC_RESERVE(rc, l->keys, c->keys_cap, l->count + 1, 64, "the listed keys");
        if (rc) {
            fail(c, rc, "%s", sc_error_message());
            return;
        }
        char *key = take_text(c);
        if (!key) return;
        l->keys[l->count++] = key;
        c->contents_key = 1;
        return;
    }
    case F_TRUNCATED:
        if (c->saw_truncated) {
            fail(c, SC_ECORRUPT, "two <IsTruncated> elements");
        } else if (c->text.len == 4 && memcmp(c->text.data, "true", 4) == 0) {
            c->list->truncated = 1;
        } else if (!(c->text.len == 5 && memcmp(c->text.data, "false", 5) == 0)) {
            fail(c, SC_ECORRUPT, "<IsTruncated> is neither true nor false");
        }
        c->saw_truncated = 1;
        return;
    case F_TOKEN:
        if (c->list->next_token) {
            fail(c, SC_ECORRUPT, "two <NextContinuationToken> elements");
            return;
        }
        c->list->next_token = take_text(c);
        return;
    case F_CODE: copy_text(c, c->err->code, sizeof c->err->code); return;
    case F_MESSAGE: copy_text(c, c->err->message, sizeof c->err->message); return;
    case F_REQUEST_ID: copy_text(c, c->err->request_id, sizeof c->err->request_id); return;
    case F_NONE: return;
    }
}

static void XMLCALL on_end(void *ud, const XML_Char *name) {
    (void)name;
    xml_ctx *c = ud;
    if (c->rc) return;
    if (c->capturing && c->depth == c->capture_depth) finish_capture(c);
    if (c->rc) return;
    if (c->depth == 2 && c->in_contents) {
        if (!c->contents_key) {
            fail(c, SC_ECORRUPT, "a <Contents> without <Key>");
            return;
        }
        c->in_contents = 0;
    }
    c->depth--;
}

/* A DOCTYPE could declare entities (billion laughs, external files): never accepted. */
static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset) {
    (void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
    fail(ud, SC_ECORRUPT, "a DOCTYPE declaration (refused)");
}

static void XMLCALL on_entity_decl(void *ud, const XML_Char *name, int is_param,
                                   const XML_Char *value, int value_len, const XML_Char *base,
                                   const XML_Char *sysid, const XML_Char *pubid,
                                   const XML_Char *notation) {
    (void)name, (void)is_param, (void)value, (void)value_len, (void)base, (void)sysid,
        (void)pubid, (void)notation;
    fail(ud, SC_ECORRUPT, "an entity declaration (refused)");
}

static int parse(xml_ctx *c, const char *body, size_t len, size_t max_body) {
    if (len > max_body || len > INT_MAX)
        return sc_error_set(SC_ELIMIT, "%s: %zu bytes, more than the %zu accepted", c->what, len,
                            max_body < INT_MAX ? max_body : (size_t)INT_MAX);
    /* The encoding given here overrides any declaration in the document. */
    c->parser = XML_ParserCreate("UTF-8");
    if (!c->parser) return sc_error_set(SC_ENOMEM, "%s: out of memory for the parser", c->what);
    XML_SetUserData(c->parser, c);
    XML_SetElementHandler(c->parser, on_start, on_end);
    XML_SetCharacterDataHandler(c->parser, on_text);
    XML_SetStartDoctypeDeclHandler(c->parser, on_doctype);
    XML_SetEntityDeclHandler(c->parser, on_entity_decl);
    XML_SetParamEntityParsing(c->parser, XML_PARAM_ENTITY_PARSING_NEVER);
    enum XML_Status st = XML_Parse(c->parser, body ? body : "", (int)len, 1);
    if (st != XML_STATUS_OK && !c->rc) {
        c->rc = sc_error_set(SC_ECORRUPT, "%s: malformed XML (%s) at line %lu, column %lu",
                             c->what, XML_ErrorString(XML_GetErrorCode(c->parser)),
                             (unsigned long)XML_GetCurrentLineNumber(c->parser),
                             (unsigned long)XML_GetCurrentColumnNumber(c->parser));
    }
    XML_ParserFree(c->parser);
    c->parser = NULL;
    sc_buf_free(&c->text);
    return c->rc;
}

void sc_s3_xml_limits_default(sc_s3_xml_limits *out) {
    /* 1000 keys of 1024 bytes, escaped, plus per-entry metadata: well under 8 MiB. */
    out->max_body = 8u << 20;
    out->max_keys = 1000;
    out->max_key_len = SC_S3_KEY_MAX;
}

void sc_s3_list_result_free(sc_s3_list_result *r) {
    if (!r) return;
    for (size_t i = 0; i < r->count; i++) free(r->keys[i]);
    free(r->keys);
    free(r->next_token);
    memset(r, 0, sizeof *r);
}

int sc_s3_xml_parse_list(sc_s3_list_result *out, const char *body, size_t len,
                         const sc_s3_xml_limits *limits) {
    memset(out, 0, sizeof *out);
    if (!limits) return sc_error_set(SC_EINVAL, "ListObjectsV2 response: no limits given");
    xml_ctx c = {.kind = DOC_LIST, .what = "ListObjectsV2 response", .limits = limits, .list = out};
    sc_s3_error_body ignored;
    c.err = &ignored; /* an <Error> root is refused for lists, but keep the pointer valid */
    int rc = parse(&c, body, len, limits->max_body);
    if (!rc && !c.saw_truncated)
        rc = sc_error_set(SC_ECORRUPT, "ListObjectsV2 response: no <IsTruncated> element");
    return rc;
}

int sc_s3_xml_parse_error(sc_s3_error_body *out, const char *body, size_t len, size_t max_body) {
    memset(out, 0, sizeof *out);
    xml_ctx c = {.kind = DOC_ERROR, .what = "S3 error response", .err = out};
    return parse(&c, body, len, max_body);
}
