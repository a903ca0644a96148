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

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
 *   dump-manifests TABLE [--snapshot N]      manifest lists and manifests of a snapshot, field by field
 *   commit-files TABLE --user U --identifier N --file-json F
 *                                            commit already written data files through Paimon's committer
 *   write-rows TABLE --user U --identifier N --rows-json F
 *                                            write rows with Paimon's writer and commit them
 * </pre>
 *
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
                    + " | dump-manifests TABLE [--snapshot N]"
                    + " | commit-files TABLE --user U --identifier N --file-json F"
                    + " | write-rows TABLE --user U --identifier N --rows-json F)");
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
                return read(open(target, f.get("snapshot")), f.get("snapshot"));
            }
            case "snapshots":
                flags(args, 2);
                return snapshots(open(target, null));
            case "stream": {
                Map<String, String> f = flags(args, 2, "expect-snapshots", "from", "timeout-ms");
                return stream(open(target, null), Integer.parseInt(need(f, "expect-snapshots")),
                        f.get("from") == null ? null : Long.parseLong(f.get("from")),
                        Long.parseLong(f.getOrDefault("timeout-ms", "30000")));
            }
            case "dump-manifests": {
                Map<String, String> f = flags(args, 2, "snapshot");
                FileStoreTable t = open(target, null);
                OUT.println(Json.pretty(Dump.dump(t, f.get("snapshot") == null ? null : Long.parseLong(f.get("snapshot")))));
                return 0;
            }
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
            default:
                throw new Usage("unknown command " + cmd);
        }
    }

    /** Opens a table by path (local path, file:// or any scheme a FileIO on the class path serves). */
    static FileStoreTable open(String path, String snapshot) {
        Options o = new Options();
        o.set(CoreOptions.PATH, path);
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

    static int read(FileStoreTable t, String snapshot) throws Exception {
        ReadBuilder rb = t.newReadBuilder();
        TableScan.Plan plan = rb.newScan().plan();
        List<Split> splits = plan.splits();
        TableRead read = rb.newRead().executeFilter();
        List<String> lines = rowLines(read.createReader(splits), rb.readType(), false);
        Json.sortUtf8(lines);
        lines.forEach(OUT::println);
        Long sid = snapshot != null ? Long.valueOf(snapshot) : t.snapshotManager().latestSnapshotId();
        Map<String, Object> sum = Json.obj();
        sum.put("snapshot", sid);
        sum.put("rows", lines.size());
        Map<String, Object> s = Json.obj();
        s.put("summary", sum);
        OUT.println(Json.write(s));
        return 0;
    }

    static int snapshots(FileStoreTable t) throws Exception {
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
            OUT.println(Json.write(m));
        }
        return 0;
    }

    /**
     * Streaming read as Paimon's streaming source does it (ReadBuilder#newStreamScan): starts at
     * snapshot {@code from} (default: the earliest), then each plan() covers the next snapshot's
     * new files. Prints {"snapshot":id,"rows":k} followed by that snapshot's rows (with their
     * row kind, sorted like `read`) and stops after {@code expect} snapshots have been consumed.
     */
    static int stream(FileStoreTable t, int expect, Long from, long timeoutMs) throws Exception {
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
                if (before != null && System.currentTimeMillis() > deadline) {
                    System.err.println("paimon-tool: stream: timed out after " + seen + " of " + expect + " snapshots");
                    return 1;
                }
                if (before != null) {
                    Thread.sleep(100);
                }
                continue;
            }
            if (after - before != 1) {
                throw new IllegalStateException("one plan consumed snapshots " + before + ".." + (after - 1));
            }
            List<String> lines = rowLines(read.createReader(plan.splits()), rb.readType(), true);
            Json.sortUtf8(lines); // split order is not deterministic; the snapshot order is
            Map<String, Object> head = Json.obj();
            head.put("snapshot", before);
            head.put("rows", lines.size());
            OUT.println(Json.write(head));
            lines.forEach(OUT::println);
            total += lines.size();
            seen++;
        }
        Map<String, Object> sum = Json.obj();
        sum.put("snapshots", seen);
        sum.put("rows", total);
        Map<String, Object> s = Json.obj();
        s.put("summary", sum);
        OUT.println(Json.write(s));
        return 0;
    }
}
