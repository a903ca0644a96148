package io.snapcommit.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * The check tests/java_coexist.sh runs on one class path holding both the snapcommit connector's
 * lib/ jar and Paimon's own Flink connector (another Paimon version, or the same one under the same
 * class names): tables written through snapcommit are read back through Paimon's catalog. Flink's
 * Table API and SQL only, so that neither connector's classes are named here and each is found as
 * a deployed lib/ jar would be (the table factories in META-INF/services).
 *
 * <ol>
 *   <li>An append table and a fixed-bucket primary-key table (a key written twice in one statement
 *       and again in a second one, so Paimon's generated sort and key comparators run in the
 *       snapcommit writers) under {@code WAREHOUSE/coexist.db/}, where Paimon's filesystem catalog
 *       looks;</li>
 *   <li>{@code CREATE CATALOG ... WITH ('type' = 'paimon')} on WAREHOUSE and a batch SELECT of both
 *       tables through Paimon's connector, compared with the rows written;</li>
 *   <li>the snapcommit catalog ({@code 'type' = 'snapcommit'}) on WAREHOUSE: CREATE TABLE, INSERT,
 *       ALTER TABLE ADD, INSERT, then SELECT, time travel and {@code $snapshots}, which the catalog
 *       hands to Paimon's connector;</li>
 *   <li>with S3_WAREHOUSE ({@code s3://bucket/prefix}), the same primary-key table written through
 *       Paimon's S3 FileIO inside the snapcommit jar and read through Paimon's connector (and the
 *       user's paimon-s3); endpoint and keys from SC_GOFAKES3_ENDPOINT, SC_GOFAKES3_ACCESS_KEY_ID,
 *       SC_GOFAKES3_SECRET_ACCESS_KEY.</li>
 * </ol>
 * Exit code 0 and a line "coexist-check: ok ..." when every table reads back as written; a
 * failing statement or a difference ends it with an exception.
 *
 * <pre>CoexistCheck WAREHOUSE [S3_WAREHOUSE]</pre>
 */
public final class CoexistCheck {
    private static final String DB = "coexist";

    private CoexistCheck() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2)
            throw new IllegalArgumentException("usage: CoexistCheck WAREHOUSE [S3_WAREHOUSE]");
        String warehouse = args[0];
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());

        writeAppend(t, warehouse + "/" + DB + ".db/events");
        writeUpserts(t, "kv_local", warehouse + "/" + DB + ".db/kv", "");
        t.executeSql("CREATE CATALOG paimon_local WITH ('type' = 'paimon', 'warehouse' = '" + warehouse + "')");
        expect(t, "paimon_local", "events", Arrays.asList("+I[1, a]", "+I[2, b]", "+I[3, c]"));
        expect(t, "paimon_local", "kv", KV_EXPECTED);
        String done = "append and primary-key tables on " + warehouse;

        // The snapcommit catalog: DDL through Paimon's catalog code (our relocated copy), INSERT
        // through the snapcommit sink, SELECT and system tables handed to Paimon's own connector.
        t.executeSql("CREATE CATALOG lake WITH ('type' = 'snapcommit', 'warehouse' = '" + warehouse + "')");
        t.executeSql("CREATE DATABASE lake.cat");
        t.executeSql("CREATE TABLE lake.cat.kv (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')");
        t.executeSql("INSERT INTO lake.cat.kv VALUES (1, 'x'), (2, 'y')").await();
        t.executeSql("ALTER TABLE lake.cat.kv ADD w INT");
        t.executeSql("INSERT INTO lake.cat.kv VALUES (2, 'y2', 7)").await();
        expectRows(t, "SELECT * FROM lake.cat.kv", Arrays.asList("+I[1, x, null]", "+I[2, y2, 7]"));
        expectRows(t, "SELECT COUNT(*) FROM lake.cat.`kv$snapshots` WHERE commit_kind = 'APPEND'",
                   Arrays.asList("+I[2]"));
        expectRows(t, "SELECT * FROM lake.cat.kv /*+ OPTIONS('scan.snapshot-id' = '1') */",
                   Arrays.asList("+I[1, x, null]", "+I[2, y, null]"));
        done += ", a snapcommit-catalog table read through it (time travel, $snapshots)";

        if (args.length == 2) {
            String s3wh = args[1];
            String endpoint = env("SC_GOFAKES3_ENDPOINT");
            String key = env("SC_GOFAKES3_ACCESS_KEY_ID");
            String secret = env("SC_GOFAKES3_SECRET_ACCESS_KEY");
            // the connector's s3.* options (docs/flink.md "On S3") ...
            writeUpserts(t, "kv_s3", s3wh + "/" + DB + ".db/kv",
                         ", 's3.endpoint' = '" + endpoint + "', 's3.access-key' = '" + key
                         + "', 's3.secret-key' = '" + secret + "', 's3.path-style' = 'true', 's3.region' = 'us-east-1'");
            // ... and paimon-s3's own for Paimon's catalog
            t.executeSql("CREATE CATALOG paimon_s3 WITH ('type' = 'paimon', 'warehouse' = '" + s3wh
                         + "', 's3.endpoint' = '" + endpoint + "', 's3.access-key' = '" + key
                         + "', 's3.secret-key' = '" + secret + "', 's3.path.style.access' = 'true', "
                         + "'s3.endpoint.region' = 'us-east-1')");
            expect(t, "paimon_s3", "kv", KV_EXPECTED);
            done += " and a primary-key table on " + s3wh;
        }
        System.out.println("coexist-check: ok, Paimon's connector reads what snapcommit wrote: " + done);
    }

    private static final List<String> KV_EXPECTED = Arrays.asList("+I[1, x2]", "+I[2, y2]", "+I[3, z]", "+I[4, w]");

    private static void writeAppend(TableEnvironment t, String path) throws Exception {
        t.executeSql("CREATE TABLE events (id INT, name STRING) WITH ('connector' = 'snapcommit', 'path' = '"
                     + path + "')");
        t.executeSql("INSERT INTO events VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
    }

    /** Two statements, two snapshots; key 1 twice in the first (merged in the writer's sort buffer). */
    private static void writeUpserts(TableEnvironment t, String name, String path, String extraOptions)
            throws Exception {
        t.executeSql("CREATE TABLE " + name + " (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                     + "'connector' = 'snapcommit', 'path' = '" + path + "', 'bucket' = '2'" + extraOptions + ")");
        t.executeSql("INSERT INTO " + name + " VALUES (1, 'x'), (2, 'y'), (3, 'z'), (1, 'x2')").await();
        t.executeSql("INSERT INTO " + name + " VALUES (2, 'y2'), (4, 'w')").await();
    }

    private static void expect(TableEnvironment t, String catalog, String table, List<String> expected)
            throws Exception {
        expectRows(t, "SELECT * FROM `" + catalog + "`.`" + DB + "`.`" + table + "`", expected);
    }

    private static void expectRows(TableEnvironment t, String query, List<String> expected) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql(query).collect()) {
            it.forEachRemaining(r -> rows.add(r.toString()));
        }
        Collections.sort(rows);
        if (!rows.equals(expected))
            throw new IllegalStateException("coexist-check: " + query + " through Paimon's connector gave "
                                            + rows + ", expected " + expected);
    }

    private static String env(String name) {
        String v = System.getenv(name);
        if (v == null || v.isEmpty())
            throw new IllegalStateException("coexist-check: " + name + " is not set (eval \"$(scripts/s3-servers.sh env)\")");
        return v;
    }
}
