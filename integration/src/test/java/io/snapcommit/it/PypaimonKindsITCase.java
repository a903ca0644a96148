package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.options.CatalogOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.snapcommit.demo.PaimonReader;

/**
 * pypaimon (the SC_PYPAIMON venv, tests/paimon/pypaimon_read.py) on each primary-key table kind
 * the sink writes. For each kind, Paimon 1.4.2's own writer and committer make a table (two
 * commits: inserts, then upserts and deletes or the merge engine's second rows), and the sink
 * makes one with the same two steps as two SQL jobs. Paimon's Java reader must read ours as it
 * reads Paimon's own. pypaimon then reads Paimon's own table: where it reads it as the Java reader
 * does, it must read ours the same; where it does not, docs/flink.md must say so in the line
 * "pypaimon X.Y does not read KIND written by Paimon itself: ERROR" (and must not say so where it
 * does), so that a pypaimon upgrade re-judges the line.
 */
class PypaimonKindsITCase extends ITBase {

    enum Kind {
        FIXED_BUCKET("fixed-bucket deduplicate", true, "'bucket' = '2'"),
        LOOKUP_CHANGELOG("lookup changelog", true, "'bucket' = '2', 'changelog-producer' = 'lookup'"),
        DELETION_VECTORS("deletion vectors", true, "'bucket' = '2', 'deletion-vectors.enabled' = 'true'"),
        DYNAMIC_BUCKET("dynamic bucket", true, "'bucket' = '-1', 'dynamic-bucket.target-row-num' = '5'"),
        PARTIAL_UPDATE("partial-update", false, "'bucket' = '2', 'merge-engine' = 'partial-update'"),
        /** As PrimaryKeyJudgeITCase's table of two streams: b orders a. */
        PARTIAL_UPDATE_SEQUENCE_GROUP("partial-update with sequence groups", false,
                                      "'bucket' = '2', 'merge-engine' = 'partial-update', 'fields.b.sequence-group' = 'a'"),
        AGGREGATION("aggregation", false,
                    "'bucket' = '2', 'merge-engine' = 'aggregation', 'fields.b.aggregate-function' = 'sum'"),
        FIRST_ROW("first-row", false, "'bucket' = '2', 'merge-engine' = 'first-row'");

        final String label;
        final boolean deletes;
        final String options;

        Kind(String label, boolean deletes, String options) {
            this.label = label;
            this.deletes = deletes;
            this.options = options;
        }

        /** The options as a map ('k' = 'v', ...). */
        Map<String, String> optionMap() {
            Map<String, String> m = new TreeMap<>();
            for (String kv : options.split(",\\s*'")) {
                String[] p = kv.replace("'", "").split("\\s*=\\s*");
                m.put(p[0].trim(), p[1].trim());
            }
            return m;
        }
    }

    /** One row of a step: kind, id, a, b. */
    record R(RowKind kind, long id, String a, Long b) {}

    /** Step 1: ids 0..19 inserted. Step 2: ids 10..24 again (a null for partial-update), and deletes of 0..2. */
    static List<List<R>> steps(Kind kind) {
        List<R> first = new ArrayList<>(), second = new ArrayList<>();
        for (long id = 0; id < 20; id++) first.add(new R(RowKind.INSERT, id, "a" + id, id));
        for (long id = 10; id < 25; id++)
            second.add(new R(RowKind.INSERT, id, kind == Kind.PARTIAL_UPDATE ? null : "u" + id, 100 * id));
        if (kind.deletes)
            for (long id = 0; id < 3; id++) second.add(new R(RowKind.DELETE, id, "a" + id, id));
        return List.of(first, second);
    }

    private Catalog paimonCatalog() {
        Options o = new Options();
        o.set(CatalogOptions.WAREHOUSE.key(), tmp.resolve("warehouse").toString());
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /** Paimon's own table of the kind: its catalog creates it, its StreamTableWrite/Commit write the steps. */
    private String paimonOwn(Kind kind) throws Exception {
        String name = "paimon_" + kind.name().toLowerCase();
        try (Catalog catalog = paimonCatalog()) {
            catalog.createDatabase("db", true);
            org.apache.paimon.schema.Schema.Builder b = org.apache.paimon.schema.Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull()).column("a", DataTypes.STRING()).column("b", DataTypes.BIGINT())
                .primaryKey("id");
            kind.optionMap().forEach(b::option);
            catalog.createTable(Identifier.create("db", name), b.build(), false);
            FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create("db", name));
            StreamWriteBuilder wb = table.newStreamWriteBuilder().withCommitUser("paimon");
            HashBucketAssigner assigner = kind != Kind.DYNAMIC_BUCKET ? null
                : new HashBucketAssigner(table.snapshotManager(), "paimon", table.store().newIndexFileHandler(), 1, 1, 0,
                                         table.coreOptions().dynamicBucketTargetRowNum(),
                                         table.coreOptions().dynamicBucketMaxBuckets());
            RowPartitionKeyExtractor keys = new RowPartitionKeyExtractor(table.schema());
            try (IOManager io = IOManager.create(tmp.resolve("io").toString());
                 StreamTableWrite w = (StreamTableWrite) wb.newWrite().withIOManager(io); StreamTableCommit c = wb.newCommit()) {
                long identifier = 0;
                for (List<R> step : steps(kind)) {
                    identifier++;
                    for (R r : step) {
                        GenericRow row = GenericRow.ofKind(org.apache.paimon.types.RowKind.fromByteValue(r.kind.toByteValue()),
                                                           r.id, r.a == null ? null : BinaryString.fromString(r.a), r.b);
                        if (assigner == null) w.write(row);
                        else w.write(row, assigner.assign(keys.partition(row), keys.trimmedPrimaryKey(row).hashCode()));
                    }
                    // Waiting for compaction, as Paimon's sink does for lookup tables (changelog, deletion vectors).
                    c.commit(identifier, w.prepareCommit(true, identifier));
                    if (assigner != null) assigner.prepareCommit(identifier);
                }
            }
        }
        return table(name);
    }

    /** Our table of the kind: the same two steps as two SQL jobs into the snapcommit sink. */
    private String ours(Kind kind) throws Exception {
        String name = "ours_" + kind.name().toLowerCase();
        String path = table(name);
        for (List<R> step : steps(kind)) {
            StreamExecutionEnvironment env = env("200 ms", Map.of());
            StreamTableEnvironment t = StreamTableEnvironment.create(env);
            // The changelog source has no upsert key: no materializer (Paimon's sink, and ours, refuse it).
            t.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
            List<Row> rows = new ArrayList<>();
            boolean deletes = false;
            for (R r : step) {
                rows.add(Row.ofKind(r.kind, r.id, r.a, r.b));
                deletes |= r.kind != RowKind.INSERT;
            }
            DataStream<Row> src = env.fromData(rows)
                .returns(Types.ROW_NAMED(new String[] {"id", "a", "b"}, Types.LONG, Types.STRING, Types.LONG));
            // Deletes as a retract-mode changelog, so that they reach the sink as they are.
            t.createTemporaryView("src", deletes ? t.fromChangelogStream(src, Schema.newBuilder().build(), ChangelogMode.all())
                                                 : t.fromDataStream(src));
            t.executeSql("CREATE TABLE " + name + " (id BIGINT, a STRING, b BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                         + "'connector' = 'snapcommit', 'path' = '" + path + "', " + kind.options + ")");
            t.executeSql("INSERT INTO " + name + " SELECT * FROM src").await();
        }
        return path;
    }

    private static List<String> javaRead(String table) {
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            List<String> rows = new ArrayList<>(r.rows());
            Collections.sort(rows);
            return rows;
        }
    }

    static String python() {
        String py = System.getProperty("SC_PYPAIMON");
        if (py == null || py.isBlank() || py.startsWith("${")) py = System.getenv("SC_PYPAIMON");
        assertTrue(py != null && !py.isBlank() && !py.startsWith("${"),
                   "SC_PYPAIMON is not set: run py=$(scripts/pypaimon-setup.sh) and export SC_PYPAIMON=$py");
        return py;
    }

    /** Output of a process (exit code asserted 0 unless allowed): stdout lines, stderr text. */
    private static Object[] run(List<String> cmd) throws Exception {
        Path err = Files.createTempFile("pypaimon-", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        String stderr = Files.readString(err);
        Files.deleteIfExists(err);
        return new Object[] {rc, out, stderr};
    }

    /** pypaimon's version, as its package metadata says. */
    static String pypaimonVersion() throws Exception {
        Object[] r = run(List.of(python(), "-c", "import importlib.metadata as m; print(m.version('pypaimon'))"));
        assertEquals(0, r[0], "pypaimon's version: " + r[2]);
        return ((String) r[1]).trim();
    }

    /** pypaimon's batch read of the latest snapshot, sorted rows; or its error ("error: ..."). */
    static PyRead pypaimon(String table) throws Exception {
        Path script = Paths.get(System.getProperty("snapcommit.root", ".."), "tests/paimon/pypaimon_read.py");
        assertTrue(Files.exists(script), script + " not found");
        Object[] r = run(List.of(python(), script.toString(), table));
        if ((int) r[0] != 0) {
            String[] lines = ((String) r[2]).strip().split("\n");
            return new PyRead(null, lines[lines.length - 1].replace("pypaimon_read: error: ", ""));
        }
        List<String> lines = new ArrayList<>(List.of(((String) r[1]).split("\n")));
        String last = lines.remove(lines.size() - 1);
        assertTrue(last.startsWith("{\"summary\""), last);
        Collections.sort(lines);
        return new PyRead(lines, null);
    }

    record PyRead(List<String> rows, String error) {}

    private static List<String> docLines() throws Exception {
        return Files.readAllLines(Paths.get(System.getProperty("snapcommit.root", ".."), "docs/flink.md"));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void pypaimonReadsOurTableWhereItReadsPaimonsOwn(Kind kind) throws Exception {
        String own = paimonOwn(kind);
        List<String> ownRows = javaRead(own);
        assertFalse(ownRows.isEmpty(), "Paimon's own " + kind.label + " table has rows");
        String ours = ours(kind);
        assertEquals(ownRows, javaRead(ours), "Paimon's Java reader reads our " + kind.label + " table as Paimon's own");

        String version = pypaimonVersion();
        String prefix = "pypaimon " + version + " does not read " + kind.label + " written by Paimon itself:";
        PyRead py = pypaimon(own);
        String problem = py.error != null ? py.error
            : py.rows.equals(ownRows) ? null
            : "reads " + py.rows + " where Paimon's Java reader reads " + ownRows;
        List<String> doc = docLines();
        boolean documented = doc.stream().anyMatch(l -> l.strip().replaceFirst("^[-*] +", "").startsWith(prefix));
        if (problem == null) {
            assertFalse(documented, "docs/flink.md says \"" + prefix + "\", but it reads it: drop that line");
            PyRead pyOurs = pypaimon(ours);
            assertNull(pyOurs.error, "pypaimon reads Paimon's own " + kind.label + " table but not ours: " + pyOurs.error);
            assertEquals(ownRows, pyOurs.rows, "pypaimon's read of our " + kind.label + " table");
            summary("  pypaimon " + version + " " + kind.label + ": reads Paimon's own table and ours alike, "
                    + ownRows.size() + " rows = Paimon's Java reader");
        } else {
            assertTrue(documented, "pypaimon " + version + " does not read Paimon's own " + kind.label
                       + " table; docs/flink.md must say so in a line \"" + prefix + " " + problem + "\"");
            summary("  pypaimon " + version + " " + kind.label + ": does not read Paimon's own table (" + problem
                    + "), documented; Paimon's Java reader reads ours as Paimon's own");
        }
    }
}
