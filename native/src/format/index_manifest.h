/*
 * Paimon index manifests (internal): manifest/index-manifest-*, an Avro
 * container of IndexManifestEntry records (Paimon 1.4.2's
 * IndexManifestEntrySerializer, _VERSION 1):
 *   _KIND (0 ADD, 1 DELETE), _PARTITION, _BUCKET, _INDEX_TYPE ("HASH",
 *   "DELETION_VECTORS", ...), _FILE_NAME (under index/), _FILE_SIZE,
 *   _ROW_COUNT, _DELETIONS_VECTORS_RANGES (nullable array of nullable
 *   records f0 data file, f1 offset, f2 length, _CARDINALITY nullable long),
 *   _EXTERNAL_PATH (nullable), _GLOBAL_INDEX (nullable record).
 * A snapshot's index manifest lists every live index file as ADD records
 * (Paimon combines previous and new entries when it writes one).
 *
 * We write Paimon's exact writer schema with the deflate codec; we read the
 * null, deflate and zstandard codecs and any field order, ignoring unknown
 * fields. Decoding fails closed: SC_ECORRUPT naming the object, record and
 * field (a missing required field, a wrong type, a negative size, count,
 * offset or length, a name that is not one path segment, an unknown _KIND or
 * _VERSION); SC_ELIMIT above the limits; SC_EUNSUPPORTED for a record with a
 * _GLOBAL_INDEX (data-evolution tables), naming the record. On error `out`
 * holds nothing from the call.
 */
#ifndef SC_INDEX_MANIFEST_H
#define SC_INDEX_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/index_entry.h" /* sc_index_vec */
#include "format/limits.h"

/* The record version Paimon 1.4 writes and reads in index manifests. */
#define SC_INDEX_RECORD_VERSION 1

/* Encode `entries` (deflate). SC_EINVAL naming the record when one breaks
 * sc_index_entry_validate's rules; SC_ELIMIT when a field exceeds what a
 * reader with default limits accepts. */
int sc_index_manifest_encode(sc_buf *out, const sc_index_vec *entries);
/* Decode an index manifest of exactly `len` bytes, appending its records to
 * `out`. `limits` NULL = defaults; `object` names it in messages. */
int sc_index_manifest_decode(sc_index_vec *out, const uint8_t *data, size_t len, const sc_decode_limits *limits,
                             const char *object);

#endif
