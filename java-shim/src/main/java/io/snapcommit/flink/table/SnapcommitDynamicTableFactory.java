package io.snapcommit.flink.table;

import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.types.DataType;

import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.SinkConfigs;
import io.snapcommit.jni.StoreConfig;

import static io.snapcommit.flink.table.SnapcommitConnectorOptions.*;

/**
 * {@code 'connector' = 'snapcommit'}: an insert-only table sink that publishes
 * one snapcommit snapshot per completed checkpoint (or at the end of a bounded
 * job without checkpoints). Rows are encoded with a Flink format, json by
 * default ({@code 'format' = 'csv'} and format options such as
 * {@code 'json.ignore-parse-errors'} work as for the filesystem connector).
 */
public final class SnapcommitDynamicTableFactory implements DynamicTableSinkFactory {
    public static final String IDENTIFIER = "snapcommit";
    public static final String DEFAULT_FORMAT = "json";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.singleton(PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> o = new HashSet<>();
        o.add(FactoryUtil.FORMAT);
        o.add(FactoryUtil.SINK_PARALLELISM);
        o.add(COMMIT_USER);
        o.add(COMMIT_STRATEGY);
        o.add(COMMIT_MAX_RETRIES);
        o.add(COMMIT_MIN_RETRY_WAIT);
        o.add(COMMIT_MAX_RETRY_WAIT);
        o.add(COMMIT_TIMEOUT);
        o.add(TARGET_FILE_SIZE);
        o.add(BUCKET);
        o.add(BUCKET_KEY);
        o.add(S3_ENDPOINT);
        o.add(S3_REGION);
        o.add(S3_ACCESS_KEY);
        o.add(S3_SECRET_KEY);
        o.add(S3_SESSION_TOKEN);
        o.add(S3_PATH_STYLE);
        o.add(S3_TLS_VERIFY);
        o.add(S3_CONNECT_TIMEOUT);
        o.add(S3_REQUEST_TIMEOUT);
        o.add(S3_CHECK_ON_PLAN);
        return o;
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        Optional<EncodingFormat<SerializationSchema<RowData>>> declared =
            helper.discoverOptionalEncodingFormat(SerializationFormatFactory.class, FactoryUtil.FORMAT);
        helper.validate(); // unknown or missing options fail here, with Flink's usual message
        ReadableConfig options = helper.getOptions();

        String formatName = options.getOptional(FactoryUtil.FORMAT).orElse(DEFAULT_FORMAT);
        EncodingFormat<SerializationSchema<RowData>> format = declared.orElseGet(() -> FactoryUtil
            .discoverFactory(context.getClassLoader(), SerializationFormatFactory.class, DEFAULT_FORMAT)
            .createEncodingFormat(context, new Configuration()));
        if (!format.getChangelogMode().containsOnly(org.apache.flink.types.RowKind.INSERT)) {
            throw new ValidationException("snapcommit tables are append-only; format " + formatName
                                          + " produces updates");
        }

        StoreConfig.Builder storage = StoreConfig.builder()
            .endpoint(options.getOptional(S3_ENDPOINT).orElse(null))
            .region(options.getOptional(S3_REGION).orElse(null))
            .accessKey(options.getOptional(S3_ACCESS_KEY).orElse(null))
            .secretKey(options.getOptional(S3_SECRET_KEY).orElse(null))
            .sessionToken(options.getOptional(S3_SESSION_TOKEN).orElse(null))
            .pathStyle(options.getOptional(S3_PATH_STYLE).orElse(null))
            .tlsVerify(options.getOptional(S3_TLS_VERIFY).orElse(null))
            .connectTimeout(options.getOptional(S3_CONNECT_TIMEOUT).orElse(null))
            .requestTimeout(options.getOptional(S3_REQUEST_TIMEOUT).orElse(null));

        int buckets = options.get(BUCKET);
        List<String> bucketKeys = options.getOptional(BUCKET_KEY).orElse(Collections.emptyList());
        if (buckets < 0) throw new ValidationException("'bucket' must be >= 0");
        if (buckets == 0 && !bucketKeys.isEmpty()) throw new ValidationException("'bucket-key' needs 'bucket' > 0");

        SinkConfig config;
        try {
            config = SinkConfigs.of(options.get(PATH), options.get(COMMIT_STRATEGY),
                                    options.getOptional(COMMIT_USER).orElse(null), options.get(COMMIT_MAX_RETRIES),
                                    options.get(COMMIT_MIN_RETRY_WAIT), options.get(COMMIT_MAX_RETRY_WAIT),
                                    options.getOptional(COMMIT_TIMEOUT).orElse(null),
                                    options.get(TARGET_FILE_SIZE).getBytes(), formatName, buckets, storage.build());
            // Planning-time S3 check: a wrong secret or a missing bucket fails here, not in a restart loop.
            // Left at its default it is best effort (skipped with a WARN on a client that cannot load
            // libsnapcommit_jni); set to true explicitly it is required.
            if (options.get(S3_CHECK_ON_PLAN)) config.checkStorage(options.getOptional(S3_CHECK_ON_PLAN).isPresent());
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Invalid options for snapcommit table "
                                          + context.getObjectIdentifier().asSummaryString() + ": " + e.getMessage(), e);
        }
        DataType physical = context.getPhysicalRowDataType();
        List<String> partitionKeys = context.getCatalogTable().getPartitionKeys();
        return new SnapcommitDynamicTableSink(config, format, physical, partitionKeys, bucketKeys,
                                              options.getOptional(FactoryUtil.SINK_PARALLELISM).orElse(null),
                                              context.getObjectIdentifier().getObjectName());
    }
}
