package io.snapcommit.flink.paimon;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import org.apache.flink.table.types.logical.RowType;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaValidation;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.types.DataField;
import org.apache.paimon.utils.InternalRowPartitionComputer;
import org.apache.paimon.utils.PartitionPathUtils;
import org.apache.paimon.utils.SerializationUtils;

import io.snapcommit.jni.FileEntry;

/**
 * The Paimon schema a sink writes with: derived from a Flink row type (the SQL table's DDL, or the
 * DataStream builder's RowType) plus partition keys, primary keys and the Paimon options given,
 * and checked against the table's stored schema when the table exists.
 *
 * <p>Serializable as Paimon's schema JSON ({@code TableSchema.toString()}), so the job graph
 * carries the exact schema, and its id, that the writers stamp into every file.
 */
public final class PaimonTableSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    /** WITH / builder options that are Paimon table options and go into the schema. */
    public static final Set<String> PAIMON_OPTIONS = Collections.unmodifiableSet(new TreeSet<>(List.of(
        CoreOptions.BUCKET.key(), CoreOptions.BUCKET_KEY.key(), CoreOptions.FILE_FORMAT.key(),
        CoreOptions.MERGE_ENGINE.key(), CoreOptions.CHANGELOG_PRODUCER.key(), CoreOptions.SEQUENCE_FIELD.key(),
        CoreOptions.DELETION_VECTORS_ENABLED.key(), CoreOptions.LOOKUP_WAIT.key(), CoreOptions.IGNORE_DELETE.key(),
        CoreOptions.PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE.key(), CoreOptions.DYNAMIC_BUCKET_TARGET_ROW_NUM.key(),
        CoreOptions.DYNAMIC_BUCKET_INITIAL_BUCKETS.key(), CoreOptions.DYNAMIC_BUCKET_MAX_BUCKETS.key(),
        CoreOptions.DYNAMIC_BUCKET_ASSIGNER_PARALLELISM.key(), CoreOptions.DYNAMIC_PARTITION_OVERWRITE.key(),
        CoreOptions.FULL_COMPACTION_DELTA_COMMITS.key(), CoreOptions.LOOKUP_COMPACT.key(),
        CoreOptions.LOOKUP_COMPACT_MAX_INTERVAL.key(), CoreOptions.NUM_SORTED_RUNS_COMPACTION_TRIGGER.key())));

    /** Per-field Paimon options (fields.&lt;name&gt;.aggregate-function, .sequence-group, ...) go into the schema too. */
    public static final String FIELD_OPTION_PREFIX = "fields.";

    /** The file formats whose writers ship in paimon-bundle and need nothing else (Hadoop's client is bundled). */
    public static final Set<String> FILE_FORMATS = Collections.unmodifiableSet(new TreeSet<>(List.of(
        "parquet", "orc", "avro")));

    private final String schemaJson;
    private transient TableSchema schema;

    private PaimonTableSpec(TableSchema schema) {
        this.schema = schema;
        this.schemaJson = schema.toString();
    }

    /** The table's stored schema (Paimon's schema JSON, as sc_table_schema_json returns it). */
    public static PaimonTableSpec fromJson(String json) {
        try {
            return new PaimonTableSpec(TableSchema.fromJson(json));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the table's schema is not Paimon's schema JSON: " + e.getMessage(), e);
        }
    }

    /**
     * Schema 0 of a new table.
     *
     * @throws IllegalArgumentException naming what is wrong (unknown key column, unsupported type or
     *     option, a primary-key table the sink cannot write yet: cross-partition; full-compaction.delta-commits
     *     on an append table; what Paimon's schema validation refuses)
     */
    public static PaimonTableSpec derive(RowType rowType, List<String> partitionKeys, List<String> primaryKeys,
                                         Map<String, String> options) {
        List<String> names = rowType.getFieldNames();
        for (String k : partitionKeys)
            if (!names.contains(k)) throw new IllegalArgumentException("partition key " + k + " is not a column of " + names);
        for (String k : primaryKeys)
            if (!names.contains(k)) throw new IllegalArgumentException("primary key " + k + " is not a column of " + names);
        Map<String, String> opts = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (!PAIMON_OPTIONS.contains(e.getKey()) && !e.getKey().startsWith(FIELD_OPTION_PREFIX))
                throw new IllegalArgumentException("option " + e.getKey() + " is not a Paimon option the sink supports "
                                                   + PAIMON_OPTIONS);
            opts.put(e.getKey(), e.getValue());
        }
        String format = opts.getOrDefault(CoreOptions.FILE_FORMAT.key(), "parquet");
        if (!FILE_FORMATS.contains(format))
            throw new IllegalArgumentException("file.format " + format + " is not one of " + FILE_FORMATS);
        int bucket;
        try {
            bucket = Integer.parseInt(opts.getOrDefault(CoreOptions.BUCKET.key(), "-1"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bucket must be an integer: " + opts.get(CoreOptions.BUCKET.key()));
        }
        if (bucket != -1 && bucket <= 0)
            throw new IllegalArgumentException("bucket must be -1 (bucket-unaware, the default) or > 0, not " + bucket);
        String bucketKey = opts.get(CoreOptions.BUCKET_KEY.key());
        if (bucketKey != null) {
            if (bucket == -1) throw new IllegalArgumentException("bucket-key needs 'bucket' > 0");
            for (String k : bucketKey.split(",")) {
                if (!names.contains(k.trim()))
                    throw new IllegalArgumentException("bucket-key " + k.trim() + " is not a column of " + names);
                if (partitionKeys.contains(k.trim()))
                    throw new IllegalArgumentException("bucket-key " + k.trim() + " is a partition key");
            }
        }
        if (!primaryKeys.isEmpty()) checkPrimaryKeyTable(primaryKeys, partitionKeys, opts);
        else if (opts.containsKey(CoreOptions.FULL_COMPACTION_DELTA_COMMITS.key()))
            // The writers' global full compaction (Paimon's GlobalFullCompactionSinkWrite) is ported
            // for primary-key tables; an append table's compaction is the sink's own.
            throw new IllegalArgumentException(CoreOptions.FULL_COMPACTION_DELTA_COMMITS.key() + " is supported on "
                + "primary-key tables only; an append table compacts with sink.compaction.enabled");
        Schema.Builder b = Schema.newBuilder();
        for (int i = 0; i < names.size(); i++)
            b.column(names.get(i), PaimonTypes.toPaimon(names.get(i), rowType.getTypeAt(i)));
        b.partitionKeys(partitionKeys);
        b.primaryKey(primaryKeys);
        b.options(opts);
        if (primaryKeys.isEmpty()) return new PaimonTableSpec(TableSchema.create(0, b.build()));
        try {
            // Paimon's own rules for a primary-key table (bucket-key within the primary key,
            // sequence.field, merge engine and aggregate functions, deletion vectors with the merge
            // engine, ...). Not for append tables: their default bucket-key (every non-partition
            // column) predates it, and Paimon's check would ask for an explicit one.
            TableSchema schema = TableSchema.create(0, b.build());
            SchemaValidation.validateTableSchema(schema);
            return new PaimonTableSpec(schema);
        } catch (IllegalArgumentException | IllegalStateException | UnsupportedOperationException e) {
            throw new IllegalArgumentException("Paimon refuses the table: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (e.getClass() != RuntimeException.class) throw e;
            throw new IllegalArgumentException("Paimon refuses the table: " + e.getMessage(), e);
        }
    }

    /**
     * What the sink writes of primary-key tables today: fixed buckets, or dynamic buckets (bucket
     * -1, Paimon's default for primary keys: Paimon's bucket assigner in the job), each key in one
     * partition. A cross-partition update (a key without every partition key) needs Paimon's global
     * index bootstrap, not in the sink.
     */
    private static void checkPrimaryKeyTable(List<String> primaryKeys, List<String> partitionKeys,
                                             Map<String, String> opts) {
        for (String p : partitionKeys)
            if (!primaryKeys.contains(p))
                throw new IllegalArgumentException("PRIMARY KEY " + primaryKeys + " does not contain partition key " + p
                    + ": a cross-partition update needs Paimon's global index assigner, which the snapcommit sink does "
                    + "not have yet; add " + p + " to the primary key");
    }

    public TableSchema schema() {
        if (schema == null) schema = TableSchema.fromJson(schemaJson);
        return schema;
    }

    /** Paimon's schema JSON, for sc_table_create_with_schema. */
    public String json() {
        return schemaJson;
    }

    public long schemaId() {
        return schema().id();
    }

    public CoreOptions coreOptions() {
        return new CoreOptions(schema().options());
    }

    /**
     * The first difference between what a job writes ({@code this}, derived from its DDL) and the
     * table's stored schema, or null when the job can write the table: fields (names, order,
     * types; a nullable column cannot feed a NOT NULL one), partition keys, primary keys, and the
     * options that decide where rows go (bucket, bucket-key, when the job sets them).
     */
    public String firstDifference(PaimonTableSpec table) {
        List<DataField> mine = schema().fields(), theirs = table.schema().fields();
        for (int i = 0; i < Math.max(mine.size(), theirs.size()); i++) {
            if (i >= mine.size()) return "the table has a column " + theirs.get(i).name() + " " + theirs.get(i).type()
                                         + " that the job does not write (field " + i + ")";
            if (i >= theirs.size()) return "the job writes a column " + mine.get(i).name() + " " + mine.get(i).type()
                                           + " that the table does not have (field " + i + ")";
            DataField a = mine.get(i), b = theirs.get(i);
            if (!a.name().equals(b.name()))
                return "field " + i + " is " + a.name() + " in the job but " + b.name() + " in the table";
            if (!a.type().copy(true).equals(b.type().copy(true)))
                return "column " + a.name() + " is " + a.type() + " in the job but " + b.type() + " in the table";
            if (a.type().isNullable() && !b.type().isNullable())
                return "column " + a.name() + " is nullable in the job but " + b.type() + " in the table";
        }
        if (!schema().partitionKeys().equals(table.schema().partitionKeys()))
            return "partition keys are " + schema().partitionKeys() + " in the job but " + table.schema().partitionKeys()
                   + " in the table";
        if (!schema().primaryKeys().equals(table.schema().primaryKeys()))
            return "primary keys are " + schema().primaryKeys() + " in the job but " + table.schema().primaryKeys()
                   + " in the table";
        for (String k : List.of(CoreOptions.BUCKET.key(), CoreOptions.BUCKET_KEY.key())) {
            String want = schema().options().get(k);
            if (want == null) continue; // not set by the job: the table's setting applies
            String have = table.schema().options().get(k);
            String haveShown = have == null ? "unset (" + (k.equals("bucket") ? "-1" : "every column") + ")" : have;
            if (!Objects.equals(want, have) && !(k.equals("bucket") && want.equals("-1") && have == null))
                return "option '" + k + "' is " + want + " in the job but " + haveShown + " in the table";
        }
        return null;
    }

    /**
     * The schema to write a table with: the table's own when it exists (its id, field ids and
     * options), after checking that this job's schema matches it; this one otherwise.
     *
     * @throws IllegalArgumentException naming the first difference
     */
    public PaimonTableSpec against(String tableSchemaJson, String location) {
        if (tableSchemaJson == null) return this;
        PaimonTableSpec table = fromJson(tableSchemaJson);
        String diff = firstDifference(table);
        if (diff != null)
            throw new IllegalArgumentException("the schema of the job does not match the schema of table " + location
                                               + ": " + diff);
        return table;
    }

    /** Hive-style path of a partition row, escaped as Paimon escapes it ("" when unpartitioned). */
    public String partitionPath(BinaryRow partition) {
        TableSchema t = schema();
        if (t.partitionKeys().isEmpty()) return "";
        CoreOptions o = coreOptions();
        InternalRowPartitionComputer c = new InternalRowPartitionComputer(
            o.partitionDefaultName(), t.logicalPartitionType(), t.partitionKeys().toArray(new String[0]),
            o.legacyPartitionName());
        String p = PartitionPathUtils.generatePartitionPath(c.generatePartValues(partition));
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /** Where a live file of this table lives, relative to the table root: {@code <partition path>/bucket-<b>/<file>}. */
    public String dataFilePath(FileEntry e) {
        String dir = partitionPath(SerializationUtils.deserializeBinaryRow(e.partition()));
        return (dir.isEmpty() ? "" : dir + "/") + "bucket-" + e.bucket() + "/" + e.file();
    }

    public List<String> fieldNames() {
        return new ArrayList<>(schema().fieldNames());
    }

    @Override
    public String toString() {
        return schemaJson;
    }
}
