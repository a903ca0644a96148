#!/usr/bin/env bash
# The multi-process race and the CLI's replay/conflict exit codes on S3, against
# the test servers started by scripts/s3-servers.sh (gofakes3: atomic conditional
# writes). MinIO could not be installed here (see docs/s3.md), so gofakes3 is the
# server that shows "exactly one winner". Strategies: conditional, head, and
# tracker with conditional writes switched off.
set -euo pipefail
sc=${1:?usage: race_s3.sh PATH_TO_SNAPCOMMIT}
here=$(cd "$(dirname "$0")" && pwd)
env_out=$(bash "$here/../scripts/s3-servers.sh" env 2>/dev/null) || {
  echo "FAIL: S3 test servers not running: run scripts/s3-servers.sh start"; exit 1; }
eval "$env_out"
export AWS_ENDPOINT_URL_S3="$SC_GOFAKES3_ENDPOINT" AWS_ACCESS_KEY_ID="$SC_GOFAKES3_ACCESS_KEY_ID" \
       AWS_SECRET_ACCESS_KEY="$SC_GOFAKES3_SECRET_ACCESS_KEY"
run=$(date +%s%N)

# Exit codes on S3 are those of the local file system.
t="s3://$SC_S3_BUCKET/cli-$run"
schema='{"fields":[{"name":"part","type":"STRING"},{"name":"v","type":"BIGINT"}],"partitionKeys":["part"],"primaryKeys":[],"options":{}}'
echo "$schema" | "$sc" init "$t" --schema - >/dev/null
"$sc" init "$t" >/dev/null 2>&1 && { echo "FAIL: init over an existing S3 table succeeded"; exit 1; }
c='{"add":[{"partition":"part=p","bucket":0,"level":0,"file":"data-f1.parquet","rows":1,"size":1}]}'
[ "$(echo "$c" | "$sc" commit "$t" --user u --identifier 1 --changes -)" = 1 ]
set +e
echo "$c" | SNAPCOMMIT_LOG=off "$sc" commit "$t" --user u --identifier 1 --changes - >/dev/null 2>&1; replay=$?
echo "$c" | SNAPCOMMIT_LOG=off "$sc" commit "$t" --user v --identifier 1 --changes - >/dev/null 2>&1; conflict=$?
set -e
[ "$replay" = 3 ] || { echo "FAIL: replay on S3 exited $replay, expected 3"; exit 1; }
[ "$conflict" = 4 ] || { echo "FAIL: conflict on S3 exited $conflict, expected 4"; exit 1; }
[ "$("$sc" last-committed "$t" --user u)" = 1 ]
stats=$(echo '{"add":[{"partition":"part=p","bucket":0,"level":0,"file":"data-f2.parquet","rows":1,"size":1}]}' \
  | "$sc" commit "$t" --user u --identifier 2 --changes - --stats --json)
python3 -c '
import json,sys; r=json.loads(sys.argv[1]); s=r["stats"]; w=r["window"]
# discovery: GET LATEST, HEAD the next two ids, no LIST (protocols.md Discovery: unpadded names do
# not sort, so nothing relies on LIST order); one more HEAD because a fresh handle checks once that
# the history marker exists after a commit above snapshot 1 (format.md: the marker is backfilled)
assert r["result"]=="SC_OK" and s["list"]==0 and s["put_if_absent"]==1, r
# a fresh process (protocols.md §8). Its open (not in --stats, which cover the commit) read
# table.json, schema/ and LATEST in one batch, the schema and snapshot 1 in another: the commit
# builds on snapshot 1 at once (a guess). It reads the two lists of snapshot 1 in one batch; then
# one batch: the delta manifest and list, the base list, the looks that confirm the guess (HEAD 1,
# 2, 3, GET LATEST), the once-per-handle look at the history marker, and the delta manifest of
# snapshot 1 (a commit checks the manifests its base added before carrying them forward:
# protocols.md §3, checked when the batch is back, before the claim; the touched-files check needs
# no manifest for a new file); the claim; after it, GET snapshot/EARLIEST (the claim did not land
# below an expired history) and PUT LATEST, by a thread of its own (off the critical path). 14
# requests in 4 round trips; a guessed base is known from the start, so the claim window holds all
# of them but EARLIEST and LATEST.
total = sum(v for k, v in s.items() if not k.startswith("bytes") and k != "roundTrips")
assert total == 14 and s["get"] == 5 and s["head"] == 4 and s["put"] == 4, r
assert s["roundTrips"] == 4, r
assert w == {"get": 4, "head": 4, "put": 3, "put_if_absent": 1, "put_if_match": 0, "list": 0, "delete": 0}, r
print("S3 uncontended append (conditional, fresh process):", total, "requests,", sum(w.values()), "in the claim window:", s)' "$stats"

RACE_TABLE="s3://$SC_S3_BUCKET/race-conditional-$run" RACE_STRATEGY=conditional bash "$here/race_local.sh" "$sc"
RACE_TABLE="s3://$SC_S3_BUCKET/race-head-$run" RACE_STRATEGY=head bash "$here/race_local.sh" "$sc"
SNAPCOMMIT_S3_CONDITIONAL_WRITES=0 RACE_TABLE="s3://$SC_S3_BUCKET/race-tracker-$run" RACE_STRATEGY=tracker \
  bash "$here/race_local.sh" "$sc"
