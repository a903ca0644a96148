package io.snapcommit.flink.catalog;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.table.FileStoreTable;

import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.table.SnapcommitConnectorOptions;
import io.snapcommit.flink.table.SnapcommitDynamicTableFactory;

/**
 * The table factory of the snapcommit catalog (its {@code getFactory()}; not registered as a
 * service). Sink: the snapcommit sink on the table's location, with the catalog's s3.* options,
 * the table's stored options that the sink takes, and the statement's OPTIONS hints. Source:
 * Paimon's own Flink connector, or a clear error naming the jar to add when it is absent.
 */
final class CatalogTableFactory implements DynamicTableSinkFactory, DynamicTableSourceFactory {
    private final SnapcommitCatalog catalog;
    private final SnapcommitDynamicTableFactory sinkFactory = new SnapcommitDynamicTableFactory();

    CatalogTableFactory(SnapcommitCatalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public String factoryIdentifier() {
        return "snapcommit-catalog-table";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.emptySet();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        DynamicTableSourceFactory paimon = catalog.readerFactory();
        if (paimon == null)
            throw new ValidationException("Cannot read table " + context.getObjectIdentifier().asSummaryString()
                                          + " of snapcommit catalog " + catalog.getName() + ": "
                                          + SnapcommitCatalog.MISSING_READER);
        return paimon.createDynamicTableSource(context);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        ObjectIdentifier oid = context.getObjectIdentifier();
        FileStoreTable table;
        try {
            table = catalog.paimonTable(new ObjectPath(oid.getDatabaseName(), oid.getObjectName()));
        } catch (TableNotExistException e) {
            throw new ValidationException("Cannot write table " + oid.asSummaryString() + ": " + e.getMessage(), e);
        }
        Map<String, String> options = sinkOptions(oid.asSummaryString(), table.schema().options(), context.getCatalogTable().getOptions(),
                                                  catalog.tableStorageOptions(), location(table));
        return sinkFactory.createDynamicTableSink(new FactoryUtil.DefaultDynamicTableContext(
            oid, context.getCatalogTable().copy(options), context.getEnrichmentOptions(), context.getConfiguration(),
            context.getClassLoader(), context.isTemporary()));
    }

    /** The table's location as the sink's 'path': Paimon prints a local one as file:/dir, which the sink reads as relative. */
    private static String location(FileStoreTable table) {
        java.net.URI uri = table.location().toUri();
        boolean local = uri.getScheme() == null || uri.getScheme().equalsIgnoreCase("file");
        return local ? uri.getPath() : table.location().toString();
    }

    /**
     * The options the snapcommit sink gets: the stored options of the table the sink takes (its
     * Paimon options, e.g. bucket, merge-engine, fields.*; the others apply anyway, as the sink
     * writes with the table's stored schema; never stored s3.*), then every option of the statement
     * that is not the stored one (OPTIONS hints: the sink validates them; path, connector and s3.*
     * refused), then the catalog's s3.*, and 'path' = the table's location.
     */
    Map<String, String> sinkOptions(String table, Map<String, String> stored, Map<String, String> statement,
                                    Map<String, String> catalogStorage, String location) {
        Set<String> accepted = new HashSet<>();
        sinkFactory.requiredOptions().forEach(o -> accepted.add(o.key()));
        sinkFactory.optionalOptions().forEach(o -> accepted.add(o.key()));
        Map<String, String> out = new LinkedHashMap<>();
        stored.forEach((k, v) -> {
            // s3.* of a table Paimon or an older catalog wrote never override the catalog's storage.
            if (!k.startsWith("s3.") && (accepted.contains(k) || k.startsWith(PaimonTableSpec.FIELD_OPTION_PREFIX)))
                out.put(k, v);
        });
        statement.forEach((k, v) -> {
            if (Objects.equals(stored.get(k), v)) return;
            // Paimon's catalog lists the table's own location as 'path' (as it prints it)
            if (k.equals(CoreOptions.PATH.key()) && samePlace(v, location)) return;
            // A hint may tune the sink, never move the table or swap its storage (refused, not ignored).
            SchemaChanges.refuseLocationOption(table, k);
            out.put(k, v);
        });
        out.putAll(catalogStorage);
        out.put(SnapcommitConnectorOptions.PATH.key(), location);
        return out;
    }

    private static boolean samePlace(String a, String b) {
        return new org.apache.paimon.fs.Path(a).toUri().normalize().getPath()
                   .equals(new org.apache.paimon.fs.Path(b).toUri().normalize().getPath())
               && java.util.Objects.equals(schemeOrFile(a), schemeOrFile(b));
    }

    private static String schemeOrFile(String p) {
        String s = new org.apache.paimon.fs.Path(p).toUri().getScheme();
        return s == null ? "file" : s.toLowerCase(java.util.Locale.ROOT);
    }
}
