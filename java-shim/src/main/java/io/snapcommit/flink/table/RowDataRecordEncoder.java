package io.snapcommit.flink.table;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;

import io.snapcommit.flink.RecordEncoder;
import io.snapcommit.flink.internal.PartitionPath;

/** Encodes RowData with a Flink format (json, csv, ...) and derives partition and bucket from columns. */
final class RowDataRecordEncoder implements RecordEncoder<RowData> {
    private static final long serialVersionUID = 1L;

    private final SerializationSchema<RowData> schema;
    private final String[] partitionNames;
    private final RowData.FieldGetter[] partitionGetters;
    private final RowData.FieldGetter[] bucketGetters;

    RowDataRecordEncoder(SerializationSchema<RowData> schema, List<String> columnNames, List<LogicalType> columnTypes,
                         List<String> partitionKeys, List<String> bucketKeys) {
        this.schema = schema;
        this.partitionNames = partitionKeys.toArray(new String[0]);
        this.partitionGetters = getters(columnNames, columnTypes, partitionKeys);
        this.bucketGetters = getters(columnNames, columnTypes, bucketKeys);
    }

    private static RowData.FieldGetter[] getters(List<String> names, List<LogicalType> types, List<String> keys) {
        RowData.FieldGetter[] g = new RowData.FieldGetter[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            int pos = names.indexOf(keys.get(i));
            if (pos < 0) throw new IllegalArgumentException("unknown column " + keys.get(i) + "; columns: " + names);
            g[i] = RowData.createFieldGetter(types.get(pos), pos);
        }
        return g;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context) throws Exception {
        schema.open(context);
    }

    @Override
    public byte[] encode(RowData row) {
        return schema.serialize(row);
    }

    @Override
    public String partition(RowData row) {
        if (partitionGetters.length == 0) return "";
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < partitionGetters.length; i++) {
            if (i > 0) sb.append('/');
            Object v = partitionGetters[i].getFieldOrNull(row);
            sb.append(PartitionPath.escape(partitionNames[i])).append('=')
              .append(PartitionPath.escape(v == null ? null : v.toString()));
        }
        return sb.toString();
    }

    @Override
    public int bucket(RowData row, int buckets) {
        // A hash of the key columns' text, stable across JVMs and Flink versions.
        int h = 0;
        if (bucketGetters.length == 0) {
            h = Arrays.hashCode(schema.serialize(row));
        } else {
            for (RowData.FieldGetter g : bucketGetters) {
                Object v = g.getFieldOrNull(row);
                h = 31 * h + (v == null ? 0 : Arrays.hashCode(v.toString().getBytes(StandardCharsets.UTF_8)));
            }
        }
        return Math.floorMod(h, buckets);
    }
}
