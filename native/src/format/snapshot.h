/*
 * Snapshot documents and table metadata (internal): JSON via jansson, see
 * docs/format.md. Decoders are bounded by (pointer, length, limits) and fail
 * with SC_ECORRUPT naming the object and field.
 */
#ifndef SC_SNAPSHOT_H
#define SC_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hash.h"
#include "format/head_record.h"
#include "snapcommit/types.h"

/* A snapshot's inline watermark table holds at most this many users (the
 * decoder's bound, and what snapshots written before the archive existed may
 * hold). engine/replay.c keeps far fewer inline and moves the rest to the
 * watermark archive (format/watermark_archive.h); nobody's is forgotten. */
#define SC_WATERMARK_MAX_USERS 1024

/* Reference from a snapshot to a manifest list: its file name under
 * manifest/ and its size (Paimon's fields), pinned by hash when snapcommit
 * wrote the snapshot (has_sha256; Paimon's own snapshots carry no hash). */
typedef struct sc_object_ref {
    char *name;
    int has_sha256;
    uint8_t sha256[SC_SHA256_LEN];
    uint64_t length;
} sc_object_ref;

/* Store key of a manifest or manifest list named `name`: "manifest/<name>". */
void sc_manifest_key(char *out, size_t cap, const char *name);

/* Last identifier a commit user committed, and where. */
typedef struct sc_watermark {
    char *user;
    int64_t identifier;
    uint64_t snapshot_id;
} sc_watermark;

/*
 * A snapshot: Paimon's snapshot JSON (version 3). What only snapcommit needs
 * (table and commit UUIDs, file count, parent hash, manifest-list hashes,
 * watermarks, the document's checksum) rides in Paimon's string-valued
 * "properties" under "snapcommit.*" keys, which Paimon's readers ignore.
 * A snapshot written by Paimon itself has none of them: `foreign` is 1, the
 * UUIDs are empty, has_parent is 0 and there is no watermark table.
 */
typedef struct sc_snapshot {
    uint64_t id;
    int foreign;
    int64_t schema_id;
    char table_uuid[SC_UUID_TEXT_LEN + 1];
    char commit_uuid[SC_UUID_TEXT_LEN + 1]; /* one per logical commit, kept across retries */
    char *commit_user;
    int64_t commit_identifier;
    sc_commit_kind commit_kind;
    int64_t time_millis;
    int64_t total_record_count;
    int64_t delta_record_count;
    uint64_t file_count;
    int has_parent;
    uint8_t parent_hash[SC_SHA256_LEN];
    sc_object_ref base_manifest_list;
    sc_object_ref delta_manifest_list;
    sc_watermark *watermarks; /* sorted by user: the recently active users */
    size_t watermark_count;
    /* The watermark archive (everyone else): name under metadata/watermarks/,
     * length, and the SHA-256 the name carries; name NULL = no archive. */
    sc_object_ref watermark_archive;
    /* Paimon's optional members, in its JSON order; each is omitted when absent. */
    /* "changelogManifestList" + "changelogManifestListSize": the manifest list of this
     * snapshot's changelog files; name NULL = none. has_sha256 when snapcommit wrote it
     * (property snapcommit.changelogManifestList.sha256). */
    sc_object_ref changelog_manifest_list;
    char *index_manifest;        /* "indexManifest": name under manifest/ of all live index files; NULL = none */
    int has_changelog_record_count;
    int64_t changelog_record_count; /* "changelogRecordCount" (>= 0) */
    int has_watermark;
    int64_t watermark;           /* "watermark": the event-time watermark */
    char *statistics;            /* "statistics": name under statistics/; NULL = none */
} sc_snapshot;

/* The watermark archive's name (format/watermark_archive.h holds the object's codec):
 * "watermarks-" + the 64 lower-case hex digits of the SHA-256 of its bytes. */
#define SC_WATERMARK_ARCHIVE_PREFIX "watermarks-"
#define SC_WATERMARK_ARCHIVE_NAME_LEN (sizeof SC_WATERMARK_ARCHIVE_PREFIX - 1 + SC_SHA256_HEX_LEN)
/* The largest archive a snapshot may reference (and the archive decoder reads). */
#define SC_WATERMARK_ARCHIVE_MAX_LENGTH ((size_t)64 << 20)
/* The hash a well-formed archive name carries; SC_EINVAL (unset) for any other name. */
int sc_watermark_archive_name_parse(uint8_t out_sha256[SC_SHA256_LEN], const char *name);

/* Canonical, compact JSON (keys in a fixed order, watermarks sorted by user),
 * sealed: the last property is snapcommit.checksum, the SHA-256 of the
 * document with that value written as 64 zeros. */
int sc_snapshot_encode(sc_buf *out, const sc_snapshot *snap);
/* Decode exactly `len` bytes. `object` names the object in messages. */
int sc_snapshot_decode(sc_snapshot *out, const uint8_t *data, size_t len, const char *object);
void sc_snapshot_clear(sc_snapshot *snap);

/* The user's watermark entry, or NULL (a search of the sorted table; what it
 * means and how the table is updated is replay.h's). */
const sc_watermark *sc_snapshot_watermark(const sc_snapshot *snap, const char *user);

/* 1 when the NUL-terminated string is valid UTF-8 (JSON strings must be). */
int sc_utf8_valid(const char *s);

/* Store key of snapshot `id`: "snapshot/snapshot-<id>" in plain decimal without
 * padding (Paimon's name). Such names do not sort numerically: nothing may rely
 * on the LIST order of snapshot keys. */
void sc_snapshot_key(char out[64], uint64_t id);
/* Parse such a key: exactly "snapshot/snapshot-" + 1 to 20 digits, no leading
 * zero, value >= 1 that fits a uint64_t; SC_EINVAL (unset) for anything else. */
int sc_snapshot_key_parse(uint64_t *out_id, const char *key);

/* Table metadata: metadata/table.json */
#define SC_TABLE_META_KEY "metadata/table.json"
typedef struct sc_table_meta {
    int format_version;
    char table_uuid[SC_UUID_TEXT_LEN + 1];
    sc_strategy_kind strategy;
    int64_t created_millis;
} sc_table_meta;

int sc_table_meta_encode(sc_buf *out, const sc_table_meta *meta);
/* The largest metadata/table.json decoded (and read: larger is refused unread). */
#define SC_TABLE_META_MAX_BYTES ((size_t)1 << 20)
int sc_table_meta_decode(sc_table_meta *out, const uint8_t *data, size_t len);

#endif
