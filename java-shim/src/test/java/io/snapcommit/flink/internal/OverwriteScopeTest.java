package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

import io.snapcommit.flink.paimon.PaimonTableSpec;

/** What an INSERT OVERWRITE replaces, as Paimon's FileStoreCommitImpl.overwritePartition decides it. */
class OverwriteScopeTest {
    static final RowType ROW = RowType.of(
        new LogicalType[] {new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH), new IntType()},
        new String[] {"v", "dt", "h"});

    static PaimonTableSpec table(List<String> partitionKeys, Map<String, String> options) {
        return PaimonTableSpec.derive(ROW, partitionKeys, List.of(), options);
    }

    static String scope(Map<String, String> staticPartition, PaimonTableSpec spec) {
        return SnapcommitCommitterOperator.overwriteOf(staticPartition, spec).toString();
    }

    @Test
    void aPartitionedTableInDynamicModeReplacesThePartitionsWritten() {
        PaimonTableSpec t = table(List.of("dt", "h"), Map.of());
        assertEquals("none", scope(null, t));
        assertEquals("dynamic", scope(Map.of(), t));
        assertEquals("dynamic", scope(Map.of("dt", "x"), t), "the rows all lie in the static partition anyway");
    }

    @Test
    void otherwiseTheStaticPartitionInKeyOrderEscapedOrTheWholeTable() {
        PaimonTableSpec t = table(List.of("dt", "h"), Map.of("dynamic-partition-overwrite", "false"));
        LinkedHashMap<String, String> p = new LinkedHashMap<>();
        p.put("h", "3");
        p.put("dt", "a/b");
        assertEquals("partition 'dt=a%2Fb/h=3'", scope(p, t));
        assertEquals("partition 'h=3'", scope(Map.of("h", "3"), t));
        assertEquals("table", scope(Map.of(), t));
        assertEquals("table", scope(Map.of(), table(List.of(), Map.of())), "unpartitioned: the whole table");
    }
}
