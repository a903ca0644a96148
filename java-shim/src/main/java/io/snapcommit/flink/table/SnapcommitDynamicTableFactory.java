package io.snapcommit.flink.table;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.SinkConfigs;
import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.ExpireOptions;
import io.snapcommit.jni.StoreConfig;

import static io.snapcommit.flink.table.SnapcommitConnectorOptions.*;

/**
 * {@code 'connector' = 'snapcommit'}: an insert-only table sink that writes an Apache Paimon table
 * (Parquet data files by default, written with Paimon's own writers) and publishes one snapshot per
 * completed checkpoint (or at the end of a bounded job without checkpoints).
 *
 * <p>The table's Paimon schema comes from the DDL: columns and types, PARTITIONED BY as partition
 * keys, PRIMARY KEY as primary keys (fixed or dynamic buckets; see PaimonTableSpec), and the Paimon options
 * {@code bucket}, {@code bucket-key}, {@code file.format} and those of primary-key tables
 * ({@link #PAIMON_PASS_THROUGH}, {@code fields.*}). When the table exists, its stored
 * schema must match; the statement fails at planning time naming the first difference.
 */
public final class SnapcommitDynamicTableFactory implements DynamicTableSinkFactory {
    public static final String IDENTIFIER = "snapcommit";

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
        o.add(FactoryUtil.SINK_PARALLELISM);
        o.add(COMMIT_USER);
        o.add(COMMIT_STRATEGY);
        o.add(COMMIT_MAX_RETRIES);
        o.add(COMMIT_MIN_RETRY_WAIT);
        o.add(COMMIT_MAX_RETRY_WAIT);
        o.add(COMMIT_TIMEOUT);
        o.add(TARGET_FILE_SIZE);
        o.add(UID_PREFIX);
        o.add(SNAPSHOT_NUM_RETAINED_MIN);
        o.add(SNAPSHOT_NUM_RETAINED_MAX);
        o.add(SNAPSHOT_TIME_RETAINED);
        o.add(SNAPSHOT_EXPIRE_LIMIT);
        o.add(WRITE_ONLY);
        o.add(COMPACTION_ENABLED);
        o.add(COMPACTION_MIN_FILE_NUM);
        o.add(COMPACTION_MAX_FILE_NUM);
        o.add(BUCKET);
        o.add(BUCKET_KEY);
        o.add(FILE_FORMAT);
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
        o.addAll(PAIMON_PASS_THROUGH);
        return o;
    }

    /**
     * The Paimon table options of a primary-key table, passed into the schema as written (Paimon's
     * schema validation judges their values): merge-engine, changelog-producer, sequence.field, ...
     * Per-field options (fields.&lt;column&gt;.aggregate-function, ...) pass by their prefix.
     */
    static final List<org.apache.flink.configuration.ConfigOption<String>> PAIMON_PASS_THROUGH =
        PaimonTableSpec.PAIMON_OPTIONS.stream()
            .filter(k -> !k.equals(BUCKET.key()) && !k.equals(BUCKET_KEY.key()) && !k.equals(FILE_FORMAT.key()))
            .map(k -> org.apache.flink.configuration.ConfigOptions.key(k).stringType().noDefaultValue()
                .withDescription("Paimon table option " + k + ", stored in the table's schema"))
            .collect(java.util.stream.Collectors.toList());

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        // unknown or missing options fail here, with Flink's usual message; fields.* are Paimon's per-field options
        helper.validateExcept(PaimonTableSpec.FIELD_OPTION_PREFIX);
        ReadableConfig options = helper.getOptions();
        String table = context.getObjectIdentifier().asSummaryString();

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

        Map<String, String> paimonOptions = new LinkedHashMap<>();
        options.getOptional(BUCKET).ifPresent(b -> paimonOptions.put(BUCKET.key(), Integer.toString(b)));
        options.getOptional(BUCKET_KEY).ifPresent(k -> paimonOptions.put(BUCKET_KEY.key(), String.join(",", k)));
        options.getOptional(FILE_FORMAT).ifPresent(f -> paimonOptions.put(FILE_FORMAT.key(), f));
        for (org.apache.flink.configuration.ConfigOption<String> o : PAIMON_PASS_THROUGH)
            options.getOptional(o).ifPresent(v -> paimonOptions.put(o.key(), v));
        context.getCatalogTable().getOptions().forEach((k, v) -> {
            if (k.startsWith(PaimonTableSpec.FIELD_OPTION_PREFIX)) paimonOptions.put(k, v);
        });

        ResolvedSchema resolved = context.getCatalogTable().getResolvedSchema();
        RowType rowType = (RowType) context.getPhysicalRowDataType().getLogicalType();
        List<String> partitionKeys = context.getCatalogTable().getPartitionKeys();
        List<String> primaryKeys = resolved.getPrimaryKey().map(UniqueConstraint::getColumns)
                                           .orElse(Collections.emptyList());

        SinkConfig config;
        PaimonTableSpec spec;
        try {
            config = SinkConfigs.of(options.get(PATH), options.get(COMMIT_STRATEGY),
                                    options.getOptional(COMMIT_USER).orElse(null), options.getOptional(COMMIT_MAX_RETRIES).orElse(SinkConfig.UNBOUNDED_RETRIES),
                                    options.get(COMMIT_MIN_RETRY_WAIT), options.get(COMMIT_MAX_RETRY_WAIT),
                                    options.get(COMMIT_TIMEOUT),
                                    options.get(TARGET_FILE_SIZE).getBytes(), storage.build());
            ExpireOptions expire = ExpireOptions.FROM_TABLE;
            if (options.getOptional(SNAPSHOT_NUM_RETAINED_MIN).isPresent())
                expire = expire.retainMin(options.get(SNAPSHOT_NUM_RETAINED_MIN));
            if (options.getOptional(SNAPSHOT_NUM_RETAINED_MAX).isPresent())
                expire = expire.retainMax(options.get(SNAPSHOT_NUM_RETAINED_MAX));
            if (options.getOptional(SNAPSHOT_TIME_RETAINED).isPresent())
                expire = expire.olderThan(options.get(SNAPSHOT_TIME_RETAINED));
            if (options.getOptional(SNAPSHOT_EXPIRE_LIMIT).isPresent())
                expire = expire.limit(options.get(SNAPSHOT_EXPIRE_LIMIT));
            config = config.withExpiration(expire, options.getOptional(WRITE_ONLY).orElse(null))
                           .withCompaction(options.get(COMPACTION_ENABLED),
                                           options.getOptional(COMPACTION_MIN_FILE_NUM).orElse(null),
                                           options.getOptional(COMPACTION_MAX_FILE_NUM).orElse(null));
            spec = PaimonTableSpec.derive(rowType, partitionKeys, primaryKeys, paimonOptions);
            // Planning-time S3 check: a wrong secret or a missing bucket fails here, not in a restart loop.
            // Left at its default it is best effort (skipped with a WARN on a client that cannot load
            // libsnapcommit_jni); set to true explicitly it is required.
            boolean checkS3 = options.get(S3_CHECK_ON_PLAN);
            if (checkS3) config.checkStorage(options.getOptional(S3_CHECK_ON_PLAN).isPresent());
            // The schema check reads the table: local tables always, S3 tables unless the check is off.
            if (checkS3 || !config.isS3()) spec = SnapcommitSink.resolveSchema(config, spec, false);
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Invalid options for snapcommit table " + table + ": " + e.getMessage(), e);
        }
        String uidPrefix = options.getOptional(UID_PREFIX).map(String::trim).orElse(null);
        if (uidPrefix != null && uidPrefix.isEmpty())
            throw new ValidationException("Invalid options for snapcommit table " + table + ": "
                                          + UID_PREFIX.key() + " is empty (leave it unset for the default)");
        return new SnapcommitDynamicTableSink(config, spec, rowType,
                                              options.getOptional(FactoryUtil.SINK_PARALLELISM).orElse(null),
                                              context.getObjectIdentifier().getObjectName(), uidPrefix);
    }
}
