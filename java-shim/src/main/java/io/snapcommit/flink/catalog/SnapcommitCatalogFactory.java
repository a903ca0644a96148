package io.snapcommit.flink.catalog;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CommonCatalogOptions;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

import io.snapcommit.jni.StoreConfig;

import static io.snapcommit.flink.table.SnapcommitConnectorOptions.*;

/**
 * {@code CREATE CATALOG lake WITH ('type' = 'snapcommit', 'warehouse' = 'file:///...' | 's3://...')}:
 * a {@link SnapcommitCatalog}. The s3.* options are those of the snapcommit table connector; they
 * configure the catalog's own access to the warehouse and are handed to every table's sink.
 */
public final class SnapcommitCatalogFactory implements CatalogFactory {
    public static final String IDENTIFIER = "snapcommit";

    public static final ConfigOption<String> WAREHOUSE = ConfigOptions.key("warehouse").stringType().noDefaultValue()
        .withDescription("Root of the catalog: an absolute local directory every TaskManager shares, file:///dir or "
                         + "s3://bucket/prefix. Tables live at <warehouse>/<database>.db/<table>, as in Paimon's "
                         + "filesystem catalog.");

    public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions
        .key(CommonCatalogOptions.DEFAULT_DATABASE_KEY).stringType().defaultValue("default")
        .withDescription("The catalog's current database after USE CATALOG; created when missing.");

    /** The table connector's s3.* options, accepted by the catalog and passed on to its tables. */
    static final List<ConfigOption<?>> STORAGE_OPTIONS = List.of(
        S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY, S3_SECRET_KEY, S3_SESSION_TOKEN, S3_PATH_STYLE, S3_TLS_VERIFY,
        S3_CONNECT_TIMEOUT, S3_REQUEST_TIMEOUT, S3_CHECK_ON_PLAN);

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(WAREHOUSE);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> o = new LinkedHashSet<>(STORAGE_OPTIONS);
        o.add(DEFAULT_DATABASE);
        return o;
    }

    @Override
    public Catalog createCatalog(Context context) {
        FactoryUtil.CatalogFactoryHelper helper = FactoryUtil.createCatalogFactoryHelper(this, context);
        helper.validate();
        ReadableConfig o = helper.getOptions();
        StoreConfig storage = StoreConfig.builder()
            .endpoint(o.getOptional(S3_ENDPOINT).orElse(null))
            .region(o.getOptional(S3_REGION).orElse(null))
            .accessKey(o.getOptional(S3_ACCESS_KEY).orElse(null))
            .secretKey(o.getOptional(S3_SECRET_KEY).orElse(null))
            .sessionToken(o.getOptional(S3_SESSION_TOKEN).orElse(null))
            .pathStyle(o.getOptional(S3_PATH_STYLE).orElse(null))
            .tlsVerify(o.getOptional(S3_TLS_VERIFY).orElse(null))
            .connectTimeout(o.getOptional(S3_CONNECT_TIMEOUT).orElse(null))
            .requestTimeout(o.getOptional(S3_REQUEST_TIMEOUT).orElse(null))
            .build();
        Map<String, String> tableStorage = new LinkedHashMap<>();
        for (ConfigOption<?> s : STORAGE_OPTIONS) {
            String v = context.getOptions().get(s.key());
            if (v != null) tableStorage.put(s.key(), v);
        }
        String warehouse = o.get(WAREHOUSE).trim();
        String lower = warehouse.toLowerCase(java.util.Locale.ROOT);
        if (!(warehouse.startsWith("/") || lower.startsWith("file:/") || lower.startsWith("s3://")))
            throw new org.apache.flink.table.api.ValidationException("snapcommit catalog " + context.getName()
                + ": 'warehouse' " + warehouse + " must be an absolute directory, file:///dir or s3://bucket/prefix "
                + "(a relative path would resolve against each process's working directory)");
        return new SnapcommitCatalog(context.getName(), o.get(DEFAULT_DATABASE), warehouse, storage, tableStorage,
                                     context.getConfiguration(), context.getClassLoader());
    }
}
