package io.snapcommit.flink.paimon;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;

import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.types.DataField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Schema derivation from a Flink row type and the check against a stored schema. */
class PaimonTableSpecTest {
    static RowType row(Object... namesAndTypes) {
        LogicalType[] t = new LogicalType[namesAndTypes.length / 2];
        String[] n = new String[t.length];
        for (int i = 0; i < t.length; i++) {
            n[i] = (String) namesAndTypes[2 * i];
            t[i] = (LogicalType) namesAndTypes[2 * i + 1];
        }
        return RowType.of(t, n);
    }

    static final RowType ORDERS = row("dt", new VarCharType(false, VarCharType.MAX_LENGTH), "id", new IntType(),
                                      "who", new VarCharType(10));

    static void refused(String fragment, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void theSchemaIsPaimonsJsonWithTypesKeysAndOptions() {
        PaimonTableSpec s = PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of(),
                                                   Map.of("bucket", "4", "bucket-key", "id", "file.format", "orc"));
        TableSchema t = TableSchema.fromJson(s.json()); // Paimon parses what we store
        assertEquals(0, t.id());
        assertEquals(3, t.version());
        assertEquals(List.of("dt", "id", "who"), t.fieldNames());
        List<DataField> f = t.fields();
        assertEquals("STRING NOT NULL", f.get(0).type().toString());
        assertEquals("INT", f.get(1).type().toString());
        assertEquals("VARCHAR(10)", f.get(2).type().toString());
        assertEquals(List.of(0, 1, 2), List.of(f.get(0).id(), f.get(1).id(), f.get(2).id()));
        assertEquals(2, t.highestFieldId());
        assertEquals(List.of("dt"), t.partitionKeys());
        assertEquals(List.of(), t.primaryKeys());
        assertEquals(Map.of("bucket", "4", "bucket-key", "id", "file.format", "orc"), t.options());
        assertTrue(s.json().contains("\"partitionKeys\" : [ \"dt\" ]"), s.json());
    }

    @Test
    void aPrimaryKeyTableWithFixedBucketsKeepsKeysAndMergeOptions() {
        PaimonTableSpec s = PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of("dt", "id"), Map.of(
            "bucket", "2", "merge-engine", "aggregation", "fields.who.aggregate-function", "last_non_null_value",
            "changelog-producer", "lookup", "sequence.field", "id", "deletion-vectors.enabled", "false"));
        TableSchema t = TableSchema.fromJson(s.json());
        assertEquals(List.of("dt", "id"), t.primaryKeys());
        assertEquals(List.of("id"), t.trimmedPrimaryKeys());
        assertEquals("INT NOT NULL", t.fields().get(1).type().toString()); // Paimon makes key columns NOT NULL
        assertEquals("aggregation", t.options().get("merge-engine"));
        assertEquals("last_non_null_value", t.options().get("fields.who.aggregate-function"));
        assertEquals("lookup", t.options().get("changelog-producer"));
        assertEquals("id", t.options().get("sequence.field"));
        assertEquals("false", t.options().get("deletion-vectors.enabled"));
    }

    @Test
    void aDynamicBucketPrimaryKeyTableIsDerivedWithItsAssignerOptions() {
        PaimonTableSpec s = PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of("dt", "id"), Map.of(
            "dynamic-bucket.target-row-num", "3", "dynamic-bucket.initial-buckets", "2"));
        assertEquals(-1, s.coreOptions().bucket());
        assertEquals(3L, s.coreOptions().dynamicBucketTargetRowNum());
        assertEquals(2, s.coreOptions().dynamicBucketInitialBuckets());
        assertEquals(org.apache.paimon.table.BucketMode.HASH_DYNAMIC,
                     org.apache.paimon.table.FileStoreTableFactory.create(
                         org.apache.paimon.fs.local.LocalFileIO.create(),
                         new org.apache.paimon.fs.Path("/nonexistent-dynamic-bucket-table"), s.schema()).bucketMode());
    }

    @Test
    void whatCannotBeWrittenIsRefusedWithTheReason() {
        refused("PRIMARY KEY [id] does not contain partition key dt: a cross-partition update",
                () -> PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of("id"), Map.of("bucket", "2")));
        refused("full-compaction.delta-commits is supported on primary-key tables only",
                () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of("full-compaction.delta-commits", "2")));
        refused("primary key nope is not a column",
                () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of("nope"), Map.of("bucket", "2")));
        // Paimon's own schema validation: a bucket key outside the primary key.
        refused("Paimon refuses the table",
                () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of("id"), Map.of("bucket", "2", "bucket-key", "who")));
        refused("partition key day is not a column",
                () -> PaimonTableSpec.derive(ORDERS, List.of("day"), List.of(), Map.of()));
        refused("column tags: type ARRAY<INT> is not supported",
                () -> PaimonTableSpec.derive(row("tags", new ArrayType(new IntType())), List.of(), List.of(), Map.of()));
        refused("bucket must be -1 (bucket-unaware, the default) or > 0, not 0",
                () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of("bucket", "0")));
        refused("bucket-key needs 'bucket' > 0",
                () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of("bucket-key", "id")));
        refused("bucket-key dt is a partition key",
                () -> PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of(), Map.of("bucket", "2", "bucket-key", "dt")));
        refused("file.format csv is not one of [avro, orc, parquet]",
                () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of("file.format", "csv")));
        refused("option write-buffer-size is not a Paimon option the sink supports",
                () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of("write-buffer-size", "1 mb")));
    }

    static String diff(PaimonTableSpec job, PaimonTableSpec table) {
        return job.firstDifference(table);
    }

    @Test
    void theFirstDifferenceIsNamed() {
        PaimonTableSpec table = PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of(), Map.of("bucket", "2"));
        assertNull(diff(PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of(), Map.of("bucket", "2")), table));
        assertNull(diff(PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of(), Map.of()), table),
                   "an option the job leaves unset takes the table's value");
        assertEquals("column id is BIGINT in the job but INT in the table",
                     diff(PaimonTableSpec.derive(row("dt", new VarCharType(false, VarCharType.MAX_LENGTH), "id",
                                                     new org.apache.flink.table.types.logical.BigIntType(), "who",
                                                     new VarCharType(10)), List.of("dt"), List.of(), Map.of()), table));
        assertEquals("field 1 is ident in the job but id in the table",
                     diff(PaimonTableSpec.derive(row("dt", new VarCharType(false, VarCharType.MAX_LENGTH), "ident",
                                                     new IntType(), "who", new VarCharType(10)), List.of("dt"),
                                                 List.of(), Map.of()), table));
        assertEquals("the table has a column who VARCHAR(10) that the job does not write (field 2)",
                     diff(PaimonTableSpec.derive(row("dt", new VarCharType(false, VarCharType.MAX_LENGTH), "id",
                                                     new IntType()), List.of("dt"), List.of(), Map.of()), table));
        assertEquals("column dt is nullable in the job but STRING NOT NULL in the table",
                     diff(PaimonTableSpec.derive(row("dt", new VarCharType(VarCharType.MAX_LENGTH), "id", new IntType(),
                                                     "who", new VarCharType(10)), List.of("dt"), List.of(), Map.of()),
                          table));
        assertEquals("partition keys are [] in the job but [dt] in the table",
                     diff(PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of()), table));
        assertEquals("option 'bucket' is 3 in the job but 2 in the table",
                     diff(PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of(), Map.of("bucket", "3")), table));
        assertEquals("option 'bucket' is 3 in the job but unset (-1) in the table",
                     diff(PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of(), Map.of("bucket", "3")),
                          PaimonTableSpec.derive(ORDERS, List.of("dt"), List.of(), Map.of())));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of()).against(table.json(), "/data/t"));
        assertEquals("the schema of the job does not match the schema of table /data/t: partition keys are [] in the "
                     + "job but [dt] in the table", e.getMessage());
        refused("the table's schema is not Paimon's schema JSON",
                () -> PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of()).against("{\"fields\":[]}", "/t"));
    }

    @Test
    void aPrimaryKeyInTheStoredSchemaIsADifference() {
        org.apache.paimon.schema.Schema withPk = org.apache.paimon.schema.Schema.newBuilder()
            .column("dt", org.apache.paimon.types.DataTypes.STRING().notNull())
            .column("id", org.apache.paimon.types.DataTypes.INT())
            .column("who", org.apache.paimon.types.DataTypes.VARCHAR(10))
            .primaryKey("dt").build();
        String json = TableSchema.create(0, withPk).toString();
        assertEquals("primary keys are [] in the job but [dt] in the table",
                     PaimonTableSpec.derive(ORDERS, List.of(), List.of(), Map.of())
                                    .firstDifference(PaimonTableSpec.fromJson(json)));
    }
}
