#!/usr/bin/env bash
# The judge: does a table hold exactly the expected rows, as Paimon's own readers see it?
# Readers: Paimon Java 1.4.2 (PaimonTool read-all, scripts/paimon-tool.sh) and pypaimon 2.1.0
# (tests/paimon/pypaimon_read.py, scripts/pypaimon-setup.sh); never snapcommit code.
#
#   tests/paimon/reader_check.sh TABLE EXPECT_DIR [--s3] [--s3-server gofakes3|moto]
#
# TABLE: a local table directory, or with --s3 an s3://bucket/key URI (a bare key means
# s3://$SC_S3_BUCKET/<key>) on the S3 test server. --s3 uses the AWS_* variables when
# AWS_ENDPOINT_URL_S3 is set, else those of `scripts/s3-servers.sh env` (gofakes3);
# --s3-server moto|gofakes3 picks that server's endpoint and credentials from the same env.
# Both readers map the AWS_* variables onto their S3 options (PaimonTool#s3Options: paimon-s3's
# s3.endpoint, s3.path.style.access=true, s3.access-key, s3.secret-key, s3.endpoint.region;
# pypaimon_read.py#s3_options: fs.s3.endpoint, s3.path-style-access, fs.s3.accessKeyId, ...).
#
# EXPECT_DIR:
#   latest.jsonl        rows of the latest snapshot, one JSON object per line in PaimonTool's
#                       canonical value form (Values.java: DECIMAL as a string with its scale,
#                       DATE/TIMESTAMP as ISO text, bytes as hex); an optional last line
#                       {"summary":{"snapshot":N,...}} also requires that the latest snapshot is N
#   snapshot-<N>.jsonl  optional: rows of snapshot N; both readers time-travel to each N
#   stream.jsonl        optional: per snapshot from the earliest, {"snapshot":N,"rows":k} and that
#                       snapshot's delta rows ("_kind" +I/+U/-U/-D, default +I); Paimon Java's
#                       streaming read from the earliest snapshot, stopped after the latest
#                       snapshot that existed when it started (timeout $READER_CHECK_STREAM_MS,
#                       default 20000 ms), must consume exactly these snapshots in this order,
#                       each with these rows (a multiset per snapshot)
#   snapshots.jsonl     optional: the snapshot chain, one object per snapshot with "id" and any of
#                       schemaId, commitUser, commitIdentifier, commitKind, totalRecordCount,
#                       deltaRecordCount, properties; both readers must list exactly these ids
#                       and the given values
# Rows compare as multisets (reader_compare.py: key order free, numbers by value).
#
# Prints one line per reader and check, e.g. "paimon-java latest: 8 rows expected, 8 read: ok",
# then "N passed, M failed". Exit status 0 when every check passed; 1 on any mismatch, read error,
# or missing reader (Java/Maven or the pypaimon venv: a missing reader is a failure, never a skip);
# 2 on bad usage. READER_CHECK_KEEP=DIR keeps the readers' outputs in DIR; READER_CHECK_PY=python
# of the pypaimon venv skips scripts/pypaimon-setup.sh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

usage() { echo "usage: reader_check.sh TABLE EXPECT_DIR [--s3] [--s3-server gofakes3|moto]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
table=$1 expect=$2; shift 2
s3=0 server=
while [[ $# -gt 0 ]]; do
    case $1 in
        --s3) s3=1; shift ;;
        --s3-server) [[ $# -ge 2 ]] || usage; s3=1; server=$2; shift 2 ;;
        *) usage ;;
    esac
done
[[ -f $expect/latest.jsonl ]] || { echo "reader_check: $expect/latest.jsonl is missing" >&2; exit 2; }

fail_setup() { echo "reader_check: $*"; echo "0 passed, 1 failed"; exit 1; }

if [[ $s3 == 1 ]]; then
    if [[ -n $server || -z ${AWS_ENDPOINT_URL_S3:-} ]]; then
        env_out=$(bash "$root/scripts/s3-servers.sh" env 2>/dev/null) ||
            fail_setup "S3 test servers not running: run scripts/s3-servers.sh start"
        eval "$env_out"
        case ${server:-gofakes3} in
            gofakes3) export AWS_ENDPOINT_URL_S3=$SC_GOFAKES3_ENDPOINT AWS_ACCESS_KEY_ID=$SC_GOFAKES3_ACCESS_KEY_ID \
                             AWS_SECRET_ACCESS_KEY=$SC_GOFAKES3_SECRET_ACCESS_KEY ;;
            moto) export AWS_ENDPOINT_URL_S3=$SC_MOTO_ENDPOINT AWS_ACCESS_KEY_ID=$SC_MOTO_ACCESS_KEY_ID \
                         AWS_SECRET_ACCESS_KEY=$SC_MOTO_SECRET_ACCESS_KEY ;;
            *) usage ;;
        esac
        unset AWS_SESSION_TOKEN
    fi
    [[ $table == s3://* ]] || table="s3://${SC_S3_BUCKET:?SC_S3_BUCKET is not set}/${table#/}"
    where="S3 ${server:-} at $AWS_ENDPOINT_URL_S3"
else
    [[ -d $table ]] || fail_setup "no table directory $table"
    table=$(cd "$table" && pwd)
    where=local
fi

# READER_CHECK_PY: the pypaimon venv's python when the caller already ran scripts/pypaimon-setup.sh
# (saves its version check, about a second, per call).
py=${READER_CHECK_PY:-}
[[ -n $py && -x $py ]] || py=$("$root/scripts/pypaimon-setup.sh") || fail_setup "pypaimon set-up failed (scripts/pypaimon-setup.sh)"
"$root/scripts/paimon-tool.sh" --build-only >/dev/null || fail_setup "PaimonTool build failed (scripts/paimon-tool.sh)"

out=${READER_CHECK_KEEP:-}
if [[ -z $out ]]; then out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
rm -rf "$out/paimon-java" "$out/pypaimon"; mkdir -p "$out/paimon-java" "$out/pypaimon"

snaps=$(cd "$expect" && ls | sed -n 's/^snapshot-\([0-9]\+\)\.jsonl$/\1/p' | sort -n | paste -sd, -)
stream=false; [[ -f $expect/stream.jsonl ]] && stream=true
echo "reader_check: $table ($where); expected: latest${snaps:+, snapshots $snaps}$([[ $stream == true ]] && echo ", stream")"

# Both readers at once (they only read). A reader that dies before writing a part leaves neither
# <part>.jsonl nor <part>.error: the compare step reports that part as "read failed: no output",
# so a crash is never a pass.
timeout 300 "$root/scripts/paimon-tool.sh" read-all "$table" --out "$out/paimon-java" --snapshots "$snaps" \
    --stream "$stream" --timeout-ms "${READER_CHECK_STREAM_MS:-20000}" >/dev/null 2> "$out/paimon-java.log" &
java_pid=$!
timeout 300 "$py" "$here/pypaimon_read.py" "$table" --out-dir "$out/pypaimon" --snapshots "$snaps" \
    >/dev/null 2> "$out/pypaimon.log" ||
    echo "reader_check: pypaimon read failed: $(grep -m1 . "$out/pypaimon.log")"
wait "$java_pid" || echo "reader_check: PaimonTool read-all failed: $(grep -m1 'paimon-tool' "$out/paimon-java.log")"

python3 "$here/reader_compare.py" "$expect" --stream paimon-java \
    "paimon-java=$out/paimon-java" "pypaimon=$out/pypaimon"
