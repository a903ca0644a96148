#!/usr/bin/env bash
# The side-by-side commit benchmark of issue 11 (docs/performance.md): builds snapcommit (Release)
# and the Paimon 1.4.2 harness (bench/paimon, Maven), runs, back to back on the same disk, the
# durable floor, the C API, the CLI and Paimon's own committer, then the same against the local S3
# test server, and prints one table (min / median / max over the runs) with issue 11's goals.
#
#   scripts/bench.sh                 full run: 3 runs, ages 10 / 1,000 / 5,000, races 2x30 and 8x25
#   scripts/bench.sh --runs 10       more runs (goal 2 asks for 0 give-ups in 10 S3 runs)
#   scripts/bench.sh --quick         smoke run: ages 10 / 50 / 100, few commits, small races, 1 run
#   options: --dir DIR (where the tables go; default a new directory under /tmp — put it on the
#            disk you want to measure), --no-paimon, --no-s3, --no-big, --keep (keep the tables),
#            --paimon-s3 (also Paimon's single writer on the S3 server at age 10; off by default:
#            about 1.5 s per commit against gofakes3, see docs/performance.md),
#            --paimon-jvms (also Paimon's races with one JVM per writer, an unsupported setup on a
#            local disk without a catalog lock that can lose snapshots; the table's Paimon races
#            are threads of one JVM, see docs/performance.md),
#            --durable-seed (age snapcommit's local tables with durable commits, as before: a
#            full run takes minutes longer; by default seeding is non-durable and ends with one
#            syncfs, which changes nothing that is timed, see docs/performance.md),
#            --out FILE (raw "R key value" lines, default DIR/results.txt)
#   scripts/bench.sh --upsert        also the Flink upsert section: a streaming GROUP BY into a
#                                    primary-key table through the snapcommit sink and through
#                                    Paimon's own TableWriteImpl + TableCommitImpl (builds the Flink
#                                    connector; four timed jobs, sc/paimon/paimon/sc, after a warm-up
#                                    job per side; --quick makes it a smoke run of 300,000 rows a job)
#   scripts/bench.sh --upsert-only   only that section (with --quick: about two minutes)
#   scripts/bench.sh --rtt D         the S3 round-trip section's latency (default 50 ms; issue 20): after
#                                    the S3 lines, bench/latency_proxy.py holds every request to the S3
#                                    server D ms; a warm C API append, a warm replay check and a fresh
#                                    CLI commit at age 10, measured at D and at 0 (the server's and the
#                                    client's own time), and the CLI race 8x25 at both (--rtt-race WxN
#                                    for another size); --no-rtt skips the section
#   scripts/bench.sh --rtt-only      only that section (--runs 3: about 8 minutes at 50 ms)
#   scripts/bench.sh --flink-rtt     also the Flink checkpoint-to-visible section (issue 20; off by default):
#                                    the upsert job of the Flink section, rate-limited, into a primary-key
#                                    table on a fresh bucket of the S3 server behind the latency proxy
#                                    (--rtt D, and D = 0), once through the snapcommit sink and once through
#                                    Paimon's TableWriteImpl + TableCommitImpl on paimon-s3; from each
#                                    checkpoint's completion to its snapshot on the server (builds the
#                                    Flink connector; about 3 minutes per run and delay)
#   scripts/bench.sh --flink-rtt-only  only that section
#
# S3: uses the running test servers (eval "$(scripts/s3-servers.sh env)"; gofakes3, the one with
# atomic conditional writes); start them with scripts/s3-servers.sh start. Without them the S3 lines
# are skipped and said to be.
# SNAPCOMMIT_MVN_OFFLINE=1: Maven without network (after a first build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
{ # read whole before running: editing this file during a long run must not change the run

runs="" quick=0 dir="" paimon=1 s3=1 big=1 keep=0 out="" paimon_s3=0 paimon_jvms=0 fast_seed=1 upsert=0 commits_bench=1
rtt=1 rtt_ms=50 rtt_only=0 rtt_race_opt="" flink_rtt=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --runs) runs=$2; shift ;;
        --quick) quick=1 ;;
        --dir) dir=$2; shift ;;
        --no-paimon) paimon=0 ;;
        --no-s3) s3=0 ;;
        --no-big) big=0 ;;
        --paimon-s3) paimon_s3=1 ;;
        --paimon-jvms) paimon_jvms=1 ;;
        --durable-seed) fast_seed=0 ;;
        --keep) keep=1 ;;
        --upsert) upsert=1 ;;
        --upsert-only) upsert=1 commits_bench=0 ;;
        --rtt) rtt_ms=$2; shift ;;
        --no-rtt) rtt=0 ;;
        --rtt-only) rtt_only=1 ;;
        --rtt-race) rtt_race_opt=$2; shift ;;
        --flink-rtt) flink_rtt=1 ;;
        --flink-rtt-only) flink_rtt=1 commits_bench=0 ;;
        --out) out=$2; shift ;;
        -h|--help) sed -n '2,46p' "$0"; exit 0 ;;
        *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[[ $rtt_ms =~ ^[0-9]+$ ]] || { echo "bench.sh: --rtt takes whole milliseconds" >&2; exit 2; }
[[ -z $rtt_race_opt || $rtt_race_opt =~ ^[0-9]+x[0-9]+$ ]] || { echo "bench.sh: --rtt-race takes WxN" >&2; exit 2; }
if [[ $rtt_only == 1 ]]; then
    [[ $upsert == 0 && $rtt == 1 ]] || { echo "bench.sh: --rtt-only goes with neither --upsert nor --no-rtt" >&2; exit 2; }
    paimon=0 big=0
fi

if [[ $quick == 1 ]]; then
    runs=${runs:-1}
    ages=10,50,100 commits=10 compactions=5 cli_commits=5 filter_reps=5 floor_n=50
    race_a=2x5 race_b=4x5 warmup=20 big_live=20000 big_delete=1000
    upsert_args=(--rows 300000 --keys 1000 --interval 500 --parallelism 2 --warmup 100000)
    flink_rtt_args=(--checkpoints 5 --warmup 3 --interval 1000 --rate 2000 --keys 1000 --parallelism 2)
    rtt_commits=10 rtt_filter=10 rtt_cli=5 rtt_race=8x25
else
    runs=${runs:-3}
    ages=10,1000,5000 commits=100 compactions=50 cli_commits=20 filter_reps=20 floor_n=300
    race_a=2x30 race_b=8x25 warmup=200 big_live=1000000 big_delete=1000
    upsert_args=(--rows 2000000 --keys 10000 --interval 1000 --parallelism 2 --warmup 1000000)
    flink_rtt_args=(--checkpoints 20 --warmup 5 --interval 1000 --rate 2000 --keys 1000 --parallelism 2)
    rtt_commits=30 rtt_filter=20 rtt_cli=10 rtt_race=8x25
fi
rtt_race=${rtt_race_opt:-$rtt_race}

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; } # seconds since $1
t_start=$(date +%s.%N)
# ---- build ----
build=$root/build-bench
bc=$build/bench_commit cli=$build/snapcommit
if [[ $commits_bench == 1 ]]; then
    echo "== building snapcommit (Release) into $build" >&2
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build" --target bench_commit snapcommit_cli -j"$(nproc)" >&2
else
    paimon=0 big=0 rtt=0 # only the upsert and Flink checkpoint-to-visible sections
    [[ $flink_rtt == 1 ]] || s3=0
fi
if [[ $upsert == 1 || $flink_rtt == 1 ]]; then
    # The Flink connector and the integration jar (UpsertBench) on Flink 1.20, as scripts/flink-demo.sh
    # builds them: the native library through the JNI binding in build/ and build-jni/ (RelWithDebInfo).
    echo "== building the Flink connector and io.snapcommit.bench.UpsertBench / FlinkRttBench" >&2
    scripts/flink-setup.sh >&2
    ( source scripts/flink-env.sh && flink_build_native && mvn "${MVN_FLAGS[@]}" -q -f pom.xml -Pflink-1.20 -DskipTests package ) >&2
    upsert_target=$root/integration/target/flink-1.20
    # FlinkRttBench is a test class (it needs paimon-s3, a test dependency of the integration module).
    flink_rtt_cp=$upsert_target/test-classes:$upsert_target/snapcommit-flink-integration-0.1.0-SNAPSHOT.jar:$(cat "$upsert_target/demo.classpath")
    flink_rtt_cp+=:$HOME/.m2/repository/org/apache/paimon/paimon-s3/1.4.2/paimon-s3-1.4.2.jar
fi

jdk=/usr/lib/jvm/java-17-openjdk-amd64
java=java; [[ -x $jdk/bin/java ]] && java=$jdk/bin/java
pjar=$root/bench/paimon/target/paimon-bench.jar
if [[ $paimon == 1 ]]; then
    mod=$root/bench/paimon
    if [[ ! -f $pjar || -n $(find "$mod/pom.xml" "$mod/src" -newer "$pjar" -print -quit) ]]; then
        echo "== building the Paimon harness (bench/paimon)" >&2
        source "$root/scripts/flink-env.sh"
        rm -rf "$mod/target/lib"
        mvn "${MVN_FLAGS[@]}" -q -f "$mod/pom.xml" package -DskipTests >&2
    fi
fi
# Full C2 JIT (a benchmark, not a short CLI call); the opens Paimon needs on Java 17.
jvm=("$java" --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
     --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED -Xss4m)

if [[ $s3 == 1 ]]; then
    if scripts/s3-servers.sh status >/dev/null 2>&1; then
        eval "$(scripts/s3-servers.sh env)"
    else
        echo "bench.sh: the S3 test servers are not running (scripts/s3-servers.sh start): S3 lines skipped" >&2
        s3=0
    fi
fi
[[ $s3 == 1 ]] || rtt=0
if [[ $flink_rtt == 1 && $s3 == 0 ]]; then
    echo "bench.sh: --flink-rtt needs the S3 test servers (scripts/s3-servers.sh start): section skipped" >&2
    flink_rtt=0
fi
if [[ $rtt_only == 1 && $rtt == 0 ]]; then
    echo "bench.sh: --rtt-only needs the S3 test servers (scripts/s3-servers.sh start)" >&2
    exit 1
fi

# ---- run ----
[[ -n $dir ]] || dir=$(mktemp -d /tmp/sc-bench.XXXXXX)
mkdir -p "$dir"
[[ -n $out ]] || out=$dir/results.txt
: >"$out"
df_line=$(df -hT "$dir" | tail -1 | awk '{print $1" ("$2")"}')
{
    echo "M runs $runs"
    echo "M quick $quick"
    echo "M ages $ages"
    echo "M race_a $race_a"
    echo "M race_b $race_b"
    echo "M commits $commits"
    echo "M compactions $compactions"
    echo "M cli_commits $cli_commits"
    echo "M big $big_live $big_delete"
    echo "M fast_seed $fast_seed"
    echo "M commits_bench $commits_bench"
    [[ $rtt == 1 ]] && echo "M rtt $rtt_ms $rtt_race $rtt_commits $rtt_filter $rtt_cli"
    echo "M rtt_only $rtt_only"
    [[ $flink_rtt == 1 ]] && echo "M flink_rtt $rtt_ms ${flink_rtt_args[*]}"
    [[ $upsert == 1 ]] && echo "M upsert ${upsert_args[*]} --order sc,paimon,paimon,sc (even runs: paimon,sc,sc,paimon)"
    echo "M disk $df_line"
    echo "M host $(uname -n) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "M date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "M commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    printf 'T 0 %.1f build\n' "$(since "$t_start")"
} >>"$out"

step() { # LABEL RUN CMD...: run one line, tag its R lines with the run number; "T" lines: its duration
    local label=$1 r=$2 t0 dt; shift 2
    echo "-- run $r: $label" >&2
    t0=$(date +%s.%N)
    "$@" | sed -n "s/^R /R $r /p" >>"$out"
    dt=$(since "$t0")
    printf 'T %s %.1f %s\n' "$r" "$dt" "$label" >>"$out"
    printf -- '-- run %s: %s took %.1f s\n' "$r" "$label" "$dt" >&2
}

# The latency proxy in front of gofakes3 (bench/latency_proxy.py): start_proxy DELAY_MS sets
# proxy_pid, proxy_port and proxy_out (its stdout: the port, then its counts on SIGUSR1, which
# bench_commit sends); stop_proxy ends it. A run that fails midway leaves no proxy behind.
proxy_pid=""
start_proxy() {
    proxy_out=$dir/proxy-run$r-d$1.out
    local upstream=${SC_GOFAKES3_ENDPOINT#http://}
    python3 "$root/bench/latency_proxy.py" --upstream "${upstream%/}" --delay-ms "$1" >"$proxy_out" 2>>"$dir/proxy.log" &
    proxy_pid=$!
    for ((i = 0; i < 200; i++)); do [[ -s $proxy_out ]] && break; sleep 0.05; done
    proxy_port=$(head -1 "$proxy_out")
    [[ $proxy_port =~ ^[0-9]+$ ]] || { echo "bench.sh: the latency proxy did not start (see $dir/proxy.log)" >&2; exit 1; }
}
stop_proxy() {
    kill -TERM "$proxy_pid" 2>/dev/null || true
    wait "$proxy_pid" || true
    proxy_pid=""
}
trap '[[ -z $proxy_pid ]] || kill -TERM "$proxy_pid" 2>/dev/null || true' EXIT

for ((r = 1; r <= runs; r++)); do
    d=$dir/run$r
    mkdir -p "$d"
    if [[ $upsert == 1 ]]; then
        # One JVM: a warm-up job per side, then four timed jobs, same source and options; the order
        # alternates between runs (sc,paimon,paimon,sc then paimon,sc,sc,paimon) so that no side always
        # runs first (the first timed job of a JVM is the slowest, docs/performance.md).
        order=sc,paimon,paimon,sc; (( r % 2 == 0 )) && order=paimon,sc,sc,paimon
        step "Flink upsert job: snapcommit sink vs Paimon's TableCommitImpl" "$r" \
            bash -c 'source scripts/flink-env.sh && exec java "${FLINK_JAVA_OPTS[@]}" -cp "$1" io.snapcommit.bench.UpsertBench "${@:3}" 2>"$2"' \
            upsert "$upsert_target/snapcommit-flink-integration-0.1.0-SNAPSHOT.jar:$(cat "$upsert_target/demo.classpath")" \
            "$dir/upsert-run$r.log" --dir "$d/upsert" "${upsert_args[@]}" --order "$order"
        grep '^upsert ' "$dir/upsert-run$r.log" >&2 || true # its summary lines; Flink's log is in that file
    fi
    if [[ $flink_rtt == 1 ]]; then
        # Issue 20 goal 2: checkpoint to visible on S3, at D and at 0 (the proxy in the path, no delay).
        # A bucket of its own per run and delay (gofakes3 lists in time proportional to the bucket).
        # Paimon's S3A client as a user tuning it for latency would: no existence and parent-directory
        # probes on create, delete and mkdir (fs.s3a.create.performance, fs.s3a.performance.flags);
        # docs/performance.md. The order of the two jobs alternates between runs.
        order=sc,paimon; (( r % 2 == 0 )) && order=paimon,sc
        delays=("$rtt_ms"); [[ $rtt_ms == 0 ]] || delays+=(0)
        for delay in "${delays[@]}"; do
            pfx=flink_rtt; [[ $delay == 0 ]] && pfx=flink_rtt0
            start_proxy "$delay"
            step "Flink checkpoint to visible on S3 at D = $delay ms: snapcommit sink vs Paimon's TableCommitImpl" "$r" \
                bash -c 'source scripts/flink-env.sh && exec java "${FLINK_JAVA_OPTS[@]}" -cp "$1" io.snapcommit.bench.FlinkRttBench "${@:3}" 2>"$2"' \
                flink_rtt "$flink_rtt_cp" "$dir/flink-rtt-run$r-d$delay.log" --endpoint "http://127.0.0.1:$proxy_port" \
                --server "${SC_GOFAKES3_ENDPOINT%/}" --bucket "sc-flink-rtt-$(date +%s)-$$-$r-$delay" --prefix t \
                --access-key "$SC_GOFAKES3_ACCESS_KEY_ID" --secret-key "$SC_GOFAKES3_SECRET_ACCESS_KEY" --label "$pfx" \
                --order "$order" "${flink_rtt_args[@]}" --paimon-option s3.create.performance=true \
                --paimon-option 's3.performance.flags=*'
            stop_proxy
            grep '^flink-rtt ' "$dir/flink-rtt-run$r-d$delay.log" >&2 || true
        done
    fi
    if [[ $commits_bench == 0 ]]; then
        [[ $keep == 1 ]] || rm -rf "$d"
        continue
    fi
    if [[ $rtt_only == 0 ]]; then # the local lines (--rtt-only: none of them)
        step "durable floor" "$r" "$bc" floor "$d/floor" "$floor_n"
        step "C API + CLI, single writer" "$r" "$bc" single "$d/sc" --ages "$ages" --commits "$commits" \
            --compactions "$compactions" --cli "$cli" --cli-commits "$cli_commits" --filter-reps "$filter_reps" \
            --fast-seed "$fast_seed"
        if [[ $paimon == 1 ]]; then
            step "Paimon, single writer" "$r" "${jvm[@]}" -jar "$pjar" single "$d/paimon" "$ages" "$commits" \
                "$compactions" "$filter_reps" "$warmup"
        fi
        for race in a b; do
            spec=race_$race; spec=${!spec}; w=${spec%x*}; n=${spec#*x}
            step "C API race $spec" "$r" "$bc" race "$d/race_$race" --writers "$w" --commits "$n" --prefix "sc.race_$race"
            if [[ $paimon == 1 ]]; then
                step "Paimon race $spec (threads of one JVM)" "$r" "${jvm[@]}" -jar "$pjar" race "$d/paimon_race_$race" \
                    "$w" "$n" "paimon.race_$race" "$((warmup / 4))"
            fi
            if [[ $paimon == 1 && $paimon_jvms == 1 ]]; then
                step "Paimon race $spec (one JVM per writer)" "$r" "${jvm[@]}" -jar "$pjar" race "$d/paimon_jvms_race_$race" \
                    "$w" "$n" "paimon_jvms.race_$race" "$((warmup / 4))" --jvms
            fi
        done
    fi
    loc=s3://${SC_S3_BUCKET:-}/sc-bench-$(date +%s)-$$-$r
    if [[ $s3 == 1 && $rtt_only == 0 ]]; then
        step "S3: C API + CLI, single writer at age 10" "$r" "$bc" single "$loc/sc" --ages 10 --commits "$commits" \
            --compactions "$compactions" --cli "$cli" --cli-commits "$cli_commits" --filter-reps "$filter_reps" --prefix s3
        if [[ $paimon == 1 && $paimon_s3 == 1 ]]; then
            step "S3: Paimon, single writer at age 10" "$r" "${jvm[@]}" -jar "$pjar" single "$loc/paimon" 10 \
                "$commits" "$compactions" "$filter_reps" "$warmup" paimon_s3
        fi
        for race in a b; do
            spec=race_$race; spec=${!spec}; w=${spec%x*}; n=${spec#*x}
            step "S3: C API race $spec" "$r" "$bc" race "$loc/race_$race" --writers "$w" --commits "$n" --prefix "s3.race_$race"
        done
    fi
    if [[ $rtt == 1 ]]; then
        # Issue 20: round trips on the critical path. At D = 0 the proxy adds nothing: the server's
        # and the client's own time, to subtract; the race at 0 shows what latency does to contention
        # (at 50 ms it takes about two minutes).
        delays=(0); [[ $rtt_ms == 0 ]] || delays+=("$rtt_ms")
        for delay in "${delays[@]}"; do
            pfx=rtt; [[ $delay == 0 ]] && pfx=rtt0
            start_proxy "$delay"
            step "S3 round trips at D = $delay ms: C API append, replay check, CLI at age 10" "$r" \
                env AWS_ENDPOINT_URL_S3="http://127.0.0.1:$proxy_port" "$bc" rtt "$loc/rtt$delay" --age 10 \
                --commits "$rtt_commits" --filter-reps "$rtt_filter" --cli "$cli" --cli-commits "$rtt_cli" \
                --prefix "$pfx" --proxy "$proxy_pid:$proxy_out"
            w=${rtt_race%x*} n=${rtt_race#*x}
            step "S3 round trips at D = $delay ms: CLI race $rtt_race" "$r" \
                env AWS_ENDPOINT_URL_S3="http://127.0.0.1:$proxy_port" "$bc" race "$loc/rtt_race$delay" --writers "$w" \
                --commits "$n" --cli "$cli" --prefix "$pfx.cli_race" --proxy "$proxy_pid:$proxy_out"
            stop_proxy
        done
    fi
    if [[ $big == 1 ]]; then
        step "compaction of $big_delete files among $big_live live" "$r" "$bc" big "$d/big" --live "$big_live" --delete "$big_delete" \
            --fast-seed "$fast_seed"
    fi
    [[ $keep == 1 ]] || rm -rf "$d"
done

printf 'T 0 %.1f total\n' "$(since "$t_start")" >>"$out"
python3 "$root/bench/report.py" "$out"
[[ $keep == 1 ]] || rmdir "$dir" 2>/dev/null || true # empty unless it holds the results file
echo "(raw figures: $out)" >&2
exit 0
}
