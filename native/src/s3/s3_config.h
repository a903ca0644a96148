/*
 * S3 configuration (internal): where each setting of an S3 store comes from.
 * A field set in sc_store_config wins over its environment variable, which
 * wins over the default; the variables and defaults are listed in
 * store_s3.h, the fields and the precedence in snapcommit/store.h.
 */
#ifndef SC_S3_CONFIG_H
#define SC_S3_CONFIG_H

#include "s3/s3_transport.h"
#include "snapcommit/store.h"

/*
 * Parse `uri` ("s3://BUCKET[/PREFIX]" or "BUCKET[/PREFIX]") and resolve
 * every setting from `config` (NULL = every field unset), the environment
 * and the defaults into a new *out (free with sc_s3_store_free; no libcurl
 * handle yet: sc_s3_transport_open makes it). *out_conditional is 0 when the
 * server lacks conditional writes. Reads the environment once, here; sends
 * nothing.
 * Errors: SC_EINVAL (bad URI, bucket name, endpoint or setting; only one of
 * the two credential values set), SC_ENOMEM.
 */
int sc_s3_config_load(sc_s3_store **out, int *out_conditional, const char *uri,
                      const sc_store_config *config);

#endif
