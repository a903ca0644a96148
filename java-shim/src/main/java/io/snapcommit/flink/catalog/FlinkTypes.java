package io.snapcommit.flink.catalog;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.types.DataType;

/**
 * Paimon data types to Flink logical types: the reverse of
 * {@link io.snapcommit.flink.paimon.PaimonTypes#toPaimon}, for the same atomic types, so that a
 * table the catalog created reads back with the column types of its DDL. A stored type outside
 * that set (a table another writer created with ARRAY, MAP, ROW, ...) is refused naming the column:
 * the snapcommit sink could not write it either.
 */
final class FlinkTypes {
    private FlinkTypes() {}

    static LogicalType toFlink(String column, DataType t) {
        boolean n = t.isNullable();
        switch (t.getTypeRoot()) {
            case BOOLEAN: return new BooleanType(n);
            case TINYINT: return new TinyIntType(n);
            case SMALLINT: return new SmallIntType(n);
            case INTEGER: return new IntType(n);
            case BIGINT: return new BigIntType(n);
            case FLOAT: return new FloatType(n);
            case DOUBLE: return new DoubleType(n);
            case CHAR: return new CharType(n, ((org.apache.paimon.types.CharType) t).getLength());
            case VARCHAR: return new VarCharType(n, ((org.apache.paimon.types.VarCharType) t).getLength());
            case BINARY: return new BinaryType(n, ((org.apache.paimon.types.BinaryType) t).getLength());
            case VARBINARY: return new VarBinaryType(n, ((org.apache.paimon.types.VarBinaryType) t).getLength());
            case DECIMAL: {
                org.apache.paimon.types.DecimalType d = (org.apache.paimon.types.DecimalType) t;
                return new DecimalType(n, d.getPrecision(), d.getScale());
            }
            case DATE: return new DateType(n);
            case TIME_WITHOUT_TIME_ZONE: return new TimeType(n, ((org.apache.paimon.types.TimeType) t).getPrecision());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return new TimestampType(n, ((org.apache.paimon.types.TimestampType) t).getPrecision());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new LocalZonedTimestampType(n, ((org.apache.paimon.types.LocalZonedTimestampType) t).getPrecision());
            default:
                throw new IllegalArgumentException("column " + column + ": Paimon type " + t
                    + " has no counterpart in the snapcommit catalog (atomic types only, as the snapcommit sink writes)");
        }
    }
}
