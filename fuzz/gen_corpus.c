/*
 * Write the seed corpus for fuzz_manifest into the directory given as argv[1]:
 * valid manifests ("manifest-*"), valid manifest lists ("list-*") and damaged
 * images ("bad-*"). tests/test_manifest_codec.c checks each prefix's verdict,
 * so regenerate the seeds whenever the format changes:
 *   cc -D_GNU_SOURCE -Inative/include -Inative/src fuzz/gen_corpus.c \
 *      native/src/{error,buf,hash,manifest_entry,manifest_codec,manifest_list,reader}.c \
 *      -lcrypto -o /tmp/gen_corpus && /tmp/gen_corpus fuzz/corpus/manifest
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/manifest.h"
#include "snapcommit/error.h"

static void check(int rc, const char *what) {
    if (rc) {
        fprintf(stderr, "gen_corpus: %s: %s\n", what, sc_error_message());
        exit(1);
    }
}

static void write_file(const char *dir, const char *name, const uint8_t *data, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void push(sc_entry_vec *v, sc_entry_kind kind, const char *file, const char *part,
                 size_t part_len, const char *min, const char *max, int32_t bucket) {
    sc_file_entry f = {
        .partition = {(const uint8_t *)part, part_len},
        .bucket = bucket,
        .total_buckets = bucket ? 16 : 0,
        .level = bucket % 4,
        .file = file,
        .rows = 1000 + (int64_t)bucket,
        .size = 1 << 20,
        .min_key = {(const uint8_t *)min, min ? strlen(min) : 0},
        .max_key = {(const uint8_t *)max, max ? strlen(max) : 0},
    };
    check(sc_entry_vec_push(v, kind, &f), file);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gen_corpus DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    sc_entry_vec v = {0};
    sc_buf b = SC_BUF_INIT;

    check(sc_manifest_encode(&b, &v), "empty manifest");
    write_file(dir, "manifest-empty", b.data, b.len);

    b.len = 0;
    push(&v, SC_ENTRY_ADD, "data/p=1/bucket-0/f-0.orc", "\x00\xff", 2, "a", "m", 0);
    push(&v, SC_ENTRY_DELETE, "data/p=1/bucket-3/f-1.orc", "", 0, "", "", 3);  /* empty keys */
    push(&v, SC_ENTRY_ADD, "data/p=2/bucket-15/f-2.orc", "\xff\xff\xff", 3, NULL, NULL, 2147483647);
    check(sc_manifest_encode(&b, &v), "manifest-3");
    write_file(dir, "manifest-3", b.data, b.len);
    /* Damaged: cut short, and one body byte flipped. */
    write_file(dir, "bad-truncated", b.data, b.len - 1);
    b.data[30] ^= 0x10;
    write_file(dir, "bad-flipped", b.data, b.len);
    b.data[30] ^= 0x10;
    /* Behind a valid checksum, so the record parser is reached: kind 3. */
    b.data[SC_MANIFEST_HEADER_LEN] = 3;
    sc_sha256(b.data + b.len - SC_SHA256_LEN, b.data, b.len - SC_SHA256_LEN);
    write_file(dir, "bad-kind", b.data, b.len);

    sc_meta_vec m = {0};
    b.len = 0;
    check(sc_manifest_list_encode(&b, &m), "empty list");
    write_file(dir, "list-empty", b.data, b.len);
    sc_manifest_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.name = "manifest/manifest-5f0c2a9e-6b1d-4c3e-9a77-0d1e2f3a4b5c-0";
    memset(meta.sha256, 0xab, sizeof meta.sha256);
    meta.length = 4242;
    meta.added = 3;
    meta.deleted = 1;
    meta.min_partition = (uint8_t *)"\x00";
    meta.min_partition_len = 1;
    meta.max_partition = (uint8_t *)"\xff";
    meta.max_partition_len = 1;
    check(sc_meta_vec_push(&m, &meta), "meta 0");
    meta.name = "manifest/manifest-1";
    meta.min_partition_len = meta.max_partition_len = 0;
    meta.deleted = UINT64_MAX;
    check(sc_meta_vec_push(&m, &meta), "meta 1");
    b.len = 0;
    check(sc_manifest_list_encode(&b, &m), "list-2");
    write_file(dir, "list-2", b.data, b.len);

    sc_buf_free(&b);
    sc_entry_vec_free(&v);
    sc_meta_vec_free(&m);
    return 0;
}
