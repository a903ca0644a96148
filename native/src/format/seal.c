#include "format/seal.h"

#include <string.h>

#include "base/error_internal.h"
#include "base/hash.h"

#define SEAL_OPEN ",\"checksum\":\""
#define SEAL_OPEN_LEN (sizeof SEAL_OPEN - 1)
#define SEAL_LEN (SEAL_OPEN_LEN + SC_SHA256_HEX_LEN + 2) /* + "\"}" */

int sc_seal_json(sc_buf *doc) {
    if (doc->len < 3 || doc->data[0] != '{' || doc->data[doc->len - 1] != '}')
        return sc_error_set(SC_EINVAL, "only a non-empty JSON object can be sealed");
    uint8_t hash[SC_SHA256_LEN];
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_sha256(hash, doc->data, doc->len);
    sc_hex_encode(hex, hash, SC_SHA256_LEN);
    doc->len--; /* drop the closing brace; the seal closes the object */
    int rc = sc_buf_append_str(doc, SEAL_OPEN);
    if (!rc) rc = sc_buf_append_str(doc, hex);
    if (!rc) rc = sc_buf_append_str(doc, "\"}");
    return rc;
}

int sc_unseal_json(sc_buf *body, const uint8_t *data, size_t len, const char *object) {
    if (len < SEAL_LEN + 2)
        return sc_error_set(SC_ECORRUPT, "%s: %zu bytes is too short for a sealed document (truncated?)", object, len);
    const uint8_t *seal = data + len - SEAL_LEN;
    if (memcmp(seal, SEAL_OPEN, SEAL_OPEN_LEN) != 0 || memcmp(data + len - 2, "\"}", 2) != 0)
        return sc_error_set(SC_ECORRUPT, "%s: the checksum member is missing at byte %zu (truncated or damaged)",
                            object, len - SEAL_LEN);
    char hex[SC_SHA256_HEX_LEN + 1];
    memcpy(hex, seal + SEAL_OPEN_LEN, SC_SHA256_HEX_LEN);
    hex[SC_SHA256_HEX_LEN] = '\0';
    uint8_t want[SC_SHA256_LEN], got[SC_SHA256_LEN];
    char canonical[SC_SHA256_HEX_LEN + 1];
    if (sc_hex_decode(want, SC_SHA256_LEN, hex) == 0) sc_hex_encode(canonical, want, SC_SHA256_LEN);
    /* Only lowercase hex is canonical: "A" for "a" is damage, not an equivalent spelling. */
    if (sc_hex_decode(want, SC_SHA256_LEN, hex) != 0 || memcmp(canonical, hex, SC_SHA256_HEX_LEN) != 0)
        return sc_error_set(SC_ECORRUPT, "%s: the checksum at byte %zu is not lowercase hex", object, len - SEAL_LEN + SEAL_OPEN_LEN);
    body->len = 0;
    int rc = sc_buf_append(body, data, len - SEAL_LEN);
    if (!rc) rc = sc_buf_append_byte(body, '}');
    if (rc) return rc;
    sc_sha256(got, body->data, body->len);
    if (memcmp(want, got, SC_SHA256_LEN) != 0)
        return sc_error_set(SC_ECORRUPT, "%s: checksum mismatch: the document was altered after it was written", object);
    sc_buf_cstr(body);
    return 0;
}
