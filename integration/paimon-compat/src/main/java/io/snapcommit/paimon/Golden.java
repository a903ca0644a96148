package io.snapcommit.paimon;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fs.Path;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;

/**
 * write-golden DIR: a Paimon filesystem-catalog warehouse DIR with database "golden" and four
 * tables, each written and committed by Paimon itself (StreamTableWrite + StreamTableCommit, commit
 * user "golden-writer", identifiers 1, 2, 3), Parquet data files, Paimon's default options otherwise:
 *
 * <ul>
 *   <li>append_unaware: append table, bucket = -1 (bucket-unaware), 3 commits;
 *   <li>append_fixed: append table partitioned by (dt STRING, h INT), bucket = 2 on id, 3 commits;
 *   <li>pk: primary key id INT, one column of each of INT, BIGINT, STRING, DOUBLE, BOOLEAN, DATE,
 *       DECIMAL(10,2), TIMESTAMP(3), bucket = 2, 3 commits with inserts, updates and a delete;
 *   <li>append_deflate: like append_unaware but manifest.compression = deflate (the default is
 *       zstd, which Debian's Avro C library cannot read), 2 commits.
 * </ul>
 */
final class Golden {
    private Golden() {}

    static final String USER = "golden-writer";

    static void write(String dir) throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new Path(dir)))) {
            catalog.createDatabase("golden", false);
            appendUnaware(catalog, "append_unaware", false);
            appendFixed(catalog);
            pk(catalog);
            appendUnaware(catalog, "append_deflate", true);
        }
    }

    static BinaryString s(String v) {
        return v == null ? null : BinaryString.fromString(v);
    }

    static FileStoreTable create(Catalog catalog, String name, Schema schema) throws Exception {
        Identifier id = Identifier.create("golden", name);
        catalog.createTable(id, schema, false);
        return (FileStoreTable) catalog.getTable(id);
    }

    /** Writes each batch as one commit with identifiers 1, 2, ... */
    static void commits(FileStoreTable t, List<List<GenericRow>> batches) throws Exception {
        StreamWriteBuilder wb = t.newStreamWriteBuilder().withCommitUser(USER);
        try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
            long identifier = 0;
            for (List<GenericRow> batch : batches) {
                identifier++;
                for (GenericRow r : batch) {
                    w.write(r);
                }
                List<CommitMessage> msgs = w.prepareCommit(false, identifier);
                c.commit(identifier, msgs);
            }
        }
    }

    static void appendUnaware(Catalog catalog, String name, boolean deflate) throws Exception {
        Schema.Builder b = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull())
                .column("name", DataTypes.STRING())
                .column("amount", DataTypes.DOUBLE())
                .option("bucket", "-1")
                .option("file.format", "parquet");
        if (deflate) {
            b.option("manifest.compression", "deflate");
        }
        FileStoreTable t = create(catalog, name, b.build());
        List<List<GenericRow>> batches = List.of(
                List.of(GenericRow.of(1, s("alpha"), 1.5),
                        GenericRow.of(2, s("beta"), -0.25),
                        GenericRow.of(3, null, 100.0)),
                List.of(GenericRow.of(4, s("gamma δ"), 3.14),
                        GenericRow.of(5, s(""), null)),
                List.of(GenericRow.of(6, s("a string longer than sixteen characters"), 1e-3),
                        GenericRow.of(7, s("zeta"), 42.0),
                        GenericRow.of(8, s("日本"), -7.5)));
        commits(t, deflate ? batches.subList(0, 2) : batches);
    }

    static void appendFixed(Catalog catalog) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("dt", DataTypes.STRING().notNull())
                .column("h", DataTypes.INT().notNull())
                .column("id", DataTypes.INT().notNull())
                .column("msg", DataTypes.STRING())
                .partitionKeys("dt", "h")
                .option("bucket", "2")
                .option("bucket-key", "id")
                .option("file.format", "parquet")
                .build();
        FileStoreTable t = create(catalog, "append_fixed", schema);
        commits(t, List.of(
                List.of(GenericRow.of(s("2024-01-01"), 0, 1, s("a")),
                        GenericRow.of(s("2024-01-01"), 0, 2, s("b")),
                        GenericRow.of(s("2024-01-01"), 1, 3, s("c"))),
                List.of(GenericRow.of(s("2024-01-02"), 0, 4, s("d")),
                        GenericRow.of(s("2024-01-01"), 0, 5, null)),
                List.of(GenericRow.of(s("2024-01-02"), 10, 6, s("f")),
                        GenericRow.of(s("2024-01-01"), 1, 7, s("g")),
                        GenericRow.of(s("2024-01-02"), 0, 8, s("h")))));
    }

    static GenericRow pkRow(RowKind kind, int id, Integer i, Long b, String str, Double d, Boolean f,
                            String day, String amt, String ts) {
        GenericRow r = GenericRow.ofKind(kind, id, i, b, s(str), d, f,
                day == null ? null : (int) LocalDate.parse(day).toEpochDay(),
                amt == null ? null : Decimal.fromBigDecimal(new BigDecimal(amt), 10, 2),
                ts == null ? null : Timestamp.fromLocalDateTime(LocalDateTime.parse(ts)));
        return r;
    }

    static void pk(Catalog catalog) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull())
                .column("i", DataTypes.INT())
                .column("b", DataTypes.BIGINT())
                .column("s", DataTypes.STRING())
                .column("d", DataTypes.DOUBLE())
                .column("f", DataTypes.BOOLEAN())
                .column("day", DataTypes.DATE())
                .column("amt", DataTypes.DECIMAL(10, 2))
                .column("ts", DataTypes.TIMESTAMP(3))
                .primaryKey("id")
                .option("bucket", "2")
                .option("file.format", "parquet")
                .build();
        FileStoreTable t = create(catalog, "pk", schema);
        RowKind ins = RowKind.INSERT;
        commits(t, List.of(
                List.of(pkRow(ins, 1, 10, 10000000000L, "one", 1.5, true, "2024-01-01", "12.34", "2024-01-01T10:00:00.123"),
                        pkRow(ins, 2, 20, -5L, "two", -2.25, false, "1999-12-31", "-0.50", "2024-01-01T00:00:00"),
                        pkRow(ins, 3, null, null, null, null, null, null, null, null),
                        pkRow(ins, 4, -40, 0L, "a string longer than sixteen characters", 0.1, true, "1970-01-01", "99999999.99", "1970-01-01T00:00:00.001"),
                        pkRow(ins, 5, 50, 5L, "fünf", 5.0, false, "2024-02-29", "0.00", "2024-02-29T23:59:59.999")),
                List.of(pkRow(RowKind.UPDATE_AFTER, 2, 21, -6L, "two v2", -2.5, true, "2000-01-01", "-0.51", "2024-01-02T00:00:00"),
                        pkRow(ins, 6, 60, 6L, "six", 6.5, true, "2024-06-06", "6.06", "2024-06-06T06:06:06.006"),
                        pkRow(RowKind.DELETE, 3, null, null, null, null, null, null, null, null)),
                List.of(pkRow(ins, 7, 70, 7L, "seven", 7.25, false, "2024-07-07", "7.07", "2024-07-07T07:07:07.070"),
                        pkRow(RowKind.UPDATE_AFTER, 1, 11, 10000000001L, "one v2", 1.75, false, "2024-01-11", "12.35", "2024-01-01T10:00:00.124"))));
    }
}
