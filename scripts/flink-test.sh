#!/usr/bin/env bash
# The Flink connector's tests: builds the native library and the JNI binding,
# starts the S3 test servers (scripts/s3-servers.sh, for S3ITCase on gofakes3) if
# they are not running, then runs `mvn verify` (connector unit tests + MiniCluster
# integration tests, all under -Xcheck:jni) once for Flink 1.20 and once for Flink 2.x.
# Then tests/java_packaging.sh (the build fails without the JNI library; `mvn install` publishes an
# artifact a separate consumer pom resolves offline) and tests/java_deploy_lib.sh (a lib/ from the
# documented jar list runs an ORC write) and tests/java_coexist.sh (the lib/ jar next to Paimon's
# own connector) once per line, each counted as one test; and tests/paimon/race_paimon_fileio.sh
# once (Paimon's committers through the snapcommit FileIO), one test. java-shim/paimon-fileio (no
# Flink) is built and tested with the first line only.
# Prints each Surefire summary; exits non-zero when anything failed.
#   FLINK_PROFILES="flink-2" scripts/flink-test.sh     only one line
#   SNAPCOMMIT_MVN_OFFLINE=1 scripts/flink-test.sh     no network (after a first run)
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/flink-setup.sh || exit 1
source scripts/flink-env.sh
flink_build_native || exit 1

# S3ITCase runs against gofakes3 (scripts/s3-servers.sh): before each Maven run, start the S3 test
# servers unless they run already (start is idempotent) and hand their env (SC_GOFAKES3_*,
# SC_S3_BUCKET, AWS_* of gofakes3) to Maven, whose Surefire passes it on (integration/pom.xml).
# Checked per profile because another user of the shared servers (scripts/test.sh stops them
# when it exits) may have stopped them meanwhile; SC_S3_STATE=/other/dir gives this run servers
# of its own. They are left running (scripts/s3-servers.sh stop). If they cannot be started,
# S3ITCase fails and says so.
s3_servers() {
  if scripts/s3-servers.sh start >/dev/null && s3_env=$(scripts/s3-servers.sh env); then
    eval "$s3_env"
    echo "  S3 test servers: gofakes3 on $SC_GOFAKES3_ENDPOINT, bucket $SC_S3_BUCKET"
  else
    echo "  S3 test servers could not be started: S3ITCase will fail"
    unset SC_GOFAKES3_ENDPOINT SC_GOFAKES3_ACCESS_KEY_ID SC_GOFAKES3_SECRET_ACCESS_KEY
  fi
}

# pypaimon (PyPI) reads the tables of FailoverITCase and S3ITCase (ITBase.assertPypaimonReads):
# its venv's python goes to the tests as SC_PYPAIMON (integration/pom.xml). When it cannot be set
# up, those tests fail saying so.
if py=$(scripts/pypaimon-setup.sh); then
  export SC_PYPAIMON=$py
  echo "  pypaimon: $SC_PYPAIMON"
else
  echo "  pypaimon could not be set up: the pypaimon checks will fail"
fi

# failure_digest LABEL REPORT: a Surefire .txt report's failing tests: each one's name ("<class>.<method> -- Time elapsed: ...
# <<< FAILURE!" or "<<< ERROR!" starts its entry), the first 10 lines of its failure and the last
# 5 "Caused by:" lines below them (the innermost causes, often the informative ones).
failure_digest() {
  awk 'function flush(   i, k) {
         if (name == "") return
         print "  FAILED (" label ") " name
         for (i = 1; i <= n && i <= 10; i++) print "    " substr(line[i], 1, 400)
         k = 0
         for (i = 11; i <= n; i++) if (line[i] ~ /^Caused by:/) cause[++k] = line[i]
         for (i = (k > 5 ? k - 4 : 1); i <= k; i++) print "    " substr(cause[i], 1, 400)
         name = ""; n = 0
       }
       /^Tests run:/ { next }
       / <<< (FAILURE|ERROR)!$/ { flush(); name = $1; next }
       name != "" && NF > 0 { line[++n] = $0 }
       END { flush() }' label="$1" "$2"
}

profiles=${FLINK_PROFILES:-"flink-1.20 flink-2"}
first=${profiles%% *}
total_pass=0; total_fail=0; status=0; all_digests=""
for profile in $profiles; do
  line=${profile#flink-}
  echo "== Flink $line (mvn verify -P$profile) =="
  # the connector of this line (java-shim/flink-<line>) and the integration tests (integration/)
  connector=java-shim/flink-"$line"/target/flink-"$line"
  integration=integration/target/flink-"$line"
  fileio=java-shim/paimon-fileio/target/flink-"$line"  # the FileIO jar for Paimon's own committers
  rm -rf "$integration"/snapcommit-it-summary.txt "$connector"/surefire-reports "$integration"/surefire-reports \
    "$fileio"/surefire-reports
  s3_servers
  start=$(date +%s)
  # Maven's own output goes to the terminal as before and, for the failure digest below, to a log.
  mvn_log=$(mktemp)
  # java-shim/paimon-fileio has no Flink dependency: the profiles differ only in its output
  # directory, so its classes, jar and tests are the same for every line. It is built and tested
  # with the first line only (tests/paimon/race_paimon_fileio.sh uses that line's jar).
  only=()
  if [ "$profile" != "$first" ]; then
    only=(-pl '!java-shim/paimon-fileio')
    echo "  java-shim/paimon-fileio: built and tested once, with -P$first (no Flink dependency)"
  fi
  mvn "${MVN_FLAGS[@]}" -q -f pom.xml -P"$profile" "${only[@]}" verify 2>&1 | tee "$mvn_log"
  mvn_rc=${PIPESTATUS[0]}; rc=$mvn_rc
  secs=$(( $(date +%s) - start ))
  pass=0; fail=0
  for report in "$connector"/surefire-reports/*.txt "$integration"/surefire-reports/*.txt "$fileio"/surefire-reports/*.txt; do
    [ -f "$report" ] || continue
    case "$report" in *-output.txt) continue ;; esac
    summary=$(grep -h "^Tests run:" "$report" | tail -1)
    echo "  $(basename "$report" .txt): $summary"
    read -r run f e s < <(echo "$summary" | sed -E 's/Tests run: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+), Skipped: ([0-9]+).*/\1 \2 \3 \4/')
    pass=$((pass + run - f - e - s)); fail=$((fail + f + e))
  done
  if [ -f "$integration"/snapcommit-it-summary.txt ]; then
    sed 's/^/  /' "$integration"/snapcommit-it-summary.txt
  fi
  # -Xcheck:jni writes to the JVM's native stdout, which Surefire keeps in *.dumpstream (or the
  # -output.txt files): any such line is a failure.
  if grep -l -E "WARNING in native method|FATAL ERROR in native method|JNI local refs: [0-9]+, exceeds capacity" \
       "$connector"/surefire-reports/* "$integration"/surefire-reports/* "$fileio"/surefire-reports/* \
       2>/dev/null; then
    echo "  -Xcheck:jni reported problems (files above)"; rc=1; fail=$((fail + 1))
  fi
  # Each failing test's name and the head of its failure, from the Surefire reports, so that the
  # tail of a CI log says which test failed and why (the summaries above scroll out of it).
  failures=0
  for report in "$connector"/surefire-reports/*.txt "$integration"/surefire-reports/*.txt "$fileio"/surefire-reports/*.txt; do
    [ -f "$report" ] || continue
    case "$report" in *-output.txt) continue ;; esac
    digest=$(failure_digest "Flink $line" "$report")
    [ -n "$digest" ] || continue
    echo "$digest"; failures=$((failures + 1))
    all_digests+="$digest"$'\n'
  done
  if [ "$mvn_rc" -ne 0 ] && [ "$failures" -eq 0 ]; then
    # No failing test in the reports (a forked JVM that crashed, a build error): Maven's errors.
    echo "  mvn exited $mvn_rc without a failing test in the reports; its last [ERROR] lines:"
    digest=$(grep -E '^\[ERROR\]' "$mvn_log" | tail -15 | sed 's/^/    /')
    echo "$digest"
    all_digests+="  Flink $line: mvn exited $mvn_rc without a failing test in the reports:"$'\n'"$digest"$'\n'
  fi
  rm -f "$mvn_log"
  if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
  echo "  Flink $line: $pass passed, $fail failed in ${secs}s (mvn exit $rc)"
  total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
  [ "$rc" -eq 0 ] || status=1
done
# The connector build must refuse to package a jar without libsnapcommit_jni.so, and `mvn install`
# must publish an artifact a consumer resolves (tests/java_packaging.sh: offline, -DskipTests; ~/.m2
# holds every plugin after the runs above).
# Then deploying into a lib/ from the jar list of docs/flink.md alone must run an ORC write
# (tests/java_deploy_lib.sh, on the jars the Maven run above built), and the connector's lib/ jar
# must share one class path with Paimon's own Flink connector (tests/java_coexist.sh).
for profile in $profiles; do
  for t in tests/java_packaging.sh tests/java_deploy_lib.sh tests/java_coexist.sh; do
    t_start=$(date +%s)
    if "$t" "$profile"; then
      total_pass=$((total_pass + 1))
    else
      total_fail=$((total_fail + 1)); status=1
    fi
    echo "  $(basename "$t") ($profile): $(( $(date +%s) - t_start ))s"
  done
done
# Paimon's own committers (separate JVMs) and the CLI racing on one table, Paimon claiming its
# snapshots through the snapcommit FileIO (java-shim/paimon-fileio), on a local disk and gofakes3:
# no claim overwritten, no commit or row lost. Once: the committers use no Flink.
t_start=$(date +%s)
if RACE_LINE=${first#flink-} bash tests/paimon/race_paimon_fileio.sh build/snapcommit local gofakes3; then
  total_pass=$((total_pass + 1))
else
  total_fail=$((total_fail + 1)); status=1
fi
echo "  race_paimon_fileio.sh: $(( $(date +%s) - t_start ))s"
# Again at the end, where a CI log's tail keeps them.
if [ -n "$all_digests" ]; then echo "failing tests:"; printf '%s' "$all_digests"; fi
echo "flink: $total_pass passed, $total_fail failed"
exit $status
