/*
 * Bounded decoders for the XML bodies S3 answers with (internal), on expat.
 *
 * Every decoder takes (pointer, length, limits) and refuses rather than
 * trusts: a body over max_body bytes, more than max_keys keys, a key over
 * max_key_len bytes (SC_ELIMIT); malformed or truncated XML, an unexpected
 * root element, nesting deeper than SC_S3_XML_MAX_DEPTH, and any DOCTYPE
 * at all — so no entity can be declared, let alone expanded (SC_ECORRUPT,
 * with the line and column). Messages quote element names (cut to 64
 * bytes), never text content.
 *
 * Element names are matched without namespace processing: S3 uses a
 * default namespace (xmlns="http://s3.amazonaws.com/doc/2006-03-01/"), not
 * prefixes.
 */
#ifndef SC_S3_XML_H
#define SC_S3_XML_H

#include <stddef.h>

#define SC_S3_XML_MAX_DEPTH 16
/* S3 keys are at most 1024 bytes of UTF-8. */
#define SC_S3_KEY_MAX 1024
/* Continuation tokens are opaque; S3's are well under this. */
#define SC_S3_TOKEN_MAX 4096

typedef struct sc_s3_xml_limits {
    size_t max_body;    /* bytes of XML accepted */
    size_t max_keys;    /* <Contents> entries accepted (ListObjectsV2) */
    size_t max_key_len; /* bytes per <Key> */
} sc_s3_xml_limits;

/* Limits for one ListObjectsV2 page of up to 1000 keys. */
void sc_s3_xml_limits_default(sc_s3_xml_limits *out);

/* One ListObjectsV2 page. Keys are in document order (S3: ascending, bytewise). */
typedef struct sc_s3_list_result {
    char **keys;
    size_t count;
    int truncated;      /* <IsTruncated>true</IsTruncated> */
    char *next_token;   /* <NextContinuationToken>, NULL when absent */
} sc_s3_list_result;

/*
 * Decode a ListBucketResult (ListObjectsV2) body into *out (zeroed first;
 * free with sc_s3_list_result_free() on success and failure alike).
 * Errors: SC_ECORRUPT, SC_ELIMIT, SC_ENOMEM, SC_EINVAL (NULL limits).
 */
int sc_s3_xml_parse_list(sc_s3_list_result *out, const char *body, size_t len,
                         const sc_s3_xml_limits *limits);
void sc_s3_list_result_free(sc_s3_list_result *r);

/* The useful parts of an S3 <Error> document, truncated to fit. */
typedef struct sc_s3_error_body {
    char code[64];
    char message[256];
    char request_id[128];
} sc_s3_error_body;

/*
 * Decode an <Error> body into *out (zeroed first), of at most max_body
 * bytes. Fields the body lacks stay "". Long fields are truncated, not
 * refused: they only feed messages.
 * Errors: SC_ECORRUPT (not XML, root not <Error>), SC_ELIMIT, SC_ENOMEM.
 */
int sc_s3_xml_parse_error(sc_s3_error_body *out, const char *body, size_t len, size_t max_body);

#endif
