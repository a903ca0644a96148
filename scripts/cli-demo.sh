#!/usr/bin/env bash
# The CLI demo: a local Apache Paimon table (schema-0 from --schema: partitioned by dt,
# bucket-unaware append), a stream of checkpoint commits from two writers racing, a
# replay after a simulated failover being filtered, a real conflict, fsck, and the
# snapshot log. The commits carry metadata only (no data files are written here;
# scripts/flink-demo.sh writes Parquet and reads it back through Paimon).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build >/dev/null
sc=build/snapcommit
table=${DEMO_TABLE:-$(mktemp -d /tmp/snapcommit-demo.XXXXXX)/table}
echo '{"fields":[{"name":"dt","type":"STRING"},{"name":"id","type":"BIGINT"},{"name":"msg","type":"STRING"}],
 "partitionKeys":["dt"],"primaryKeys":[],"options":{"file.format":"parquet"}}' | $sc init "$table" --schema -
changes() { # partition file rows: one file in <partition>/bucket-0/
  printf '{"add":[{"partition":"%s","bucket":0,"level":0,"file":"%s","rows":%d,"size":%d}]}' \
    "$1" "$2" "$3" $(( $3 * 64 ))
}
writer() { # user
  for cp in $(seq 1 20); do
    changes "dt=2026-11-29" "data-$1-cp$cp.parquet" $(( cp * 10 )) | $sc commit "$table" --user "$1" --identifier "$cp" --changes - >/dev/null
  done
}
echo "two writers commit 20 checkpoints each, racing for snapshot numbers..."
SNAPCOMMIT_LOG=off writer job-a & a=$!
SNAPCOMMIT_LOG=off writer job-b & b=$!
wait $a $b
echo "job-a fails over and replays checkpoint 20:"
set +e
changes "dt=2026-11-29" "data-job-a-cp20.parquet" 200 | $sc commit "$table" --user job-a --identifier 20 --changes -
echo "  exit $? (3 = already committed, nothing written)"
echo "a compaction deletes a file twice:"
printf '{"delete":[{"partition":"dt=2026-11-29","bucket":0,"level":0,"file":"data-job-a-cp1.parquet","rows":10,"size":640}],"add":[{"partition":"dt=2026-11-29","bucket":0,"level":0,"file":"data-compacted-1.parquet","rows":10,"size":640}]}' \
  | $sc commit "$table" --user compactor --identifier 1 --kind compact --changes - >/dev/null
printf '{"delete":[{"partition":"dt=2026-11-29","bucket":0,"level":0,"file":"data-job-a-cp1.parquet","rows":10,"size":640}],"add":[{"partition":"dt=2026-11-29","bucket":0,"level":0,"file":"data-compacted-2.parquet","rows":10,"size":640}]}' \
  | $sc commit "$table" --user compactor-2 --identifier 1 --kind compact --changes -
echo "  exit $? (4 = conflict, not retried)"
set -e
$sc fsck "$table"
echo "last committed checkpoint of job-b: $($sc last-committed "$table" --user job-b)"
echo "live files: $($sc files "$table" | tail -n +2 | wc -l) (40 written, 1 compacted away, 1 compaction output)"
echo "layout: $(cd "$table" && ls -d schema/schema-0 snapshot/LATEST snapshot/snapshot-41 | tr '\n' ' ')"
echo
echo "snapshot log of $table:"
$sc log "$table"
