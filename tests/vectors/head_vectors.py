#!/usr/bin/env python3
"""Independent test vectors for the snapcommit head record (docs/head-record.md).

Computed with nothing but `struct` and `hashlib`, so that tests/test_head_record.c
checks the C encoder/decoder against a second implementation. Run:

    python3 tests/vectors/head_vectors.py

and paste the printed C literals into tests/test_head_record.c (they are kept
there as literal expectations; this script is the record of how they were made).

Layout (big-endian, 256 bytes):
    0   8s  magic b"SCHEAD\\x00\\x01"
    8   I   version = 1
    12  I   flags (0 no predecessor, 1 predecessor)
    16  16s table UUID
    32  16s publisher UUID = SHA-256("snapcommit-user:" + user)[:16], version 8, variant 10
    48  16s publication UUID (commitUuid)
    64  Q   revision (snapshot id)
    72  32s snapshot SHA-256
    104 Q   snapshot length
    112 q   commit identifier
    120 32s predecessor head SHA-256 (or zeros)
    152 I   predecessor length (256 or 0)
    156 68x reserved zero
    224 32s footer = SHA-256(bytes[0:224])
"""
import hashlib
import struct
import uuid

MAGIC = b"SCHEAD\x00\x01"
BODY = struct.Struct(">8sII16s16s16sQ32sQq32sI68x")
assert BODY.size == 224


def publisher_uuid(user: str) -> bytes:
    b = bytearray(hashlib.sha256(b"snapcommit-user:" + user.encode("utf-8")).digest()[:16])
    b[6] = (b[6] & 0x0F) | 0x80
    b[8] = (b[8] & 0x3F) | 0x80
    return bytes(b)


def record(table, user, publication, revision, snapshot_bytes_sha, snapshot_len, identifier, pred):
    flags = 1 if pred is not None else 0
    pred_hash = hashlib.sha256(pred).digest() if pred is not None else bytes(32)
    pred_len = len(pred) if pred is not None else 0
    body = BODY.pack(MAGIC, 1, flags, uuid.UUID(table).bytes, publisher_uuid(user),
                     uuid.UUID(publication).bytes, revision, snapshot_bytes_sha, snapshot_len,
                     identifier, pred_hash, pred_len)
    rec = body + hashlib.sha256(body).digest()
    assert len(rec) == 256
    return rec


TABLE = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"
SNAP1 = b'{"version":1,"id":1}'
SNAP2 = b'{"version":1,"id":2,"parent":true}'

A = record(TABLE, "flink-job-a", "11111111-2222-4333-8444-555555555555", 1,
           hashlib.sha256(SNAP1).digest(), len(SNAP1), 1, None)
B = record(TABLE, "flink-job-a", "66666666-7777-4888-9999-aaaaaaaaaaaa", 2,
           hashlib.sha256(SNAP2).digest(), len(SNAP2), 2, A)
# Edge values: largest revision, identifier and snapshot length; a non-ASCII user.
C = record(TABLE, "compactor \u00fc", "fedcba98-7654-4321-8fed-cba987654321", 2**63 - 1,
           bytes(range(32)), 64 << 20, 2**63 - 1, B)


def c_array(name, data):
    lines = []
    for i in range(0, len(data), 16):
        lines.append("    " + ", ".join("0x%02x" % x for x in data[i:i + 16]) + ",")
    return "static const uint8_t %s[%d] = {\n%s\n};" % (name, len(data), "\n".join(lines))


if __name__ == "__main__":
    for name, rec in (("VEC_A", A), ("VEC_B", B), ("VEC_C", C)):
        print(c_array(name, rec))
        print("/* %s: footer %s, complete SHA-256 %s */" % (
            name, rec[224:].hex(), hashlib.sha256(rec).hexdigest()))
    for user in ("flink-job-a", "compactor \u00fc"):
        print("/* publisher(%r) = %s */" % (user, str(uuid.UUID(bytes=publisher_uuid(user)))))
    print("/* sha256(SNAP1) = %s len %d */" % (hashlib.sha256(SNAP1).hexdigest(), len(SNAP1)))
    print("/* sha256(SNAP2) = %s len %d */" % (hashlib.sha256(SNAP2).hexdigest(), len(SNAP2)))
