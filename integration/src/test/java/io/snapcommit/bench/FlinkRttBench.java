package io.snapcommit.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
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

/**
 * Checkpoint to visible on S3 (issue 20, scripts/bench.sh --flink-rtt, docs/performance.md): the
 * upsert aggregate of {@link UpsertBench} (rate-limited, so every checkpoint carries a similar
 * change set) into a primary-key table on S3, once through the snapcommit sink and once through
 * Paimon 1.4.2's own TableWriteImpl + TableCommitImpl, each job writing through {@code --endpoint}
 * (the latency proxy in front of the S3 server).
 *
 * <p>Measured per checkpoint c: from c's completion notice at a probe task of the job (the
 * notice reaches the committer at about the same time) to the moment a poller thread in this
 * JVM first finds the snapshot whose commitIdentifier is c (a HEAD of {@code snapshot-N}, then a
 * GET of it for its identifier) on {@code --server}, the S3 server itself, not through the proxy:
 * the poll adds no latency of its own. The object was absent at the previous HEAD and present at
 * this one; the time recorded is the answer of this one, so the figure is late by at most the gap
 * between the two (printed as poll_gap_ms: the error bar). A checkpoint whose notice the probe did
 * not see is attributed to the next notice that it did see (the commit it triggered). The first
 * {@code --warmup} checkpoints of each job are left out (start-up, JIT, connection pools).
 *
 * <p>Also printed: the committer's own return from its commit (snapcommit's CommitListener, the
 * Paimon committer's return of commit()), as a cross-check of the poller.
 *
 * <pre>FlinkRttBench --endpoint URL --server URL --bucket B --prefix P --access-key K --secret-key S
 *               [--label flink_rtt] [--order sc,paimon] [--checkpoints 30] [--warmup 5]
 *               [--interval MS] [--rate ROWS_PER_S] [--keys K] [--parallelism P]
 *               [--paimon-option KEY=VALUE ...]</pre>
 */
public final class FlinkRttBench {
    /** Both tables: a primary-key table of 2 buckets, the sink's and Paimon's defaults otherwise. */
    static final Map<String, String> OPTIONS = Map.of("bucket", "2");

    /** job → snapshot id → [nanoTime found, poll gap ns, commitIdentifier]. */
    static final Map<String, ConcurrentSkipListMap<Long, long[]>> FOUND = new ConcurrentHashMap<>();
    /** job → checkpoint → nanoTime the committer returned from committing it. */
    static final Map<String, Map<Long, Long>> RETURNED = new ConcurrentHashMap<>();

    private FlinkRttBench() {}

    /** Settings of one run. */
    static final class Setup {
        String endpoint, server, bucket, prefix, accessKey, secretKey, region = "us-east-1", label = "flink_rtt";
        long interval = 1000, keys = 1000;
        double rate = 2000;
        int checkpoints = 30, warmup = 5, parallelism = 2;
        String[] order = {"sc", "paimon"};
        final Map<String, String> paimonOptions = new TreeMap<>();

        String warehouse() {
            return "s3://" + bucket + "/" + prefix + "/warehouse";
        }

        String table(String job) {
            return warehouse() + "/bench.db/" + job;
        }

        String key(String job) {
            return prefix + "/warehouse/bench.db/" + job;
        }

        /** paimon-s3's catalog options (PaimonReader.s3Options) plus --paimon-option. */
        Map<String, String> catalogOptions() {
            Map<String, String> o = new TreeMap<>(PaimonReader.s3Options(endpoint, accessKey, secretKey, region));
            o.putAll(paimonOptions);
            return o;
        }
    }

    /** Polls {@code server/bucket/key/snapshot/snapshot-N} for N = 1, 2, ... until stopped. */
    static final class Poller extends Thread {
        private static final Pattern IDENTIFIER = Pattern.compile("\"commitIdentifier\"\\s*:\\s*(-?[0-9]+)");
        private final String base, job;
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
        volatile boolean stop;
        volatile String failure;

        Poller(String server, String bucket, String key, String job) {
            super("snapshot-poller-" + job);
            setDaemon(true);
            this.base = server.replaceAll("/+$", "") + "/" + bucket + "/" + key + "/snapshot/snapshot-";
            this.job = job;
            FOUND.put(job, new ConcurrentSkipListMap<>());
        }

        @Override
        public void run() {
            long next = 1, prevSend = System.nanoTime();
            try {
                while (!stop) {
                    long send = System.nanoTime();
                    int code = http.send(HttpRequest.newBuilder(URI.create(base + next)).timeout(Duration.ofSeconds(10))
                                             .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                                         HttpResponse.BodyHandlers.discarding()).statusCode();
                    long recv = System.nanoTime();
                    if (code == 200) {
                        String body = http.send(HttpRequest.newBuilder(URI.create(base + next)).timeout(Duration.ofSeconds(10))
                                                    .GET().build(), HttpResponse.BodyHandlers.ofString()).body();
                        Matcher m = IDENTIFIER.matcher(body);
                        if (!m.find()) throw new IllegalStateException("no commitIdentifier in snapshot-" + next + ": " + body);
                        FOUND.get(job).put(next, new long[] {recv, recv - prevSend, Long.parseLong(m.group(1))});
                        next++;
                        prevSend = send; // the next snapshot was absent at no time before this HEAD was sent
                        continue;
                    }
                    if (code != 404) throw new IllegalStateException("HEAD snapshot-" + next + ": HTTP " + code);
                    prevSend = send;
                    Thread.sleep(1); // a local HEAD takes well under a millisecond: poll about every 1-2 ms
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                failure = e.toString();
            }
        }
    }

    /** Paimon's TableWriteImpl on the S3 table, as UpsertBench.PaimonWriter (no end of input: cancelled). */
    static final class PaimonWriter extends AbstractStreamOperator<Tuple3<Long, Integer, byte[]>>
        implements OneInputStreamOperator<RowData, Tuple3<Long, Integer, byte[]>> {
        private static final long serialVersionUID = 1L;
        private final String warehouse, table, user;
        private final Map<String, String> options;
        private transient TableWriteImpl<?> write;
        private transient IOManager ioManager;
        private transient io.snapcommit.flink.paimon.RowConverter converter;
        private transient CommitMessageSerializer serializer;
        private transient boolean waitCompaction;

        PaimonWriter(String warehouse, String table, Map<String, String> options, String user) {
            this.warehouse = warehouse;
            this.table = table;
            this.options = new TreeMap<>(options);
            this.user = user;
        }

        @Override
        public void open() throws Exception {
            super.open();
            FileStoreTable t = openTable(warehouse, table, options);
            ioManager = IOManager.create(getContainingTask().getEnvironment().getIOManager().getSpillingDirectoriesPaths());
            write = t.newWrite(user).withIOManager(ioManager).withIgnorePreviousFiles(false);
            converter = new io.snapcommit.flink.paimon.RowConverter(UpsertBench.ROW);
            serializer = new CommitMessageSerializer();
            waitCompaction = !t.coreOptions().writeOnly() && t.coreOptions().prepareCommitWaitCompaction();
        }

        @Override
        public void processElement(StreamRecord<RowData> element) throws Exception {
            write.write(converter.convert(element.getValue()));
        }

        @Override
        public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
            super.prepareSnapshotPreBarrier(checkpointId);
            for (CommitMessage m : write.prepareCommit(waitCompaction, checkpointId)) {
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

    /** Paimon's TableCommitImpl behind the sink's protocol, as UpsertBench.PaimonCommitter. */
    static final class PaimonCommitter extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<Tuple3<Long, Integer, byte[]>, Void> {
        private static final long serialVersionUID = 1L;
        private final String warehouse, table, user, job;
        private final Map<String, String> options;
        private transient TableCommitImpl commit;
        private transient CommitMessageSerializer serializer;
        private transient List<CommitMessage> received;
        private transient TreeMap<Long, List<CommitMessage>> pending;

        PaimonCommitter(String warehouse, String table, Map<String, String> options, String user, String job) {
            this.warehouse = warehouse;
            this.table = table;
            this.options = new TreeMap<>(options);
            this.user = user;
            this.job = job;
        }

        @Override
        public void open() throws Exception {
            super.open();
            commit = openTable(warehouse, table, options).newCommit(user);
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
            while (!pending.isEmpty() && pending.firstKey() <= checkpointId) {
                Map.Entry<Long, List<CommitMessage>> e = pending.pollFirstEntry();
                commit.commit(e.getKey(), e.getValue());
                UpsertBench.mark(RETURNED, job, e.getKey());
            }
        }

        @Override
        public void close() throws Exception {
            if (commit != null) commit.close();
            super.close();
        }
    }

    static Catalog catalog(String warehouse, Map<String, String> options) {
        Options o = new Options();
        o.set(CatalogOptions.WAREHOUSE.key(), warehouse);
        options.forEach(o::set);
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    static FileStoreTable openTable(String warehouse, String table, Map<String, String> options) {
        try (Catalog c = catalog(warehouse, options)) {
            return (FileStoreTable) c.getTable(Identifier.create("bench", table));
        } catch (Exception e) {
            throw new IllegalStateException("cannot open " + warehouse + "/bench.db/" + table + ": " + e, e);
        }
    }

    /** The job's source, aggregate and probe (UpsertBench's), unbounded: rate-limited, cancelled when measured. */
    static DataStream<RowData> source(StreamExecutionEnvironment env, String job, Setup s) {
        DataStream<RowData> up = UpsertBench.upserts(env, job, Long.MAX_VALUE, s.keys, s.rate);
        UpsertBench.probe(up, job);
        return up;
    }

    /**
     * UpsertBench's settings, and no check for leaked class loaders: paimon-s3 keeps its S3A file
     * systems and their thread pools in statics, made under the first job's user class loader, which
     * Flink closes when that job ends; the next job's use of them then failed the check. In this JVM
     * every class comes from the application class path, so the closed loader holds nothing of its own.
     */
    static StreamExecutionEnvironment env(Setup s) {
        Map<String, String> c = new java.util.HashMap<>();
        c.put("execution.checkpointing.interval", s.interval + " ms");
        c.put("restart-strategy.type", "none");
        c.put("classloader.check-leaked-classloader", "false");
        return StreamExecutionEnvironment.createLocalEnvironment(s.parallelism,
                                                                 org.apache.flink.configuration.Configuration.fromMap(c));
    }

    static JobClient startSnapcommit(String job, Setup s) throws Exception {
        StreamExecutionEnvironment env = env(s);
        DataStream<RowData> up = source(env, job, s);
        SnapcommitSink.Builder b = SnapcommitSink.builder().path(s.table(job)).rowType(UpsertBench.ROW).primaryKeys("k")
            .uidPrefix(job).s3Endpoint(s.endpoint).s3AccessKey(s.accessKey).s3SecretKey(s.secretKey)
            .s3Region(s.region).s3PathStyle(true)
            .commitListener(e -> UpsertBench.mark(RETURNED, job, e.checkpointId()));
        OPTIONS.forEach(b::option);
        b.build().sinkTo(up);
        return env.executeAsync("flink-rtt-" + job);
    }

    static JobClient startPaimon(String job, Setup s) throws Exception {
        Map<String, String> o = s.catalogOptions();
        String schemaJson;
        try (Catalog c = catalog(s.warehouse(), o)) {
            c.createDatabase("bench", true);
            Schema.Builder b = Schema.newBuilder().column("k", DataTypes.BIGINT().notNull())
                .column("cnt", DataTypes.BIGINT()).column("total", DataTypes.BIGINT()).primaryKey("k");
            OPTIONS.forEach(b::option);
            c.createTable(Identifier.create("bench", job), b.build(), false);
            FileStoreTable t = (FileStoreTable) c.getTable(Identifier.create("bench", job));
            schemaJson = t.fileIO().readFileUtf8(new org.apache.paimon.fs.Path(s.table(job) + "/schema/schema-0"));
        }
        StreamExecutionEnvironment env = env(s);
        DataStream<RowData> up = source(env, job, s);
        PaimonTableSpec spec = PaimonTableSpec.fromJson(schemaJson);
        String user = "bench-" + job;
        TypeInformation<Tuple3<Long, Integer, byte[]>> type =
            Types.TUPLE(Types.LONG, Types.INT, Types.PRIMITIVE_ARRAY(Types.BYTE));
        SnapcommitWriterOperator.shuffleByBucket(up, spec, UpsertBench.ROW)
            .transform("paimon-writer", type, new PaimonWriter(s.warehouse(), job, o, user))
            .transform("paimon-committer", Types.VOID, new PaimonCommitter(s.warehouse(), job, o, user, job))
            .setParallelism(1).setMaxParallelism(1);
        return env.executeAsync("flink-rtt-" + job);
    }

    /** The highest commitIdentifier the poller has found for job, or 0. */
    static long lastIdentifier(String job) {
        long max = 0;
        for (long[] f : FOUND.getOrDefault(job, new ConcurrentSkipListMap<>()).values()) max = Math.max(max, f[2]);
        return max;
    }

    /** Runs one job until the poller has found checkpoint warmup + checkpoints (or 10 minutes passed). */
    static void run(String job, Setup s) throws Exception {
        Poller poller = new Poller(s.server, s.bucket, s.key(job), job);
        poller.start();
        JobClient client = job.startsWith("sc") ? startSnapcommit(job, s) : startPaimon(job, s);
        long deadline = System.nanoTime() + 600_000_000_000L, want = s.warmup + s.checkpoints;
        try {
            while (lastIdentifier(job) < want && poller.failure == null && System.nanoTime() < deadline) {
                if (client.getJobStatus().get().isGloballyTerminalState())
                    throw new IllegalStateException("job " + job + " ended: " + client.getJobExecutionResult().get());
                Thread.sleep(50);
            }
        } finally {
            try {
                client.cancel().get();
            } catch (Exception e) {
                System.err.println("flink-rtt: cancelling " + job + ": " + e);
            }
            poller.stop = true;
            poller.join(10_000);
        }
        if (poller.failure != null) throw new IllegalStateException("poller of " + job + ": " + poller.failure);
        if (lastIdentifier(job) < want) throw new IllegalStateException(job + ": checkpoint " + want + " not visible in 10 minutes");
    }

    /**
     * Checkpoint → visible of one job, µs, over the checkpoints after warmup up to warmup + n: for each
     * snapshot the poller found (the first one of each commitIdentifier), its time found minus the
     * completion notice of the first checkpoint at or after its identifier that the probe saw.
     * Also returns, at index 1, the poll gaps (µs) of those snapshots and at index 2 the committer's
     * return times relative to the same notice.
     */
    static List<List<Long>> latencies(String job, int warmup, int n) {
        Map<Long, Long> done = UpsertBench.COMPLETED.getOrDefault(job, Map.of());
        TreeMap<Long, Long> notices = new TreeMap<>(done);
        Map<Long, Long> returned = RETURNED.getOrDefault(job, Map.of());
        TreeMap<Long, long[]> byIdentifier = new TreeMap<>();
        for (long[] f : FOUND.getOrDefault(job, new ConcurrentSkipListMap<>()).values())
            byIdentifier.merge(f[2], f, (a, b) -> a[0] <= b[0] ? a : b);
        List<Long> lat = new ArrayList<>(), gaps = new ArrayList<>(), ret = new ArrayList<>();
        for (Map.Entry<Long, long[]> e : byIdentifier.entrySet()) {
            long c = e.getKey();
            if (c <= warmup || c > warmup + n) continue;
            Map.Entry<Long, Long> notice = notices.ceilingEntry(c);
            if (notice == null) continue;
            lat.add((e.getValue()[0] - notice.getValue()) / 1000);
            gaps.add(e.getValue()[1] / 1000);
            Long r = returned.get(c);
            if (r != null) ret.add((r - notice.getValue()) / 1000);
        }
        return List.of(lat, gaps, ret);
    }

    static double ms(List<Long> sortedUs, double q) {
        return UpsertBench.percentile(sortedUs, q) / 1000.0;
    }

    /** Prints the R lines of one side over its jobs. */
    static void report(String side, List<String> jobs, Setup s) {
        List<Long> lat = new ArrayList<>(), gaps = new ArrayList<>(), ret = new ArrayList<>();
        long snapshots = 0, spanNs = 0, spanCheckpoints = 0;
        for (String job : jobs) {
            List<List<Long>> l = latencies(job, s.warmup, s.checkpoints);
            lat.addAll(l.get(0));
            gaps.addAll(l.get(1));
            ret.addAll(l.get(2));
            snapshots += FOUND.get(job).size();
            TreeMap<Long, Long> done = new TreeMap<>(UpsertBench.COMPLETED.getOrDefault(job, Map.of()));
            Long a = done.get((long) s.warmup), b = done.get((long) (s.warmup + s.checkpoints));
            if (a != null && b != null) {
                spanNs += b - a;
                spanCheckpoints += s.checkpoints;
            }
        }
        Collections.sort(lat);
        Collections.sort(gaps);
        Collections.sort(ret);
        String k = "R " + s.label + "." + side + ".";
        System.out.printf("%scheckpoints %d%n", k, lat.size());
        if (!lat.isEmpty()) {
            System.out.printf("%svisible_p50_ms %.2f%n", k, ms(lat, 0.5));
            System.out.printf("%svisible_p90_ms %.2f%n", k, ms(lat, 0.9));
            System.out.printf("%svisible_max_ms %.2f%n", k, lat.get(lat.size() - 1) / 1000.0);
            System.out.printf("%spoll_gap_p50_ms %.2f%n", k, ms(gaps, 0.5));
            System.out.printf("%spoll_gap_max_ms %.2f%n", k, gaps.get(gaps.size() - 1) / 1000.0);
        }
        if (!ret.isEmpty()) System.out.printf("%sreturn_p50_ms %.2f%n", k, ms(ret, 0.5));
        if (spanCheckpoints > 0)
            System.out.printf("%scheckpoint_every_ms %.1f%n", k, spanNs / 1e6 / spanCheckpoints);
        System.out.printf("%ssnapshots %d%n", k, snapshots);
        System.err.printf("flink-rtt %-7s %s: %d checkpoints, checkpoint->visible p50 %s ms, p90 %s ms, max %s ms "
                          + "(poll gap p50 %s ms); committer returned p50 %s ms; %d snapshots%n", s.label, side,
                          lat.size(), lat.isEmpty() ? "-" : String.format("%.1f", ms(lat, 0.5)),
                          lat.isEmpty() ? "-" : String.format("%.1f", ms(lat, 0.9)),
                          lat.isEmpty() ? "-" : String.format("%.1f", lat.get(lat.size() - 1) / 1000.0),
                          gaps.isEmpty() ? "-" : String.format("%.2f", ms(gaps, 0.5)),
                          ret.isEmpty() ? "-" : String.format("%.1f", ms(ret, 0.5)), snapshots);
    }

    static Setup parse(String[] args) {
        Setup s = new Setup();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--endpoint": s.endpoint = args[++i]; break;
                case "--server": s.server = args[++i]; break;
                case "--bucket": s.bucket = args[++i]; break;
                case "--prefix": s.prefix = args[++i]; break;
                case "--access-key": s.accessKey = args[++i]; break;
                case "--secret-key": s.secretKey = args[++i]; break;
                case "--region": s.region = args[++i]; break;
                case "--label": s.label = args[++i]; break;
                case "--order": s.order = args[++i].split(","); break;
                case "--checkpoints": s.checkpoints = Integer.parseInt(args[++i]); break;
                case "--warmup": s.warmup = Integer.parseInt(args[++i]); break;
                case "--interval": s.interval = Long.parseLong(args[++i]); break;
                case "--rate": s.rate = Double.parseDouble(args[++i]); break;
                case "--keys": s.keys = Long.parseLong(args[++i]); break;
                case "--parallelism": s.parallelism = Integer.parseInt(args[++i]); break;
                case "--paimon-option": {
                    String kv = args[++i];
                    int eq = kv.indexOf('=');
                    if (eq <= 0) throw new IllegalArgumentException("--paimon-option KEY=VALUE, not " + kv);
                    s.paimonOptions.put(kv.substring(0, eq), kv.substring(eq + 1));
                    break;
                }
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        for (String[] r : new String[][] {{"--endpoint", s.endpoint}, {"--server", s.server}, {"--bucket", s.bucket},
                                          {"--prefix", s.prefix}, {"--access-key", s.accessKey}, {"--secret-key", s.secretKey}})
            if (r[1] == null) throw new IllegalArgumentException(r[0] + " is required");
        return s;
    }

    /**
     * Creates the bucket on the server unless it exists. A bucket of its own per run: gofakes3 lists a
     * prefix in time proportional to the whole bucket (about 110 ms on the shared test bucket after a
     * day of tests, under 5 ms on a fresh one), and Paimon's S3A client lists on every probe of a
     * missing path; on S3 a LIST costs about what a HEAD costs.
     */
    static void createBucket(Setup s) throws Exception {
        int code = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create(s.server.replaceAll("/+$", "") + "/" + s.bucket)).timeout(Duration.ofSeconds(10))
                .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        if (code != 200 && code != 409) throw new IllegalStateException("creating bucket " + s.bucket + ": HTTP " + code);
    }

    public static void main(String[] args) throws Exception {
        Setup s = parse(args);
        createBucket(s);
        Map<String, List<String>> jobs = new TreeMap<>(); // one side alone is allowed (e.g. to trace it)
        for (int i = 0; i < s.order.length; i++) {
            if (!s.order[i].equals("sc") && !s.order[i].equals("paimon"))
                throw new IllegalArgumentException("--order: sc and paimon only, not " + s.order[i]);
            jobs.computeIfAbsent(s.order[i], x -> new ArrayList<>()).add(s.order[i] + "_" + (i + 1));
        }
        System.out.printf("M %s endpoint %s interval_ms %d rate %.0f keys %d parallelism %d warmup %d checkpoints %d "
                          + "order %s paimon_options %s%n", s.label, s.endpoint, s.interval, s.rate, s.keys, s.parallelism,
                          s.warmup, s.checkpoints, String.join(",", s.order), s.paimonOptions.isEmpty() ? "-"
                          : String.join(",", s.paimonOptions.keySet()));
        for (int i = 0; i < s.order.length; i++) {
            String job = s.order[i] + "_" + (i + 1);
            long t0 = System.nanoTime();
            run(job, s);
            System.err.printf("flink-rtt: job %s took %.1f s%n", job, (System.nanoTime() - t0) / 1e9);
        }
        for (Map.Entry<String, List<String>> e : jobs.entrySet()) report(e.getKey(), e.getValue(), s);
        System.exit(0);
    }
}
