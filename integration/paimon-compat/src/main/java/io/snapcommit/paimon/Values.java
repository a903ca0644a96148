package io.snapcommit.paimon;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.RowType;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;

/**
 * Renders Paimon values as the canonical JSON values shared with tests/paimon/pypaimon_read.py:
 *
 * <ul>
 *   <li>integers and BOOLEAN: JSON numbers / booleans;
 *   <li>FLOAT, DOUBLE: plain decimal text without exponent or trailing zeros ({@link Json#dbl});
 *   <li>DECIMAL(p,s): a string with exactly s fraction digits ("12.30");
 *   <li>DATE: "yyyy-MM-dd"; TIME: "HH:mm:ss[.fff]";
 *   <li>TIMESTAMP(p): "yyyy-MM-ddTHH:mm:ss" plus exactly p fraction digits (p &le; 6 in Python);
 *       TIMESTAMP_LTZ the same in UTC followed by "Z";
 *   <li>CHAR/VARCHAR: strings; BINARY/VARBINARY: lower-case hex strings; NULL: null.
 * </ul>
 */
final class Values {
    private Values() {}

    static Map<String, Object> row(InternalRow row, RowType type) {
        Map<String, Object> m = Json.obj();
        List<DataField> fields = type.getFields();
        for (int i = 0; i < fields.size(); i++) {
            m.put(fields.get(i).name(), field(row, i, fields.get(i).type()));
        }
        return m;
    }

    /** A BinaryRow (partition, key, stats) decoded with the given field types. */
    static Map<String, Object> binaryRow(BinaryRow row, RowType type) {
        if (row.getFieldCount() != type.getFieldCount()) {
            Map<String, Object> m = Json.obj();
            m.put("_arity_mismatch", row.getFieldCount() + " fields, type has " + type.getFieldCount());
            return m;
        }
        return row(row, type);
    }

    static Object field(InternalRow row, int pos, DataType type) {
        if (row.isNullAt(pos)) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return row.getBoolean(pos);
            case TINYINT:
                return (int) row.getByte(pos);
            case SMALLINT:
                return (int) row.getShort(pos);
            case INTEGER:
                return row.getInt(pos);
            case BIGINT:
                return row.getLong(pos);
            case FLOAT:
                return Json.dbl((double) row.getFloat(pos)); // widened exactly, as Python does
            case DOUBLE:
                return Json.dbl(row.getDouble(pos));
            case CHAR:
            case VARCHAR:
                return row.getString(pos).toString();
            case BINARY:
            case VARBINARY:
                return Json.hex(row.getBinary(pos));
            case DECIMAL: {
                int p = DataTypeChecks.getPrecision(type);
                int s = DataTypeChecks.getScale(type);
                Decimal d = row.getDecimal(pos, p, s);
                return d.toBigDecimal().setScale(s).toPlainString();
            }
            case DATE:
                return LocalDate.ofEpochDay(row.getInt(pos)).toString();
            case TIME_WITHOUT_TIME_ZONE: {
                int p = DataTypeChecks.getPrecision(type);
                LocalTime t = LocalTime.ofNanoOfDay(row.getInt(pos) * 1_000_000L);
                return time(t.getHour(), t.getMinute(), t.getSecond(), t.getNano(), Math.min(p, 3));
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE: {
                int p = DataTypeChecks.getPrecision(type);
                return timestamp(row.getTimestamp(pos, p).toLocalDateTime(), p);
            }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int p = DataTypeChecks.getPrecision(type);
                Timestamp ts = row.getTimestamp(pos, p);
                return timestamp(ts.toLocalDateTime(), p) + "Z";
            }
            default:
                return "<unsupported type " + type + ">";
        }
    }

    static String timestamp(LocalDateTime t, int precision) {
        return t.toLocalDate() + "T" + time(t.getHour(), t.getMinute(), t.getSecond(), t.getNano(), precision);
    }

    private static String time(int h, int m, int s, int nanos, int precision) {
        String base = String.format("%02d:%02d:%02d", h, m, s);
        if (precision <= 0) {
            return base;
        }
        String frac = String.format("%09d", nanos).substring(0, Math.min(precision, 9));
        return base + "." + frac;
    }
}
