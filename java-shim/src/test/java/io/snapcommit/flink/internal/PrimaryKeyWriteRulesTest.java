package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.paimon.CoreOptions;
import org.junit.jupiter.api.Test;

import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.SinkConfigs;
import io.snapcommit.flink.paimon.PaimonTableSpec;

/** The writer's rules for primary-key tables, as Paimon's StoreSinkWrite.createWriteProvider has them. */
class PrimaryKeyWriteRulesTest {
    static final RowType ROW = RowType.of(new LogicalType[] {new BigIntType(false), new BigIntType()},
                                          new String[] {"id", "v"});

    static PaimonTableSpec pk(Map<String, String> extra) {
        Map<String, String> o = new HashMap<>(extra);
        o.put("bucket", "2");
        return PaimonTableSpec.derive(ROW, List.of(), List.of("id"), o);
    }

    static CoreOptions writerOptions(SinkConfig c, PaimonTableSpec spec) {
        Map<String, String> o = new HashMap<>(spec.schema().options());
        o.putAll(SnapcommitWriterOperator.writeOptions(c, spec));
        return new CoreOptions(o);
    }

    static final SinkConfig CONFIG = SinkConfigs.of("/tmp/snapcommit-never-written", "auto", null, 1, Duration.ZERO,
                                                    Duration.ZERO, null, 1, null);

    @Test
    void aCheckpointWaitsForCompactionWhenTheTableNeedsLookupAndLookupWaitIsOn() {
        assertFalse(SnapcommitWriterOperator.waitCompaction(writerOptions(CONFIG, pk(Map.of()))), "plain upsert");
        assertTrue(SnapcommitWriterOperator.waitCompaction(
            writerOptions(CONFIG, pk(Map.of("changelog-producer", "lookup")))), "lookup changelog");
        assertTrue(SnapcommitWriterOperator.waitCompaction(
            writerOptions(CONFIG, pk(Map.of("deletion-vectors.enabled", "true")))), "deletion vectors");
        assertTrue(SnapcommitWriterOperator.waitCompaction(
            writerOptions(CONFIG, pk(Map.of("merge-engine", "first-row")))), "first-row");
        assertFalse(SnapcommitWriterOperator.waitCompaction(
            writerOptions(CONFIG, pk(Map.of("changelog-producer", "lookup", "lookup-wait", "false")))), "lookup-wait off");
        SinkConfig writeOnly = CONFIG.withExpiration(io.snapcommit.jni.ExpireOptions.FROM_TABLE, true);
        assertFalse(SnapcommitWriterOperator.waitCompaction(
            writerOptions(writeOnly, pk(Map.of("changelog-producer", "lookup")))), "write-only never waits");
    }

    @Test
    void aPrimaryKeyTableCompactsInItsWritersUnlessWriteOnly() {
        // sink.compaction.enabled is off by default: it is the append tables' opt-in.
        assertNull(SnapcommitWriterOperator.writeOptions(CONFIG, pk(Map.of())).get("write-only"));
        SinkConfig writeOnly = CONFIG.withExpiration(io.snapcommit.jni.ExpireOptions.FROM_TABLE, true);
        assertEquals("true", SnapcommitWriterOperator.writeOptions(writeOnly, pk(Map.of())).get("write-only"));
        PaimonTableSpec append = PaimonTableSpec.derive(ROW, List.of(), List.of(), Map.of());
        assertEquals("true", SnapcommitWriterOperator.writeOptions(CONFIG, append).get("write-only"));
    }

    @Test
    void aGlobalFullCompactionTriggerAsPaimonChoosesIt() {
        assertEquals(-1, FullCompactionTrigger.deltaCommits(writerOptions(CONFIG, pk(Map.of()))), "plain upsert");
        assertEquals(-1, FullCompactionTrigger.deltaCommits(
            writerOptions(CONFIG, pk(Map.of("changelog-producer", "lookup")))), "lookup: no trigger");
        assertEquals(1, FullCompactionTrigger.deltaCommits(
            writerOptions(CONFIG, pk(Map.of("changelog-producer", "full-compaction")))), "every checkpoint by default");
        assertEquals(3, FullCompactionTrigger.deltaCommits(writerOptions(CONFIG, pk(Map.of(
            "changelog-producer", "full-compaction", "full-compaction.delta-commits", "3")))), "delta commits");
        assertEquals(2, FullCompactionTrigger.deltaCommits(writerOptions(CONFIG, pk(Map.of(
            "changelog-producer", "lookup", "full-compaction.delta-commits", "2")))), "delta commits on any producer");
        assertEquals(1, FullCompactionTrigger.deltaCommits(writerOptions(CONFIG, pk(Map.of(
            "full-compaction.delta-commits", "0")))), "at least 1");
        SinkConfig writeOnly = CONFIG.withExpiration(io.snapcommit.jni.ExpireOptions.FROM_TABLE, true);
        assertEquals(-1, FullCompactionTrigger.deltaCommits(
            writerOptions(writeOnly, pk(Map.of("changelog-producer", "full-compaction")))), "write-only: none");
        Map<String, String> interval = new HashMap<>(pk(Map.of("changelog-producer", "full-compaction")).schema().options());
        interval.put("changelog-producer.compaction-interval", "1 min");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> FullCompactionTrigger.deltaCommits(new CoreOptions(interval)));
        assertTrue(e.getMessage().contains("set full-compaction.delta-commits"), e.getMessage());
    }
}
