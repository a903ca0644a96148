#!/usr/bin/env bash
# Paimon's own committers and the snapcommit CLI racing on one table, in separate processes:
# RACE_JVMS JVMs (io.snapcommit.demo.PaimonCommitRace: Paimon 1.4.2's StreamWriteBuilder and its
# filesystem committer, a commit user each, identifiers 1..RACE_COMMITS, RACE_ROWS distinct rows
# per commit) plus one `snapcommit commit` loop over prewritten Parquet files (user sc). Then the
# judge (PaimonCommitRace check): every snapshot a committer was told it created still holds what
# it wrote, every committed (user, identifier) is in the snapshot chain exactly once, and Paimon's
# reader returns every row exactly once.
#
#   tests/paimon/race_paimon_fileio.sh SNAPCOMMIT [local|gofakes3|moto]...
#   RACE_FILEIO=snapcommit (default)  Paimon claims through the snapcommit FileIO (snapcommit+s3://,
#                                     snapcommit+file://): any loss fails the run
#   RACE_FILEIO=stock                 Paimon's own FileIO (s3://, file://): losses are measured and
#                                     reported, not failed (that is what the snapcommit FileIO fixes)
#   RACE_RUNS (1), RACE_JVMS (3), RACE_COMMITS (8), RACE_ROWS (3); each process is bounded by
#   RACE_TIMEOUT seconds (240).
# Needs: native build (build/snapcommit, build-jni), `mvn -Pflink-1.20 package` (the integration
# classes and demo.classpath, java-shim/paimon-fileio's jar; RACE_LINE=2 takes -Pflink-2's), the pypaimon venv (pyarrow, for the
# prewritten files) and, for S3 targets, scripts/s3-servers.sh's servers.
# moto's conditional writes are not atomic (docs/s3.md): its figures are reported, never asserted.
# Not in tests/*.sh (which ctest runs after the native build alone): scripts/flink-test.sh runs it
# after Maven has built the jars.
set -euo pipefail
sc=$(cd "$(dirname "${1:?usage: race_paimon_fileio.sh SNAPCOMMIT [local|gofakes3|moto]...}")" && pwd)/$(basename "$1")
shift
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(local gofakes3)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fileio=${RACE_FILEIO:-snapcommit}
runs=${RACE_RUNS:-1} jvms=${RACE_JVMS:-3} commits=${RACE_COMMITS:-8} rows=${RACE_ROWS:-3}
limit=${RACE_TIMEOUT:-240}
case $fileio in snapcommit|stock) ;; *) echo "FAIL: RACE_FILEIO must be snapcommit or stock"; exit 2 ;; esac

line=${RACE_LINE:-1.20}  # whose Maven build dirs to take the classes from (the committers use no Flink)
it=$root/integration/target/flink-$line
jar=$(ls "$root"/java-shim/paimon-fileio/target/flink-$line/snapcommit-paimon-fileio-*.jar 2>/dev/null | grep -v sources | head -1)
s3jar=${MAVEN_REPO:-$HOME/.m2/repository}/org/apache/paimon/paimon-s3/1.4.2/paimon-s3-1.4.2.jar
for f in "$it/classes/io/snapcommit/demo/PaimonCommitRace.class" "$it/demo.classpath" "$jar" "$s3jar"; do
  [ -n "$f" ] && [ -e "$f" ] || { echo "FAIL: missing ${f:-the snapcommit-paimon-fileio jar}: run mvn -Pflink-$line package first"; exit 1; }
done
# Paimon and Hadoop only: neither the Flink connector nor Flink is on the committers' class path,
# so the FileIO jar shows it works on its own beside Paimon (as in a Spark or Flink lib/).
cp="$it/classes:$jar:$s3jar:$(tr ':' '\n' < "$it/demo.classpath" | grep -v -e '/snapcommit-flink-' -e '/org/apache/flink/' | paste -sd:)"
py=${SC_PYPAIMON:-$(bash "$root/scripts/pypaimon-setup.sh")}
java_opts=(-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1)

work=$(mktemp -d /tmp/sc-paimon-race.XXXXXX)
trap '[ -n "${RACE_KEEP:-}" ] || rm -rf "$work"' EXIT
schema='{"fields":[{"name":"u","type":"STRING"},{"name":"i","type":"BIGINT"},{"name":"s","type":"BIGINT"}],"partitionKeys":[],"primaryKeys":[],"options":{"bucket":"-1"}}'

failed=0
one_run() {  # target run-number
  local target=$1 n=$2 base strategy
  case $target in
    local) base=$work/t-$n; strategy=rename
           unset AWS_ENDPOINT_URL_S3 AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY ;;
    gofakes3|moto)
      local env_out; env_out=$(bash "$root/scripts/s3-servers.sh" env 2>/dev/null) || {
        echo "FAIL: S3 test servers not running: run scripts/s3-servers.sh start"; failed=1; return; }
      eval "$env_out"
      if [ "$target" = moto ]; then
        export AWS_ENDPOINT_URL_S3=$SC_MOTO_ENDPOINT AWS_ACCESS_KEY_ID=$SC_MOTO_ACCESS_KEY_ID \
               AWS_SECRET_ACCESS_KEY=$SC_MOTO_SECRET_ACCESS_KEY
      else
        export AWS_ENDPOINT_URL_S3=$SC_GOFAKES3_ENDPOINT AWS_ACCESS_KEY_ID=$SC_GOFAKES3_ACCESS_KEY_ID \
               AWS_SECRET_ACCESS_KEY=$SC_GOFAKES3_SECRET_ACCESS_KEY
      fi
      base=s3://$SC_S3_BUCKET/paimon-race-$fileio-$(date +%s%N); strategy=conditional ;;
    *) echo "FAIL: unknown target $target (local, gofakes3, moto)"; failed=1; return ;;
  esac
  local plain=$base paimon=$base
  [ "$target" = local ] && plain=file://$base
  [ "$fileio" = snapcommit ] && paimon=snapcommit+$plain || paimon=$plain
  echo "$schema" | "$sc" init "$base" --strategy "$strategy" --schema - >/dev/null
  # The CLI's prewritten data files: user sc, identifier i, rows s = 0..rows-1.
  local stage=$work/stage-$n-$target i s
  for i in $(seq 1 "$commits"); do
    for s in $(seq 0 $((rows - 1))); do printf '{"u":"sc","i":%d,"s":%d}\n' "$i" "$s"; done > "$work/rows"
    echo "$schema" > "$work/schema.json"
    "$py" "$here/make_data_files.py" --schema "$work/schema.json" --rows "$work/rows" --table "$stage" \
      --seq-start $(( (i - 1) * rows )) > "$work/changes-$n-$i.json"
  done
  if [ "$target" != local ]; then "$py" "$here/s3_tree.py" upload "$stage" "$base"
  else cp -r "$stage"/. "$base"/; fi

  local pids=() logs=() j
  for j in $(seq 1 "$jvms"); do
    logs+=("$work/log-$n-$target-p$j")
    timeout "$limit" java "${java_opts[@]}" -cp "$cp" io.snapcommit.demo.PaimonCommitRace \
      commit "$paimon" "paimon-$j" "$commits" "$rows" "$work/log-$n-$target-p$j" > "$work/out-$n-$target-p$j" 2>&1 &
    pids+=($!)
  done
  local cli_log=$work/log-$n-$target-sc
  logs+=("$cli_log")
  (
    for i in $(seq 1 "$commits"); do
      id=$(SNAPCOMMIT_LOG=off timeout "$limit" "$sc" commit "$base" --user sc --identifier "$i" \
             --changes "$work/changes-$n-$i.json" --max-retries 1000) || { echo "CLI commit $i failed" >&2; exit 1; }
      printf 'CLAIM %s sc %d -\nCOMMITTED sc %d\n' "$id" "$i" "$i" >> "$cli_log"
    done
  ) > "$work/out-$n-$target-sc" 2>&1 &
  pids+=($!)
  local crashed=0 p
  for p in "${pids[@]}"; do wait "$p" || crashed=$((crashed + 1)); done
  touch "${logs[@]}"
  local verdict=0
  timeout "$limit" java "${java_opts[@]}" -cp "$cp" io.snapcommit.demo.PaimonCommitRace check "$plain" "$rows" \
    "${logs[@]}" > "$work/check" 2>&1 || verdict=$?
  echo "$target $fileio run $n: committers that failed=$crashed; $(grep -m1 '^race ' "$work/check" || true)"
  grep '^  ' "$work/check" | head -5 || true
  if [ "$crashed" -gt 0 ]; then
    for f in "$work"/out-$n-$target-*; do
      [ -s "$f" ] && grep -m1 -E 'Exception|failed' "$f" | sed "s|^|  $(basename "$f"): |" || true
    done
  fi
  if [ "$verdict" -gt 1 ] || ! grep -q '^race ' "$work/check"; then
    echo "FAIL: the judge did not run"; cat "$work/check" | head -20; failed=1
  elif [ "$fileio" = snapcommit ] && [ "$target" != moto ] && { [ "$verdict" != 0 ] || [ "$crashed" != 0 ]; }; then
    failed=1
  fi
}

for target in "${targets[@]}"; do
  for n in $(seq 1 "$runs"); do one_run "$target" "$n"; done
done
if [ "$fileio" = snapcommit ]; then
  [ "$failed" = 0 ] && echo "race_paimon_fileio: 1 passed, 0 failed" || { echo "race_paimon_fileio: 0 passed, 1 failed"; exit 1; }
else
  [ "$failed" = 0 ] || exit 1
  echo "race_paimon_fileio (stock FileIO, measurement only): done"
fi
