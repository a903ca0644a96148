/*
 * Sealed JSON (internal): a JSON object whose last member is
 *   "checksum":"<SHA-256 hex>"
 * computed over the document without that member (its bytes up to the comma,
 * then "}"). It makes every metadata document self-verifying, so a bit flip
 * in the latest snapshot — which no later snapshot's parent hash covers yet —
 * is detected instead of being read as different numbers.
 */
#ifndef SC_SEAL_H
#define SC_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* `doc` holds a compact JSON object "{...}" with at least one member; append the checksum member. */
int sc_seal_json(sc_buf *doc);
/*
 * Verify a sealed document of exactly `len` bytes. On success `body` receives
 * a NUL-terminated copy of the unsealed document. SC_ECORRUPT naming `object` otherwise.
 */
int sc_unseal_json(sc_buf *body, const uint8_t *data, size_t len, const char *object);

#endif
