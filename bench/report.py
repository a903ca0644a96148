#!/usr/bin/env python3
"""Print scripts/bench.sh's table from its raw lines (docs/performance.md).

Input: "M name value..." (the run's settings) and "R run key value" lines, as bench.sh writes
them (bench/bench_commit.c and bench/paimon print "R key value"; bench.sh adds the run number).
The S3 round-trip lines (issue 20) come with "M rtt D ..." (D: the proxy's delay in ms).
Every line of the table is computed per run first (ratios too), then summarised as
min / median / max over the runs. Usage: bench/report.py RESULTS_FILE
"""
import statistics
import sys
from collections import defaultdict


def load(path):
    meta, runs, times = {}, defaultdict(dict), defaultdict(list)
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 2 and p[0] == "M":
                meta[p[1]] = " ".join(p[2:])
            elif len(p) == 4 and p[0] == "R":
                runs[int(p[1])][p[2]] = float(p[3])
            elif len(p) >= 4 and p[0] == "T":  # T RUN SECONDS LABEL: a step's wall time (run 0: build, total)
                times[" ".join(p[3:])].append(float(p[2]))
    return meta, [runs[r] for r in sorted(runs)], times


def fmt_d(d):
    return "?" if d is None else f"{d:g}"


def main():
    meta, runs, times = load(sys.argv[1])
    if not runs:
        print("bench report: no results", file=sys.stderr)
        return 1
    ages = [int(a) for a in meta.get("ages", "10,1000,5000").split(",")]
    lo, mid, hi = ages[0], ages[len(ages) // 2], ages[-1]
    ra, rb = meta.get("race_a", "?"), meta.get("race_b", "?")

    def val(key):
        return lambda r: r.get(key)

    def ratio(a, b):
        def f(r):
            x, y = r.get(a), r.get(b)
            return x / y if x is not None and y not in (None, 0) else None
        return f

    rows = [("Durable floor (temp write + fsync + no-replace rename + dir fsync)", None)]
    rows += [("  claims/s, alone before the run's commits", val("floor.per_s")),
             ("  p50 ms per claim, alone", val("floor.p50_ms"))]
    for a in ages:
        rows.append((f"  claims/s, interleaved with the C API appends @{a}", val(f"sc.floor.age{a}.per_s")))
    rows.append(("Single writer, 5-file appends into one partition, one long-lived handle", None))
    for who, k in (("C API", "sc"), ("Paimon", "paimon")):
        for a in ages:
            rows.append((f"  {who} append p50 ms @{a}", val(f"{k}.append.age{a}.p50_ms")))
            rows.append((f"  {who} append p99 ms @{a}", val(f"{k}.append.age{a}.p99_ms")))
    for a in ages:
        rows.append((f"  live files in the partition @{a}", val(f"sc.live_files.age{a}")))
    for a in ages:
        rows.append((f"  C API objects read (GET) per append @{a}", val(f"sc.append.age{a}.gets")))
        rows.append((f"  C API bytes read per append @{a}", val(f"sc.append.age{a}.bytes_read")))
        rows.append((f"  C API requests per append @{a}", val(f"sc.append.age{a}.requests")))
        rows.append((f"  C API requests inside the claim window per append @{a}, mean", val(f"sc.append.age{a}.window_requests")))
    rows.append(("Compaction deleting 10 files, adding 1", None))
    for who, k in (("C API", "sc"), ("Paimon", "paimon")):
        for a in ages:
            rows.append((f"  {who} compaction p50 ms @{a}", val(f"{k}.compact.age{a}.p50_ms")))
            rows.append((f"  {who} compaction p99 ms @{a}", val(f"{k}.compact.age{a}.p99_ms")))
    rows.append(("Replay filter (user whose last commit is snapshot 1, fresh handle)", None))
    for who, k in (("C API", "sc"), ("Paimon filterCommitted", "paimon")):
        for a in ages:
            rows.append((f"  {who} p50 ms @{a}", val(f"{k}.filter.age{a}.p50_ms")))
    rows.append(("CLI, a fresh process per append commit", None))
    for a in ages:
        rows.append((f"  CLI append p50 ms @{a}", val(f"cli.append.age{a}.p50_ms")))
        rows.append((f"  CLI objects read (GET) per append @{a}", val(f"cli.append.age{a}.gets")))
        rows.append((f"  CLI bytes read per append @{a}", val(f"cli.append.age{a}.bytes_read")))
    for tag, spec in (("race_a", ra), ("race_b", rb)):
        rows.append((f"Race {spec} (writers x commits each): C API W processes, Paimon W threads of one JVM; local disk unless 'on S3'", None))
        for who, k in (("C API", "sc"), ("Paimon", "paimon"), ("Paimon, a JVM each (--paimon-jvms)", "paimon_jvms"),
                       ("C API on S3", "s3")):
            rows.append((f"  {who} lost claims", val(f"{k}.{tag}.lost_claims")))
            rows.append((f"  {who} most claims lost by one commit", val(f"{k}.{tag}.max_lost_one_commit")))
            rows.append((f"  {who} commits given up", val(f"{k}.{tag}.gave_up")))
            rows.append((f"  {who} snapshots missing (must be 0)", val(f"{k}.{tag}.snapshots_missing")))
            rows.append((f"  {who} snapshots doubled/unexpected (must be 0)", val(f"{k}.{tag}.snapshots_doubled")))
            rows.append((f"  {who} commits/s", val(f"{k}.{tag}.per_s")))
            rows.append((f"  {who} slowest commit ms", val(f"{k}.{tag}.max_commit_ms")))
        rows.append((f"  C API requests per commit", val(f"sc.{tag}.requests_per_commit")))
        rows.append((f"  C API on S3 requests per commit", val(f"s3.{tag}.requests_per_commit")))
        rows.append((f"  C API requests inside the winning claim window per commit", val(f"sc.{tag}.window_requests_per_commit")))
        rows.append((f"  C API on S3 requests inside the winning claim window per commit", val(f"s3.{tag}.window_requests_per_commit")))
    rows.append(("S3 test server (gofakes3), single writer at age 10", None))
    rows += [("  C API append p50 ms", val(f"s3.append.age10.p50_ms")),
             ("  C API requests per uncontended append", val("s3.append.age10.requests")),
             ("  C API requests inside the claim window, mean", val("s3.append.age10.window_requests")),
             ("  C API requests inside the claim window, most in one append", val("s3.append.age10.window_requests_max")),
             ("  Paimon append p50 ms (--paimon-s3)", val("paimon_s3.append.age10.p50_ms")),
             ("  C API compaction p50 ms", val("s3.compact.age10.p50_ms")),
             ("  Paimon compaction p50 ms (--paimon-s3)", val("paimon_s3.compact.age10.p50_ms")),
             ("  CLI append p50 ms", val("s3_cli.append.age10.p50_ms")),
             ("  CLI objects read (GET) per append", val("s3_cli.append.age10.gets"))]
    big = meta.get("big", "? ?").split()
    rows.append((f"Compaction of {big[1]} files on a table of {big[0]} live files (fresh process)", None))
    rows += [("  commit ms", val("big.compact_ms")), ("  peak RSS MiB", val("big.peak_rss_mib"))]
    upsert = [(f"Flink upsert job ({meta.get('upsert', '?')}): GROUP BY into a primary-key table, bucket 2, lookup changelog", None)]
    for who, k in (("snapcommit sink", "sc"), ("Paimon TableCommitImpl", "paimon")):
        upsert += [(f"  {who} rows/s, steady window", val(f"upsert.{k}.rows_per_s")),
                   (f"  {who} rows/s, whole job", val(f"upsert.{k}.rows_per_s_whole")),
                   (f"  {who} checkpoints in the steady windows", val(f"upsert.{k}.window_checkpoints")),
                   (f"  {who} ms from the last row to the end of a job", val(f"upsert.{k}.tail_ms")),
                   (f"  {who} checkpoint -> visible p50 ms", val(f"upsert.{k}.visible_p50_ms")),
                   (f"  {who} checkpoint -> visible p90 ms", val(f"upsert.{k}.visible_p90_ms")),
                   (f"  {who} checkpoint -> visible max ms", val(f"upsert.{k}.visible_max_ms")),
                   (f"  {who} checkpoints measured", val(f"upsert.{k}.checkpoints_visible")),
                   (f"  {who} snapshots", val(f"upsert.{k}.snapshots")),
                   (f"  {who} Paimon's read equals the model (1 = yes)", val(f"upsert.{k}.model_ok"))]
    upsert += [("  rows/s steady: snapcommit / Paimon", ratio("upsert.sc.rows_per_s", "upsert.paimon.rows_per_s")),
               ("  rows/s whole job: snapcommit / Paimon", ratio("upsert.sc.rows_per_s_whole", "upsert.paimon.rows_per_s_whole")),
               ("  visible p50: snapcommit / Paimon", ratio("upsert.sc.visible_p50_ms", "upsert.paimon.visible_p50_ms"))]
    only_upsert = meta.get("commits_bench") == "0"
    rows += upsert
    # Issue 20: round trips through bench/latency_proxy.py ("M rtt D RACE ..."): wall / D.
    rtt_meta = meta.get("rtt", "").split()
    D = float(rtt_meta[0]) if rtt_meta else None
    rtt_race = rtt_meta[1] if len(rtt_meta) > 1 else "?"

    def per_d(key):
        return lambda r: r[key] / D if key in r and D else None

    def net_d(key):  # (wall at D - wall at D = 0) / D: the proxy's part alone
        k0 = "rtt0" + key[3:]
        return lambda r: (r[key] - r[k0]) / D if key in r and k0 in r and D else None

    rtt = [(f"S3 round trips: the S3 test server behind a proxy holding each request D = {fmt_d(D)} ms, age 10", None)]
    for what, k in (("C API warm append (long-lived handle)", "append"),
                    ("C API warm replay check (sc_table_filter_committed, same handle)", "filter"),
                    ("CLI append, a fresh process each", "cli")):
        rtt += [(f"  {what}: p50 ms", val(f"rtt.{k}.p50_ms")),
                (f"  ... p50 / D (round trips on the critical path)", per_d(f"rtt.{k}.p50_ms")),
                (f"  ... p50 ms at D = 0 (server, client and proxy time)", val(f"rtt0.{k}.p50_ms")),
                (f"  ... (p50 - p50 at D = 0) / D", net_d(f"rtt.{k}.p50_ms")),
                (f"  ... requests (the library's count{', the commit only' if k == 'cli' else ''})", val(f"rtt.{k}.requests")),
                (f"  ... requests (the proxy's count{', the whole process' if k == 'cli' else ''})", val(f"rtt.{k}.proxy_requests"))]
        if k != "filter":
            rtt.append((f"  ... new connections per commit (not delayed by the proxy)", val(f"rtt.{k}.proxy_connections")))
    rtt += [(f"  CLI race {rtt_race} (writers x commits, a fresh process per commit): requests per commit (proxy)",
             val("rtt.cli_race.proxy_requests_per_commit")),
            ("  ... requests per commit (the CLI's --stats, the commits only)", val("rtt.cli_race.requests_per_commit")),
            ("  ... new connections per commit", val("rtt.cli_race.proxy_connections_per_commit")),
            ("  ... commits given up", val("rtt.cli_race.gave_up")),
            ("  ... lost claims", val("rtt.cli_race.lost_claims")),
            ("  ... most claims lost by one commit", val("rtt.cli_race.max_lost_one_commit")),
            ("  ... snapshots missing (must be 0)", val("rtt.cli_race.snapshots_missing")),
            ("  ... commits/s", val("rtt.cli_race.per_s")),
            ("  ... slowest commit ms", val("rtt.cli_race.max_commit_ms")),
            ("  ... requests per commit at D = 0 (proxy)", val("rtt0.cli_race.proxy_requests_per_commit")),
            ("  ... commits given up at D = 0", val("rtt0.cli_race.gave_up")),
            ("  ... lost claims at D = 0", val("rtt0.cli_race.lost_claims"))]
    rtt_only = meta.get("rtt_only") == "1"
    if rtt_meta:
        rows += rtt
    # Issue 20 goal 2 ("M flink_rtt D ..."): checkpoint complete -> snapshot on the S3 server, FlinkRttBench.
    frtt_meta = meta.get("flink_rtt", "").split()
    FD = float(frtt_meta[0]) if frtt_meta else None
    frtt = [(f"Flink checkpoint -> visible on S3 behind the proxy (D = {fmt_d(FD)} ms); Paimon: TableCommitImpl on paimon-s3", None)]
    for pfx, at in (("flink_rtt", f"D = {fmt_d(FD)}"), ("flink_rtt0", "D = 0")):
        if pfx == "flink_rtt0" and FD == 0:
            continue
        for who, k in (("snapcommit sink", "sc"), ("Paimon committer", "paimon")):
            frtt += [(f"  {who} p50 ms at {at}", val(f"{pfx}.{k}.visible_p50_ms")),
                     (f"  {who} p90 ms at {at}", val(f"{pfx}.{k}.visible_p90_ms")),
                     (f"  {who} max ms at {at}", val(f"{pfx}.{k}.visible_max_ms")),
                     (f"  {who} commit returned, p50 ms, at {at}", val(f"{pfx}.{k}.return_p50_ms")),
                     (f"  {who} checkpoints measured at {at}", val(f"{pfx}.{k}.checkpoints")),
                     (f"  {who} ms between checkpoints at {at}", val(f"{pfx}.{k}.checkpoint_every_ms")),
                     (f"  {who} poll gap p50 ms (error bar) at {at}", val(f"{pfx}.{k}.poll_gap_p50_ms"))]
        frtt += [(f"  p50: snapcommit / Paimon at {at}", ratio(f"{pfx}.sc.visible_p50_ms", f"{pfx}.paimon.visible_p50_ms")),
                 (f"  p90: snapcommit / Paimon at {at}", ratio(f"{pfx}.sc.visible_p90_ms", f"{pfx}.paimon.visible_p90_ms"))]
    if FD:
        frtt += [("  snapcommit p50 / D (round trips)", lambda r: r["flink_rtt.sc.visible_p50_ms"] / FD
                  if "flink_rtt.sc.visible_p50_ms" in r else None),
                 ("  Paimon p50 / D (round trips)", lambda r: r["flink_rtt.paimon.visible_p50_ms"] / FD
                  if "flink_rtt.paimon.visible_p50_ms" in r else None)]
    flink_rtt_only = bool(frtt_meta) and meta.get("commits_bench") == "0" and "upsert" not in meta
    if frtt_meta:
        rows += frtt
        upsert += frtt if not flink_rtt_only else []
    rows.append(("Ratios", None))
    rows += [
        (f"  C API append p50 @{hi} / @{lo}", ratio(f"sc.append.age{hi}.p50_ms", f"sc.append.age{lo}.p50_ms")),
        (f"  C API compaction p50 @{hi} / @{lo}", ratio(f"sc.compact.age{hi}.p50_ms", f"sc.compact.age{lo}.p50_ms")),
        (f"  Paimon append p50 @{hi} / @{lo}", ratio(f"paimon.append.age{hi}.p50_ms", f"paimon.append.age{lo}.p50_ms")),
        (f"  C API commits/s / Paimon's @{hi}", ratio(f"sc.append.age{hi}.per_s", f"paimon.append.age{hi}.per_s")),
        (f"  C API commits/s / Paimon's @{lo}", ratio(f"sc.append.age{lo}.per_s", f"paimon.append.age{lo}.per_s")),
        (f"  C API commits/s @{lo} / durable floor (interleaved)", ratio(f"sc.append.age{lo}.per_s", f"sc.floor.age{lo}.per_s")),
        (f"  C API commits/s @{lo} / durable floor (alone)", ratio(f"sc.append.age{lo}.per_s", "floor.per_s")),
        (f"  CLI commits/s @{lo} / durable floor (interleaved)", ratio(f"cli.append.age{lo}.per_s", f"sc.floor.age{lo}.per_s")),
        (f"  CLI GETs per append @{hi} / @{lo}", ratio(f"cli.append.age{hi}.gets", f"cli.append.age{lo}.gets")),
        (f"  C API replay filter @{hi} / @{lo}", ratio(f"sc.filter.age{hi}.p50_ms", f"sc.filter.age{lo}.p50_ms")),
        (f"  Paimon replay filter @{hi} / @{lo}", ratio(f"paimon.filter.age{hi}.p50_ms", f"paimon.filter.age{lo}.p50_ms")),
        (f"  lost claims {rb}: C API / Paimon", ratio(f"sc.race_b.lost_claims", f"paimon.race_b.lost_claims")),
    ]

    if only_upsert:  # scripts/bench.sh --upsert-only (with --flink-rtt: both sections)
        rows = upsert
    if flink_rtt_only:  # scripts/bench.sh --flink-rtt-only
        rows = frtt
    if rtt_only:  # scripts/bench.sh --rtt-only
        rows = rtt

    def summary(f):
        xs = [x for x in (f(r) for r in runs) if x is not None]
        if not xs:
            return None
        return min(xs), statistics.median(xs), max(xs), len(xs)

    def fmt(x):
        if x is None:
            return "-"
        if abs(x) >= 1000:
            return f"{x:,.0f}"
        if abs(x) >= 10:
            return f"{x:.1f}"
        return f"{x:.3g}" if abs(x) < 1 else f"{x:.2f}"

    head = ("snapcommit Flink checkpoint-to-visible benchmark" if flink_rtt_only else
            "snapcommit Flink upsert benchmark" if only_upsert else
            "snapcommit S3 round-trip benchmark" if rtt_only else "snapcommit commit benchmark") + (" (SMOKE RUN: --quick; not results)" if meta.get("quick") == "1" else "")
    print(head)
    if only_upsert or rtt_only:
        print(f"runs: {len(runs)}")
    else:
        print(f"runs: {len(runs)}   ages: {'/'.join(map(str, ages))}   races: {ra}, {rb}   "
              f"commits per age: {meta.get('commits')} appends, {meta.get('compactions')} compactions, "
              f"{meta.get('cli_commits')} CLI")
    print(f"disk: {meta.get('disk')}   host: {meta.get('host')}   commit: {meta.get('commit')}   {meta.get('date')}")
    w = 72
    print(f"\n{'':{w}} {'min':>10} {'median':>10} {'max':>10}")
    for label, f in rows:
        if f is None:
            print(label)
            continue
        s = summary(f)
        if s is None:
            continue
        print(f"{label:{w}} {fmt(s[0]):>10} {fmt(s[1]):>10} {fmt(s[2]):>10}" + ("" if s[3] == len(runs) else f"  ({s[3]} runs)"))

    # ---- goals (issue 11): the median over the runs unless said otherwise ----
    def med(f):
        s = summary(f)
        return None if s is None else s[1]

    def total(key):
        xs = [r[key] for r in runs if key in r]
        return (sum(1 for x in xs if x > 0), len(xs)) if xs else None

    goals = []
    if only_upsert:  # no commit benchmark in this run: no goals of issue 11
        if FD is not None:
            f = ratio("flink_rtt.sc.visible_p50_ms", "flink_rtt.paimon.visible_p50_ms")
            m = summary(f)
            print(f"\nGoal 2 of issue 20 (median of the runs; D = {fmt_d(FD)} ms)")
            print(f"{'2  Flink checkpoint -> visible p50: snapcommit / Paimon <= 1/3':{w}} {fmt(m and m[1]):>10}   "
                  + ("not measured" if m is None else "holds" if m[1] <= 1 / 3 else "does not hold"))
        return 0

    def goal(text, measured, holds, shown=None):
        goals.append((text, shown if shown is not None else fmt(measured),
                      "not measured" if measured is None else ("holds" if holds(measured) else "does not hold")))

    goal(f"1  append p50 @{hi} <= 1.3 x p50 @{lo} (C API)", med(ratio(f"sc.append.age{hi}.p50_ms", f"sc.append.age{lo}.p50_ms")), lambda x: x <= 1.3)
    goal(f"1  compaction (10 deleted) p50 @{hi} <= 1.3 x p50 @{lo}", med(ratio(f"sc.compact.age{hi}.p50_ms", f"sc.compact.age{lo}.p50_ms")), lambda x: x <= 1.3)
    goal(f"1  C API commits/s >= 2 x Paimon's @{hi}", med(ratio(f"sc.append.age{hi}.per_s", f"paimon.append.age{hi}.per_s")), lambda x: x >= 2)
    goal(f"1  CLI objects read per append O(1): GETs @{hi} / @{lo} <= 1.5 (proxy)", med(ratio(f"cli.append.age{hi}.gets", f"cli.append.age{lo}.gets")), lambda x: x <= 1.5)
    gu = total("s3.race_b.gave_up")
    goal(f"2  S3 {rb} never gives up: runs with a give-up / runs (goal 0 of 10)", None if gu is None else gu[0],
         lambda x: x == 0 and gu[1] >= 10, None if gu is None else f"{gu[0]}/{gu[1]}")
    if gu is not None and gu[0] == 0 and gu[1] < 10:
        goals[-1] = (goals[-1][0], goals[-1][1], f"0 so far, needs 10 runs (--runs 10)")
    goal(f"2  S3 requests per commit under contention ({rb}) <= 20", med(val("s3.race_b.requests_per_commit")), lambda x: x <= 20)
    goal(f"2  local lost claims {rb}: C API <= Paimon", med(ratio("sc.race_b.lost_claims", "paimon.race_b.lost_claims")),
         lambda x: x <= 1.0)
    goal(f"3  C API commits/s @{lo} >= 0.5 x durable floor (interleaved)", med(ratio(f"sc.append.age{lo}.per_s", f"sc.floor.age{lo}.per_s")), lambda x: x >= 0.5)
    goal("3  S3 uncontended append <= 8 requests", med(val("s3.append.age10.requests")), lambda x: x <= 8)
    win = med(val("s3.append.age10.window_requests_max"))
    if win is None:
        goals.append(("3  ... of which <= 2 inside the claim window (most in one append)", "-",
                      "not measured (this engine does not count them: sc_commit_result has no window_stats)"))
    else:
        goal("3  ... of which <= 2 inside the claim window (most in one append)", win, lambda x: x <= 2)
    goal(f"4  compaction of {big[1]} files on {big[0]} live files < 200 ms", med(val("big.compact_ms")), lambda x: x < 200)
    goal(f"4  ... and < 256 MiB peak RSS", med(val("big.peak_rss_mib")), lambda x: x < 256)
    goal(f"   (kept) C API replay filter flat: @{hi} / @{lo} <= 1.3", med(ratio(f"sc.filter.age{hi}.p50_ms", f"sc.filter.age{lo}.p50_ms")), lambda x: x <= 1.3)

    goals11, goals = goals, []
    if D:
        goal("1  warm C API append <= 3 round trips: p50 / D", med(per_d("rtt.append.p50_ms")), lambda x: x <= 3)
        goal("1  warm replay check <= 1 round trip: p50 / D", med(per_d("rtt.filter.p50_ms")), lambda x: x <= 1)
        goal("1  fresh CLI commit <= 6 round trips: p50 / D", med(per_d("rtt.cli.p50_ms")), lambda x: x <= 6)
        goal(f"3  CLI race {rtt_race} on S3 <= 20 requests per commit (proxy's count)",
             med(val("rtt.cli_race.proxy_requests_per_commit")), lambda x: x <= 20)
        gu = total("rtt.cli_race.gave_up")
        goal(f"3  CLI race {rtt_race} never gives up: runs with a give-up / runs (goal 0 of 10)",
             None if gu is None else gu[0], lambda x: x == 0 and gu[1] >= 10, None if gu is None else f"{gu[0]}/{gu[1]}")
        if gu is not None and gu[0] == 0 and gu[1] < 10:
            goals[-1] = (goals[-1][0], goals[-1][1], "0 so far, needs 10 runs (--runs 10)")
    if FD:
        goal("2  Flink checkpoint -> visible p50 on S3: snapcommit / Paimon <= 1/3",
             med(ratio("flink_rtt.sc.visible_p50_ms", "flink_rtt.paimon.visible_p50_ms")), lambda x: x <= 1 / 3)
    if not rtt_only:
        print("\nGoals of issue 11 (median of the runs)")
        for text, shown, verdict in goals11:
            print(f"{text:{w}} {shown:>10}   {verdict}")
    if goals:
        print(f"\nGoals of issue 20 (median of the runs; D = {fmt_d(D if D is not None else FD)} ms)")
        for text, shown, verdict in goals:
            print(f"{text:{w}} {shown:>10}   {verdict}")
    if times:
        print("\nWall time per step, seconds (min / median / max over the runs)")
        for label, xs in times.items():
            print(f"  {label:{w - 2}} {min(xs):>10.1f} {statistics.median(xs):>10.1f} {max(xs):>10.1f}")
    if not rtt_only and (meta.get("quick") == "1" or (ages and ages[-1] < 5000)):
        print("\n(ages below 5,000 or --quick: the verdicts are not the issue's; run scripts/bench.sh without --quick)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
