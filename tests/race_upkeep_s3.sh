#!/usr/bin/env bash
# race_upkeep.sh on S3: the test servers of scripts/s3-servers.sh (gofakes3, atomic
# conditional writes), the conditional strategy. The writers write no data objects
# there (one CLI process per object would dominate the run): expire counts the data
# files it would delete as already gone, and the reader checks the metadata only.
# Without running servers it fails (scripts/test.sh starts them), as race_s3.sh does.
set -euo pipefail
sc=${1:?usage: race_upkeep_s3.sh PATH_TO_SNAPCOMMIT}
here=$(cd "$(dirname "$0")" && pwd)
env_out=$(bash "$here/../scripts/s3-servers.sh" env 2>/dev/null) || {
  echo "FAIL: S3 test servers not running: run scripts/s3-servers.sh start"; exit 1; }
eval "$env_out"
export AWS_ENDPOINT_URL_S3="$SC_GOFAKES3_ENDPOINT" AWS_ACCESS_KEY_ID="$SC_GOFAKES3_ACCESS_KEY_ID" \
       AWS_SECRET_ACCESS_KEY="$SC_GOFAKES3_SECRET_ACCESS_KEY"
RACE_TABLE="s3://$SC_S3_BUCKET/upkeep-$(date +%s%N)" RACE_STRATEGY=conditional \
  RACE_PROCS=${RACE_PROCS:-3} RACE_COMMITS=${RACE_COMMITS:-15} RACE_COMPACTIONS=${RACE_COMPACTIONS:-6} \
  exec bash "$here/race_upkeep.sh" "$sc"
