package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.PaimonReader;
import io.snapcommit.flink.paimon.PaimonTableSpec;

/**
 * CREATE CATALOG ... WITH ('type' = 'snapcommit'): Paimon's filesystem catalog writes the schemas
 * (CREATE TABLE, ALTER TABLE), the snapcommit sink writes the rows (INSERT), and Paimon's own Java
 * reader, on the same warehouse, reads them back. Reads through SQL go to Paimon's Flink connector:
 * on the Flink 2 line its jar (paimon-flink-2.0 1.4.2) is on the test class path and SELECT, time
 * travel and t$snapshots are checked; on the 1.20 line it is not (paimon-flink-1.20 1.3.1 would
 * clash with the unrelocated paimon-bundle 1.4.2 here) and SELECT must fail naming the jar.
 */
class CatalogITCase extends ITBase {
    private static final boolean FLINK_2 = EnvironmentInformation.getVersion().startsWith("2.");

    private String warehouse() {
        return tmp.resolve("lake").toString();
    }

    /** A streaming environment checkpointing every 200 ms, with the catalog "lake" on warehouse(). */
    private StreamTableEnvironment lake() {
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.executeSql("CREATE CATALOG lake WITH ('type' = 'snapcommit', 'warehouse' = 'file://" + warehouse() + "')");
        return t;
    }

    private String location(String table) {
        return warehouse() + "/db.db/" + table;
    }

    private static List<String> collect(TableResult r) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = r.collect()) {
            it.forEachRemaining(row -> out.add(row.toString()));
        }
        return out;
    }

    private static List<String> paimonRows(String location) {
        try (PaimonReader r = PaimonReader.open(location, Map.of())) {
            return r.rows();
        }
    }

    private static boolean paimonConnectorPresent() {
        try {
            FactoryUtil.discoverFactory(CatalogITCase.class.getClassLoader(), CatalogFactory.class, "paimon");
            return true;
        } catch (org.apache.flink.table.api.ValidationException e) {
            return false;
        }
    }

    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) sb.append(c.getMessage()).append('\n');
        return sb.toString();
    }

    @Test
    void createInsertAlterInsertDrop() throws Exception {
        StreamTableEnvironment t = lake();
        t.executeSql("CREATE DATABASE lake.db");
        t.executeSql("CREATE TABLE lake.db.orders (id BIGINT, customer STRING, dt STRING) PARTITIONED BY (dt) "
                     + "WITH ('file.format' = 'orc')");
        t.executeSql("CREATE TABLE lake.db.totals (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')");
        // Paimon's filesystem catalog layout: <warehouse>/<db>.db/<table>/schema/schema-0; no snapcommit
        // metadata before the first write.
        assertTrue(Files.isRegularFile(Path.of(location("orders"), "schema", "schema-0")));
        assertTrue(Files.isRegularFile(Path.of(location("totals"), "schema", "schema-0")));
        assertFalse(Files.exists(Path.of(location("orders"), "metadata")));
        assertTrue(Files.isDirectory(Path.of(warehouse(), "default.db")), "the default database is created on open");

        t.executeSql("USE CATALOG lake");
        assertEquals(Set.of("+I[default]", "+I[db]"), new HashSet<>(collect(t.executeSql("SHOW DATABASES"))));
        t.executeSql("USE db");
        assertEquals(List.of("+I[orders]", "+I[totals]"), collect(t.executeSql("SHOW TABLES")));

        t.executeSql("INSERT INTO orders VALUES (1, 'ann', '2024-01-01'), (2, 'bob', '2024-01-01'), "
                     + "(3, 'cy', '2024-01-02')").await();
        t.executeSql("INSERT INTO totals VALUES ('a', 1), ('b', 2)").await();
        // Written by the snapcommit sink, which adopted the tables Paimon's catalog created.
        assertTrue(Files.isRegularFile(Path.of(location("orders"), "metadata", "table.json")));
        assertTrue(Files.isRegularFile(Path.of(location("totals"), "metadata", "table.json")));
        assertEquals(Set.of("{\"id\":1,\"customer\":\"ann\",\"dt\":\"2024-01-01\"}",
                            "{\"id\":2,\"customer\":\"bob\",\"dt\":\"2024-01-01\"}",
                            "{\"id\":3,\"customer\":\"cy\",\"dt\":\"2024-01-02\"}"),
                     new HashSet<>(paimonRows(location("orders"))));
        assertEquals(Set.of("{\"k\":\"a\",\"v\":1}", "{\"k\":\"b\",\"v\":2}"), new HashSet<>(paimonRows(location("totals"))));

        // ALTER TABLE through Paimon's catalog: a new column, an option set and another reset.
        t.executeSql("ALTER TABLE orders ADD note STRING");
        t.executeSql("ALTER TABLE orders SET ('snapshot.num-retained.min' = '20', 'snapshot.expire.limit' = '7')");
        t.executeSql("ALTER TABLE orders RESET ('snapshot.expire.limit')");
        t.executeSql("ALTER TABLE totals ADD w INT");
        PaimonTableSpec orders = PaimonTableSpec.fromJson(
            Files.readString(Path.of(location("orders"), "schema", "schema-3")));
        assertEquals(List.of("id", "customer", "dt", "note"), orders.fieldNames());
        assertEquals(Map.of("file.format", "orc", "snapshot.num-retained.min", "20"), orders.schema().options());

        t.executeSql("INSERT INTO orders VALUES (4, 'dee', '2024-01-02', 'late')").await();
        t.executeSql("INSERT INTO totals VALUES ('a', 7, 1), ('c', 3, 2)").await();
        assertEquals(Set.of("{\"id\":1,\"customer\":\"ann\",\"dt\":\"2024-01-01\",\"note\":null}",
                            "{\"id\":2,\"customer\":\"bob\",\"dt\":\"2024-01-01\",\"note\":null}",
                            "{\"id\":3,\"customer\":\"cy\",\"dt\":\"2024-01-02\",\"note\":null}",
                            "{\"id\":4,\"customer\":\"dee\",\"dt\":\"2024-01-02\",\"note\":\"late\"}"),
                     new HashSet<>(paimonRows(location("orders"))));
        // the primary-key table: 'a' upserted, 'b' kept (w null: written before the column existed)
        assertEquals(Set.of("{\"k\":\"a\",\"v\":7,\"w\":1}", "{\"k\":\"b\",\"v\":2,\"w\":null}",
                            "{\"k\":\"c\",\"v\":3,\"w\":2}"),
                     new HashSet<>(paimonRows(location("totals"))));

        t.executeSql("DROP TABLE totals");
        assertEquals(List.of("+I[orders]"), collect(t.executeSql("SHOW TABLES")));
        assertFalse(Files.exists(Path.of(location("totals"))));
        t.executeSql("DROP DATABASE lake.`default`");
        assertEquals(List.of("+I[db]"), collect(t.executeSql("SHOW DATABASES")));
    }

    @Test
    void refusesWhatTheSinkCannotWrite() {
        StreamTableEnvironment t = lake();
        t.executeSql("CREATE DATABASE lake.db");
        Exception e = assertThrows(Exception.class, () -> t.executeSql(
            "CREATE TABLE lake.db.x (id BIGINT, dt STRING, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (dt)"));
        assertTrue(messages(e).contains("does not contain partition key dt"), messages(e));
        e = assertThrows(Exception.class, () -> t.executeSql(
            "CREATE TABLE lake.db.x (id BIGINT) WITH ('path' = '/elsewhere')"));
        assertTrue(messages(e).contains("option 'path' cannot be set"), messages(e));
        assertFalse(Files.exists(Path.of(location("x"))), "nothing written for a refused table");
        // Credentials set on a table would be stored in plain text in its schema files.
        e = assertThrows(Exception.class, () -> t.executeSql(
            "CREATE TABLE lake.db.x (id BIGINT) WITH ('s3.secret-key' = 'do-not-store')"));
        assertTrue(messages(e).contains("option 's3.secret-key' cannot be set"), messages(e));
        assertFalse(Files.exists(Path.of(location("x"))), "nothing written for a refused table");
        t.executeSql("CREATE TABLE lake.db.y (id BIGINT)");
        e = assertThrows(Exception.class, () -> t.executeSql("ALTER TABLE lake.db.y SET ('s3.access-key' = 'k')"));
        assertTrue(messages(e).contains("option 's3.access-key' cannot be set"), messages(e));
        // A hint may tune the sink but not move the table: refused, not silently dropped.
        e = assertThrows(Exception.class, () -> t.executeSql(
            "INSERT INTO lake.db.y /*+ OPTIONS('path' = '/elsewhere') */ VALUES (1)").await());
        assertTrue(messages(e).contains("option 'path' cannot be set"), messages(e));
        e = assertThrows(Exception.class, () -> t.executeSql(
            "CREATE CATALOG rel WITH ('type' = 'snapcommit', 'warehouse' = 'relative/lake')"));
        assertTrue(messages(e).contains("'warehouse' relative/lake must be an absolute directory"), messages(e));
        e = assertThrows(Exception.class, () -> t.executeSql(
            "CREATE CATALOG typo WITH ('type' = 'snapcommit', 'warehouse' = '/tmp/x', 's3.endpont' = 'http://h')"));
        assertTrue(messages(e).contains("s3.endpont"), messages(e));
    }

    @Test
    void selectWithoutPaimonsConnectorNamesTheJar() throws Exception {
        Assumptions.assumeFalse(FLINK_2, "the Flink 2 test class path has Paimon's Flink connector "
                                         + "(selectThroughPaimonsConnector reads through it)");
        assertFalse(paimonConnectorPresent(), "the Flink 1.20 test class path has no paimon-flink jar");
        StreamTableEnvironment t = lake();
        t.executeSql("CREATE DATABASE lake.db");
        t.executeSql("CREATE TABLE lake.db.a (id BIGINT)");
        t.executeSql("INSERT INTO lake.db.a VALUES (1)").await();
        Exception e = assertThrows(Exception.class, () -> t.executeSql("SELECT * FROM lake.db.a"));
        assertTrue(messages(e).contains("Cannot read table lake.db.a of snapcommit catalog lake: reading needs "
                                        + "Apache Paimon's Flink connector"), messages(e));
        assertTrue(messages(e).contains("paimon-flink-1.20-1.3.1.jar"), messages(e));
        e = assertThrows(Exception.class, () -> t.executeSql("SELECT * FROM lake.db.`a$snapshots`"));
        assertTrue(messages(e).contains("paimon-flink-1.20-1.3.1.jar"), messages(e));
    }

    @Test
    void selectThroughPaimonsConnector() throws Exception {
        Assumptions.assumeTrue(FLINK_2, "Paimon's Flink connector is not on the Flink 1.20 test class path: "
                                        + "paimon-flink-1.20 1.3.1 clashes with the unrelocated paimon-bundle 1.4.2 "
                                        + "(selectWithoutPaimonsConnectorNamesTheJar runs instead)");
        assertTrue(paimonConnectorPresent(), "integration/pom.xml puts paimon-flink-2.0 1.4.2 on the Flink 2 test class path");
        StreamTableEnvironment t = lake();
        t.executeSql("CREATE DATABASE lake.db");
        t.executeSql("CREATE TABLE lake.db.a (id BIGINT, tag STRING)");
        t.executeSql("INSERT INTO lake.db.a VALUES (1, 'x'), (2, 'y')").await();
        t.executeSql("INSERT INTO lake.db.a VALUES (3, 'z')").await();
        long first;
        try (PaimonReader r = PaimonReader.open(location("a"), Map.of())) {
            first = r.snapshots().get(0).id();
            assertEquals(3, r.rows().size());
        }
        StreamTableEnvironment batch = StreamTableEnvironment.create(env(null, Map.of()), EnvironmentSettings.inBatchMode());
        batch.executeSql("CREATE CATALOG lake WITH ('type' = 'snapcommit', 'warehouse' = 'file://" + warehouse() + "')");
        assertEquals(Set.of("+I[1, x]", "+I[2, y]", "+I[3, z]"),
                     new HashSet<>(collect(batch.executeSql("SELECT * FROM lake.db.a"))));
        // time travel through Paimon's source: the rows of the first snapshot, as Paimon's Java reader has them
        // (a periodic checkpoint may split the first job's rows over two snapshots)
        Set<String> atFirst = new HashSet<>();
        try (PaimonReader r = PaimonReader.open(location("a"), Map.of())) {
            for (String row : r.rowsAt(first)) atFirst.add("+I[" + idOf(row) + "]");
        }
        assertFalse(atFirst.isEmpty());
        assertEquals(atFirst, new HashSet<>(collect(batch.executeSql(
            "SELECT id FROM lake.db.a /*+ OPTIONS('scan.snapshot-id' = '" + first + "') */"))));
        List<String> snapshots = collect(batch.executeSql("SELECT snapshot_id, commit_kind FROM lake.db.`a$snapshots`"));
        try (PaimonReader r = PaimonReader.open(location("a"), Map.of())) {
            assertEquals(r.snapshots().size(), snapshots.size(), snapshots.toString());
        }
        assertTrue(snapshots.contains("+I[" + first + ", APPEND]"), snapshots.toString());

        // a streaming read through Paimon's source (the streaming environment): the table's rows, then
        // one inserted while it runs
        try (CloseableIterator<Row> it = t.executeSql(
                 "SELECT id, tag FROM lake.db.a /*+ OPTIONS('continuous.discovery-interval' = '100 ms') */").collect()) {
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < 3; i++) seen.add(it.next().toString());
            assertEquals(Set.of("+I[1, x]", "+I[2, y]", "+I[3, z]"), seen);
            t.executeSql("INSERT INTO lake.db.a VALUES (4, 'w')").await();
            assertEquals("+I[4, w]", it.next().toString());
        }
    }

    /** A primary-key table with dynamic buckets and Paimon's aggregation merge engine (fields.* options). */
    @Test
    void aggregationTableWithDynamicBuckets() throws Exception {
        StreamTableEnvironment t = lake();
        t.executeSql("CREATE DATABASE lake.db");
        t.executeSql("CREATE TABLE lake.db.counts (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                     + "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum')");
        t.executeSql("INSERT INTO lake.db.counts VALUES ('a', 1), ('b', 2)").await();
        t.executeSql("INSERT INTO lake.db.counts VALUES ('a', 10), ('c', 5)").await();
        assertEquals(Set.of("{\"k\":\"a\",\"n\":11}", "{\"k\":\"b\",\"n\":2}", "{\"k\":\"c\",\"n\":5}"),
                     new HashSet<>(paimonRows(location("counts"))));
        assertFalse(PaimonTableSpec.fromJson(Files.readString(Path.of(location("counts"), "schema", "schema-0")))
                                   .schema().options().containsKey("bucket"), "no bucket: dynamic buckets");
        assertTrue(Files.exists(Path.of(location("counts"), "index")), "dynamic buckets keep Paimon's HASH index");
    }

    /**
     * A warehouse on S3 (gofakes3, scripts/s3-servers.sh): the catalog's s3.* options reach Paimon's
     * catalog (schema writes) and the sink (data files and commits) alike.
     */
    @Test
    void s3Warehouse() throws Exception {
        String endpoint = S3ITCase.setting("SC_GOFAKES3_ENDPOINT");
        if (endpoint == null) fail(S3ITCase.NOT_RUNNING);
        String key = S3ITCase.setting("SC_GOFAKES3_ACCESS_KEY_ID"), secret = S3ITCase.setting("SC_GOFAKES3_SECRET_ACCESS_KEY");
        String warehouse = "s3://" + S3ITCase.setting("SC_S3_BUCKET") + "/" + S3ITCase.RUN + "/catalog";
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.executeSql("CREATE CATALOG lake WITH ('type' = 'snapcommit', 'warehouse' = '" + warehouse + "', "
                     + "'s3.endpoint' = '" + endpoint + "', 's3.access-key' = '" + key + "', 's3.secret-key' = '" + secret
                     + "', 's3.path-style' = 'true', 's3.region' = 'us-east-1')");
        t.executeSql("CREATE DATABASE lake.db");
        t.executeSql("CREATE TABLE lake.db.kv (k BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')");
        t.executeSql("INSERT INTO lake.db.kv VALUES (1, 'a'), (2, 'B'), (3, 'c')").await();
        t.executeSql("USE CATALOG lake");
        assertEquals(List.of("+I[kv]"), collect(t.executeSql("SHOW TABLES FROM db")));
        try (PaimonReader r = PaimonReader.open(warehouse + "/db.db/kv",
                                                PaimonReader.s3Options(endpoint, key, secret, "us-east-1"))) {
            assertEquals(Set.of("{\"k\":1,\"v\":\"a\"}", "{\"k\":2,\"v\":\"B\"}", "{\"k\":3,\"v\":\"c\"}"),
                         new HashSet<>(r.rows()));
        }
    }
}
