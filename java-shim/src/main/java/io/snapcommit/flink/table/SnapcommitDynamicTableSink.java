package io.snapcommit.flink.table;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.SnapcommitSink;

/** The 'snapcommit' table sink: insert-only, partitioned by the table's PARTITIONED BY columns. */
final class SnapcommitDynamicTableSink implements DynamicTableSink, SupportsPartitioning {
    private final SinkConfig config;
    private final EncodingFormat<SerializationSchema<RowData>> format;
    private final DataType physicalType;
    private final List<String> partitionKeys;
    private final List<String> bucketKeys;
    private final Integer parallelism;
    private final String tableName;

    SnapcommitDynamicTableSink(SinkConfig config, EncodingFormat<SerializationSchema<RowData>> format,
                               DataType physicalType, List<String> partitionKeys, List<String> bucketKeys,
                               Integer parallelism, String tableName) {
        this.config = config;
        this.format = format;
        this.physicalType = physicalType;
        this.partitionKeys = partitionKeys;
        this.bucketKeys = bucketKeys;
        this.parallelism = parallelism;
        this.tableName = tableName;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        return ChangelogMode.insertOnly();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        SerializationSchema<RowData> schema = format.createRuntimeEncoder(context, physicalType);
        RowType rowType = (RowType) physicalType.getLogicalType();
        List<LogicalType> types = new ArrayList<>(rowType.getChildren());
        RowDataRecordEncoder encoder = new RowDataRecordEncoder(schema, rowType.getFieldNames(), types,
                                                                partitionKeys, bucketKeys);
        return new Provider(config, encoder, parallelism, tableName);
    }

    /** A class, not a lambda: DataStreamSinkProvider has no single abstract method in Flink 1.20. */
    private static final class Provider implements DataStreamSinkProvider {
        private final SinkConfig config;
        private final RowDataRecordEncoder encoder;
        private final Integer parallelism;
        private final String tableName;

        Provider(SinkConfig config, RowDataRecordEncoder encoder, Integer parallelism, String tableName) {
            this.config = config;
            this.encoder = encoder;
            this.parallelism = parallelism;
            this.tableName = tableName;
        }

        @Override
        public DataStreamSink<?> consumeDataStream(ProviderContext context, DataStream<RowData> input) {
            String uid = context.generateUid("snapcommit").orElse("snapcommit-" + tableName);
            try {
                return SnapcommitSink.attach(input, config, encoder, uid, parallelism == null ? -1 : parallelism);
            } catch (IllegalArgumentException e) {
                // Raised while the planner translates the INSERT: the statement fails before submission.
                throw new ValidationException("Cannot write to snapcommit table " + tableName + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void applyStaticPartition(Map<String, String> partition) {
        // Static partition values are filled into the rows by the planner; partitions are derived from rows.
    }

    @Override
    public DynamicTableSink copy() {
        return new SnapcommitDynamicTableSink(config, format, physicalType, partitionKeys, bucketKeys, parallelism,
                                              tableName);
    }

    @Override
    public String asSummaryString() {
        return "snapcommit(" + config.location() + ")";
    }
}
