/* The bounded S3 XML decoders: well-formed bodies, and every way a body is refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "s3/s3_xml.h"
#include "snapcommit/error.h"

#define LEN(s) (s), strlen(s)

static sc_s3_xml_limits limits(void) {
    sc_s3_xml_limits l;
    sc_s3_xml_limits_default(&l);
    return l;
}

/* A ListObjectsV2 page as AWS sends it (namespace, metadata around each key). */
static const char list_page[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    "<Name>bucket</Name><Prefix>t/</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys>"
    "<IsTruncated>true</IsTruncated>"
    "<Contents><Key>t/a&amp;b</Key><LastModified>2024-08-20T10:00:00.000Z</LastModified>"
    "<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>5</Size>"
    "<StorageClass>STANDARD</StorageClass></Contents>"
    "<Contents><Key>t/caf\xc3\xa9</Key><Size>0</Size></Contents>"
    "<Contents><Key><![CDATA[t/x<y]]></Key></Contents>"
    "<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>"
    "<StartAfter>t/</StartAfter>"
    "</ListBucketResult>";

Test(s3_xml, list_page_well_formed) {
    sc_s3_list_result r;
    sc_s3_xml_limits l = limits();
    cr_assert_eq(sc_s3_xml_parse_list(&r, LEN(list_page), &l), 0, "%s", sc_error_message());
    cr_assert_eq(r.count, 3);
    cr_assert_str_eq(r.keys[0], "t/a&b");
    cr_assert_str_eq(r.keys[1], "t/caf\xc3\xa9");
    cr_assert_str_eq(r.keys[2], "t/x<y");
    cr_assert_eq(r.truncated, 1);
    cr_assert_str_eq(r.next_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
    sc_s3_list_result_free(&r);
    cr_assert_null(r.keys);
    sc_s3_list_result_free(NULL);
}

Test(s3_xml, list_empty_and_last_page) {
    const char *empty = "<ListBucketResult><Name>b</Name><KeyCount>0</KeyCount>"
                        "<IsTruncated>false</IsTruncated></ListBucketResult>";
    sc_s3_list_result r;
    sc_s3_xml_limits l = limits();
    cr_assert_eq(sc_s3_xml_parse_list(&r, LEN(empty), &l), 0, "%s", sc_error_message());
    cr_assert_eq(r.count, 0);
    cr_assert_eq(r.truncated, 0);
    cr_assert_null(r.next_token);
    sc_s3_list_result_free(&r);
    /* Keys of nested elements named Key elsewhere (Owner/Key, CommonPrefixes) are not objects. */
    const char *other = "<ListBucketResult><IsTruncated>false</IsTruncated>"
                        "<CommonPrefixes><Prefix>d/</Prefix><Key>not-me</Key></CommonPrefixes>"
                        "<Key>nor-me</Key><Contents><Key>yes</Key><Owner><Key>x</Key></Owner>"
                        "</Contents></ListBucketResult>";
    cr_assert_eq(sc_s3_xml_parse_list(&r, LEN(other), &l), 0, "%s", sc_error_message());
    cr_assert_eq(r.count, 1);
    cr_assert_str_eq(r.keys[0], "yes");
    sc_s3_list_result_free(&r);
}

static void expect_list_fails(int code, const char *body, size_t len, const sc_s3_xml_limits *l,
                              const char *needle) {
    sc_s3_list_result r;
    int rc = sc_s3_xml_parse_list(&r, body, len, l);
    cr_assert_eq(rc, code, "got %s (%s), expected %s", sc_error_name(rc), sc_error_message(),
                 sc_error_name(code));
    if (needle)
        cr_assert(strstr(sc_error_message(), needle), "message \"%s\" lacks \"%s\"",
                  sc_error_message(), needle);
    sc_s3_list_result_free(&r);
    cr_assert_null(r.keys);
}

Test(s3_xml, truncated_xml_refused_at_every_cut) {
    sc_s3_xml_limits l = limits();
    size_t n = strlen(list_page);
    /* Every proper prefix is refused as corrupt (never a shorter, "valid" listing). */
    for (size_t cut = 0; cut < n; cut++) {
        sc_s3_list_result r;
        int rc = sc_s3_xml_parse_list(&r, list_page, cut, &l);
        cr_assert_eq(rc, SC_ECORRUPT, "cut at %zu: %s", cut, sc_error_name(rc));
        sc_s3_list_result_free(&r);
    }
    expect_list_fails(SC_ECORRUPT, LEN("<ListBucketResult><IsTruncated>true</IsTrunc"), &l,
                      "malformed XML");
}

Test(s3_xml, structure_refused) {
    sc_s3_xml_limits l = limits();
    expect_list_fails(SC_ECORRUPT, LEN("not xml at all"), &l, "malformed");
    expect_list_fails(SC_ECORRUPT, LEN("<Other><IsTruncated>false</IsTruncated></Other>"), &l,
                      "unexpected root element <Other>");
    expect_list_fails(SC_ECORRUPT, LEN("<Error><Code>AccessDenied</Code></Error>"), &l,
                      "unexpected root");
    expect_list_fails(SC_ECORRUPT, LEN("<ListBucketResult></ListBucketResult>"), &l,
                      "no <IsTruncated>");
    expect_list_fails(SC_ECORRUPT,
                      LEN("<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>"),
                      &l, "neither true nor false");
    expect_list_fails(SC_ECORRUPT,
                      LEN("<ListBucketResult><IsTruncated>false</IsTruncated>"
                          "<Contents><Size>1</Size></Contents></ListBucketResult>"),
                      &l, "without <Key>");
    expect_list_fails(SC_ECORRUPT,
                      LEN("<ListBucketResult><IsTruncated>false</IsTruncated>"
                          "<Contents><Key></Key></Contents></ListBucketResult>"),
                      &l, "empty key");
    expect_list_fails(SC_ECORRUPT,
                      LEN("<ListBucketResult><IsTruncated>false</IsTruncated>"
                          "<Contents><Key>a</Key><Key>b</Key></Contents></ListBucketResult>"),
                      &l, "two <Key>");
    expect_list_fails(SC_ECORRUPT,
                      LEN("<ListBucketResult><IsTruncated>false</IsTruncated>"
                          "<Contents><Key>a<b/></Key></Contents></ListBucketResult>"),
                      &l, "inside a text field");
    /* Trailing garbage after the root. */
    expect_list_fails(SC_ECORRUPT,
                      LEN("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>"
                          "<ListBucketResult/>"),
                      &l, "malformed");
    /* Deep nesting is bounded. */
    sc_buf deep = SC_BUF_INIT;
    sc_buf_append_str(&deep, "<ListBucketResult>");
    for (int i = 0; i < 40; i++) sc_buf_append_str(&deep, "<a>");
    for (int i = 0; i < 40; i++) sc_buf_append_str(&deep, "</a>");
    sc_buf_append_str(&deep, "</ListBucketResult>");
    expect_list_fails(SC_ECORRUPT, (const char *)deep.data, deep.len, &l, "nested deeper");
    sc_buf_free(&deep);
    /* A NUL byte in the middle is not XML. */
    const char nul[] = "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a\0b"
                       "</Key></Contents></ListBucketResult>";
    expect_list_fails(SC_ECORRUPT, nul, sizeof nul - 1, &l, NULL);
}

Test(s3_xml, oversize_refused) {
    sc_s3_xml_limits l = limits();
    l.max_body = 100;
    expect_list_fails(SC_ELIMIT, LEN(list_page), &l, "more than the 100 accepted");
    l = limits();
    l.max_keys = 2;
    expect_list_fails(SC_ELIMIT, LEN(list_page), &l, "more than 2 keys");
    l = limits();
    l.max_key_len = 5; /* "t/a&b" is 5 bytes and fits; "t/café" is 7 */
    expect_list_fails(SC_ELIMIT, LEN(list_page), &l, "longer than 5 bytes");
    /* A key of exactly the S3 maximum passes; one byte more does not. */
    l = limits();
    for (size_t klen = SC_S3_KEY_MAX; klen <= SC_S3_KEY_MAX + 1; klen++) {
        sc_buf b = SC_BUF_INIT;
        sc_buf_append_str(&b, "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>");
        for (size_t i = 0; i < klen; i++) sc_buf_append_byte(&b, 'k');
        sc_buf_append_str(&b, "</Key></Contents></ListBucketResult>");
        sc_s3_list_result r;
        int rc = sc_s3_xml_parse_list(&r, (const char *)b.data, b.len, &l);
        cr_assert_eq(rc, klen == SC_S3_KEY_MAX ? 0 : SC_ELIMIT, "key of %zu bytes: %s", klen,
                     sc_error_name(rc));
        sc_s3_list_result_free(&r);
        sc_buf_free(&b);
    }
    /* 1000 keys is a full page; 1001 is refused. */
    for (size_t nkeys = 1000; nkeys <= 1001; nkeys++) {
        sc_buf b = SC_BUF_INIT;
        sc_buf_append_str(&b, "<ListBucketResult><IsTruncated>false</IsTruncated>");
        for (size_t i = 0; i < nkeys; i++)
            sc_buf_printf(&b, "<Contents><Key>k%05zu</Key></Contents>", i);
        sc_buf_append_str(&b, "</ListBucketResult>");
        sc_s3_list_result r;
        int rc = sc_s3_xml_parse_list(&r, (const char *)b.data, b.len, &l);
        cr_assert_eq(rc, nkeys == 1000 ? 0 : SC_ELIMIT, "%zu keys: %s", nkeys, sc_error_name(rc));
        if (!rc) cr_assert_str_eq(r.keys[999], "k00999");
        sc_s3_list_result_free(&r);
        sc_buf_free(&b);
    }
    /* An overlong continuation token. */
    sc_buf b = SC_BUF_INIT;
    sc_buf_append_str(&b, "<ListBucketResult><IsTruncated>true</IsTruncated>"
                          "<NextContinuationToken>");
    for (size_t i = 0; i <= SC_S3_TOKEN_MAX; i++) sc_buf_append_byte(&b, 't');
    sc_buf_append_str(&b, "</NextContinuationToken></ListBucketResult>");
    expect_list_fails(SC_ELIMIT, (const char *)b.data, b.len, &l, "longer than");
    sc_buf_free(&b);
}

Test(s3_xml, entity_expansion_refused) {
    sc_s3_xml_limits l = limits();
    /* Billion laughs. */
    const char *laughs =
        "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
        "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
        "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]>"
        "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>&lol3;</Key></Contents>"
        "</ListBucketResult>";
    expect_list_fails(SC_ECORRUPT, LEN(laughs), &l, "DOCTYPE");
    /* External entity (XXE). */
    const char *xxe = "<?xml version=\"1.0\"?>"
                      "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                      "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>&x;</Key>"
                      "</Contents></ListBucketResult>";
    expect_list_fails(SC_ECORRUPT, LEN(xxe), &l, "DOCTYPE");
    /* A DOCTYPE without entities is refused too, as is an external DTD. */
    expect_list_fails(SC_ECORRUPT,
                      LEN("<!DOCTYPE ListBucketResult><ListBucketResult><IsTruncated>false"
                          "</IsTruncated></ListBucketResult>"),
                      &l, "DOCTYPE");
    expect_list_fails(SC_ECORRUPT,
                      LEN("<!DOCTYPE r SYSTEM \"http://127.0.0.1:1/x.dtd\"><ListBucketResult>"
                          "<IsTruncated>false</IsTruncated></ListBucketResult>"),
                      &l, "DOCTYPE");
    /* Without a DTD, an undeclared entity is malformed XML. */
    expect_list_fails(SC_ECORRUPT,
                      LEN("<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>&x;"
                          "</Key></Contents></ListBucketResult>"),
                      &l, "malformed");
    /* The error decoder refuses them the same way. */
    sc_s3_error_body e;
    cr_assert_eq(sc_s3_xml_parse_error(&e, LEN(laughs), 1 << 16), SC_ECORRUPT);
}

Test(s3_xml, error_bodies) {
    const char *aws =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code>"
        "<Message>The specified key does not exist.</Message><Key>t/missing</Key>"
        "<RequestId>4442587FB7D0A2F9</RequestId><HostId>abc=</HostId></Error>";
    sc_s3_error_body e;
    cr_assert_eq(sc_s3_xml_parse_error(&e, LEN(aws), 1 << 16), 0, "%s", sc_error_message());
    cr_assert_str_eq(e.code, "NoSuchKey");
    cr_assert_str_eq(e.message, "The specified key does not exist.");
    cr_assert_str_eq(e.request_id, "4442587FB7D0A2F9");
    /* moto's shape (RequestID inside, namespace-free) and missing fields. */
    const char *sparse = "<Error><Code>PreconditionFailed</Code></Error>";
    cr_assert_eq(sc_s3_xml_parse_error(&e, LEN(sparse), 1 << 16), 0);
    cr_assert_str_eq(e.code, "PreconditionFailed");
    cr_assert_str_eq(e.message, "");
    cr_assert_str_eq(e.request_id, "");
    /* Long fields are cut, not refused: they only feed messages. */
    sc_buf b = SC_BUF_INIT;
    sc_buf_append_str(&b, "<Error><Code>SlowDown</Code><Message>");
    for (int i = 0; i < 2000; i++) sc_buf_append_byte(&b, 'm');
    sc_buf_append_str(&b, "</Message></Error>");
    cr_assert_eq(sc_s3_xml_parse_error(&e, (const char *)b.data, b.len, 1 << 16), 0);
    cr_assert_eq(strlen(e.message), sizeof e.message - 1);
    cr_assert_eq(sc_s3_xml_parse_error(&e, (const char *)b.data, b.len, 100), SC_ELIMIT);
    sc_buf_free(&b);
    cr_assert_eq(sc_s3_xml_parse_error(&e, LEN("<ListBucketResult/>"), 1 << 16), SC_ECORRUPT);
    cr_assert_eq(sc_s3_xml_parse_error(&e, LEN(""), 1 << 16), SC_ECORRUPT);
    cr_assert_eq(sc_s3_xml_parse_error(&e, LEN("<Error><Code>Slow"), 1 << 16), SC_ECORRUPT);
}
