package io.snapcommit.flink.paimon;

import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;

/**
 * Flink logical types to Paimon data types, for the atomic types the sink writes. Paimon's own
 * mapping lives in paimon-flink, which the connector does not ship; this one follows it type by
 * type (same lengths, precisions and nullability; STRING = VARCHAR(2147483647), BYTES =
 * VARBINARY(2147483647) on both sides).
 */
public final class PaimonTypes {
    private PaimonTypes() {}

    /** @throws IllegalArgumentException naming the column for a type the sink cannot write */
    public static DataType toPaimon(String column, LogicalType t) {
        DataType p;
        switch (t.getTypeRoot()) {
            case BOOLEAN: p = DataTypes.BOOLEAN(); break;
            case TINYINT: p = DataTypes.TINYINT(); break;
            case SMALLINT: p = DataTypes.SMALLINT(); break;
            case INTEGER: p = DataTypes.INT(); break;
            case BIGINT: p = DataTypes.BIGINT(); break;
            case FLOAT: p = DataTypes.FLOAT(); break;
            case DOUBLE: p = DataTypes.DOUBLE(); break;
            case CHAR: p = DataTypes.CHAR(((CharType) t).getLength()); break;
            case VARCHAR: p = DataTypes.VARCHAR(((VarCharType) t).getLength()); break;
            case BINARY: p = DataTypes.BINARY(((BinaryType) t).getLength()); break;
            case VARBINARY: p = DataTypes.VARBINARY(((VarBinaryType) t).getLength()); break;
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                p = DataTypes.DECIMAL(d.getPrecision(), d.getScale());
                break;
            }
            case DATE: p = DataTypes.DATE(); break;
            case TIME_WITHOUT_TIME_ZONE: p = DataTypes.TIME(((TimeType) t).getPrecision()); break;
            case TIMESTAMP_WITHOUT_TIME_ZONE: p = DataTypes.TIMESTAMP(((TimestampType) t).getPrecision()); break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                p = DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(((LocalZonedTimestampType) t).getPrecision());
                break;
            default:
                throw new IllegalArgumentException("column " + column + ": type " + t.asSummaryString()
                    + " is not supported by the snapcommit sink yet (atomic types only: BOOLEAN, TINYINT, SMALLINT, "
                    + "INT, BIGINT, FLOAT, DOUBLE, CHAR, VARCHAR/STRING, BINARY, VARBINARY/BYTES, DECIMAL, DATE, "
                    + "TIME, TIMESTAMP, TIMESTAMP_LTZ)");
        }
        return p.copy(t.isNullable());
    }
}
