package io.snapcommit.flink;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashMap;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** The job-level checks made when a snapcommit sink is added (no job runs here; see the MiniCluster ITs). */
class SinkJobChecksTest {

    /** A source that declares itself unbounded (Flink's library sources at hand are all bounded). */
    static final class Unbounded<T, S extends SourceSplit, E> implements Source<T, S, E> {
        private static final long serialVersionUID = 1L;
        private final Source<T, S, E> inner;

        Unbounded(Source<T, S, E> inner) {
            this.inner = inner;
        }

        @Override public Boundedness getBoundedness() { return Boundedness.CONTINUOUS_UNBOUNDED; }
        @Override public SourceReader<T, S> createReader(SourceReaderContext c) throws Exception { return inner.createReader(c); }
        @Override public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> c) throws Exception {
            return inner.createEnumerator(c);
        }
        @Override public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> c, E cp) throws Exception {
            return inner.restoreEnumerator(c, cp);
        }
        @Override public SimpleVersionedSerializer<S> getSplitSerializer() { return inner.getSplitSerializer(); }
        @Override public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
            return inner.getEnumeratorCheckpointSerializer();
        }
    }

    private static StreamExecutionEnvironment env(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) m.put(keyValues[i], keyValues[i + 1]);
        return StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(m));
    }

    private static DataStream<Long> input(StreamExecutionEnvironment env, boolean unbounded) {
        NumberSequenceSource seq = new NumberSequenceSource(0, 9);
        return unbounded ? env.fromSource(new Unbounded<>(seq), WatermarkStrategy.noWatermarks(), "unbounded", Types.LONG)
                         : env.fromSource(seq, WatermarkStrategy.noWatermarks(), "bounded");
    }

    static final RowType ROW = RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"v"});

    private static DataStream<RowData> rows(DataStream<Long> in) {
        return in.map(v -> (RowData) GenericRowData.of(v)).returns(TypeInformation.of(RowData.class));
    }

    private static void addSink(DataStream<Long> in) {
        SnapcommitSink.builder().path("/tmp/snapcommit-never-written").uidPrefix("t").rowType(ROW).build()
            .sinkTo(rows(in));
    }

    /**
     * Add the sink, then build the job graph as execute() does: a DataStream job is checked then,
     * with the environment's final configuration (JobCheckingEndSink).
     */
    private static void addSinkAndPlan(DataStream<Long> in) {
        addSink(in);
        in.getExecutionEnvironment().getStreamGraph();
    }

    @Test
    void unboundedInputWithoutCheckpointingIsRefused() {
        for (String mode : new String[] {"STREAMING", "AUTOMATIC"}) {
            StreamExecutionEnvironment env = env("execution.runtime-mode", mode);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                      () -> addSinkAndPlan(input(env, true)));
            assertTrue(e.getMessage().contains("checkpointing is disabled"), e.getMessage());
            assertTrue(e.getMessage().contains("execution.checkpointing.interval"), e.getMessage());
            assertTrue(e.getMessage().contains("before env.execute()"), e.getMessage());
            assertTrue(e.getMessage().contains("/tmp/snapcommit-never-written"), e.getMessage());
        }
    }

    /** Flink accepts checkpointing configured after the sinks are added; so does the sink. */
    @Test
    void checkpointingEnabledAfterTheSinkIsAddedIsAccepted() {
        StreamExecutionEnvironment env = env();
        DataStream<Long> in = input(env, true);
        addSink(in); // the environment says "no checkpointing" here: nothing is refused yet
        env.enableCheckpointing(1000);
        env.getStreamGraph(); // accepted: checked with the final configuration

        StreamExecutionEnvironment later = env();
        addSink(input(later, true));
        later.getCheckpointConfig().setCheckpointingConsistencyMode(
            org.apache.flink.core.execution.CheckpointingMode.AT_LEAST_ONCE);
        later.enableCheckpointing(1000);
        // ... and a mode switched to at-least-once after sinkTo is still seen and refused.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, later::getStreamGraph);
        assertTrue(e.getMessage().contains("AT_LEAST_ONCE"), e.getMessage());
    }

    @Test
    void atLeastOnceCheckpointsAreRefusedWhenStreaming() {
        StreamExecutionEnvironment env = env("execution.checkpointing.interval", "1 s",
                                             "execution.checkpointing.mode", "AT_LEAST_ONCE");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> addSinkAndPlan(input(env, true)));
        assertTrue(e.getMessage().contains("AT_LEAST_ONCE"), e.getMessage());
        assertTrue(e.getMessage().contains("execution.checkpointing.mode = EXACTLY_ONCE"), e.getMessage());
        // Streaming over a bounded input still takes checkpoints: refused as well.
        StreamExecutionEnvironment env2 = env("execution.runtime-mode", "STREAMING",
                                              "execution.checkpointing.interval", "1 s",
                                              "execution.checkpointing.mode", "AT_LEAST_ONCE");
        assertThrows(IllegalArgumentException.class, () -> addSinkAndPlan(input(env2, false)));
    }

    @Test
    void validJobsAreAccepted() {
        // Checkpointing on, exactly-once (the default mode).
        addSinkAndPlan(input(env("execution.checkpointing.interval", "1 s"), true));
        // Bounded input without checkpoints: committed at end of input.
        addSinkAndPlan(input(env(), false));
        // Batch mode: no checkpoints, whatever the checkpointing settings say.
        addSinkAndPlan(input(env("execution.runtime-mode", "BATCH"), false));
        addSinkAndPlan(input(env("execution.runtime-mode", "BATCH", "execution.checkpointing.interval", "1 s",
                                 "execution.checkpointing.mode", "AT_LEAST_ONCE"), false));
        // AUTOMATIC with only bounded sources runs as a batch job.
        addSinkAndPlan(input(env("execution.runtime-mode", "AUTOMATIC", "execution.checkpointing.interval", "1 s",
                                 "execution.checkpointing.mode", "AT_LEAST_ONCE"), false));
    }

    /** The table sink adds the topology after the configuration is final and checks at once. */
    @Test
    void attachChecksImmediately() {
        StreamExecutionEnvironment env = env();
        DataStream<Long> in = input(env, true);
        SinkConfig config = SinkConfigs.of("/tmp/snapcommit-never-written", "auto", null, 1, java.time.Duration.ZERO,
                                           java.time.Duration.ZERO, null, 1, null);
        io.snapcommit.flink.paimon.PaimonTableSpec spec = io.snapcommit.flink.paimon.PaimonTableSpec.derive(
            ROW, java.util.List.of(), java.util.List.of(), Map.of());
        assertThrows(IllegalArgumentException.class, () -> SnapcommitSink.attach(rows(in), config, spec, ROW, "a", -1));
    }
}
