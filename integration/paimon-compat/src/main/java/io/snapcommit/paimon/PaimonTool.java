package io.snapcommit.paimon;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.SnapshotManager;

import java.io.File;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * PaimonTool: Apache Paimon's own Java reader, writer and committer behind a small command line,
 * the reference that snapcommit's Paimon-format checks compare against. It never uses snapcommit code.
 *
 * <pre>
 *   write-golden DIR                         golden tables under DIR/golden.db/ (Paimon writes and commits)
 *   read TABLE [--snapshot N]                batch scan (latest or time travel): sorted JSON row lines + summary
 *   snapshots TABLE                          one JSON line per snapshot
 *   stream TABLE --expect-snapshots N [--from S] [--timeout-ms T]
 *                                            streaming read from snapshot S (default: earliest):
 *                                            each snapshot's new rows once, in order, then stop
 *   read-all TABLE --out DIR [--snapshots N,M] [--stream true] [--timeout-ms T]
 *                                            read, read --snapshot N, snapshots and stream in one JVM,
 *                                            each into DIR/&lt;part&gt;.jsonl (tests/paimon/reader_check.sh)
 *   dump-manifests TABLE [--snapshot N]      manifest lists and manifests of a snapshot, field by field
 *   commit-files TABLE --user U --identifier N --file-json F
 *                                            commit already written data files through Paimon's committer
 *   write-rows TABLE --user U --identifier N --rows-json F
 *                                            write rows with Paimon's writer and commit them
 *   create TABLE --schema-json F             a new table (schema-0) from snapcommit's schema JSON
 *   prepare TABLE --user U --identifier N --rows-json F --out-json CP.json --out-messages MSG.bin
 *           [--wait-compaction true] [--full-compaction true] [--watermark W]
 *                                            one checkpoint of Paimon's writer, not committed: its
 *                                            messages as snapcommit's checkpoint change set and as
 *                                            CommitMessageSerializer bytes
 *   commit-messages TABLE --user U --identifier N --in MSG.bin [--watermark W] [--replay true]
 *                                            commit those messages with Paimon's committer
 *                                            (--replay: as a restored one, skipping what landed)
 *   snapshots TABLE --detail true            also each snapshot's files, changelog and index files
 * </pre>
 *
 * Tables are local paths or s3://bucket/key (paimon-s3; the AWS_* variables, see {@link #s3Options}).
 * Exit codes: 0 ok, 1 any error (read error, commit failure, timeout), 2 bad usage.
 */
public final class PaimonTool {

    static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    public static void main(String[] args) {
        int rc;
        try {
            rc = run(args);
        } catch (Usage u) {
            System.err.println("paimon-tool: " + u.getMessage());
            rc = 2;
        } catch (Throwable t) {
            System.err.println("paimon-tool: error: " + t);
            t.printStackTrace(System.err);
            rc = 1;
        }
        OUT.flush();
        System.exit(rc);
    }

    static final class Usage extends RuntimeException {
        Usage(String m) {
            super(m);
        }
    }

    /** Options after the positional argument: --name value pairs. */
    static Map<String, String> flags(String[] args, int from, String... allowed) {
        Map<String, String> m = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || i + 1 >= args.length) {
                throw new Usage("unexpected argument " + a);
            }
            String k = a.substring(2);
            if (!List.of(allowed).contains(k)) {
                throw new Usage("unknown option --" + k);
            }
            m.put(k, args[++i]);
        }
        return m;
    }

    static boolean bool(Map<String, String> f, String k) {
        String v = f.getOrDefault(k, "false");
        if (!v.equals("true") && !v.equals("false")) {
            throw new Usage("--" + k + " takes true or false");
        }
        return v.equals("true");
    }

    static String need(Map<String, String> f, String k) {
        String v = f.get(k);
        if (v == null) {
            throw new Usage("missing --" + k);
        }
        return v;
    }

    static int run(String[] args) throws Exception {
        if (args.length < 2) {
            throw new Usage("usage: paimon-tool (write-golden DIR | read TABLE [--snapshot N] | snapshots TABLE"
                    + " | stream TABLE --expect-snapshots N [--from S] [--timeout-ms T]"
                    + " | read-all TABLE --out DIR [--snapshots N,M] [--stream true] [--timeout-ms T]"
                    + " | dump-manifests TABLE [--snapshot N]"
                    + " | commit-files TABLE --user U --identifier N --file-json F"
                    + " | write-rows TABLE --user U --identifier N --rows-json F"
                    + " | create TABLE --schema-json F"
                    + " | prepare TABLE --user U --identifier N --rows-json F --out-json F --out-messages F"
                    + " [--wait-compaction B] [--full-compaction B] [--watermark W]"
                    + " | commit-messages TABLE --user U --identifier N --in F [--watermark W] [--replay B])");
        }
        String cmd = args[0];
        String target = args[1];
        switch (cmd) {
            case "write-golden":
                flags(args, 2);
                Golden.write(target);
                return 0;
            case "read": {
                Map<String, String> f = flags(args, 2, "snapshot");
                return read(open(target, f.get("snapshot")), f.get("snapshot"), OUT);
            }
            case "snapshots": {
                Map<String, String> f = flags(args, 2, "detail");
                return snapshots(open(target, null), OUT, bool(f, "detail"));
            }
            case "stream": {
                Map<String, String> f = flags(args, 2, "expect-snapshots", "from", "timeout-ms");
                return stream(open(target, null), Integer.parseInt(need(f, "expect-snapshots")),
                        f.get("from") == null ? null : Long.parseLong(f.get("from")),
                        Long.parseLong(f.getOrDefault("timeout-ms", "30000")), OUT);
            }
            case "read-all": {
                Map<String, String> f = flags(args, 2, "out", "snapshots", "stream", "timeout-ms");
                List<Long> ids = new ArrayList<>();
                for (String n : f.getOrDefault("snapshots", "").split(",")) {
                    if (!n.isBlank()) {
                        ids.add(Long.parseLong(n.trim()));
                    }
                }
                String st = f.getOrDefault("stream", "false");
                if (!st.equals("true") && !st.equals("false")) {
                    throw new Usage("--stream takes true or false");
                }
                return readAll(target, new File(need(f, "out")), ids, st.equals("true"),
                        Long.parseLong(f.getOrDefault("timeout-ms", "30000")));
            }
            case "dump-manifests": {
                Map<String, String> f = flags(args, 2, "snapshot");
                FileStoreTable t = open(target, null);
                OUT.println(Json.pretty(Dump.dump(t, f.get("snapshot") == null ? null : Long.parseLong(f.get("snapshot")))));
                return 0;
            }
            case "dump-table": flags(args, 2); OUT.println(Json.pretty(DumpTable.dump(open(target, null)))); return 0;
            case "commit-files": {
                Map<String, String> f = flags(args, 2, "user", "identifier", "file-json");
                return Commits.commitFiles(open(target, null), need(f, "user"),
                        Long.parseLong(need(f, "identifier")), need(f, "file-json"));
            }
            case "write-rows": {
                Map<String, String> f = flags(args, 2, "user", "identifier", "rows-json");
                return Commits.writeRows(open(target, null), need(f, "user"),
                        Long.parseLong(need(f, "identifier")), need(f, "rows-json"));
            }
            case "create": {
                Map<String, String> f = flags(args, 2, "schema-json");
                return Checkpoints.create(target, need(f, "schema-json"));
            }
            case "prepare": {
                Map<String, String> f = flags(args, 2, "user", "identifier", "rows-json", "out-json", "out-messages",
                        "wait-compaction", "full-compaction", "watermark");
                return Checkpoints.prepare(open(target, null), need(f, "user"), Long.parseLong(need(f, "identifier")),
                        need(f, "rows-json"), need(f, "out-json"), need(f, "out-messages"),
                        bool(f, "wait-compaction"), bool(f, "full-compaction"),
                        f.get("watermark") == null ? null : Long.valueOf(f.get("watermark")));
            }
            case "commit-messages": {
                Map<String, String> f = flags(args, 2, "user", "identifier", "in", "watermark", "replay");
                return Checkpoints.commitMessages(open(target, null), need(f, "user"),
                        Long.parseLong(need(f, "identifier")), need(f, "in"),
                        f.get("watermark") == null ? null : Long.valueOf(f.get("watermark")), bool(f, "replay"));
            }
            default:
                throw new Usage("unknown command " + cmd);
        }
    }

    /**
     * Opens a table by path: a local path, file://, or s3://bucket/key through paimon-s3's S3FileIO
     * (options from {@link #s3Options}).
     */
    static FileStoreTable open(String path, String snapshot) {
        Options o = new Options();
        o.set(CoreOptions.PATH, path);
        if (path.startsWith("s3://")) {
            s3Options(System.getenv()).forEach(o::set);
        }
        FileStoreTable t = FileStoreTableFactory.create(CatalogContext.create(o));
        if (t.schemaManager().latest().isEmpty()) {
            throw new IllegalStateException("no Paimon table at " + path + " (no schema/schema-N)");
        }
        if (snapshot != null) {
            Map<String, String> dyn = new HashMap<>();
            dyn.put(CoreOptions.SCAN_SNAPSHOT_ID.key(), snapshot);
            t = t.copy(dyn);
        }
        return t;
    }

    /**
     * The S3FileIO options for an s3:// table, from the same AWS_* variables that
     * tests/paimon/pypaimon_read.py maps for pypaimon. S3FileIO turns every "s3.x" option into
     * Hadoop's "fs.s3a.x" (and mirrors "access-key" / "secret-key" / "path-style-access" onto the
     * dotted S3A names):
     * <ul>
     *   <li>s3.endpoint = AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (e.g. http://127.0.0.1:PORT), and
     *       then s3.path.style.access = true (a local test server has no virtual-host buckets) and
     *       s3.connection.ssl.enabled = false for an http:// endpoint;
     *   <li>s3.access-key / s3.secret-key = AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (S3Loader
     *       requires both), s3.session.token = AWS_SESSION_TOKEN with the temporary-credentials
     *       provider;
     *   <li>s3.endpoint.region = AWS_REGION (default us-east-1), so S3A does not probe for a region.
     * </ul>
     */
    static Map<String, String> s3Options(Map<String, String> env) {
        Map<String, String> o = new HashMap<>();
        String endpoint = env.getOrDefault("AWS_ENDPOINT_URL_S3", env.get("AWS_ENDPOINT_URL"));
        if (endpoint != null && !endpoint.isEmpty()) {
            o.put("s3.endpoint", endpoint);
            o.put("s3.path.style.access", "true");
            if (endpoint.startsWith("http://")) {
                o.put("s3.connection.ssl.enabled", "false");
            }
        }
        if (env.get("AWS_ACCESS_KEY_ID") != null) {
            o.put("s3.access-key", env.get("AWS_ACCESS_KEY_ID"));
            o.put("s3.secret-key", env.getOrDefault("AWS_SECRET_ACCESS_KEY", ""));
        }
        if (env.get("AWS_SESSION_TOKEN") != null) {
            o.put("s3.session.token", env.get("AWS_SESSION_TOKEN"));
            o.put("s3.aws.credentials.provider", "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider");
        }
        o.put("s3.endpoint.region", env.getOrDefault("AWS_REGION", "us-east-1"));
        return o;
    }

    static List<String> rowLines(RecordReader<InternalRow> reader, RowType type, boolean withKind) throws Exception {
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> r = reader) {
            r.forEachRemaining(row -> {
                Map<String, Object> m = Json.obj();
                if (withKind) {
                    m.put("_kind", row.getRowKind().shortString());
                }
                m.putAll(Values.row(row, type));
                lines.add(Json.write(m));
            });
        }
        return lines;
    }

    static int read(FileStoreTable t, String snapshot, PrintStream out) throws Exception {
        ReadBuilder rb = t.newReadBuilder();
        TableScan.Plan plan = rb.newScan().plan();
        List<Split> splits = plan.splits();
        TableRead read = rb.newRead().executeFilter();
        List<String> lines = rowLines(read.createReader(splits), rb.readType(), false);
        Json.sortUtf8(lines);
        lines.forEach(out::println);
        Long sid = snapshot != null ? Long.valueOf(snapshot) : t.snapshotManager().latestSnapshotId();
        Map<String, Object> sum = Json.obj();
        sum.put("snapshot", sid);
        sum.put("rows", lines.size());
        Map<String, Object> s = Json.obj();
        s.put("summary", sum);
        out.println(Json.write(s));
        return 0;
    }

    static int snapshots(FileStoreTable t, PrintStream out) throws Exception {
        return snapshots(t, out, false);
    }

    static int snapshots(FileStoreTable t, PrintStream out, boolean detail) throws Exception {
        SnapshotManager sm = t.snapshotManager();
        Iterator<Snapshot> it = sm.snapshots();
        List<Snapshot> all = new ArrayList<>();
        it.forEachRemaining(all::add);
        all.sort((a, b) -> Long.compare(a.id(), b.id()));
        for (Snapshot s : all) {
            Map<String, Object> m = Json.obj();
            m.put("id", s.id());
            m.put("schemaId", s.schemaId());
            m.put("commitUser", s.commitUser());
            m.put("commitIdentifier", s.commitIdentifier());
            m.put("commitKind", s.commitKind().name());
            m.put("totalRecordCount", s.totalRecordCount());
            m.put("deltaRecordCount", s.deltaRecordCount());
            m.put("properties", s.properties());
            if (detail) {
                Checkpoints.detail(t, s, m);
            }
            out.println(Json.write(m));
        }
        return 0;
    }

    /**
     * Streaming read as Paimon's streaming source does it (ReadBuilder#newStreamScan): starts at
     * snapshot {@code from} (default: the earliest), then each plan() covers the next snapshot's
     * new files. Prints {"snapshot":id,"rows":k} followed by that snapshot's rows (with their
     * row kind, sorted like `read`) and stops after {@code expect} snapshots have been consumed.
     * A plan that passes over snapshots Paimon's scanner does not read covers several:
     * {"snapshot":first,"through":last,"rows":k}.
     */
    static int stream(FileStoreTable t, int expect, Long from, long timeoutMs, PrintStream out) throws Exception {
        Long earliest = t.snapshotManager().earliestSnapshotId();
        long start = from != null ? from : (earliest == null ? 1L : earliest);
        Map<String, String> dyn = new HashMap<>();
        dyn.put(CoreOptions.SCAN_MODE.key(), CoreOptions.StartupMode.FROM_SNAPSHOT.toString());
        dyn.put(CoreOptions.SCAN_SNAPSHOT_ID.key(), Long.toString(start));
        FileStoreTable st = t.copy(dyn);
        ReadBuilder rb = st.newReadBuilder();
        StreamTableScan scan = rb.newStreamScan();
        TableRead read = rb.newRead();
        int seen = 0;
        long deadline = System.currentTimeMillis() + timeoutMs;
        long total = 0;
        while (seen < expect) {
            Long before = scan.checkpoint();
            TableScan.Plan plan = scan.plan();
            Long after = scan.checkpoint();
            if (before == null || after == null || after <= before) {
                // the starting plan (no snapshot consumed yet) or nothing new yet
                if (!plan.splits().isEmpty()) {
                    throw new IllegalStateException("a plan with splits that consumed no snapshot");
                }
                // The deadline holds before the first snapshot too: a table with fewer snapshots
                // than expected (or none) must end the read, not spin.
                if (System.currentTimeMillis() > deadline) {
                    System.err.println("paimon-tool: stream: timed out after " + seen + " of " + expect + " snapshots");
                    return 1;
                }
                if (before != null || t.snapshotManager().latestSnapshotId() == null) {
                    Thread.sleep(100);
                }
                continue;
            }
            List<String> lines = rowLines(read.createReader(plan.splits()), rb.readType(), true);
            Json.sortUtf8(lines); // split order is not deterministic; the snapshot order is
            Map<String, Object> head = Json.obj();
            head.put("snapshot", before);
            if (after - before > 1) {
                // Paimon's follow-up scanner passes over snapshots it does not read (the APPEND
                // snapshots of a lookup or full-compaction changelog producer, COMPACT snapshots
                // without one) within one plan: say which snapshots this plan covered.
                head.put("through", after - 1);
            }
            head.put("rows", lines.size());
            out.println(Json.write(head));
            lines.forEach(out::println);
            total += lines.size();
            seen += (int) (after - before);
        }
        Map<String, Object> sum = Json.obj();
        sum.put("snapshots", seen);
        sum.put("rows", total);
        Map<String, Object> s = Json.obj();
        s.put("summary", sum);
        out.println(Json.write(s));
        return 0;
    }

    /**
     * read-all: everything a reader check needs from one JVM, each part into its own file under
     * {@code dir}, with exactly the bytes the single commands print: latest.jsonl (`read`),
     * snapshot-N.jsonl for each N in {@code snapshots} (`read --snapshot N`), snapshots.jsonl
     * (`snapshots`) and, with {@code stream}, stream.jsonl (`stream` from the earliest snapshot
     * until the latest one that existed when read-all started, bounded by {@code timeoutMs}).
     * A part that fails leaves no .jsonl but a &lt;part&gt;.error file with the reason, and the others
     * still run, so a check can report each part; the exit status is 1 if any part failed.
     */
    static int readAll(String path, File dir, List<Long> snapshotIds, boolean stream, long timeoutMs) throws Exception {
        Files.createDirectories(dir.toPath());
        FileStoreTable t = open(path, null);
        Long latest = t.snapshotManager().latestSnapshotId();
        Long earliest = t.snapshotManager().earliestSnapshotId();
        List<String> parts = new ArrayList<>();
        parts.add("latest");
        parts.add("snapshots");
        for (Long n : snapshotIds) {
            parts.add("snapshot-" + n);
        }
        if (stream) {
            parts.add("stream");
        }
        int failed = 0;
        for (String part : parts) {
            File f = new File(dir, part + ".jsonl");
            File err = new File(dir, part + ".error");
            try (PrintStream out = new PrintStream(new FileOutputStream(f), false, StandardCharsets.UTF_8)) {
                int rc;
                if (part.equals("latest")) {
                    rc = read(t, null, out);
                } else if (part.equals("snapshots")) {
                    rc = snapshots(t, out);
                } else if (part.equals("stream")) {
                    int expect = latest == null ? 0 : (int) (latest - earliest + 1);
                    rc = stream(t, expect, null, timeoutMs, out);
                } else {
                    String n = part.substring("snapshot-".length());
                    rc = read(open(path, n), n, out);
                }
                if (rc != 0) {
                    throw new IllegalStateException(part + " ended with status " + rc);
                }
            } catch (Exception e) {
                Files.deleteIfExists(f.toPath());
                Files.writeString(err.toPath(), e + "\n", StandardCharsets.UTF_8);
                System.err.println("paimon-tool: read-all: " + part + ": " + e);
                failed++;
            }
        }
        return failed == 0 ? 0 : 1;
    }
}
