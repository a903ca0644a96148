package io.snapcommit.demo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.CatalogOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

/**
 * A table read back by Apache Paimon's own Java table API (Paimon 1.4.2 from Maven Central), the
 * judge of what the snapcommit sink wrote. Nothing of snapcommit is used here: the table is found
 * by Paimon's filesystem catalog (a {@code warehouse} path holding {@code <db>.db/<table>}), and
 * scans, time travel and the streaming read are Paimon's ({@code ReadBuilder}, {@code
 * scan.snapshot-id}, {@code newStreamScan}). Shared by the integration tests and the demo.
 *
 * <p>Rows are rendered {@code {"col":value,...}} in schema order (strings quoted, numbers and
 * booleans bare, null as null), so tests can compare them with what they generated.
 */
public final class PaimonReader implements AutoCloseable {
    private final Catalog catalog;
    private final FileStoreTable table;
    private final String name;

    private PaimonReader(Catalog catalog, FileStoreTable table, String name) {
        this.catalog = catalog;
        this.table = table;
        this.name = name;
    }

    /**
     * The table at {@code path} = {@code <warehouse>/<db>.db/<table>} (local path, file:// or
     * s3://), opened through a filesystem catalog on {@code <warehouse>}; {@code options} are
     * catalog options (e.g. {@link #s3Options}), may be empty.
     */
    public static PaimonReader open(String path, Map<String, String> options) {
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int t = p.lastIndexOf('/');
        int d = t > 0 ? p.lastIndexOf('/', t - 1) : -1;
        String dbDir = d >= 0 ? p.substring(d + 1, t) : "";
        if (d <= 0 || !dbDir.endsWith(".db") || dbDir.length() == 3)
            throw new IllegalArgumentException(path + " is not in a Paimon catalog layout <warehouse>/<db>.db/<table>"
                                               + " (openPath reads a table at any path)");
        Options o = new Options();
        o.set(CatalogOptions.WAREHOUSE.key(), p.substring(0, d));
        options.forEach(o::set);
        Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(o));
        Identifier id = Identifier.create(dbDir.substring(0, dbDir.length() - 3), p.substring(t + 1));
        try {
            Table table = catalog.getTable(id);
            if (!(table instanceof FileStoreTable)) throw new IllegalStateException(id + " is not a file store table: " + table);
            return new PaimonReader(catalog, (FileStoreTable) table, id.getFullName());
        } catch (Catalog.TableNotExistException e) {
            close(catalog);
            throw new IllegalStateException("Paimon's filesystem catalog finds no table " + id + " in " + p.substring(0, d), e);
        } catch (RuntimeException e) {
            close(catalog);
            throw e;
        }
    }

    /** The table at any path, without a catalog (Paimon's FileStoreTableFactory). */
    public static PaimonReader openPath(String path, Map<String, String> options) {
        Options o = new Options();
        o.set(CoreOptions.PATH, path);
        options.forEach(o::set);
        FileStoreTable t = FileStoreTableFactory.create(CatalogContext.create(o));
        if (t.schemaManager().latest().isEmpty()) throw new IllegalStateException("Paimon finds no schema at " + path);
        return new PaimonReader(null, t, t.name());
    }

    /** {@link #open} when path is in a catalog layout, else {@link #openPath}. */
    public static PaimonReader openAny(String path, Map<String, String> options) {
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int t = p.lastIndexOf('/');
        int d = t > 0 ? p.lastIndexOf('/', t - 1) : -1;
        boolean layout = d > 0 && p.substring(d + 1, t).endsWith(".db") && t - d - 1 > 3;
        return layout ? open(path, options) : openPath(path, options);
    }

    /** Catalog options of paimon-s3 for an S3-compatible server addressed path-style (e.g. gofakes3). */
    public static Map<String, String> s3Options(String endpoint, String accessKey, String secretKey, String region) {
        Map<String, String> o = new HashMap<>();
        o.put("s3.endpoint", endpoint);
        o.put("s3.path.style.access", "true");
        if (endpoint.startsWith("http://")) o.put("s3.connection.ssl.enabled", "false");
        o.put("s3.access-key", accessKey);
        o.put("s3.secret-key", secretKey);
        o.put("s3.endpoint.region", region);
        return o;
    }

    /** The catalog's name of the table, db.table. */
    public String name() {
        return name;
    }

    /** Every snapshot Paimon's snapshot manager lists, by id. */
    public List<Snapshot> snapshots() {
        List<Snapshot> out = new ArrayList<>();
        try {
            Iterator<Snapshot> it = table.snapshotManager().snapshots();
            it.forEachRemaining(out::add);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        out.sort((a, b) -> Long.compare(a.id(), b.id()));
        return out;
    }

    /** Paimon's latest snapshot id (its LATEST hint and listing), null when there is none. */
    public Long latestSnapshotId() {
        return table.snapshotManager().latestSnapshotId();
    }

    /** A batch scan of the latest snapshot. */
    public List<String> rows() {
        return scan(table);
    }

    /** Time travel: a batch scan of snapshot {@code id} ({@code scan.snapshot-id}). */
    public List<String> rowsAt(long id) {
        return scan(table.copy(Collections.singletonMap(CoreOptions.SCAN_SNAPSHOT_ID.key(), Long.toString(id))));
    }

    private static List<String> scan(FileStoreTable t) {
        ReadBuilder rb = t.newReadBuilder();
        try {
            return read(rb, rb.newScan().plan(), false);
        } catch (Exception e) {
            throw new IllegalStateException("Paimon's batch read of " + t.name() + " failed: " + e, e);
        }
    }

    private static List<String> read(ReadBuilder rb, TableScan.Plan plan, boolean withKind) throws Exception {
        List<String> out = new ArrayList<>();
        RowType type = rb.readType();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(plan.splits())) {
            r.forEachRemaining(row -> out.add(withKind ? row.getRowKind().shortString() + " " + render(row, type)
                                                       : render(row, type)));
        }
        return out;
    }

    /**
     * A streaming read from snapshot {@code from} ({@code scan.mode} = from-snapshot, Paimon's
     * {@code StreamTableScan}) until {@code expect} snapshots were consumed: snapshot id → the rows
     * that snapshot added, in the order the scan consumed them. Fails when one plan consumes more
     * than one snapshot or when nothing new arrives for {@code timeoutMs}.
     */
    public LinkedHashMap<Long, List<String>> stream(long from, int expect, long timeoutMs) {
        return stream(from, expect, timeoutMs, false);
    }

    /**
     * As {@link #stream(long, int, long)}, each row prefixed with its row kind ("+I ", "-U ", "+U ",
     * "-D "): a primary-key table's changelog as Paimon's streaming read gives it.
     */
    public LinkedHashMap<Long, List<String>> stream(long from, int expect, long timeoutMs, boolean withKind) {
        Map<String, String> dyn = new HashMap<>();
        dyn.put(CoreOptions.SCAN_MODE.key(), CoreOptions.StartupMode.FROM_SNAPSHOT.toString());
        dyn.put(CoreOptions.SCAN_SNAPSHOT_ID.key(), Long.toString(from));
        ReadBuilder rb = table.copy(dyn).newReadBuilder();
        StreamTableScan scan = rb.newStreamScan();
        LinkedHashMap<Long, List<String>> out = new LinkedHashMap<>();
        long deadline = System.currentTimeMillis() + timeoutMs;
        try {
            while (out.size() < expect) {
                Long next = scan.checkpoint(); // the snapshot the next plan will consume
                TableScan.Plan plan = scan.plan();
                Long after = scan.checkpoint();
                if (next == null || after == null || after.equals(next)) {
                    if (!plan.splits().isEmpty()) throw new IllegalStateException("a plan with splits consumed no snapshot");
                    if (next != null) {
                        if (System.currentTimeMillis() > deadline)
                            throw new IllegalStateException("streaming read: " + out.size() + " of " + expect
                                                            + " snapshots after " + timeoutMs + " ms");
                        Thread.sleep(50);
                    }
                    continue;
                }
                if (after - next != 1) throw new IllegalStateException("one plan consumed snapshots " + next + ".." + (after - 1));
                out.put(next, read(rb, plan, withKind));
                deadline = System.currentTimeMillis() + timeoutMs;
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Paimon's streaming read of " + name + " failed: " + e, e);
        }
        return out;
    }

    /**
     * Paimon's streaming read from snapshot {@code from} until it has consumed the latest snapshot,
     * every row prefixed with its row kind ("+I ", "-U ", "+U ", "-D "), in the order read. Unlike
     * {@link #stream}, one plan may consume several snapshots: a changelog-producer lookup table's
     * scan skips the APPEND snapshots, whose rows reach the changelog with the next compaction.
     */
    public List<String> changelog(long from, long timeoutMs) {
        Map<String, String> dyn = new HashMap<>();
        dyn.put(CoreOptions.SCAN_MODE.key(), CoreOptions.StartupMode.FROM_SNAPSHOT.toString());
        dyn.put(CoreOptions.SCAN_SNAPSHOT_ID.key(), Long.toString(from));
        ReadBuilder rb = table.copy(dyn).newReadBuilder();
        StreamTableScan scan = rb.newStreamScan();
        Long latest = latestSnapshotId();
        List<String> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + timeoutMs;
        try {
            while (latest != null) {
                TableScan.Plan plan = scan.plan();
                out.addAll(read(rb, plan, true));
                Long next = scan.checkpoint();
                if (next != null && next > latest) break;
                if (System.currentTimeMillis() > deadline)
                    throw new IllegalStateException("streaming read stuck before snapshot " + next + " of " + latest);
                if (plan.splits().isEmpty()) Thread.sleep(20);
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Paimon's streaming read of " + name + " failed: " + e, e);
        }
        return out;
    }

    /** What {@link #check()} found: rows of the latest snapshot and the per-snapshot reads. */
    public static final class Check {
        public final List<String> rows;                        // batch scan of the latest snapshot
        public final TreeMap<Long, Integer> rowsAtSnapshot;    // time travel: snapshot → rows
        public final LinkedHashMap<Long, List<String>> stream; // streaming read from the earliest snapshot
        public final List<Snapshot> snapshots;

        Check(List<String> rows, TreeMap<Long, Integer> at, LinkedHashMap<Long, List<String>> stream, List<Snapshot> snapshots) {
            this.rows = rows;
            this.rowsAtSnapshot = at;
            this.stream = stream;
            this.snapshots = snapshots;
        }

        /** One line for logs and summaries. */
        public String summary() {
            long streamed = stream.values().stream().mapToLong(List::size).sum();
            return String.format("Paimon 1.4.2 reader: %d snapshots; batch scan of the latest: %d rows; time travel to each "
                                 + "of %d snapshots = the streamed rows up to it; streaming read from snapshot %d: %d "
                                 + "snapshots in order, %d rows", snapshots.size(), rows.size(), rowsAtSnapshot.size(),
                                 snapshots.isEmpty() ? 0 : snapshots.get(0).id(), stream.size(), streamed);
        }
    }

    /**
     * Paimon's three read paths agree with each other and with the snapshots: the streaming read
     * from the earliest snapshot consumes every snapshot once, in id order, each with as many rows
     * as its deltaRecordCount; time travel to each snapshot returns exactly (as a multiset) the
     * rows streamed up to and including it, and as many as its totalRecordCount; the batch scan of
     * the latest snapshot equals the time travel to it. Append-only tables (every snapshot APPEND).
     * Throws IllegalStateException naming the first disagreement.
     */
    public Check check(long timeoutMs) {
        List<Snapshot> snaps = snapshots();
        if (snaps.isEmpty()) throw new IllegalStateException(name + ": Paimon sees no snapshot");
        for (int i = 1; i < snaps.size(); i++)
            if (snaps.get(i).id() != snaps.get(i - 1).id() + 1)
                throw new IllegalStateException(name + ": snapshot ids not contiguous: " + ids(snaps));
        if (!Long.valueOf(snaps.get(snaps.size() - 1).id()).equals(latestSnapshotId()))
            throw new IllegalStateException(name + ": latest snapshot " + latestSnapshotId() + " but listed " + ids(snaps));
        LinkedHashMap<Long, List<String>> stream = stream(snaps.get(0).id(), snaps.size(), timeoutMs);
        List<Long> order = new ArrayList<>(stream.keySet());
        if (!order.equals(ids(snaps)))
            throw new IllegalStateException(name + ": the streaming read consumed " + order + ", the snapshots are " + ids(snaps));
        Map<String, Integer> upTo = new HashMap<>();
        TreeMap<Long, Integer> at = new TreeMap<>();
        List<String> last = null;
        for (Snapshot s : snaps) {
            if (s.commitKind() != Snapshot.CommitKind.APPEND)
                throw new IllegalStateException(name + ": snapshot " + s.id() + " is " + s.commitKind() + ", not APPEND");
            List<String> delta = stream.get(s.id());
            if (delta.size() != s.deltaRecordCount())
                throw new IllegalStateException(name + ": snapshot " + s.id() + " streamed " + delta.size()
                                                + " rows, its deltaRecordCount is " + s.deltaRecordCount());
            for (String r : delta) upTo.merge(r, 1, Integer::sum);
            last = rowsAt(s.id());
            if (!counts(last).equals(upTo))
                throw new IllegalStateException(name + ": time travel to snapshot " + s.id() + " returned " + last.size()
                                                + " rows, not the " + size(upTo) + " rows streamed up to it");
            if (last.size() != s.totalRecordCount())
                throw new IllegalStateException(name + ": snapshot " + s.id() + " reads " + last.size()
                                                + " rows, its totalRecordCount is " + s.totalRecordCount());
            at.put(s.id(), last.size());
        }
        List<String> rows = rows();
        if (!counts(rows).equals(counts(last)))
            throw new IllegalStateException(name + ": the batch scan of the latest snapshot differs from time travel to it");
        return new Check(rows, at, stream, snaps);
    }

    private static List<Long> ids(List<Snapshot> snaps) {
        List<Long> out = new ArrayList<>();
        for (Snapshot s : snaps) out.add(s.id());
        return out;
    }

    private static Map<String, Integer> counts(List<String> rows) {
        Map<String, Integer> m = new HashMap<>();
        for (String r : rows) m.merge(r, 1, Integer::sum);
        return m;
    }

    private static long size(Map<String, Integer> m) {
        return m.values().stream().mapToLong(Integer::longValue).sum();
    }

    /** {"col":value,...} of one row in schema order. */
    public static String render(InternalRow row, RowType type) {
        StringBuilder sb = new StringBuilder("{");
        List<DataField> fields = type.getFields();
        for (int i = 0; i < fields.size(); i++) {
            Object v = InternalRow.createFieldGetter(fields.get(i).type(), i).getFieldOrNull(row);
            if (i > 0) sb.append(',');
            sb.append('"').append(fields.get(i).name()).append("\":");
            if (v == null) sb.append("null");
            else if (v instanceof Number || v instanceof Boolean) sb.append(v);
            else if (v instanceof byte[]) sb.append('"').append(java.util.HexFormat.of().formatHex((byte[]) v)).append('"');
            else sb.append('"').append(v.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return sb.append('}').toString();
    }

    @Override
    public void close() {
        close(catalog);
    }

    private static void close(Catalog c) {
        if (c == null) return;
        try {
            c.close();
        } catch (Exception e) {
            // nothing to release that matters to a reader
        }
    }
}
