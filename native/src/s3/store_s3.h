/*
 * S3 store backend (internal): libcurl + SigV4, for AWS S3 and S3-compatible
 * servers. Keys live under s3://BUCKET/PREFIX/ as PREFIX + "/" + key.
 * Three files: s3_config.c (the settings below), s3_transport.c (requests,
 * signing, retries, what a failure means), store_s3.c (the operations).
 *
 * Configuration: sc_store_config fields passed at open win; each unset field
 * falls back to the environment, the way AWS tools read it:
 *   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY   credentials (both unset: unsigned,
 *                                              anonymous requests)
 *   AWS_SESSION_TOKEN                          temporary credentials (sent and signed
 *                                              as x-amz-security-token)
 *   AWS_REGION, else AWS_DEFAULT_REGION        signing region (default us-east-1)
 *   AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL http(s)://host[:port][/path]
 *                                              (default https://s3.<region>.amazonaws.com)
 *   SNAPCOMMIT_S3_PATH_STYLE=0|1               https://host/bucket/key (1) or
 *                                              https://bucket.host/key (0); default 1
 *                                              with a custom endpoint, 0 without
 *   SNAPCOMMIT_S3_CONNECT_TIMEOUT_MS           default 5000
 *   SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS           whole request, default 30000
 *   SNAPCOMMIT_S3_INSECURE=1                   DANGEROUS: skip TLS certificate and host
 *                                              name checks (anyone on the path can read
 *                                              and forge the table); for throwaway test
 *                                              servers with self-signed certificates only
 *   SNAPCOMMIT_S3_CONDITIONAL_WRITES=0         the server lacks If-None-Match/If-Match on
 *                                              PUT: drop the conditional capabilities
 *                                              (put_if_absent becomes a non-atomic
 *                                              HEAD + PUT, put_if_match is absent)
 * The secret key and session token never appear in messages: every message
 * is scrubbed of both before it is recorded.
 *
 * Capabilities: SC_CAP_CONDITIONAL_CREATE | SC_CAP_COMPARE_AND_SWAP |
 * SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE (the first two only with
 * conditional writes). S3 has no rename, so never SC_CAP_ATOMIC_NOREPLACE.
 *
 * Outcomes, per operation:
 *   get, head, list        404 NoSuchKey -> SC_ENOTFOUND; 401/403 -> SC_EAUTH; other 4xx ->
 *                          SC_EIO; 5xx, throttling, timeouts, resets -> SC_ETRANSIENT
 *                          after 3 tries (50 ms, 100 ms apart).
 *   put, del               retried like reads (they are idempotent); an answer still
 *                          missing (or a 500) after the last try -> SC_EUNKNOWN.
 *                          del looks the key up first: S3's DELETE never says whether
 *                          the key existed (SC_ENOTFOUND is racy against a concurrent
 *                          delete, never wrong about a key that was never there).
 *   put_if_absent          If-None-Match: *. 412 -> SC_EEXISTS. 409
 *                          ConditionalRequestConflict (a concurrent conditional write on
 *                          the key, ours NOT applied) -> HEAD: present -> SC_EEXISTS,
 *                          absent -> send again (at most 3 sends in all), still in
 *                          conflict -> SC_ETRANSIENT (nothing written).
 *   put_if_match           If-Match: "<etag>" (sent verbatim). 412 -> SC_EMODIFIED, or
 *                          SC_ENOTFOUND when a HEAD then finds no key (servers that
 *                          answer 412 for a missing key); 404 -> SC_ENOTFOUND; 409 ->
 *                          SC_EMODIFIED (nothing written; re-read and retry).
 *   put_once               a plain PUT, sent like the conditional ones (below): one copy
 *                          at most lands, so the object has one Last-Modified.
 *   both conditional PUTs  never re-sent once any byte of them may have reached the
 *                          server: a timeout, reset or 5xx (a 503 or 429 without S3's
 *                          SlowDown or ServiceUnavailable document included) after that
 *                          -> SC_EUNKNOWN for the engine to reconcile. They are re-sent
 *                          only when they provably never left (connection refused, DNS,
 *                          TLS set-up) or S3 refused them unapplied (SlowDown). libcurl's
 *                          own silent re-send on a dead reused connection is disabled
 *                          for them (rewind refused; fresh connection for empty bodies).
 *   every op               501 NotImplemented -> SC_EUNSUPPORTED.
 * ETags are returned verbatim, quotes included. On S3 an ETag is a content
 * hash, not a version: rewriting identical bytes keeps the ETag. mtime_ms
 * comes from Last-Modified (1 s resolution) on get and head; writes report 0.
 */
#ifndef SC_STORE_S3_H
#define SC_STORE_S3_H

#include <stddef.h>
#include <stdint.h>

#include "snapcommit/backend.h"
#include "snapcommit/store.h"

/*
 * Open the S3 store at `uri`: "s3://BUCKET[/PREFIX]" ("BUCKET[/PREFIX]"
 * is accepted too). PREFIX has no empty, "." or ".." segments; leading and
 * trailing '/' are ignored. Reads the environment (above) once, here. No
 * request is made: a wrong endpoint or credentials show on the first op.
 * On success fills (ops, self) for sc_store_wrap(); ops->close frees self.
 * Errors: SC_EINVAL (bad URI, bucket name, endpoint or setting; only one of
 * the two credential variables set), SC_ENOMEM, SC_EIO (libcurl set-up).
 */
int sc_s3_store_create(const sc_store_ops **ops, void **self, const char *uri);

/*
 * As sc_s3_store_create, with a per-store configuration (NULL = every field
 * unset): a set field wins over its environment variable, which wins over
 * the default (snapcommit/store.h documents the fields and the precedence).
 * Nothing is read from or written to the environment for a set field.
 */
int sc_s3_store_create_config(const sc_store_ops **ops, void **self, const char *uri,
                              const sc_store_config *config);

/*
 * HTTP requests the S3 backend `self` (as sc_s3_store_create made it) has sent since it
 * was opened, re-sends and the looks an operation makes on its own (del's HEAD)
 * included: what the server saw, where sc_store_stats counts operations. Callers go
 * through sc_store_backend_requests (store_backends.h).
 */
uint64_t sc_s3_store_requests_sent(const void *self);

#endif
