package io.snapcommit.flink.paimon;

import java.io.Serializable;
import java.util.List;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;

/**
 * Flink RowData to Paimon InternalRow (a GenericRow of Paimon's internal values), field by field
 * for the atomic types of {@link PaimonTypes}. The internal representations agree (days, millis of
 * day, epoch millis + nanos of millisecond, unscaled decimals, UTF-8 strings), so a value converts
 * without going through Java objects.
 */
public final class RowConverter implements Serializable {
    private static final long serialVersionUID = 1L;

    private interface Field extends Serializable {
        Object get(RowData row, int pos);
    }

    private final Field[] fields;

    public RowConverter(RowType type) {
        List<LogicalType> types = type.getChildren();
        fields = new Field[types.size()];
        for (int i = 0; i < fields.length; i++) {
            PaimonTypes.toPaimon(type.getFieldNames().get(i), types.get(i)); // refuses unsupported types
            fields[i] = field(types.get(i));
        }
    }

    private static Field field(LogicalType t) {
        switch (t.getTypeRoot()) {
            case BOOLEAN: return RowData::getBoolean;
            case TINYINT: return RowData::getByte;
            case SMALLINT: return RowData::getShort;
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE: return RowData::getInt;
            case BIGINT: return RowData::getLong;
            case FLOAT: return RowData::getFloat;
            case DOUBLE: return RowData::getDouble;
            case CHAR:
            case VARCHAR: return (r, p) -> BinaryString.fromBytes(r.getString(p).toBytes());
            case BINARY:
            case VARBINARY: return RowData::getBinary;
            case DECIMAL: {
                int precision = ((DecimalType) t).getPrecision(), scale = ((DecimalType) t).getScale();
                return (r, p) -> {
                    DecimalData d = r.getDecimal(p, precision, scale);
                    return Decimal.isCompact(precision) ? Decimal.fromUnscaledLong(d.toUnscaledLong(), precision, scale)
                                                        : Decimal.fromBigDecimal(d.toBigDecimal(), precision, scale);
                };
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int precision = t instanceof TimestampType ? ((TimestampType) t).getPrecision()
                                                           : ((LocalZonedTimestampType) t).getPrecision();
                return (r, p) -> {
                    TimestampData ts = r.getTimestamp(p, precision);
                    return Timestamp.fromEpochMillis(ts.getMillisecond(), ts.getNanoOfMillisecond());
                };
            }
            default:
                throw new IllegalArgumentException("unsupported type " + t.asSummaryString());
        }
    }

    /**
     * A new row, of the same row kind (a primary-key table's writer merges by it): Paimon's
     * writers and key extractors may keep references to it until the next one.
     */
    public GenericRow convert(RowData row) {
        GenericRow out = new GenericRow(org.apache.paimon.types.RowKind.fromByteValue(row.getRowKind().toByteValue()),
                                        fields.length);
        for (int i = 0; i < fields.length; i++) out.setField(i, row.isNullAt(i) ? null : fields[i].get(row, i));
        return out;
    }
}
