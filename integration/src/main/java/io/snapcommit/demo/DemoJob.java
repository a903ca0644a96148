package io.snapcommit.demo;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.jni.SnapshotInfo;

/**
 * The main job: a generated stream (default 2,000 rows at 100 rows/s, so
 * about 20 s) written by two writer subtasks into a local snapcommit table
 * on an embedded MiniCluster, with a checkpoint every second and, unless
 * --no-failure, one injected task failure at 40 % of the rows. Prints the
 * snapshot log, the committer metrics and a check that the live files hold
 * every generated row exactly once, then reads the table back with Apache
 * Paimon's own Java reader (batch scan, time travel to every snapshot,
 * streaming read) and checks the same. Then an upsert job (UpsertDemo: a streaming GROUP BY into
 * a primary-key table next to it, "totals", 1,000 rows at 500 rows/s) read back by Paimon's reader and checked
 * against a model. Exit code 0 when every check passes.
 * The default table is &lt;tmp&gt;/warehouse/demo.db/events (Paimon's
 * filesystem-catalog layout).
 *
 * <pre>DemoJob [--table DIR] [--rows N] [--rate ROWS_PER_S] [--no-failure]</pre>
 */
public final class DemoJob {
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");
    static final String JOB_NAME = "snapcommit-demo";

    private DemoJob() {}

    /** Throws once, in the first attempt of subtask 0, after `after` rows: a task failure mid-stream. */
    public static final class FailOnce extends RichMapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private final long after;
        private long seen;

        public FailOnce(long after) {
            this.after = after;
        }

        @Override
        public String map(String row) {
            if (after > 0 && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0
                && getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0 && ++seen == after) {
                throw new IllegalStateException("injected failure after " + after + " rows (attempt 0)");
            }
            return row;
        }
    }

    public static void main(String[] args) throws Exception {
        String table = null;
        long rows = 2000;
        double rate = 100;
        boolean fail = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--table": table = args[++i]; break;
                case "--rows": rows = Long.parseLong(args[++i]); break;
                case "--rate": rate = Double.parseDouble(args[++i]); break;
                case "--no-failure": fail = false; break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        // Paimon's filesystem-catalog layout (warehouse/db.db/table), so Paimon's catalog finds it.
        if (table == null)
            table = Files.createTempDirectory("snapcommit-demo-").resolve("warehouse/demo.db/events").toString();
        Path tablePath = Paths.get(table).toAbsolutePath();
        table = tablePath.toString();
        boolean ok = run(table, rows, rate, fail);
        // The upsert job writes a primary-key table next to the events table (warehouse/demo.db/totals).
        ok &= UpsertDemo.run(tablePath.resolveSibling("totals").toString(), 1000, 500);
        System.exit(ok ? 0 : 1);
    }

    static boolean run(String table, long rows, double rate, boolean fail) throws Exception {
        int parallelism = 2;
        Map<String, String> settings = new HashMap<>();
        settings.put("execution.checkpointing.interval", "1 s");
        settings.put("restart-strategy.type", "fixed-delay");
        settings.put("restart-strategy.fixed-delay.attempts", "3");
        settings.put("restart-strategy.fixed-delay.delay", "500 ms");
        settings.put("metrics.reporter.collect.factory.class", CollectingReporterFactory.class.getName());
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.createLocalEnvironment(parallelism, Configuration.fromMap(settings));

        System.out.printf("snapcommit demo: %d rows at %.0f rows/s into %s, checkpoint every 1 s, %s%n", rows, rate,
                          table, fail ? "one injected failure at 40 % of the rows" : "no failure");
        DataGeneratorSource<String> source = new DataGeneratorSource<>(
            id -> "{\"id\":" + id + ",\"payload\":\"event-" + id + "\"}", rows, RateLimiterStrategy.perSecond(rate),
            Types.STRING);
        DataStream<String> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "generator")
            .map(new FailOnce(fail ? rows * 2 / 5 / parallelism : 0)).name("fail-once").uid("fail-once");
        // The table: (id BIGINT, payload STRING, p BIGINT = id % 3), partitioned by p, Parquet files.
        RowType rowType = RowType.of(new LogicalType[] {new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH),
                                                        new BigIntType()}, new String[] {"id", "payload", "p"});
        DataStream<RowData> rowData = events.map(line -> {
            long id = idOf(line);
            return (RowData) GenericRowData.of(id, StringData.fromString("event-" + id), id % 3);
        }).returns(InternalTypeInfo.of(rowType)).name("to-rowdata").uid("to-rowdata");
        SnapcommitSink.builder()
            .path(table)
            .rowType(rowType)
            .partitionKeys("p")
            .uidPrefix("demo")
            .build()
            .sinkTo(rowData);

        long started = System.currentTimeMillis();
        JobExecutionResult result = env.execute(JOB_NAME);
        long seconds = (System.currentTimeMillis() - started) / 1000;

        List<SnapshotInfo> log = TableContents.log(table);
        System.out.println();
        System.out.println("== snapshot log of " + table + " ==");
        System.out.print(TableContents.formatLog(log));

        long[] latency = CollectingReporter.histogram(JOB_NAME, "commitLatencyMs");
        System.out.println();
        System.out.printf("== committer metrics (Flink metric group 'snapcommit') ==%n");
        System.out.printf("commits %d, lost claims %d, retries %d, conflicts %d, filtered replays %d, unknown outcomes %d%n",
                          CollectingReporter.counter(JOB_NAME, "commits"),
                          CollectingReporter.counter(JOB_NAME, "lostClaims"),
                          CollectingReporter.counter(JOB_NAME, "retries"),
                          CollectingReporter.counter(JOB_NAME, "conflicts"),
                          CollectingReporter.counter(JOB_NAME, "filteredReplays"),
                          CollectingReporter.counter(JOB_NAME, "unknownOutcomes"));
        System.out.printf("commit latency: %d samples, p50 %d ms, p99 %d ms, max %d ms%n", latency[0], latency[1],
                          latency[2], latency[3]);
        System.out.printf("writers: %d rows in %d data files written by Paimon's writer (files of checkpoints that never completed included)%n",
                          CollectingReporter.counter(JOB_NAME, "rowsWritten"),
                          CollectingReporter.counter(JOB_NAME, "filesWritten"));

        List<String> live = TableContents.liveRows(table);
        Set<Long> ids = new HashSet<>();
        long duplicates = 0;
        for (String row : live) if (!ids.add(idOf(row))) duplicates++;
        long missing = 0;
        for (long id = 0; id < rows; id++) if (!ids.contains(id)) missing++;
        long lastTotal = log.isEmpty() ? 0 : log.get(log.size() - 1).totalRecordCount();
        boolean increasing = true;
        for (int i = 1; i < log.size(); i++)
            increasing &= log.get(i).commitIdentifier() > log.get(i - 1).commitIdentifier()
                          || !log.get(i).commitUser().equals(log.get(i - 1).commitUser());
        boolean ok = live.size() == rows && duplicates == 0 && missing == 0 && lastTotal == rows && increasing;
        System.out.println();
        System.out.printf("== check ==%nrows generated %d, rows in the live files of snapshot %d: %d (distinct %d, "
                          + "duplicates %d, missing %d), snapshot record count %d, identifiers strictly increasing: %s"
                          + "%njob ran %d s (net runtime %d ms)%n%s%n",
                          rows, log.isEmpty() ? 0 : log.get(log.size() - 1).id(), live.size(), ids.size(), duplicates,
                          missing, lastTotal, increasing, seconds, result.getNetRuntime(),
                          ok ? "OK: every generated row is in the table exactly once"
                             : "FAILED: the table does not hold every generated row exactly once");
        return readBackWithPaimon(table, rows) && ok;
    }

    /**
     * The table read back by Apache Paimon's own Java reader (PaimonReader: Paimon's filesystem
     * catalog when the table sits at warehouse/db.db/table, a batch scan of the latest snapshot,
     * time travel to every snapshot and a streaming read from the earliest one); prints what it
     * read and whether every generated row is there exactly once.
     */
    static boolean readBackWithPaimon(String table, long rows) {
        System.out.println();
        System.out.println("== read back by Apache Paimon 1.4.2 (Java table API, not snapcommit) ==");
        try (PaimonReader r = PaimonReader.openAny(table, Map.of())) {
            PaimonReader.Check c = r.check(60_000);
            Set<Long> ids = new HashSet<>();
            long duplicates = 0, missing = 0;
            for (String row : c.rows) if (!ids.add(idOf(row))) duplicates++;
            for (long id = 0; id < rows; id++) if (!ids.contains(id)) missing++;
            System.out.printf("table %s: %d snapshots (%d..%d)%n", r.name(), c.snapshots.size(), c.snapshots.get(0).id(),
                              c.snapshots.get(c.snapshots.size() - 1).id());
            System.out.printf("batch scan of the latest snapshot: %d rows (distinct %d, duplicates %d, missing %d)%n",
                              c.rows.size(), ids.size(), duplicates, missing);
            StringBuilder travel = new StringBuilder();
            List<Long> at = new ArrayList<>(c.rowsAtSnapshot.keySet());
            for (int i = 0; i < at.size(); i++) {
                if (at.size() > 8 && i >= 4 && i < at.size() - 3) {
                    if (i == 4) travel.append(" ...");
                    continue;
                }
                travel.append(' ').append(at.get(i)).append('=').append(c.rowsAtSnapshot.get(at.get(i)));
            }
            System.out.printf("time travel (scan.snapshot-id), rows per snapshot:%s%n", travel);
            long streamed = c.stream.values().stream().mapToLong(List::size).sum();
            System.out.printf("streaming read from snapshot %d: %d snapshots consumed in order, %d rows, each "
                              + "snapshot's rows once%n", c.snapshots.get(0).id(), c.stream.size(), streamed);
            boolean ok = c.rows.size() == rows && duplicates == 0 && missing == 0 && streamed == rows;
            System.out.println(ok ? "OK: Paimon reads every generated row exactly once, and each snapshot as committed"
                                  : "FAILED: Paimon does not read every generated row exactly once");
            return ok;
        } catch (RuntimeException e) {
            System.out.println("FAILED: Paimon's reader: " + e);
            e.printStackTrace(System.out);
            return false;
        }
    }

    static long idOf(String row) {
        Matcher m = ID.matcher(row);
        if (!m.find()) throw new IllegalArgumentException("no id in " + row);
        return Long.parseLong(m.group(1));
    }
}
