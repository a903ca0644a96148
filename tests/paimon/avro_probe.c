/*
 * avro_probe: can Debian's Avro C library (libavro-dev 1.11.1) read Paimon's manifest files?
 * Not part of the build (no CMake target); compile by hand:
 *
 *   cc -O2 -Wall -o /tmp/avro_probe tests/paimon/avro_probe.c -lavro -lzstd -lz
 *   /tmp/avro_probe [--json] FILE...
 *
 * For each Avro object container file it tries two ways and says what each gave:
 *
 *   1. avro_file_reader(): libavro's own container reader. It knows the codecs null, deflate,
 *      snappy and lzma; Paimon writes manifests with "zstandard" by default
 *      (manifest.compression = zstd), which it refuses.
 *   2. "framed": the container framing done here (magic, metadata map, sync marker, blocks),
 *      each block decompressed here (null, deflate, zstandard), and every datum decoded by libavro
 *      (avro_reader_memory + avro_value_read against the writer schema from the header).
 *      This is the route the C decoder can take for Paimon-written manifests.
 *
 * --json prints every record (libavro's avro_value_to_json) from the route that worked.
 * Exit status: 0 when every file was read by at least one route, 1 otherwise.
 */
#include <avro.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define MAX_FILE (64u << 20)   /* manifests are small; refuse anything huge */
#define MAX_BLOCK (64u << 20)

static int print_json;

/* ---- a bounded cursor over the file ---- */
typedef struct {
    const uint8_t *p;
    size_t n, off;
} cur_t;

static int rd_long(cur_t *c, int64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (c->off >= c->n)
            return -1;
        uint8_t b = c->p[c->off++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1); /* zig-zag */
            return 0;
        }
    }
    return -1;
}

static int rd_bytes(cur_t *c, const uint8_t **p, size_t *len)
{
    int64_t l;
    if (rd_long(c, &l) || l < 0 || (uint64_t)l > c->n - c->off)
        return -1;
    *p = c->p + c->off;
    *len = (size_t)l;
    c->off += (size_t)l;
    return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(MAX_FILE);
    size_t n = buf ? fread(buf, 1, MAX_FILE, f) : 0;
    int big = buf && n == MAX_FILE;
    fclose(f);
    if (!buf || big) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* ---- route 1: libavro's container reader ---- */
static long via_file_reader(const char *path, const char **err)
{
    avro_file_reader_t r;
    if (avro_file_reader(path, &r)) {
        *err = avro_strerror();
        return -1;
    }
    avro_schema_t ws = avro_file_reader_get_writer_schema(r); /* a new reference */
    avro_value_iface_t *iface = avro_generic_class_from_schema(ws);
    avro_schema_decref(ws);
    avro_value_t v;
    avro_generic_value_new(iface, &v);
    long count = 0;
    int rc;
    while ((rc = avro_file_reader_read_value(r, &v)) == 0) {
        count++;
        if (print_json) {
            char *js;
            if (!avro_value_to_json(&v, 1, &js)) {
                printf("    %s\n", js);
                free(js);
            }
        }
    }
    /* rc is EOF at the end of the file; anything else is a decoding error */
    if (rc != EOF) {
        *err = avro_strerror();
        count = -1;
    }
    avro_value_decref(&v);
    avro_value_iface_decref(iface);
    avro_file_reader_close(r);
    return count;
}

/* ---- route 2: framing + decompression here, datums by libavro ---- */
static uint8_t *inflate_raw(const uint8_t *in, size_t n, size_t *out_n)
{
    size_t cap = n * 4 + 1024;
    uint8_t *out = NULL;
    for (;;) {
        if (cap > MAX_BLOCK)
            return NULL;
        uint8_t *o = realloc(out, cap);
        if (!o) {
            free(out);
            return NULL;
        }
        out = o;
        z_stream zs = {0};
        if (inflateInit2(&zs, -15) != Z_OK) /* Avro "deflate" = raw RFC 1951, no zlib header */
            break;
        zs.next_in = (Bytef *)in;
        zs.avail_in = (uInt)n;
        zs.next_out = out;
        zs.avail_out = (uInt)cap;
        int rc = inflate(&zs, Z_FINISH);
        size_t got = zs.total_out;
        inflateEnd(&zs);
        if (rc == Z_STREAM_END) {
            *out_n = got;
            return out;
        }
        if (rc != Z_BUF_ERROR && rc != Z_OK)
            break;
        cap *= 2;
    }
    free(out);
    return NULL;
}

static uint8_t *unzstd(const uint8_t *in, size_t n, size_t *out_n)
{
    /* Avro Java's ZstandardCodec writes one frame per block; the frame may or may not carry
     * its content size, so decompress as a stream into a growing buffer. */
    ZSTD_DStream *ds = ZSTD_createDStream();
    size_t cap = n * 4 + 1024, len = 0;
    uint8_t *out = malloc(cap);
    ZSTD_inBuffer ib = {in, n, 0};
    size_t rc = 1;
    while (ds && out) {
        if (len == cap) {
            if (cap * 2 > MAX_BLOCK)
                break;
            uint8_t *o = realloc(out, cap * 2);
            if (!o)
                break;
            out = o;
            cap *= 2;
        }
        ZSTD_outBuffer ob = {out, cap, len};
        rc = ZSTD_decompressStream(ds, &ob, &ib);
        len = ob.pos;
        if (ZSTD_isError(rc))
            break;
        if (rc == 0 && ib.pos == ib.size) {
            ZSTD_freeDStream(ds);
            *out_n = len;
            return out;
        }
        if (ib.pos == ib.size && ob.pos < ob.size)
            break; /* truncated frame */
    }
    ZSTD_freeDStream(ds);
    free(out);
    return NULL;
}

static long via_framing(const uint8_t *buf, size_t n, char *codec_out, size_t codec_cap, const char **err)
{
    cur_t c = {buf, n, 0};
    if (n < 4 || memcmp(buf, "Obj\x01", 4)) {
        *err = "not an Avro object container (magic)";
        return -1;
    }
    c.off = 4;
    const uint8_t *schema_json = NULL;
    size_t schema_len = 0;
    char codec[32] = "null";
    /* metadata: a map<bytes> as blocks of (count, entries), a negative count followed by a size */
    for (;;) {
        int64_t cnt;
        if (rd_long(&c, &cnt)) {
            *err = "truncated metadata";
            return -1;
        }
        if (cnt == 0)
            break;
        if (cnt < 0) {
            int64_t sz;
            cnt = -cnt;
            if (rd_long(&c, &sz)) {
                *err = "truncated metadata";
                return -1;
            }
        }
        for (int64_t i = 0; i < cnt; i++) {
            const uint8_t *k, *v;
            size_t kl, vl;
            if (rd_bytes(&c, &k, &kl) || rd_bytes(&c, &v, &vl)) {
                *err = "truncated metadata entry";
                return -1;
            }
            if (kl == 11 && !memcmp(k, "avro.schema", 11)) {
                schema_json = v;
                schema_len = vl;
            } else if (kl == 10 && !memcmp(k, "avro.codec", 10)) {
                if (vl >= sizeof codec) {
                    *err = "codec name too long";
                    return -1;
                }
                memcpy(codec, v, vl);
                codec[vl] = 0;
            }
        }
    }
    snprintf(codec_out, codec_cap, "%s", codec);
    if (n - c.off < 16 || !schema_json) {
        *err = "no schema or no sync marker";
        return -1;
    }
    const uint8_t *sync = buf + c.off;
    c.off += 16;

    avro_schema_t schema;
    if (avro_schema_from_json_length((const char *)schema_json, schema_len, &schema)) {
        *err = avro_strerror();
        return -1;
    }
    avro_value_iface_t *iface = avro_generic_class_from_schema(schema);
    avro_value_t v;
    avro_generic_value_new(iface, &v);
    long total = 0;
    while (c.off < n) {
        int64_t count, size;
        if (rd_long(&c, &count) || rd_long(&c, &size) || count < 0 || size < 0 ||
            (uint64_t)size > n - c.off || n - c.off - (size_t)size < 16) {
            *err = "truncated block";
            total = -1;
            break;
        }
        const uint8_t *data = buf + c.off;
        c.off += (size_t)size;
        if (memcmp(buf + c.off, sync, 16)) {
            *err = "sync marker mismatch";
            total = -1;
            break;
        }
        c.off += 16;
        uint8_t *plain = NULL;
        size_t plain_n = 0;
        if (!strcmp(codec, "null")) {
            plain_n = (size_t)size;
        } else if (!strcmp(codec, "deflate")) {
            plain = inflate_raw(data, (size_t)size, &plain_n);
        } else if (!strcmp(codec, "zstandard")) {
            plain = unzstd(data, (size_t)size, &plain_n);
        } else {
            *err = "codec not handled by the probe's framing route";
            total = -1;
            break;
        }
        if (strcmp(codec, "null") && !plain) {
            *err = "block decompression failed";
            total = -1;
            break;
        }
        avro_reader_t mr = avro_reader_memory(plain ? (const char *)plain : (const char *)data, (int64_t)plain_n);
        for (int64_t i = 0; i < count; i++) {
            avro_value_reset(&v);
            if (avro_value_read(mr, &v)) {
                *err = avro_strerror();
                total = -1;
                break;
            }
            total++;
            if (print_json) {
                char *js;
                if (!avro_value_to_json(&v, 1, &js)) {
                    printf("    %s\n", js);
                    free(js);
                }
            }
        }
        avro_reader_free(mr);
        free(plain);
        if (total < 0)
            break;
    }
    avro_value_decref(&v);
    avro_value_iface_decref(iface);
    avro_schema_decref(schema);
    return total;
}

int main(int argc, char **argv)
{
    int first = 1, failed = 0;
    if (argc > 1 && !strcmp(argv[1], "--json")) {
        print_json = 1;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: avro_probe [--json] FILE...\n");
        return 2;
    }
    for (int i = first; i < argc; i++) {
        const char *path = argv[i];
        size_t n;
        uint8_t *buf = slurp(path, &n);
        if (!buf) {
            printf("%s: cannot read\n", path);
            failed = 1;
            continue;
        }
        const char *e1 = "", *e2 = "";
        char codec[32] = "?";
        /* the framing route runs first only to learn the codec name for the report; its records
         * are printed only when libavro's own reader fails */
        int save = print_json;
        print_json = 0;
        long framed_probe = via_framing(buf, n, codec, sizeof codec, &e2);
        print_json = save;
        long r1 = via_file_reader(path, &e1);
        long r2 = framed_probe;
        if (r1 < 0 && print_json)
            r2 = via_framing(buf, n, codec, sizeof codec, &e2);
        printf("%s: codec=%s avro_file_reader=", path, codec);
        if (r1 >= 0)
            printf("%ld records", r1);
        else
            printf("FAILED (%s)", e1);
        printf(" framed+libavro-datums=");
        if (r2 >= 0)
            printf("%ld records\n", r2);
        else
            printf("FAILED (%s)\n", e2);
        if (r1 < 0 && r2 < 0)
            failed = 1;
        free(buf);
    }
    return failed;
}
