package io.snapcommit.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

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
import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.flink.internal.SnapcommitWriterOperator;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;

/**
 * The upsert benchmark (scripts/bench.sh --upsert, docs/performance.md): the same streaming
 * aggregate (count and sum of v per key, over ids 0..rows-1, k = id % keys) into a primary-key
 * table (bucket 2, changelog-producer lookup), once through the snapcommit sink and once through a
 * bench-only sink of Paimon 1.4.2's own TableWriteImpl (writers) and TableCommitImpl (committer),
 * one job after the other in this JVM with the same source, options and parallelism. Both sides
 * shuffle rows to writers by Paimon's bucket channel, write with prepareCommit(lookup wait,
 * checkpoint) before each barrier and commit every pending checkpoint at or below c when
 * checkpoint c completes. Measured per side: rows/s (rows / the time from the first generated row
 * to the end of the job, its final checkpoint and commit included; start-up excluded) and
 * checkpoint-to-visible latency (from checkpoint c's completion notice at a probe task to the
 * commit that made its snapshot readable returning). Each table is then read back by Paimon's
 * reader and compared with the model. Prints "R upsert.SIDE.KEY VALUE" lines and a summary.
 *
 * <pre>UpsertBench --dir DIR [--rows N] [--keys K] [--rate ROWS_PER_S (0: unlimited)] [--interval MS]
 *             [--parallelism P] [--warmup ROWS]</pre>
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
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
            id -> id, rows, rate > 0 ? RateLimiterStrategy.perSecond(rate) : RateLimiterStrategy.noOp(), Types.LONG);
        DataStream<Row> in = env.fromSource(source, WatermarkStrategy.noWatermarks(), "generator")
            .map(id -> {
                FIRST_ROW.putIfAbsent(side, System.nanoTime());
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
        return (System.nanoTime() - FIRST_ROW.get(side)) / 1_000_000;
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
        return (System.nanoTime() - FIRST_ROW.get(side)) / 1_000_000;
    }

    static List<String> model(long rows, long keys) {
        TreeMap<Long, long[]> m = new TreeMap<>();
        for (long id = 0; id < rows; id++) {
            long[] a = m.computeIfAbsent(id % keys, k -> new long[2]);
            a[0]++;
            a[1] += id;
        }
        List<String> out = new ArrayList<>();
        m.forEach((k, a) -> out.add("{\"k\":" + k + ",\"cnt\":" + a[0] + ",\"total\":" + a[1] + "}"));
        Collections.sort(out);
        return out;
    }

    static long percentile(List<Long> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
    }

    /** Prints the R lines of one side; returns whether Paimon's read equals the model. */
    static boolean report(String side, String path, long rows, long keys, long netMs) {
        Map<Long, Long> done = COMPLETED.getOrDefault(side, Map.of()), seen = VISIBLE.getOrDefault(side, Map.of());
        List<Long> lat = new ArrayList<>();
        for (Map.Entry<Long, Long> e : seen.entrySet()) {
            Long c = done.get(e.getKey());
            if (c != null) lat.add(Math.max(0, e.getValue() - c) / 1000); // µs
        }
        Collections.sort(lat);
        List<String> got;
        int snapshots;
        try (PaimonReader r = PaimonReader.open(path, Map.of())) {
            got = new ArrayList<>(r.rows());
            snapshots = r.snapshots().size();
        }
        Collections.sort(got);
        boolean ok = got.equals(model(rows, keys));
        String k = "R upsert." + side + ".";
        System.out.printf("%srows_per_s %.0f%n", k, rows * 1000.0 / Math.max(1, netMs));
        System.out.printf("%sms_from_first_row %d%n", k, netMs);
        System.out.printf("%scheckpoints_visible %d%n", k, lat.size());
        System.out.printf("%ssnapshots %d%n", k, snapshots);
        if (!lat.isEmpty()) {
            System.out.printf("%svisible_p50_ms %.2f%n", k, percentile(lat, 0.5) / 1000.0);
            System.out.printf("%svisible_p90_ms %.2f%n", k, percentile(lat, 0.9) / 1000.0);
            System.out.printf("%svisible_max_ms %.2f%n", k, lat.get(lat.size() - 1) / 1000.0);
        }
        System.out.printf("%smodel_ok %d%n", k, ok ? 1 : 0);
        System.err.printf("upsert %-8s %d rows (%d keys) in %d ms: %.0f rows/s; %d snapshots; checkpoint->visible "
                          + "over %d checkpoints: p50 %s ms, max %s ms; Paimon's read %s the model%n", side, rows, keys,
                          netMs, rows * 1000.0 / Math.max(1, netMs), snapshots, lat.size(),
                          lat.isEmpty() ? "-" : String.format("%.2f", percentile(lat, 0.5) / 1000.0),
                          lat.isEmpty() ? "-" : String.format("%.2f", lat.get(lat.size() - 1) / 1000.0),
                          ok ? "equals" : "DIFFERS FROM");
        return ok;
    }

    public static void main(String[] args) throws Exception {
        String dir = null;
        long rows = 1_000_000, keys = 10_000, interval = 1000, warmup = 0;
        double rate = 0;
        int p = 2;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir": dir = args[++i]; break;
                case "--rows": rows = Long.parseLong(args[++i]); break;
                case "--keys": keys = Long.parseLong(args[++i]); break;
                case "--rate": rate = Double.parseDouble(args[++i]); break;
                case "--interval": interval = Long.parseLong(args[++i]); break;
                case "--parallelism": p = Integer.parseInt(args[++i]); break;
                case "--warmup": warmup = Long.parseLong(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (dir == null) throw new IllegalArgumentException("--dir DIR is required");
        String wh = Paths.get(dir).toAbsolutePath().resolve("warehouse/bench.db").toString();
        System.out.printf("M upsert rows %d keys %d rate %s interval_ms %d parallelism %d warmup %d%n", rows, keys,
                          rate > 0 ? Double.toString(rate) : "unlimited", interval, p, warmup);
        if (warmup > 0) { // JIT and class loading of both paths, untimed
            runSnapcommit(wh + "/warm_sc", "warm_sc", warmup, keys, 0, p, interval);
            runPaimon(wh + "/warm_paimon", "warm_paimon", warmup, keys, 0, p, interval);
        }
        long sc = runSnapcommit(wh + "/sc", "sc", rows, keys, rate, p, interval);
        long pm = runPaimon(wh + "/paimon", "paimon", rows, keys, rate, p, interval);
        boolean ok = report("sc", wh + "/sc", rows, keys, sc) & report("paimon", wh + "/paimon", rows, keys, pm);
        System.exit(ok ? 0 : 1);
    }
}
