package io.snapcommit.demo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * The demo's upsert job: a streaming GROUP BY (count and sum of v per key k, over ids 0..rows-1
 * with k = id % KEYS) written through the snapcommit SQL connector into a primary-key table with
 * two fixed buckets and changelog-producer lookup, a checkpoint every 500 ms. Then Apache Paimon's
 * own reader reads it back: the batch scan must equal the model, and Paimon's streaming read of the
 * lookup changelog, folded by row kind, must equal it too.
 */
public final class UpsertDemo {
    static final long KEYS = 10;

    private UpsertDemo() {}

    /**
     * (k, cnt, total) per key k = id % keys over ids 0..rows-1, as Paimon's reader renders rows,
     * sorted: the state the demo's and the upsert benchmark's GROUP BY must leave.
     */
    public static List<String> model(long rows, long keys) {
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

    static boolean run(String table, long rows, double rate) throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("execution.checkpointing.interval", "500 ms");
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.createLocalEnvironment(2, Configuration.fromMap(settings));
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        System.out.printf("%n== upsert job: SELECT k, COUNT(*), SUM(v) ... GROUP BY k over %d rows (%d keys) at %.0f "
                          + "rows/s into the primary-key table %s (bucket 2, changelog-producer lookup) ==%n",
                          rows, KEYS, rate, table);
        DataGeneratorSource<Long> source =
            new DataGeneratorSource<>(id -> id, rows, RateLimiterStrategy.perSecond(rate), Types.LONG);
        DataStream<Row> in = env.fromSource(source, WatermarkStrategy.noWatermarks(), "upsert-generator")
            .map(id -> Row.of(id % KEYS, id)).returns(Types.ROW_NAMED(new String[] {"k", "v"}, Types.LONG, Types.LONG));
        t.createTemporaryView("src", t.fromDataStream(in));
        t.executeSql("CREATE TABLE totals (k BIGINT, cnt BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                     + "'connector' = 'snapcommit', 'path' = '" + table + "', 'bucket' = '2', "
                     + "'changelog-producer' = 'lookup')");
        long started = System.currentTimeMillis();
        t.executeSql("INSERT INTO totals SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k").await();
        System.out.printf("job ran %d ms%n", System.currentTimeMillis() - started);

        List<String> want = model(rows, KEYS);
        System.out.println("== the primary-key table read back by Apache Paimon 1.4.2 ==");
        try (PaimonReader r = PaimonReader.openAny(table, Map.of())) {
            List<String> batch = new ArrayList<>(r.rows());
            Collections.sort(batch);
            List<String> folded = new ArrayList<>();
            List<String> changelog = r.changelog(1, 60_000);
            for (String row : changelog) {
                String kind = row.substring(0, 2), value = row.substring(3);
                if (kind.equals("+I") || kind.equals("+U")) folded.add(value);
                else folded.remove(value);
            }
            Collections.sort(folded);
            System.out.printf("%d snapshots; batch scan, %d rows:%n", r.snapshots().size(), batch.size());
            for (String row : batch) System.out.println("  " + row);
            System.out.printf("streaming read of the lookup changelog: %d rows (+I/-U/+U), folded by row kind: %d rows%n",
                              changelog.size(), folded.size());
            boolean ok = batch.equals(want) && folded.equals(want);
            System.out.println(ok ? "OK: Paimon's batch scan and its folded changelog equal the model (count, sum per key)"
                                  : "FAILED: Paimon's read differs from the model " + want + "; folded " + folded);
            return ok;
        } catch (RuntimeException e) {
            System.out.println("FAILED: Paimon's reader: " + e);
            e.printStackTrace(System.out);
            return false;
        }
    }
}
