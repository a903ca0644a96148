package io.snapcommit.bench;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.metrics.Gauge;
import org.apache.paimon.metrics.Metric;
import org.apache.paimon.metrics.MetricGroup;
import org.apache.paimon.metrics.MetricGroupImpl;
import org.apache.paimon.metrics.MetricRegistry;
import org.apache.paimon.operation.FileStoreCommit;
import org.apache.paimon.operation.metrics.CommitMetrics;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Paimon side of scripts/bench.sh: the same measurements as bench/bench_commit.c, made with
 * Paimon 1.4.2's own streaming committer on a table warehouse/db.db/t with the same schema
 * (dt STRING, id BIGINT, v STRING; partition dt; bucket -1) and the same change sets (5-file
 * appends into partition dt=2024-01-01; compactions deleting the 10 oldest live files and adding
 * one). Commit messages are built before the clock starts; only StreamTableCommit#commit is timed.
 * Output: "R key value" lines on stdout (keys: docs/performance.md), the rest on stderr.
 *
 * <pre>
 *   single WAREHOUSE AGES COMMITS COMPACTIONS FILTER_REPS WARMUP [KEY_PREFIX, default paimon]
 *   race   WAREHOUSE WRITERS COMMITS PREFIX WARMUP [--jvms]
 *          (WRITERS threads of this JVM; --jvms: WRITERS worker JVMs, an unsupported setup on a
 *          local file system without a catalog lock, kept to show what it does)
 *   worker WAREHOUSE INDEX COMMITS SYNC_DIR WARMUP (one racing writer of --jvms; internal)
 * </pre>
 */
public final class PaimonBench {
    static final int FILES_PER_APPEND = 5;
    static final int FILES_PER_COMPACTION = 10;
    static final String PARTITION = "2024-01-01";

    public static void main(String[] args) throws Exception {
        switch (args.length > 0 ? args[0] : "") {
            case "single":
                single(args[1], parseAges(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                        Integer.parseInt(args[5]), Integer.parseInt(args[6]), args.length > 7 ? args[7] : "paimon");
                break;
            case "race":
                if (args.length > 6 && args[6].equals("--jvms")) {
                    raceJvms(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), args[4],
                            Integer.parseInt(args[5]));
                } else {
                    race(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), args[4],
                            Integer.parseInt(args[5]));
                }
                break;
            case "worker":
                worker(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Paths.get(args[4]),
                        Integer.parseInt(args[5]));
                break;
            default:
                System.err.println("usage: PaimonBench single|race|worker ... (see the class comment)");
                System.exit(2);
        }
        System.exit(0);
    }

    static long[] parseAges(String s) {
        return Arrays.stream(s.split(",")).mapToLong(Long::parseLong).toArray();
    }

    static void result(String key, double value) {
        System.out.println("R " + key + " " + value);
        System.out.flush();
    }

    // ------------------------------------------------------------------ table and messages

    static Catalog catalog(String warehouse) {
        Options o = new Options();
        o.set("warehouse", warehouse);
        if (warehouse.startsWith("s3://")) {
            s3(o, System.getenv());
        }
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /**
     * S3FileIO settings for the local test server, from the variables scripts/s3-servers.sh env
     * prints: its endpoint (path-style, plain http), the key pair, and a fixed region so that S3A
     * does not go looking for one. S3FileIO hands every "s3.x" to Hadoop as "fs.s3a.x".
     */
    static void s3(Options o, Map<String, String> env) {
        String endpoint = env.getOrDefault("AWS_ENDPOINT_URL_S3", env.get("AWS_ENDPOINT_URL"));
        if (endpoint != null) {
            o.set("s3.endpoint", endpoint);
            o.set("s3.path.style.access", "true");
            o.set("s3.connection.ssl.enabled", String.valueOf(endpoint.startsWith("https://")));
        }
        if (env.containsKey("AWS_ACCESS_KEY_ID")) {
            o.set("s3.access-key", env.get("AWS_ACCESS_KEY_ID"));
            o.set("s3.secret-key", env.getOrDefault("AWS_SECRET_ACCESS_KEY", ""));
        }
        o.set("s3.endpoint.region", env.getOrDefault("AWS_REGION", "us-east-1"));
    }

    static FileStoreTable create(Catalog c, String name) throws Exception {
        c.createDatabase("db", true);
        Schema schema = Schema.newBuilder()
                .column("dt", DataTypes.STRING())
                .column("id", DataTypes.BIGINT())
                .column("v", DataTypes.STRING())
                .partitionKeys("dt")
                .option("bucket", "-1")
                .build();
        c.createTable(Identifier.create("db", name), schema, false);
        return open(c, name);
    }

    static FileStoreTable open(Catalog c, String name) throws Exception {
        return (FileStoreTable) c.getTable(Identifier.create("db", name));
    }

    static BinaryRow partition(FileStoreTable t) {
        RowType pt = t.schema().logicalPartitionType();
        return new InternalRowSerializer(pt).toBinaryRow(GenericRow.of(BinaryString.fromString(PARTITION))).copy();
    }

    static DataFileMeta file(FileStoreTable t, String name, FileSource source) {
        return DataFileMeta.forAppend(name, 4096, 100, SimpleStats.EMPTY_STATS, 0, 99, t.schema().id(),
                Collections.emptyList(), null, source, Collections.emptyList(), null, null, null);
    }

    /** A 5-file append; the files are also queued as live (oldest first) when live != null. */
    static List<CommitMessage> append(FileStoreTable t, BinaryRow part, String prefix, long n, Deque<DataFileMeta> live) {
        List<DataFileMeta> files = new ArrayList<>();
        for (int k = 0; k < FILES_PER_APPEND; k++) {
            DataFileMeta f = file(t, prefix + "-" + n + "-" + k + ".parquet", FileSource.APPEND);
            files.add(f);
            if (live != null) {
                live.addLast(f);
            }
        }
        return List.of(new CommitMessageImpl(part, 0, -1, new DataIncrement(files, List.of(), List.of()),
                CompactIncrement.emptyIncrement()));
    }

    static List<CommitMessage> compaction(FileStoreTable t, BinaryRow part, long n, Deque<DataFileMeta> live) {
        List<DataFileMeta> before = new ArrayList<>();
        for (int k = 0; k < FILES_PER_COMPACTION; k++) {
            before.add(live.removeFirst());
        }
        DataFileMeta after = file(t, "compacted-" + n + ".parquet", FileSource.COMPACT);
        live.addLast(after);
        return List.of(new CommitMessageImpl(part, 0, -1, DataIncrement.emptyIncrement(),
                new CompactIncrement(before, List.of(after), List.of())));
    }

    /** Paimon's commit metrics, to read how many attempts each commit took. */
    static final class Registry implements MetricRegistry {
        final List<MetricGroup> groups = new CopyOnWriteArrayList<>();

        @Override
        public MetricGroup createMetricGroup(String groupName, Map<String, String> variables) {
            MetricGroup g = new MetricGroupImpl(groupName, variables);
            groups.add(g);
            return g;
        }

        long lastAttempts() {
            for (MetricGroup g : groups) {
                Metric m = g.getMetrics().get(CommitMetrics.LAST_COMMIT_ATTEMPTS);
                if (m instanceof Gauge) {
                    Object v = ((Gauge<?>) m).getValue();
                    if (v instanceof Number) {
                        return ((Number) v).longValue();
                    }
                }
            }
            return -1;
        }
    }

    static final class Committer implements AutoCloseable {
        final StreamTableCommit commit;
        final Registry metrics = new Registry();

        Committer(FileStoreTable t, String user) {
            commit = t.newStreamWriteBuilder().withCommitUser(user).newCommit();
            ((TableCommitImpl) commit).withMetricRegistry(metrics);
        }

        @Override
        public void close() throws Exception {
            commit.close();
        }
    }

    // ------------------------------------------------------------------ single writer

    static double pct(double[] v, int n, double p) {
        if (n <= 0) {
            return 0;
        }
        double[] s = Arrays.copyOf(v, n);
        Arrays.sort(s);
        int k = (int) Math.ceil(p / 100.0 * n) - 1;
        return s[Math.max(0, Math.min(n - 1, k))];
    }

    static double mean(double[] v, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += v[i];
        }
        return n > 0 ? s / n : 0;
    }

    static void single(String warehouse, long[] ages, int commits, int compactions, int filterReps, int warmup,
            String kp) throws Exception {
        Catalog c = catalog(warehouse);
        // JIT warm-up on a throw-away table, so that age 10 is not measured on a cold JVM (a
        // streaming committer runs warm); the same code paths as below.
        if (warmup > 0) {
            FileStoreTable w = create(c, "warmup");
            BinaryRow wp = partition(w);
            Deque<DataFileMeta> wl = new ArrayDeque<>();
            try (Committer a = new Committer(w, "warm"); Committer b = new Committer(w, "warm-compactor")) {
                for (int i = 1; i <= warmup; i++) {
                    a.commit.commit(i, append(w, wp, "warm", i, wl));
                    if (i % 3 == 0) {
                        b.commit.commit(i, compaction(w, wp, i, wl));
                    }
                }
            }
            FileStoreCommit f = w.store().newCommit("warm", w);
            for (int i = 0; i < 50; i++) {
                f.filterCommitted(List.of(new ManifestCommittable(1)));
            }
            f.close();
        }

        FileStoreTable t = create(c, "t");
        BinaryRow part = partition(t);
        Deque<DataFileMeta> live = new ArrayDeque<>();
        int maxN = Math.max(Math.max(commits, compactions), filterReps);
        double[] lat = new double[maxN];
        double[] att = new double[maxN];
        long age;
        try (Committer early = new Committer(t, "early")) {
            early.commit.commit(1, append(t, part, "early", 1, live));
        }
        age = 1;
        long seed = 0;
        long benchId = 0;
        long compactId = 0;
        try (Committer seeder = new Committer(t, "seed");
                Committer bench = new Committer(t, "bench");
                Committer compactor = new Committer(t, "compactor")) {
            for (long target : ages) {
                long t0 = System.nanoTime();
                long from = age;
                while (age < target) {
                    seed++;
                    seeder.commit.commit(seed, append(t, part, "seed", seed, live));
                    age++;
                }
                System.err.printf("paimon-bench: aged %d -> %d in %.1f s (%d live files)%n", from, age,
                        (System.nanoTime() - t0) / 1e9, live.size());

                List<List<CommitMessage>> msgs = new ArrayList<>();
                for (int i = 0; i < commits; i++) {
                    msgs.add(append(t, part, "bench", benchId + 1 + i, live));
                }
                for (int i = 0; i < commits; i++) {
                    long s = System.nanoTime();
                    bench.commit.commit(++benchId, msgs.get(i));
                    lat[i] = (System.nanoTime() - s) / 1e6;
                }
                age += commits;
                String k = kp + ".append.age" + target;
                result(k + ".p50_ms", pct(lat, commits, 50));
                result(k + ".p99_ms", pct(lat, commits, 99));
                result(k + ".per_s", 1e3 / mean(lat, commits));
                result(kp + ".live_files.age" + target, live.size());

                int nc = Math.min(compactions, live.size() / FILES_PER_COMPACTION);
                msgs.clear();
                for (int i = 0; i < nc; i++) {
                    msgs.add(compaction(t, part, compactId + 1 + i, live));
                }
                for (int i = 0; i < nc; i++) {
                    long s = System.nanoTime();
                    compactor.commit.commit(++compactId, msgs.get(i));
                    lat[i] = (System.nanoTime() - s) / 1e6;
                }
                age += nc;
                k = kp + ".compact.age" + target;
                result(k + ".p50_ms", pct(lat, nc, 50));
                result(k + ".p99_ms", pct(lat, nc, 99));

                // Replay filtering as a restarting streaming job does it: Paimon's filterCommitted
                // for a user whose last commit is snapshot 1, on a freshly opened table.
                for (int i = 0; i < filterReps; i++) {
                    FileStoreTable ft = open(c, "t");
                    FileStoreCommit f = ft.store().newCommit("early", ft);
                    List<ManifestCommittable> ids = List.of(new ManifestCommittable(1), new ManifestCommittable(2),
                            new ManifestCommittable(3));
                    long s = System.nanoTime();
                    List<ManifestCommittable> kept = f.filterCommitted(ids);
                    lat[i] = (System.nanoTime() - s) / 1e6;
                    f.close();
                    if (kept.size() != 2) {
                        throw new IllegalStateException("filterCommitted kept " + kept.size() + " of 3, expected 2");
                    }
                }
                result(kp + ".filter.age" + target + ".p50_ms", pct(lat, filterReps, 50));
            }
        }
        c.close();
    }

    // ------------------------------------------------------------------ races

    /** One racing writer's figures. */
    static final class Tally {
        long committed, gaveUp, lost, maxLost;
        double maxMs;
        long endNanos; // System.nanoTime() (threads) or epoch nanoseconds (JVMs) after the last commit
        final List<Long> failed = new ArrayList<>(); // identifiers that gave up

        void add(Tally o) {
            committed += o.committed;
            gaveUp += o.gaveUp;
            lost += o.lost;
            maxLost = Math.max(maxLost, o.maxLost);
            maxMs = Math.max(maxMs, o.maxMs);
        }
    }

    /** Commits msgs as identifiers 1..n through cm, counting lost claims from Paimon's metric. */
    static Tally commitAll(Committer cm, List<List<CommitMessage>> msgs, int index) {
        Tally r = new Tally();
        for (int i = 1; i <= msgs.size(); i++) {
            long s = System.nanoTime();
            try {
                cm.commit.commit(i, msgs.get(i - 1));
                r.committed++;
            } catch (RuntimeException e) {
                // Paimon gave up (its default: 10 retries). FileStoreCommitImpl reports such a commit
                // with 0 attempts (the exception leaves before they are added), so its lost claims
                // are not in the sum; the give-up itself is counted.
                r.gaveUp++;
                r.failed.add((long) i);
                r.maxMs = Math.max(r.maxMs, (System.nanoTime() - s) / 1e6);
                System.err.println("paimon-bench: writer " + index + " commit " + i + " failed: " + e);
                continue;
            }
            r.maxMs = Math.max(r.maxMs, (System.nanoTime() - s) / 1e6);
            long a = cm.metrics.lastAttempts();
            if (a < 1) {
                throw new IllegalStateException("Paimon's commit metric lastCommitAttempts is missing");
            }
            if (a > 1) {
                r.lost += a - 1;
                r.maxLost = Math.max(r.maxLost, a - 1);
            }
        }
        return r;
    }

    static Catalog raceTable(String warehouse) throws Exception {
        Catalog c = catalog(warehouse);
        FileStoreTable t = create(c, "t");
        try (Committer s = new Committer(t, "seed")) {
            s.commit.commit(1, append(t, partition(t), "seed", 1, null));
        }
        return c;
    }

    /**
     * W writers as W threads of this JVM, released together by a barrier: Paimon's supported way to
     * have concurrent committers on a local file system without a catalog lock (LocalFileIO's rename
     * lock is static, so it only excludes committers of the same JVM; docs/performance.md). Each
     * thread has its own catalog, table handle, StreamTableCommit and commit user, like snapcommit's
     * forked writers.
     */
    static void race(String warehouse, int writers, int commits, String prefix, int warmup) throws Exception {
        Catalog c = raceTable(warehouse);
        if (warmup > 0) {
            // JIT warm-up: the same race, untimed, on a throw-away table (the retry path included).
            Catalog w = raceTable(warehouse + "-warmup");
            threads(warehouse + "-warmup", writers, Math.max(1, warmup / writers), "warm");
            w.close();
        }
        long[] wall = new long[1];
        Tally[] per = threads(warehouse, writers, commits, null, wall);
        Tally all = new Tally();
        Map<String, List<Long>> failed = new java.util.HashMap<>();
        for (int w = 0; w < writers; w++) {
            all.add(per[w]);
            failed.put("writer-" + w, per[w].failed);
        }
        report(c, prefix, writers, commits, all, failed, wall[0] / 1e6);
        c.close();
    }

    static Tally[] threads(String warehouse, int writers, int commits, String tag) throws Exception {
        return threads(warehouse, writers, commits, tag, new long[1]);
    }

    /** Runs the threaded race; wall[0] = nanoseconds from the release to the last writer's end. */
    static Tally[] threads(String warehouse, int writers, int commits, String tag, long[] wall) throws Exception {
        // Two latches as the barrier: every writer prepared, then all released at once. A writer that
        // fails while preparing still counts down, and the others are then released into an abort.
        java.util.concurrent.CountDownLatch prepared = new java.util.concurrent.CountDownLatch(writers);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean abort = new java.util.concurrent.atomic.AtomicBoolean();
        Tally[] per = new Tally[writers];
        Throwable[] err = new Throwable[writers];
        List<Thread> ts = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            final int index = w;
            Thread th = new Thread(() -> {
                boolean counted = false;
                try (Catalog own = catalog(warehouse)) {
                    FileStoreTable t = open(own, "t");
                    BinaryRow part = partition(t);
                    List<List<CommitMessage>> msgs = new ArrayList<>();
                    for (int i = 1; i <= commits; i++) {
                        msgs.add(append(t, part, (tag == null ? "w" : tag + "-w") + index, i, null));
                    }
                    try (Committer cm = new Committer(t, "writer-" + index)) {
                        prepared.countDown();
                        counted = true;
                        go.await();
                        if (!abort.get()) {
                            per[index] = commitAll(cm, msgs, index);
                            per[index].endNanos = System.nanoTime();
                        }
                    }
                } catch (Throwable e) {
                    err[index] = e;
                    abort.set(true);
                } finally {
                    if (!counted) {
                        prepared.countDown();
                    }
                }
            }, "writer-" + w);
            th.start();
            ts.add(th);
        }
        prepared.await();
        long start = System.nanoTime();
        go.countDown();
        for (Thread th : ts) {
            th.join();
        }
        long end = start;
        for (int w = 0; w < writers; w++) {
            if (err[w] != null) {
                throw new IllegalStateException("writer " + w + " failed", err[w]);
            }
            if (per[w] == null) {
                throw new IllegalStateException("writer " + w + " did not run: another writer failed");
            }
            end = Math.max(end, per[w].endNanos);
        }
        wall[0] = end - start;
        return per;
    }

    /**
     * The race's figures, after checking that every commit that reported success made exactly one
     * snapshot and nothing else did: snapshots 2..latest are walked and matched by (user,
     * identifier) against the writers' successes (1..commits minus the identifiers that gave up).
     * A difference is a figure (and a line on stderr), not fatal, so that the rest of the run goes on.
     */
    static void report(Catalog c, String prefix, int writers, int commits, Tally all, Map<String, List<Long>> failed,
            double wallMs) throws Exception {
        FileStoreTable t = open(c, "t");
        org.apache.paimon.utils.SnapshotManager sm = t.snapshotManager();
        Long latestId = sm.latestSnapshotId();
        long latest = latestId == null ? 0 : latestId;
        java.util.Set<String> seen = new java.util.HashSet<>();
        long doubled = 0, found = 0;
        for (long id = 2; id <= latest; id++) {
            org.apache.paimon.Snapshot s = sm.snapshot(id);
            String user = s.commitUser();
            long ident = s.commitIdentifier();
            boolean expected = failed.containsKey(user) && ident >= 1 && ident <= commits
                    && !failed.get(user).contains(ident);
            if (!expected || !seen.add(user + "#" + ident)) {
                doubled++;
                System.err.println("paimon-bench: snapshot " + id + " (" + user + ", " + ident + ") is unexpected or a second one");
            } else {
                found++;
            }
        }
        long missing = all.committed - found;
        if (missing != 0 || doubled != 0) {
            System.err.println("paimon-bench: race made " + all.committed + " commits; " + missing
                    + " have no snapshot, " + doubled + " snapshots are doubled or unexpected (latest " + latest + ")");
        }
        result(prefix + ".snapshots_missing", missing);
        result(prefix + ".snapshots_doubled", doubled);
        result(prefix + ".committed", all.committed);
        result(prefix + ".gave_up", all.gaveUp);
        result(prefix + ".lost_claims", all.lost);
        result(prefix + ".max_lost_one_commit", all.maxLost);
        result(prefix + ".per_s", wallMs > 0 ? 1e3 * all.committed / wallMs : 0);
        result(prefix + ".max_commit_ms", all.maxMs);
    }

    /**
     * The cross-JVM race (race --jvms): one JVM per writer, as separate jobs would be. On a local
     * file system without a catalog lock this is not a supported Paimon setup: LocalFileIO's rename
     * lock does not reach other JVMs, and a successful commit can lose its snapshot to another
     * JVM's (reported as snapshots_missing).
     */
    static void raceJvms(String warehouse, int writers, int commits, String prefix, int warmup) throws Exception {
        Catalog c = raceTable(warehouse);
        Path sync = Files.createTempDirectory("paimon-bench-race");
        String javaCmd = ProcessHandle.current().info().command().orElse("java");
        List<String> jvmArgs = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
        List<Process> procs = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            List<String> cmd = new ArrayList<>();
            cmd.add(javaCmd);
            cmd.addAll(jvmArgs);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), PaimonBench.class.getName(), "worker",
                    warehouse, String.valueOf(w), String.valueOf(commits), sync.toString(), String.valueOf(warmup)));
            procs.add(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }
        for (int w = 0; w < writers; w++) {
            while (!Files.exists(sync.resolve("ready-" + w))) {
                if (!procs.get(w).isAlive()) {
                    throw new IllegalStateException("worker " + w + " died before it was ready");
                }
                Thread.sleep(5);
            }
        }
        Instant go = Instant.now();
        Files.writeString(sync.resolve("go"), "");
        Tally all = new Tally();
        Map<String, List<Long>> failed = new java.util.HashMap<>();
        long goNanos = go.getEpochSecond() * 1_000_000_000L + go.getNano(), end = goNanos;
        for (int w = 0; w < writers; w++) {
            Process p = procs.get(w);
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IllegalStateException("worker " + w + " failed: " + out);
            }
            List<Long> f = new ArrayList<>();
            for (String line : out.split("\n")) {
                String[] x = line.split(" ");
                if (x[0].equals("W")) {
                    Tally r = new Tally();
                    r.committed = Long.parseLong(x[1]);
                    r.gaveUp = Long.parseLong(x[2]);
                    r.lost = Long.parseLong(x[3]);
                    r.maxLost = Long.parseLong(x[4]);
                    r.maxMs = Double.parseDouble(x[5]);
                    all.add(r);
                    end = Math.max(end, Long.parseLong(x[6]));
                } else if (x[0].equals("F")) {
                    f.add(Long.parseLong(x[1]));
                }
            }
            failed.put("writer-" + w, f);
        }
        report(c, prefix, writers, commits, all, failed, (end - goNanos) / 1e6);
        c.close();
        for (File f : sync.toFile().listFiles()) {
            f.delete();
        }
        Files.delete(sync);
    }

    static void worker(String warehouse, int index, int commits, Path sync, int warmup) throws Exception {
        Catalog c = catalog(warehouse);
        if (warmup > 0) {
            // JIT warm-up on a private table: a streaming committer runs warm; only the race is timed.
            FileStoreTable w = create(c, "warm" + index);
            BinaryRow wp = partition(w);
            try (Committer cm = new Committer(w, "warm")) {
                for (int i = 1; i <= warmup; i++) {
                    cm.commit.commit(i, append(w, wp, "warm", i, null));
                }
            }
        }
        FileStoreTable t = open(c, "t");
        BinaryRow part = partition(t);
        List<List<CommitMessage>> msgs = new ArrayList<>();
        for (int i = 1; i <= commits; i++) {
            msgs.add(append(t, part, "w" + index, i, null));
        }
        Tally r;
        try (Committer cm = new Committer(t, "writer-" + index)) {
            Files.writeString(sync.resolve("ready-" + index), "");
            while (!Files.exists(sync.resolve("go"))) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000); // 8 JVMs on 2 cores: no busy wait
            }
            r = commitAll(cm, msgs, index);
        }
        Instant end = Instant.now();
        long endNanos = end.getEpochSecond() * 1_000_000_000L + end.getNano();
        for (long id : r.failed) {
            System.out.println("F " + id);
        }
        System.out.println("W " + r.committed + " " + r.gaveUp + " " + r.lost + " " + r.maxLost + " " + r.maxMs + " " + endNanos);
        c.close();
    }
}
