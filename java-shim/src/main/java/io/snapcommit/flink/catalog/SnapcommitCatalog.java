package io.snapcommit.flink.catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.FileSystemCatalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataField;

import io.snapcommit.flink.paimon.PaimonStoreTable;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.PaimonTypes;
import io.snapcommit.jni.StoreConfig;

/**
 * {@code CREATE CATALOG c WITH ('type' = 'snapcommit', 'warehouse' = ...)}: Paimon's filesystem
 * catalog layout ({@code <warehouse>/<db>.db/<table>}, schema under {@code schema/}) kept by
 * Paimon 1.4.2's own {@link FileSystemCatalog} — databases, table creation, ALTER TABLE (Paimon's
 * schema changes), DROP — with writes through the snapcommit sink and reads through Paimon's own
 * Flink connector when it is on the class path.
 *
 * <p>Reads: when a Flink catalog factory {@code paimon} is found (Paimon's Flink connector jar,
 * looked up by Flink's SPI only, never by class: in the deployable jar our copy of Paimon is
 * relocated), this catalog opens Paimon's Flink catalog on the same warehouse and hands it every
 * table lookup, so tables, their Flink schema, system tables ({@code t$snapshots}) and sources
 * (batch, streaming, time travel) are Paimon's. Without it, SELECT fails naming the jar to add.
 *
 * <p>Neither Paimon catalog caches tables here ({@code cache-enabled} false): the sink commits
 * snapshots without going through them, and a schema this catalog altered must be seen at once by
 * the other.
 */
public final class SnapcommitCatalog extends AbstractCatalog {
    /** The Flink catalog type of Paimon's own connector (its FlinkCatalogFactory identifier). */
    static final String PAIMON_CATALOG_TYPE = "paimon";

    static final String MISSING_READER = "reading needs Apache Paimon's Flink connector, which is not on the class "
        + "path: add paimon-flink-1.20-1.3.1.jar (Flink 1.20) or paimon-flink-2.0-1.4.2.jar (Flink 2.x) to lib/ next to "
        + "the snapcommit connector jar. The snapcommit connector only writes";

    private final String warehouse;
    private final StoreConfig storage;
    private final Map<String, String> tableStorageOptions;
    private final ReadableConfig flinkConfig;
    private final ClassLoader classLoader;
    private Catalog paimon;
    private org.apache.flink.table.catalog.Catalog reader; // Paimon's Flink catalog, null when absent

    /**
     * @param tableStorageOptions the catalog's s3.* options as given, handed to every table's sink
     */
    SnapcommitCatalog(String name, String defaultDatabase, String warehouse, StoreConfig storage,
                      Map<String, String> tableStorageOptions, ReadableConfig flinkConfig, ClassLoader classLoader) {
        super(name, defaultDatabase);
        this.warehouse = warehouse;
        this.storage = storage;
        this.tableStorageOptions = Collections.unmodifiableMap(new LinkedHashMap<>(tableStorageOptions));
        this.flinkConfig = flinkConfig;
        this.classLoader = classLoader;
    }

    @Override
    public void open() throws CatalogException {
        Path root = new Path(warehouse);
        try {
            FileIO io = PaimonStoreTable.fileIO(root, storage);
            io.checkOrMkdirs(root);
            Options o = new Options();
            o.set("warehouse", warehouse);
            o.set("cache-enabled", "false");
            paimon = new FileSystemCatalog(io, root, CatalogContext.create(o));
            paimon.createDatabase(getDefaultDatabase(), true);
        } catch (IOException e) {
            throw new CatalogException("snapcommit catalog " + getName() + ": cannot open warehouse " + warehouse + ": " + e, e);
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
            throw new CatalogException("snapcommit catalog " + getName() + ": cannot open warehouse " + warehouse + ": "
                                       + e.getMessage(), e);
        } catch (Catalog.DatabaseAlreadyExistException e) {
            throw new AssertionError("createDatabase(ignoreIfExists = true) threw " + e, e);
        }
        reader = openReader();
    }

    /** Paimon's Flink catalog on the same warehouse, or null when Paimon's Flink connector is absent. */
    private org.apache.flink.table.catalog.Catalog openReader() {
        try {
            FactoryUtil.discoverFactory(classLoader, org.apache.flink.table.factories.CatalogFactory.class,
                                        PAIMON_CATALOG_TYPE);
        } catch (org.apache.flink.table.api.ValidationException absent) {
            return null;
        }
        Map<String, String> o = new HashMap<>();
        if (warehouse.regionMatches(true, 0, "s3://", 0, 5)) o.putAll(PaimonStoreTable.s3Options(storage, System.getenv()));
        o.put("type", PAIMON_CATALOG_TYPE);
        o.put("warehouse", warehouse);
        o.put("default-database", getDefaultDatabase());
        o.put("cache-enabled", "false");
        org.apache.flink.table.catalog.Catalog c = FactoryUtil.createCatalog(getName(), o, flinkConfig, classLoader);
        c.open();
        return c;
    }

    @Override
    public void close() throws CatalogException {
        Exception failed = null;
        try {
            if (reader != null) reader.close();
        } catch (Exception e) {
            failed = e;
        }
        try {
            if (paimon != null) paimon.close();
        } catch (Exception e) {
            if (failed == null) failed = e; else failed.addSuppressed(e);
        }
        reader = null;
        paimon = null;
        if (failed != null)
            throw new CatalogException("snapcommit catalog " + getName() + ": close failed: " + failed, failed);
    }

    @Override
    public Optional<Factory> getFactory() {
        return Optional.of(new CatalogTableFactory(this));
    }

    /** Paimon's source factory, null when its Flink connector is absent. */
    DynamicTableSourceFactory readerFactory() {
        if (reader == null) return null;
        return reader.getFactory().filter(f -> f instanceof DynamicTableSourceFactory)
                     .map(f -> (DynamicTableSourceFactory) f).orElse(null);
    }

    Map<String, String> tableStorageOptions() {
        return tableStorageOptions;
    }

    /** The table as Paimon's catalog stores it (its location and schema). */
    FileStoreTable paimonTable(ObjectPath path) throws TableNotExistException {
        Table t;
        try {
            t = paimon.getTable(id(path));
        } catch (Catalog.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        }
        if (!(t instanceof FileStoreTable))
            throw new CatalogException("table " + path + " of catalog " + getName() + " is not a Paimon file store table: "
                                       + t.getClass().getSimpleName());
        return (FileStoreTable) t;
    }

    private static Identifier id(ObjectPath path) {
        return Identifier.create(path.getDatabaseName(), path.getObjectName());
    }

    private static boolean isSystemTable(ObjectPath path) {
        return path.getObjectName().contains(Identifier.SYSTEM_TABLE_SPLITTER);
    }

    // ---- databases

    @Override
    public List<String> listDatabases() throws CatalogException {
        return paimon.listDatabases();
    }

    @Override
    public CatalogDatabase getDatabase(String name) throws DatabaseNotExistException, CatalogException {
        try {
            org.apache.paimon.catalog.Database db = paimon.getDatabase(name);
            return new CatalogDatabaseImpl(db.options(), db.comment().orElse(null));
        } catch (Catalog.DatabaseNotExistException e) {
            throw new DatabaseNotExistException(getName(), name, e);
        }
    }

    @Override
    public boolean databaseExists(String name) throws CatalogException {
        try {
            paimon.getDatabase(name);
            return true;
        } catch (Catalog.DatabaseNotExistException e) {
            return false;
        }
    }

    @Override
    public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists)
        throws DatabaseAlreadyExistException, CatalogException {
        try {
            paimon.createDatabase(name, ignoreIfExists, database == null ? Collections.emptyMap() : database.getProperties());
        } catch (Catalog.DatabaseAlreadyExistException e) {
            throw new DatabaseAlreadyExistException(getName(), name, e);
        }
    }

    @Override
    public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
        throws DatabaseNotExistException, DatabaseNotEmptyException, CatalogException {
        try {
            paimon.dropDatabase(name, ignoreIfNotExists, cascade);
        } catch (Catalog.DatabaseNotExistException e) {
            throw new DatabaseNotExistException(getName(), name, e);
        } catch (Catalog.DatabaseNotEmptyException e) {
            throw new DatabaseNotEmptyException(getName(), name, e);
        }
    }

    @Override
    public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("ALTER DATABASE: Paimon's filesystem catalog stores no database properties");
    }

    // ---- tables

    @Override
    public List<String> listTables(String database) throws DatabaseNotExistException, CatalogException {
        try {
            return paimon.listTables(database);
        } catch (Catalog.DatabaseNotExistException e) {
            throw new DatabaseNotExistException(getName(), database, e);
        }
    }

    @Override
    public List<String> listViews(String database) throws DatabaseNotExistException, CatalogException {
        if (!databaseExists(database)) throw new DatabaseNotExistException(getName(), database);
        return Collections.emptyList();
    }

    /**
     * Paimon's Flink catalog's table when its connector is present (so the planner hands a source
     * to Paimon's own factory with Paimon's own table); else the table as this catalog maps it.
     */
    @Override
    public CatalogBaseTable getTable(ObjectPath path) throws TableNotExistException, CatalogException {
        if (reader != null) return reader.getTable(path);
        if (isSystemTable(path))
            throw new CatalogException("system table " + path + " of catalog " + getName() + ": " + MISSING_READER);
        return toFlink(paimonTable(path));
    }

    private static CatalogTable toFlink(FileStoreTable t) {
        org.apache.flink.table.api.Schema.Builder b = org.apache.flink.table.api.Schema.newBuilder();
        for (DataField f : t.rowType().getFields()) {
            b.column(f.name(), TypeConversions.fromLogicalToDataType(FlinkTypes.toFlink(f.name(), f.type())));
            if (f.description() != null) b.withComment(f.description());
        }
        if (!t.primaryKeys().isEmpty()) b.primaryKey(t.primaryKeys());
        Map<String, String> options = new HashMap<>(t.schema().options());
        return CatalogTable.newBuilder().schema(b.build()).comment(t.comment().orElse(null))
                           .partitionKeys(t.partitionKeys()).options(options).build();
    }

    @Override
    public boolean tableExists(ObjectPath path) throws CatalogException {
        if (reader != null) return reader.tableExists(path);
        try {
            paimon.getTable(id(path));
            return true;
        } catch (Catalog.TableNotExistException e) {
            return false;
        }
    }

    @Override
    public void dropTable(ObjectPath path, boolean ignoreIfNotExists) throws TableNotExistException, CatalogException {
        try {
            paimon.dropTable(id(path), ignoreIfNotExists);
        } catch (Catalog.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        }
    }

    @Override
    public void renameTable(ObjectPath path, String newName, boolean ignoreIfNotExists)
        throws TableNotExistException, TableAlreadyExistException, CatalogException {
        ObjectPath to = new ObjectPath(path.getDatabaseName(), newName);
        try {
            paimon.renameTable(id(path), id(to), ignoreIfNotExists);
        } catch (Catalog.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        } catch (Catalog.TableAlreadyExistException e) {
            throw new TableAlreadyExistException(getName(), to, e);
        }
    }

    /**
     * The table's schema 0, written by Paimon's catalog. Refused before anything is written: what
     * the snapcommit sink could not write later (types, options of the sink's set with values it
     * refuses, a cross-partition primary key: {@link PaimonTableSpec#derive}), non-physical
     * columns, watermarks, views, and the options 'connector' and 'path'.
     */
    @Override
    public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
        throws TableAlreadyExistException, DatabaseNotExistException, CatalogException {
        if (!(table instanceof ResolvedCatalogTable))
            throw new UnsupportedOperationException("snapcommit catalog " + getName() + " stores tables only, not "
                                                    + table.getTableKind());
        ResolvedCatalogTable t = (ResolvedCatalogTable) table;
        ResolvedSchema schema = t.getResolvedSchema();
        String name = getName() + "." + path.getFullName();
        if (!schema.getWatermarkSpecs().isEmpty())
            throw new UnsupportedOperationException("CREATE TABLE " + name + ": watermarks are not stored by the "
                                                    + "snapcommit catalog");
        List<String> names = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        Schema.Builder b = Schema.newBuilder();
        for (Column c : schema.getColumns()) {
            if (!c.isPhysical())
                throw new UnsupportedOperationException("CREATE TABLE " + name + ": column " + c.getName()
                    + " is not physical; the snapcommit catalog stores physical columns only");
            LogicalType type = c.getDataType().getLogicalType();
            names.add(c.getName());
            types.add(type);
            b.column(c.getName(), PaimonTypes.toPaimon(c.getName(), type), c.getComment().orElse(null));
        }
        List<String> primaryKeys = schema.getPrimaryKey().map(UniqueConstraint::getColumns)
                                         .orElse(Collections.emptyList());
        Map<String, String> options = new LinkedHashMap<>(t.getOptions());
        options.keySet().forEach(k -> SchemaChanges.refuseLocationOption(name, k));
        Map<String, String> sinkChecked = new LinkedHashMap<>();
        options.forEach((k, v) -> {
            if (PaimonTableSpec.PAIMON_OPTIONS.contains(k) || k.startsWith(PaimonTableSpec.FIELD_OPTION_PREFIX))
                sinkChecked.put(k, v);
        });
        try {
            PaimonTableSpec.derive(RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0])),
                                   t.getPartitionKeys(), primaryKeys, sinkChecked);
        } catch (IllegalArgumentException e) {
            throw new CatalogException("CREATE TABLE " + name + ": the snapcommit sink could not write this table: "
                                       + e.getMessage(), e);
        }
        b.partitionKeys(t.getPartitionKeys()).primaryKey(primaryKeys).options(options).comment(t.getComment());
        try {
            paimon.createTable(id(path), b.build(), ignoreIfExists);
        } catch (Catalog.TableAlreadyExistException e) {
            throw new TableAlreadyExistException(getName(), path, e);
        } catch (Catalog.DatabaseNotExistException e) {
            throw new DatabaseNotExistException(getName(), path.getDatabaseName(), e);
        }
    }

    @Override
    public void alterTable(ObjectPath path, CatalogBaseTable newTable, boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("ALTER TABLE " + getName() + "." + path.getFullName()
            + ": the snapcommit catalog applies Flink's table changes only (Flink 1.17 or later)");
    }

    @Override
    public void alterTable(ObjectPath path, CatalogBaseTable newTable, List<TableChange> changes, boolean ignoreIfNotExists)
        throws TableNotExistException, CatalogException {
        String name = getName() + "." + path.getFullName();
        try {
            paimon.alterTable(id(path), SchemaChanges.toPaimon(name, changes), ignoreIfNotExists);
        } catch (Catalog.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        } catch (Catalog.ColumnAlreadyExistException | Catalog.ColumnNotExistException e) {
            throw new CatalogException("ALTER TABLE " + name + ": " + e.getMessage(), e);
        }
    }

    // ---- partitions: listed from Paimon's catalog; changed by writing, not by DDL

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path)
        throws TableNotExistException, TableNotPartitionedException, CatalogException {
        return listPartitions(path, null);
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path, CatalogPartitionSpec filter)
        throws TableNotExistException, TableNotPartitionedException, CatalogException {
        FileStoreTable t = paimonTable(path);
        if (t.partitionKeys().isEmpty()) throw new TableNotPartitionedException(getName(), path);
        List<CatalogPartitionSpec> out = new ArrayList<>();
        try {
            for (org.apache.paimon.partition.Partition p : paimon.listPartitions(id(path))) {
                Map<String, String> spec = p.spec();
                if (filter == null || spec.entrySet().containsAll(filter.getPartitionSpec().entrySet()))
                    out.add(new CatalogPartitionSpec(new LinkedHashMap<>(spec)));
            }
        } catch (Catalog.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        }
        return out;
    }

    @Override
    public List<CatalogPartitionSpec> listPartitionsByFilter(ObjectPath path, List<Expression> filters) {
        throw new UnsupportedOperationException("listing partitions by filter is not supported by the snapcommit catalog");
    }

    @Override
    public CatalogPartition getPartition(ObjectPath path, CatalogPartitionSpec spec) throws PartitionNotExistException {
        throw new PartitionNotExistException(getName(), path, spec);
    }

    @Override
    public boolean partitionExists(ObjectPath path, CatalogPartitionSpec spec) throws CatalogException {
        try {
            return listPartitions(path, spec).stream().anyMatch(p -> p.equals(spec));
        } catch (TableNotExistException | TableNotPartitionedException e) {
            return false;
        }
    }

    @Override
    public void createPartition(ObjectPath path, CatalogPartitionSpec spec, CatalogPartition partition,
                                boolean ignoreIfExists) {
        throw new UnsupportedOperationException("partitions of a snapcommit catalog table are created by writing rows");
    }

    @Override
    public void dropPartition(ObjectPath path, CatalogPartitionSpec spec, boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("dropping a partition is not supported by the snapcommit catalog "
                                                + "(INSERT OVERWRITE ... PARTITION replaces one)");
    }

    @Override
    public void alterPartition(ObjectPath path, CatalogPartitionSpec spec, CatalogPartition partition,
                               boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("partitions of a snapcommit catalog table have no properties");
    }

    // ---- functions: none

    @Override
    public List<String> listFunctions(String database) throws DatabaseNotExistException {
        if (!databaseExists(database)) throw new DatabaseNotExistException(getName(), database);
        return Collections.emptyList();
    }

    @Override
    public CatalogFunction getFunction(ObjectPath path) throws FunctionNotExistException {
        throw new FunctionNotExistException(getName(), path);
    }

    @Override
    public boolean functionExists(ObjectPath path) {
        return false;
    }

    @Override
    public void createFunction(ObjectPath path, CatalogFunction function, boolean ignoreIfExists) {
        throw new UnsupportedOperationException("the snapcommit catalog stores no functions");
    }

    @Override
    public void alterFunction(ObjectPath path, CatalogFunction newFunction, boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("the snapcommit catalog stores no functions");
    }

    @Override
    public void dropFunction(ObjectPath path, boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("the snapcommit catalog stores no functions");
    }

    // ---- statistics: none kept

    @Override
    public CatalogTableStatistics getTableStatistics(ObjectPath path) {
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getTableColumnStatistics(ObjectPath path) {
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public CatalogTableStatistics getPartitionStatistics(ObjectPath path, CatalogPartitionSpec spec) {
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getPartitionColumnStatistics(ObjectPath path, CatalogPartitionSpec spec) {
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public void alterTableStatistics(ObjectPath path, CatalogTableStatistics s, boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("the snapcommit catalog keeps no statistics");
    }

    @Override
    public void alterTableColumnStatistics(ObjectPath path, CatalogColumnStatistics s, boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("the snapcommit catalog keeps no statistics");
    }

    @Override
    public void alterPartitionStatistics(ObjectPath path, CatalogPartitionSpec spec, CatalogTableStatistics s,
                                         boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("the snapcommit catalog keeps no statistics");
    }

    @Override
    public void alterPartitionColumnStatistics(ObjectPath path, CatalogPartitionSpec spec, CatalogColumnStatistics s,
                                               boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("the snapcommit catalog keeps no statistics");
    }
}
