/*
 * The head record (internal): the fixed-size pointer the `head` strategy
 * swaps by compare-and-swap (adapted from seed 003). Exactly 256
 * bytes, big-endian, no variable fields; see docs/head-record.md.
 *
 *   off  len  field
 *     0    8  magic "SCHEAD\0\1" (53 43 48 45 41 44 00 01)
 *     8    4  format version, exactly 1
 *    12    4  flags: 0 no predecessor, 1 predecessor present; others invalid
 *    16   16  table UUID (non-nil)
 *    32   16  publisher UUID: sc_head_publisher_uuid(commit user) (non-nil)
 *    48   16  publication UUID: the commit's commitUuid (non-nil)
 *    64    8  revision = snapshot id, 1 .. INT64_MAX
 *    72   32  SHA-256 of the snapshot object
 *   104    8  snapshot object length, 1 .. SC_SNAPSHOT_MAX_BYTES
 *   112    8  commit identifier (signed, >= 0)
 *   120   32  SHA-256 of the complete predecessor head record, or all zero
 *   152    4  predecessor length: exactly 256, or 0 when absent
 *   156   68  reserved, all zero
 *   224   32  footer: SHA-256 of bytes [0, 224)
 *
 * Revision 1 has flag 0 and zero predecessor fields; every later revision
 * has flag 1, a non-zero predecessor hash and length 256.
 */
#ifndef SC_HEAD_RECORD_H
#define SC_HEAD_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"

/* Limits of the snapshot format that the head record shares: the largest
 * snapshot object (snapshot.c decodes no more; a head record pins a length
 * within it) and the longest commit user. Here, not in snapshot.h, because
 * the snapshot codec builds on this one (UUIDs), never the reverse. */
#define SC_SNAPSHOT_MAX_BYTES (64u << 20)
#define SC_USER_MAX_LEN 255

#define SC_HEAD_RECORD_LEN 256
#define SC_HEAD_MAGIC "SCHEAD\0\1" /* 8 bytes, the literal's NUL excluded */
#define SC_HEAD_VERSION 1u
#define SC_UUID_LEN 16

/* Byte offsets of the fields. */
enum {
    SC_HEAD_OFF_MAGIC = 0,
    SC_HEAD_OFF_VERSION = 8,
    SC_HEAD_OFF_FLAGS = 12,
    SC_HEAD_OFF_TABLE_UUID = 16,
    SC_HEAD_OFF_PUBLISHER_UUID = 32,
    SC_HEAD_OFF_PUBLICATION_UUID = 48,
    SC_HEAD_OFF_REVISION = 64,
    SC_HEAD_OFF_SNAPSHOT_SHA256 = 72,
    SC_HEAD_OFF_SNAPSHOT_LENGTH = 104,
    SC_HEAD_OFF_COMMIT_IDENTIFIER = 112,
    SC_HEAD_OFF_PREDECESSOR_SHA256 = 120,
    SC_HEAD_OFF_PREDECESSOR_LENGTH = 152,
    SC_HEAD_OFF_RESERVED = 156,
    SC_HEAD_OFF_FOOTER = 224,
};

typedef struct sc_head_record {
    uint8_t table_uuid[SC_UUID_LEN];
    uint8_t publisher_uuid[SC_UUID_LEN];
    uint8_t publication_uuid[SC_UUID_LEN];
    uint64_t revision;
    uint8_t snapshot_sha256[SC_SHA256_LEN];
    uint64_t snapshot_length;
    int64_t commit_identifier;
    int has_predecessor; /* flags bit 0 */
    uint8_t predecessor_sha256[SC_SHA256_LEN];
    uint32_t predecessor_length; /* SC_HEAD_RECORD_LEN or 0 */
} sc_head_record;

/*
 * Encode `r` into exactly 256 canonical bytes. The record must satisfy every
 * rule the decoder checks; otherwise SC_EINVAL naming the field (nothing
 * that cannot be decoded is ever produced).
 */
int sc_head_encode(uint8_t out[SC_HEAD_RECORD_LEN], const sc_head_record *r);

/*
 * Decode exactly `len` bytes. Every deviation — length other than 256, bad
 * magic, unknown version, unknown flags, non-canonical predecessor fields,
 * out-of-range revision/length/identifier, nil UUIDs, non-zero reserved
 * bytes, damaged footer — is SC_ECORRUPT with a message naming `object`,
 * the field and its byte offset. `data` is not retained or modified.
 */
int sc_head_decode(sc_head_record *out, const uint8_t *data, size_t len, const char *object);

/*
 * The publisher UUID bound to a commit user: the first 16 bytes of
 * SHA-256("snapcommit-user:" || user), with the RFC 9562 version nibble set
 * to 8 (custom) and the variant bits to 10.
 */
void sc_head_publisher_uuid(uint8_t out[SC_UUID_LEN], const char *user);

/* Canonical UUID text (8-4-4-4-12 hex) to 16 bytes; SC_EINVAL otherwise. */
int sc_uuid_parse(uint8_t out[SC_UUID_LEN], const char *text);
/* 16 bytes to lowercase canonical text (37 bytes with NUL). */
void sc_uuid_format(char out[SC_UUID_TEXT_LEN + 1], const uint8_t uuid[SC_UUID_LEN]);

#endif
