package io.snapcommit.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.options.CatalogOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.CommitMessageSerializer;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataTypes;

import io.snapcommit.demo.PaimonReader;
import io.snapcommit.demo.UpsertDemo;
import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.flink.internal.SnapcommitWriterOperator;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;

/**
 * The upsert benchmark (scripts/bench.sh --upsert, docs/performance.md): the same streaming
 * aggregate (count and sum of v per key, over ids 0..rows-1, k = id % keys) into a primary-key
 * table (bucket 2, changelog-producer lookup), through the snapcommit sink and through a
 * bench-only sink of Paimon 1.4.2's own TableWriteImpl (writers) and TableCommitImpl (committer),
 * job after job in this JVM with the same source, options and parallelism. Both sides shuffle rows
 * to writers by Paimon's bucket channel, write with prepareCommit(lookup wait, checkpoint) before
 * each barrier and commit every pending checkpoint at or below c when checkpoint c completes.
 *
 * <p>Fairness: an untimed warm-up job per side, then the timed jobs in {@code --order} (default
 * sc,paimon,paimon,sc; bench.sh alternates it with paimon,sc,sc,paimon between runs). The first
 * timed job of a JVM costs a third to a half more CPU for the same rows (JIT still compiling the shared
 * Flink and Paimon code) whichever side runs it, so a fixed sc-then-paimon order measured the
 * position, not the sink; ABBA also cancels a linear drift of the machine's load.
 *
 * <p>Measured per side, over its jobs: rows/s in the steady window (rows generated between the
 * completion notices of a job's first checkpoint and of its last checkpoint completed while the
 * source still ran; start-up, the first checkpoint, end of input and the final checkpoint are
 * outside it), rows/s of the whole job (first generated row to the end of the job, final commit
 * included) and the time from the last row to the end, and checkpoint-to-visible latency (from
 * checkpoint c's completion notice at a probe task to the return of the commit that made its
 * snapshot readable). Each table is then read back by Paimon's reader and compared with the
 * model. Prints "R upsert.SIDE.KEY VALUE" lines and a summary.
 *
 * <pre>UpsertBench --dir DIR [--rows N] [--keys K] [--rate ROWS_PER_S (0: unlimited)] [--interval MS]
 *             [--parallelism P] [--warmup ROWS] [--order sc,paimon,paimon,sc]</pre>
 */
public final class UpsertBench {
    static final RowType ROW = RowType.of(new LogicalType[] {new BigIntType(false), new BigIntType(), new BigIntType()},
                                          new String[] {"k", "cnt", "total"});
    static final Map<String, String> OPTIONS = Map.of("bucket", "2", "changelog-producer", "lookup");

    /** side → checkpoint → nanoTime of its completion notice at the probe / of its snapshot becoming visible. */
    static final Map<String, Map<Long, Long>> COMPLETED = new ConcurrentHashMap<>();
    static final Map<String, Map<Long, Long>> VISIBLE = new ConcurrentHashMap<>();
    /** side → nanoTime of the first generated row (rows/s counts from there: job start-up excluded). */
    static final Map<String, Long> FIRST_ROW = new ConcurrentHashMap<>();
    /** side → rows generated so far; nanoTime of the last row; checkpoint → rows generated at its completion notice. */
    static final Map<String, AtomicLong> GENERATED = new ConcurrentHashMap<>();
    static final Map<String, Long> LAST_ROW = new ConcurrentHashMap<>();
    static final Map<String, Map<Long, Long>> ROWS_AT = new ConcurrentHashMap<>();
    /** side → nanoTime of the end of its job (execute() returned). */
    static final Map<String, Long> END = new ConcurrentHashMap<>();

    /** The timed jobs, in this order by default (ABBA: a drift of the JVM or of the machine's load cancels out). */
    static final String DEFAULT_ORDER = "sc,paimon,paimon,sc";

    private UpsertBench() {}

    static void mark(Map<String, Map<Long, Long>> m, String side, long checkpoint) {
        m.computeIfAbsent(side, s -> new ConcurrentHashMap<>()).putIfAbsent(checkpoint, System.nanoTime());
    }

    /** Records when each checkpoint's completion reaches a task (parallelism 1, receives no rows). */
    static final class Probe extends AbstractStreamOperator<Void> implements OneInputStreamOperator<RowData, Void> {
        private static final long serialVersionUID = 1L;
        private final String side;

        Probe(String side) {
            this.side = side;
        }

        @Override
        public void processElement(StreamRecord<RowData> element) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            mark(COMPLETED, side, checkpointId);
            ROWS_AT.computeIfAbsent(side, s -> new ConcurrentHashMap<>())
                .putIfAbsent(checkpointId, GENERATED.get(side).get());
            super.notifyCheckpointComplete(checkpointId);
        }
    }

    /** Paimon's TableWriteImpl as the snapcommit writer uses it; emits (checkpoint, version, CommitMessage bytes). */
    static final class PaimonWriter extends AbstractStreamOperator<Tuple3<Long, Integer, byte[]>>
        implements OneInputStreamOperator<RowData, Tuple3<Long, Integer, byte[]>>, BoundedOneInput {
        private static final long serialVersionUID = 1L;
        private final String path, user;
        private transient TableWriteImpl<?> write;
        private transient IOManager ioManager;
        private transient RowConverter converter;
        private transient CommitMessageSerializer serializer;
        private transient boolean waitCompaction, ended;

        PaimonWriter(String path, String user) {
            this.path = path;
            this.user = user;
        }

        @Override
        public void open() throws Exception {
            super.open();
            FileStoreTable table = openTable(path).copy(Map.of("target-file-size", Long.toString(128L << 20)));
            ioManager = IOManager.create(getContainingTask().getEnvironment().getIOManager().getSpillingDirectoriesPaths());
            write = table.newWrite(user).withIOManager(ioManager).withIgnorePreviousFiles(false);
            converter = new RowConverter(ROW);
            serializer = new CommitMessageSerializer();
            waitCompaction = !table.coreOptions().writeOnly() && table.coreOptions().prepareCommitWaitCompaction();
        }

        @Override
        public void processElement(StreamRecord<RowData> element) throws Exception {
            write.write(converter.convert(element.getValue()));
        }

        @Override
        public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
            super.prepareSnapshotPreBarrier(checkpointId);
            if (!ended) emit(waitCompaction, checkpointId);
        }

        @Override
        public void endInput() throws Exception {
            if (!ended) {
                ended = true;
                emit(true, Long.MAX_VALUE);
            }
        }

        private void emit(boolean wait, long checkpointId) throws Exception {
            for (CommitMessage m : write.prepareCommit(wait, checkpointId)) {
                if (((CommitMessageImpl) m).isEmpty()) continue;
                output.collect(new StreamRecord<>(Tuple3.of(checkpointId, serializer.getVersion(), serializer.serialize(m))));
            }
        }

        @Override
        public void close() throws Exception {
            if (write != null) write.close();
            if (ioManager != null) ioManager.close();
            super.close();
        }
    }

    /**
     * Paimon's TableCommitImpl behind the snapcommit committer's protocol: messages received before
     * snapshotState(c) are pending checkpoint c; notifyCheckpointComplete(c) commits every pending
     * checkpoint at or below c, identifier = checkpoint id. No failover support: a benchmark only.
     */
    static final class PaimonCommitter extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<Tuple3<Long, Integer, byte[]>, Void> {
        private static final long serialVersionUID = 1L;
        private final String path, user, side;
        private transient TableCommitImpl commit;
        private transient CommitMessageSerializer serializer;
        private transient List<CommitMessage> received;
        private transient TreeMap<Long, List<CommitMessage>> pending;

        PaimonCommitter(String path, String user, String side) {
            this.path = path;
            this.user = user;
            this.side = side;
        }

        @Override
        public void open() throws Exception {
            super.open();
            commit = openTable(path).newCommit(user);
            serializer = new CommitMessageSerializer();
            received = new ArrayList<>();
            pending = new TreeMap<>();
        }

        @Override
        public void processElement(StreamRecord<Tuple3<Long, Integer, byte[]>> element) throws Exception {
            received.add(serializer.deserialize(element.getValue().f1, element.getValue().f2));
        }

        @Override
        public void snapshotState(StateSnapshotContext context) throws Exception {
            super.snapshotState(context);
            if (!received.isEmpty()) pending.put(context.getCheckpointId(), received);
            received = new ArrayList<>();
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            super.notifyCheckpointComplete(checkpointId);
            boolean any = false;
            while (!pending.isEmpty() && pending.firstKey() <= checkpointId) {
                Map.Entry<Long, List<CommitMessage>> e = pending.pollFirstEntry();
                commit.commit(e.getKey(), e.getValue());
                any = true;
            }
            if (any) mark(VISIBLE, side, checkpointId);
        }

        @Override
        public void close() throws Exception {
            if (commit != null) commit.close();
            super.close();
        }
    }

    static FileStoreTable openTable(String path) {
        Path p = Paths.get(path);
        try (Catalog c = catalog(p.getParent().getParent().toString())) {
            return (FileStoreTable) c.getTable(Identifier.create("bench", p.getFileName().toString()));
        } catch (Exception e) {
            throw new IllegalStateException("cannot open " + path + ": " + e, e);
        }
    }

    static Catalog catalog(String warehouse) {
        Options o = new Options();
        o.set(CatalogOptions.WAREHOUSE.key(), warehouse);
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /** The aggregate's upserts (+I and +U; -U dropped as the planner does for an upsert sink) as RowData. */
    static DataStream<RowData> upserts(StreamExecutionEnvironment env, String side, long rows, long keys, double rate) {
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        GENERATED.put(side, new AtomicLong());
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
            id -> id, rows, rate > 0 ? RateLimiterStrategy.perSecond(rate) : RateLimiterStrategy.noOp(), Types.LONG);
        DataStream<Row> in = env.fromSource(source, WatermarkStrategy.noWatermarks(), "generator")
            .map(id -> {
                FIRST_ROW.putIfAbsent(side, System.nanoTime());
                if (GENERATED.get(side).incrementAndGet() == rows) LAST_ROW.put(side, System.nanoTime());
                return Row.of(id % keys, id);
            }).returns(Types.ROW_NAMED(new String[] {"k", "v"}, Types.LONG, Types.LONG));
        t.createTemporaryView("src", t.fromDataStream(in));
        Table agg = t.sqlQuery("SELECT k, COUNT(*) AS cnt, SUM(v) AS total FROM src GROUP BY k");
        return t.toChangelogStream(agg).filter(r -> r.getKind() != RowKind.UPDATE_BEFORE)
            .map(r -> (RowData) GenericRowData.ofKind(r.getKind(), r.getField(0), r.getField(1), r.getField(2)))
            .returns(InternalTypeInfo.of(ROW)).name("to-rowdata");
    }

    static StreamExecutionEnvironment env(int parallelism, long intervalMs) {
        Map<String, String> s = new HashMap<>();
        s.put("execution.checkpointing.interval", intervalMs + " ms");
        s.put("restart-strategy.type", "none");
        return StreamExecutionEnvironment.createLocalEnvironment(parallelism, Configuration.fromMap(s));
    }

    static void probe(DataStream<RowData> upserts, String side) {
        upserts.filter(r -> false).name("no-rows").transform("checkpoint-probe", Types.VOID, new Probe(side))
            .setParallelism(1);
    }

    /** One job; returns ms from its first generated row to the end of the job (final commit included). */
    static long runSnapcommit(String path, String side, long rows, long keys, double rate, int p, long interval)
        throws Exception {
        StreamExecutionEnvironment env = env(p, interval);
        DataStream<RowData> up = upserts(env, side, rows, keys, rate);
        probe(up, side);
        SnapcommitSink.Builder b = SnapcommitSink.builder().path(path).rowType(ROW).primaryKeys("k").uidPrefix(side)
            .commitListener(e -> mark(VISIBLE, side, e.checkpointId()));
        OPTIONS.forEach(b::option);
        b.build().sinkTo(up);
        env.execute("upsert-bench-" + side);
        END.put(side, System.nanoTime());
        return (END.get(side) - FIRST_ROW.get(side)) / 1_000_000;
    }

    static long runPaimon(String path, String side, long rows, long keys, double rate, int p, long interval)
        throws Exception {
        try (Catalog c = catalog(Paths.get(path).getParent().getParent().toString())) {
            c.createDatabase("bench", true);
            Schema.Builder s = Schema.newBuilder().column("k", DataTypes.BIGINT().notNull())
                .column("cnt", DataTypes.BIGINT()).column("total", DataTypes.BIGINT()).primaryKey("k");
            OPTIONS.forEach(s::option);
            c.createTable(Identifier.create("bench", Paths.get(path).getFileName().toString()), s.build(), false);
        }
        StreamExecutionEnvironment env = env(p, interval);
        DataStream<RowData> up = upserts(env, side, rows, keys, rate);
        probe(up, side);
        PaimonTableSpec spec = PaimonTableSpec.fromJson(
            new String(Files.readAllBytes(Paths.get(path, "schema/schema-0")), java.nio.charset.StandardCharsets.UTF_8));
        String user = "bench-" + side;
        TypeInformation<Tuple3<Long, Integer, byte[]>> type =
            Types.TUPLE(Types.LONG, Types.INT, Types.PRIMITIVE_ARRAY(Types.BYTE));
        SnapcommitWriterOperator.shuffleByBucket(up, spec, ROW)
            .transform("paimon-writer", type, new PaimonWriter(path, user))
            .transform("paimon-committer", Types.VOID, new PaimonCommitter(path, user, side)).setParallelism(1)
            .setMaxParallelism(1);
        env.execute("upsert-bench-" + side);
        END.put(side, System.nanoTime());
        return (END.get(side) - FIRST_ROW.get(side)) / 1_000_000;
    }

    static long percentile(List<Long> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
    }

    /**
     * The steady window of a side: from the completion notice of its first checkpoint to that of
     * its last checkpoint completed while the source was still generating (rows < all). Returns
     * {rows generated in the window, its length in ns, checkpoints completed in it}, or null when
     * fewer than two checkpoints completed while the source ran.
     */
    static long[] window(String side, long rows) {
        Map<Long, Long> at = ROWS_AT.getOrDefault(side, Map.of()), done = COMPLETED.getOrDefault(side, Map.of());
        TreeMap<Long, Long> running = new TreeMap<>();
        for (Map.Entry<Long, Long> e : at.entrySet())
            if (e.getValue() < rows && done.containsKey(e.getKey())) running.put(e.getKey(), e.getValue());
        if (running.size() < 2) return null;
        long first = running.firstKey(), last = running.lastKey();
        return new long[] {running.get(last) - running.get(first), done.get(last) - done.get(first),
                           running.size() - 1};
    }

    /**
     * Prints the R lines of one side over its timed jobs (their tables under {@code wh}); returns
     * whether Paimon's read of every table equals the model.
     */
    static boolean report(String side, List<String> jobs, String wh, long rows, long keys) {
        List<Long> lat = new ArrayList<>();
        long windowRows = 0, windowNs = 0, windowCheckpoints = 0, wholeMs = 0, tailMs = 0;
        int snapshots = 0, windows = 0;
        boolean ok = true;
        List<String> model = UpsertDemo.model(rows, keys);
        for (String job : jobs) {
            Map<Long, Long> done = COMPLETED.getOrDefault(job, Map.of()), seen = VISIBLE.getOrDefault(job, Map.of());
            for (Map.Entry<Long, Long> e : seen.entrySet()) {
                Long c = done.get(e.getKey());
                if (c != null) lat.add(Math.max(0, e.getValue() - c) / 1000); // µs
            }
            List<String> got;
            try (PaimonReader r = PaimonReader.open(wh + "/" + job, Map.of())) {
                got = new ArrayList<>(r.rows());
                snapshots += r.snapshots().size();
            }
            Collections.sort(got);
            ok &= got.equals(model);
            long[] w = window(job, rows);
            if (w != null) {
                windowRows += w[0];
                windowNs += w[1];
                windowCheckpoints += w[2];
                windows++;
            }
            wholeMs += (END.get(job) - FIRST_ROW.get(job)) / 1_000_000;
            // Before the window: first row to the first checkpoint's completion notice, and the rows by then.
            Map.Entry<Long, Long> first = new TreeMap<>(done).firstEntry();
            System.err.printf("upsert job %s: %s rows/s steady, %d ms from the first row to the end; first checkpoint "
                              + "%s%n", job, w == null ? "-" : String.format("%.0f", w[0] * 1e9 / Math.max(1, w[1])),
                              (END.get(job) - FIRST_ROW.get(job)) / 1_000_000,
                              first == null ? "-" : String.format("%d completed %d ms after the first row, %d rows in",
                                  first.getKey(), (first.getValue() - FIRST_ROW.get(job)) / 1_000_000,
                                  ROWS_AT.get(job).get(first.getKey())));
            tailMs += (END.get(job) - LAST_ROW.get(job)) / 1_000_000;
        }
        Collections.sort(lat);
        String k = "R upsert." + side + ".";
        double steady = windows == jobs.size() ? windowRows * 1e9 / Math.max(1, windowNs) : Double.NaN;
        if (windows == jobs.size()) { // a side without a window in every job has no steady rate
            System.out.printf("%srows_per_s %.0f%n", k, steady);
            System.out.printf("%swindow_ms %d%n", k, windowNs / 1_000_000);
            System.out.printf("%swindow_checkpoints %d%n", k, windowCheckpoints);
        }
        double whole = rows * jobs.size() * 1000.0 / Math.max(1, wholeMs);
        System.out.printf("%srows_per_s_whole %.0f%n", k, whole);
        System.out.printf("%sms_from_first_row %d%n", k, wholeMs / jobs.size());
        System.out.printf("%stail_ms %d%n", k, tailMs / jobs.size());
        System.out.printf("%scheckpoints_visible %d%n", k, lat.size());
        System.out.printf("%ssnapshots %d%n", k, snapshots);
        if (!lat.isEmpty()) {
            System.out.printf("%svisible_p50_ms %.2f%n", k, percentile(lat, 0.5) / 1000.0);
            System.out.printf("%svisible_p90_ms %.2f%n", k, percentile(lat, 0.9) / 1000.0);
            System.out.printf("%svisible_max_ms %.2f%n", k, lat.get(lat.size() - 1) / 1000.0);
        }
        System.out.printf("%smodel_ok %d%n", k, ok ? 1 : 0);
        System.err.printf("upsert %-8s %d jobs of %d rows (%d keys): %.0f rows/s steady (%d checkpoints, %d ms), %.0f "
                          + "rows/s whole job (%d ms per job, of which %d ms after the last row); %d snapshots; "
                          + "checkpoint->visible over %d checkpoints: p50 %s ms, max %s ms; Paimon's read %s the "
                          + "model%n", side, jobs.size(), rows, keys, steady, windowCheckpoints, windowNs / 1_000_000,
                          whole, wholeMs / jobs.size(), tailMs / jobs.size(), snapshots, lat.size(),
                          lat.isEmpty() ? "-" : String.format("%.2f", percentile(lat, 0.5) / 1000.0),
                          lat.isEmpty() ? "-" : String.format("%.2f", lat.get(lat.size() - 1) / 1000.0),
                          ok ? "equals" : "DIFFERS FROM");
        return ok;
    }

    /**
     * The timed jobs of each side ("sc_1", "paimon_2", ...) by {@code --order}, checked before any
     * job runs (a bad order used to show only after all of them ran).
     *
     * @throws IllegalArgumentException unless the order holds only sc and paimon, as many of each, at least one
     */
    static Map<String, List<String>> jobs(String[] order) {
        Map<String, List<String>> jobs = new TreeMap<>();
        for (int i = 0; i < order.length; i++) jobs.computeIfAbsent(order[i], s -> new ArrayList<>()).add(order[i] + "_" + (i + 1));
        if (!jobs.keySet().equals(Set.of("sc", "paimon")) || jobs.get("sc").size() != jobs.get("paimon").size())
            throw new IllegalArgumentException("--order " + String.join(",", order)
                                               + ": only sc and paimon, as many sc as paimon jobs, at least one each");
        return jobs;
    }

    public static void main(String[] args) throws Exception {
        String dir = null;
        long rows = 1_000_000, keys = 10_000, interval = 1000, warmup = 0;
        double rate = 0;
        int p = 2;
        String[] order = DEFAULT_ORDER.split(",");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir": dir = args[++i]; break;
                case "--rows": rows = Long.parseLong(args[++i]); break;
                case "--keys": keys = Long.parseLong(args[++i]); break;
                case "--rate": rate = Double.parseDouble(args[++i]); break;
                case "--interval": interval = Long.parseLong(args[++i]); break;
                case "--parallelism": p = Integer.parseInt(args[++i]); break;
                case "--warmup": warmup = Long.parseLong(args[++i]); break;
                case "--order": order = args[++i].split(","); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (dir == null) throw new IllegalArgumentException("--dir DIR is required");
        Map<String, List<String>> jobs = jobs(order);
        String wh = Paths.get(dir).toAbsolutePath().resolve("warehouse/bench.db").toString();
        System.out.printf("M upsert rows %d keys %d rate %s interval_ms %d parallelism %d warmup %d order %s%n", rows,
                          keys, rate > 0 ? Double.toString(rate) : "unlimited", interval, p, warmup,
                          String.join(",", order));
        if (warmup > 0) { // JIT and class loading of both paths, untimed
            runSnapcommit(wh + "/warm_sc", "warm_sc", warmup, keys, 0, p, interval);
            runPaimon(wh + "/warm_paimon", "warm_paimon", warmup, keys, 0, p, interval);
        }
        for (int i = 0; i < order.length; i++) {
            String job = order[i] + "_" + (i + 1);
            if (order[i].equals("sc")) runSnapcommit(wh + "/" + job, job, rows, keys, rate, p, interval);
            else runPaimon(wh + "/" + job, job, rows, keys, rate, p, interval);
        }
        boolean ok = report("sc", jobs.get("sc"), wh, rows, keys) & report("paimon", jobs.get("paimon"), wh, rows, keys);
        System.exit(ok ? 0 : 1);
    }
}
