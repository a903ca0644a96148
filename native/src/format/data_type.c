/* Paimon column types: type strings parsed and rendered canonically. */
#include "format/data_type.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"

/* Longest type string accepted; Paimon's atomic types are a few dozen characters. */
#define TYPE_TEXT_MAX 256
#define MAX_TOKENS 16

typedef enum { TOK_WORD, TOK_INT, TOK_OPEN, TOK_CLOSE, TOK_COMMA } tok_kind;

typedef struct tok {
    tok_kind kind;
    const char *start;
    size_t len;
    int64_t value; /* TOK_INT */
} tok;

static int bad(const char *text, const char *what, const char *why) {
    return sc_error_set(SC_EINVAL, "%s: type \"%.*s\": %s", what ? what : "type", TYPE_TEXT_MAX, text, why);
}

static int tokenize(tok *toks, size_t *count, const char *text, const char *what) {
    size_t n = 0;
    const char *p = text;
    while (*p) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (n == MAX_TOKENS) return bad(text, what, "too many words");
        tok *t = &toks[n++];
        t->start = p;
        if (isalpha((unsigned char)*p) || *p == '_') {
            t->kind = TOK_WORD;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
        } else if (isdigit((unsigned char)*p)) {
            t->kind = TOK_INT;
            t->value = 0;
            while (isdigit((unsigned char)*p)) {
                t->value = t->value * 10 + (*p - '0');
                if (t->value > SC_TYPE_MAX_LENGTH) return bad(text, what, "number out of range");
                p++;
            }
        } else if (*p == '(' || *p == ')' || *p == ',') {
            t->kind = *p == '(' ? TOK_OPEN : *p == ')' ? TOK_CLOSE : TOK_COMMA;
            p++;
        } else {
            return bad(text, what, "unexpected character");
        }
        t->len = (size_t)(p - t->start);
    }
    *count = n;
    return 0;
}

static int word_is(const tok *t, const char *w) {
    return t->kind == TOK_WORD && t->len == strlen(w) && strncasecmp(t->start, w, t->len) == 0;
}

typedef struct cursor {
    const tok *toks;
    size_t n, i;
} cursor;

static int next_word(cursor *c, const char *w) {
    if (c->i < c->n && word_is(&c->toks[c->i], w)) {
        c->i++;
        return 1;
    }
    return 0;
}

/* "(a)" or "(a, b)"; returns how many numbers were read (0 when no parenthesis), -1 on bad syntax. */
static int params(cursor *c, int32_t *a, int32_t *b) {
    if (c->i >= c->n || c->toks[c->i].kind != TOK_OPEN) return 0;
    c->i++;
    if (c->i >= c->n || c->toks[c->i].kind != TOK_INT) return -1;
    *a = (int32_t)c->toks[c->i++].value;
    int got = 1;
    if (c->i < c->n && c->toks[c->i].kind == TOK_COMMA) {
        c->i++;
        if (c->i >= c->n || c->toks[c->i].kind != TOK_INT) return -1;
        *b = (int32_t)c->toks[c->i++].value;
        got = 2;
    }
    if (c->i >= c->n || c->toks[c->i].kind != TOK_CLOSE) return -1;
    c->i++;
    return got;
}

int sc_data_type_parse(sc_data_type *out, const char *text, const char *what) {
    memset(out, 0, sizeof *out);
    if (!text || strlen(text) > TYPE_TEXT_MAX) return bad(text ? text : "", what, "missing or too long");
    tok toks[MAX_TOKENS];
    size_t n = 0;
    int rc = tokenize(toks, &n, text, what);
    if (rc) return rc;
    if (n == 0 || toks[0].kind != TOK_WORD) return bad(text, what, "no type name");
    cursor c = {toks, n, 1};
    const tok *kw = &toks[0];
    sc_data_type t = {.nullable = 1};
    int32_t a = 0, b = 0;
    int np;
    /* Which parameters the keyword takes: 'L' a length, 'D' precision and scale, 'P' a precision. */
    char takes = 0;
    if (word_is(kw, "BOOLEAN")) t.root = SC_TYPE_BOOLEAN;
    else if (word_is(kw, "TINYINT")) t.root = SC_TYPE_TINYINT;
    else if (word_is(kw, "SMALLINT")) t.root = SC_TYPE_SMALLINT;
    else if (word_is(kw, "INT") || word_is(kw, "INTEGER")) t.root = SC_TYPE_INT;
    else if (word_is(kw, "BIGINT")) t.root = SC_TYPE_BIGINT;
    else if (word_is(kw, "FLOAT")) t.root = SC_TYPE_FLOAT;
    else if (word_is(kw, "DOUBLE")) {
        t.root = SC_TYPE_DOUBLE;
        next_word(&c, "PRECISION");
    } else if (word_is(kw, "STRING")) {
        t.root = SC_TYPE_VARCHAR;
        t.length = SC_TYPE_MAX_LENGTH;
    } else if (word_is(kw, "BYTES")) {
        t.root = SC_TYPE_VARBINARY;
        t.length = SC_TYPE_MAX_LENGTH;
    } else if (word_is(kw, "CHAR")) t.root = SC_TYPE_CHAR, takes = 'L';
    else if (word_is(kw, "VARCHAR")) t.root = SC_TYPE_VARCHAR, takes = 'L';
    else if (word_is(kw, "BINARY")) t.root = SC_TYPE_BINARY, takes = 'L';
    else if (word_is(kw, "VARBINARY")) t.root = SC_TYPE_VARBINARY, takes = 'L';
    else if (word_is(kw, "DECIMAL") || word_is(kw, "DEC") || word_is(kw, "NUMERIC"))
        t.root = SC_TYPE_DECIMAL, takes = 'D';
    else if (word_is(kw, "DATE")) t.root = SC_TYPE_DATE;
    else if (word_is(kw, "TIME")) t.root = SC_TYPE_TIME, takes = 'P';
    else if (word_is(kw, "TIMESTAMP")) t.root = SC_TYPE_TIMESTAMP, takes = 'P';
    else if (word_is(kw, "TIMESTAMP_LTZ")) t.root = SC_TYPE_TIMESTAMP_LTZ, takes = 'P';
    else return bad(text, what, "unknown or unsupported type name");

    if (takes) {
        np = params(&c, &a, &b);
        if (np < 0) return bad(text, what, "malformed parameters");
        if (takes == 'L') {
            t.length = np ? a : 1; /* Paimon's default length of CHAR, VARCHAR, BINARY, VARBINARY */
            if (np > 1 || t.length < 1) return bad(text, what, "length must be one number from 1 to 2147483647");
        } else if (takes == 'D') {
            t.precision = np ? a : 10;
            t.scale = np == 2 ? b : 0;
            if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision)
                return bad(text, what, "DECIMAL needs precision 1..38 and scale 0..precision");
        } else {
            int def = t.root == SC_TYPE_TIME ? 0 : 6;
            t.precision = np ? a : def;
            if (np > 1 || t.precision < 0 || t.precision > 9) return bad(text, what, "precision must be 0..9");
        }
    }
    if (t.root == SC_TYPE_TIME || t.root == SC_TYPE_TIMESTAMP) {
        size_t save = c.i;
        if (next_word(&c, "WITHOUT")) {
            if (!(next_word(&c, "TIME") && next_word(&c, "ZONE"))) return bad(text, what, "expected WITHOUT TIME ZONE");
        } else if (t.root == SC_TYPE_TIMESTAMP && next_word(&c, "WITH")) {
            if (!(next_word(&c, "LOCAL") && next_word(&c, "TIME") && next_word(&c, "ZONE")))
                return bad(text, what, "only WITH LOCAL TIME ZONE is supported");
            t.root = SC_TYPE_TIMESTAMP_LTZ;
        } else {
            c.i = save;
        }
    }
    if (next_word(&c, "NOT")) {
        if (!next_word(&c, "NULL")) return bad(text, what, "expected NULL after NOT");
        t.nullable = 0;
    } else {
        next_word(&c, "NULL");
    }
    if (c.i != c.n) return bad(text, what, "unexpected trailing words");
    *out = t;
    return 0;
}

int sc_data_type_render(sc_buf *out, const sc_data_type *type) {
    int rc;
    switch (type->root) {
    case SC_TYPE_BOOLEAN: rc = sc_buf_append_str(out, "BOOLEAN"); break;
    case SC_TYPE_TINYINT: rc = sc_buf_append_str(out, "TINYINT"); break;
    case SC_TYPE_SMALLINT: rc = sc_buf_append_str(out, "SMALLINT"); break;
    case SC_TYPE_INT: rc = sc_buf_append_str(out, "INT"); break;
    case SC_TYPE_BIGINT: rc = sc_buf_append_str(out, "BIGINT"); break;
    case SC_TYPE_FLOAT: rc = sc_buf_append_str(out, "FLOAT"); break;
    case SC_TYPE_DOUBLE: rc = sc_buf_append_str(out, "DOUBLE"); break;
    case SC_TYPE_CHAR: rc = sc_buf_printf(out, "CHAR(%d)", (int)type->length); break;
    case SC_TYPE_VARCHAR:
        rc = type->length == SC_TYPE_MAX_LENGTH ? sc_buf_append_str(out, "STRING")
                                                : sc_buf_printf(out, "VARCHAR(%d)", (int)type->length);
        break;
    case SC_TYPE_BINARY: rc = sc_buf_printf(out, "BINARY(%d)", (int)type->length); break;
    case SC_TYPE_VARBINARY:
        rc = type->length == SC_TYPE_MAX_LENGTH ? sc_buf_append_str(out, "BYTES")
                                                : sc_buf_printf(out, "VARBINARY(%d)", (int)type->length);
        break;
    case SC_TYPE_DECIMAL: rc = sc_buf_printf(out, "DECIMAL(%d, %d)", (int)type->precision, (int)type->scale); break;
    case SC_TYPE_DATE: rc = sc_buf_append_str(out, "DATE"); break;
    case SC_TYPE_TIME: rc = sc_buf_printf(out, "TIME(%d)", (int)type->precision); break;
    case SC_TYPE_TIMESTAMP: rc = sc_buf_printf(out, "TIMESTAMP(%d)", (int)type->precision); break;
    case SC_TYPE_TIMESTAMP_LTZ:
        rc = sc_buf_printf(out, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", (int)type->precision);
        break;
    default:
        return sc_error_set(SC_EINVAL, "type root %d has no type string (nested types are JSON)", (int)type->root);
    }
    if (rc == 0 && !type->nullable) rc = sc_buf_append_str(out, " NOT NULL");
    return rc;
}

int sc_data_type_copy(sc_data_type *out, const sc_data_type *in) {
    *out = *in;
    out->nested_json = NULL;
    if (in->nested_json) {
        out->nested_json = strdup(in->nested_json);
        if (!out->nested_json) return sc_error_set(SC_ENOMEM, "out of memory copying a nested type");
    }
    return 0;
}

void sc_data_type_clear(sc_data_type *type) {
    free(type->nested_json);
    memset(type, 0, sizeof *type);
}

int sc_data_type_is_atomic(const sc_data_type *type) {
    return type->root >= SC_TYPE_BOOLEAN && type->root <= SC_TYPE_TIMESTAMP_LTZ;
}
