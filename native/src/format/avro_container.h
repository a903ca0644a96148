/*
 * Avro object container files (internal), as Paimon writes its manifests
 * and manifest lists: magic "Obj\x01", a metadata map (avro.schema,
 * avro.codec), a 16-byte sync marker, then blocks of (count, byte size,
 * data, sync). We parse the framing ourselves, because Debian's libavro
 * cannot read Paimon's default codec (zstandard), and decode each datum
 * with libavro against the writer schema from the header.
 *
 * Reading is bounded by (pointer, length, limits): every count, size and
 * decompressed length is checked before it is used, and a decompressed
 * block may not exceed limits->max_object_len. Codecs read: null, deflate,
 * zstandard, snappy (when built with it: not required). Writing uses
 * deflate (Paimon and pypaimon both read it) or null.
 * Errors: SC_ECORRUPT "<object>: <what> (byte <offset>)", SC_ELIMIT for
 * well-formed data above the limits, SC_ENOMEM.
 */
#ifndef SC_AVRO_CONTAINER_H
#define SC_AVRO_CONTAINER_H

#include <avro.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/limits.h" /* sc_decode_limits */

/*
 * Called once per datum with the value decoded against the file's writer
 * schema (valid only during the call). Return 0 to go on, or an error code
 * (set with sc_error_set) to stop: the reader returns it unchanged.
 */
typedef int (*sc_avro_datum_fn)(void *ctx, avro_value_t *value, uint64_t index);

/*
 * Read a whole container of exactly `len` bytes. *out_schema_json (optional,
 * may be NULL) receives a malloc'd copy of the header's avro.schema.
 * Stops with SC_ELIMIT after limits->max_entries datums.
 */
int sc_avro_read(const uint8_t *data, size_t len, const sc_decode_limits *limits,
                 const char *object, sc_avro_datum_fn fn, void *ctx);

/* A container being written in memory. */
typedef struct sc_avro_writer sc_avro_writer;

/* Begin a container for `schema_json` with codec "deflate" or "null". */
int sc_avro_writer_new(sc_avro_writer **out, const char *schema_json, const char *codec);
/* A fresh value of the schema's record type to fill for the next datum
 * (reset by each call; owned by the writer). */
int sc_avro_writer_value(avro_value_t **out, sc_avro_writer *w);
/* Append the value last returned by sc_avro_writer_value. */
int sc_avro_writer_append(sc_avro_writer *w);
/* Flush and append the finished container's bytes to `out`. */
int sc_avro_writer_finish(sc_buf *out, sc_avro_writer *w);
void sc_avro_writer_free(sc_avro_writer *w);

#endif
