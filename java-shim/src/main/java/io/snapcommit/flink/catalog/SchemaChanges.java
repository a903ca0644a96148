package io.snapcommit.flink.catalog;

import java.util.ArrayList;
import java.util.List;

import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.TableChange;
import org.apache.paimon.schema.SchemaChange;

import io.snapcommit.flink.paimon.PaimonTypes;

/**
 * Flink's ALTER TABLE changes as Paimon schema changes, one to one; Paimon's catalog then applies
 * them under its own rules (which type changes it allows, option checks, a new schema-N file).
 * Changes with no Paimon schema counterpart in this catalog are refused naming the change.
 */
final class SchemaChanges {
    private SchemaChanges() {}

    static List<SchemaChange> toPaimon(String table, List<TableChange> changes) {
        List<SchemaChange> out = new ArrayList<>();
        for (TableChange c : changes) {
            if (c instanceof TableChange.SetOption) {
                TableChange.SetOption s = (TableChange.SetOption) c;
                refuseLocationOption(table, s.getKey());
                out.add(SchemaChange.setOption(s.getKey(), s.getValue()));
            } else if (c instanceof TableChange.ResetOption) {
                out.add(SchemaChange.removeOption(((TableChange.ResetOption) c).getKey()));
            } else if (c instanceof TableChange.AddColumn) {
                TableChange.AddColumn a = (TableChange.AddColumn) c;
                Column col = a.getColumn();
                if (!col.isPhysical())
                    throw refused(table, c, "only physical columns are stored (no computed or metadata columns)");
                out.add(SchemaChange.addColumn(col.getName(),
                                               PaimonTypes.toPaimon(col.getName(), col.getDataType().getLogicalType()),
                                               col.getComment().orElse(null), move(col.getName(), a.getPosition())));
            } else if (c instanceof TableChange.DropColumn) {
                out.add(SchemaChange.dropColumn(((TableChange.DropColumn) c).getColumnName()));
            } else if (c instanceof TableChange.ModifyColumnName) {
                TableChange.ModifyColumnName m = (TableChange.ModifyColumnName) c;
                out.add(SchemaChange.renameColumn(m.getOldColumnName(), m.getNewColumnName()));
            } else if (c instanceof TableChange.ModifyPhysicalColumnType) {
                TableChange.ModifyPhysicalColumnType m = (TableChange.ModifyPhysicalColumnType) c;
                String name = m.getOldColumn().getName();
                out.add(SchemaChange.updateColumnType(name, PaimonTypes.toPaimon(name, m.getNewType().getLogicalType())));
            } else if (c instanceof TableChange.ModifyColumnComment) {
                TableChange.ModifyColumnComment m = (TableChange.ModifyColumnComment) c;
                out.add(SchemaChange.updateColumnComment(m.getOldColumn().getName(), m.getNewComment()));
            } else if (c instanceof TableChange.ModifyColumnPosition) {
                TableChange.ModifyColumnPosition m = (TableChange.ModifyColumnPosition) c;
                String name = m.getOldColumn().getName();
                out.add(SchemaChange.updateColumnPosition(move(name, m.getNewPosition())));
            } else {
                throw refused(table, c, "the snapcommit catalog changes columns, comments and options only");
            }
        }
        return out;
    }

    /**
     * 'path' and 'connector' would point a table of the catalog elsewhere than its location; s3.*
     * (endpoint, credentials) belong to the catalog: a table's options are stored in plain text in
     * its schema files, which every reader of the warehouse can read, so a secret set there would leak.
     */
    static void refuseLocationOption(String table, String key) {
        if (key.equals("path") || key.equals("connector"))
            throw new IllegalArgumentException("table " + table + ": option '" + key + "' cannot be set on a table of "
                + "the snapcommit catalog (its location is <warehouse>/<database>.db/<table> and it is written by the "
                + "snapcommit sink)");
        if (key.startsWith("s3."))
            throw new IllegalArgumentException("table " + table + ": option '" + key + "' cannot be set on a table of "
                + "the snapcommit catalog: storage options are the catalog's (CREATE CATALOG ... WITH ('" + key
                + "' = ...)), and table options are stored in plain text in the table's schema files");
    }

    private static SchemaChange.Move move(String column, TableChange.ColumnPosition position) {
        if (position == null) return null;
        if (position instanceof TableChange.First) return SchemaChange.Move.first(column);
        if (position instanceof TableChange.After)
            return SchemaChange.Move.after(column, ((TableChange.After) position).column());
        throw new IllegalArgumentException("column position " + position + " is not supported");
    }

    private static UnsupportedOperationException refused(String table, TableChange c, String why) {
        return new UnsupportedOperationException("ALTER TABLE " + table + ": " + c + " is not supported: " + why);
    }
}
