package io.snapcommit.flink;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.WithBoundedness;

/**
 * Checks of the job around a snapcommit sink, made when the sink is added to the job graph
 * (DataStream {@code sinkTo}, or the planner's translation of an {@code INSERT}), so that a job that
 * could never commit correctly is refused before it is submitted instead of failing or silently
 * committing nothing at runtime.
 *
 * <p>The sink commits one snapshot per completed checkpoint; without checkpoints it commits once,
 * at end of input. Hence:
 * <ul>
 *   <li>checkpointing off and an unbounded source upstream (not in batch mode): refused, nothing
 *       would ever be committed;</li>
 *   <li>checkpointing on in at-least-once mode while the job runs as a stream: refused. Without
 *       barrier alignment a writer with several input channels keeps consuming the channels whose
 *       barrier arrived, so the files of checkpoint c can hold rows after c, which the sources
 *       replay after a failover: rows would be committed twice (Paimon refuses it for the same
 *       reason).</li>
 * </ul>
 * Only the public API common to Flink 1.20 and 2.x is used: {@link CheckpointConfig#isCheckpointingEnabled()},
 * {@link CheckpointConfig#getCheckpointingConsistencyMode()}, {@link ExecutionOptions#RUNTIME_MODE},
 * {@link WithBoundedness}. When the environment is read: for a DataStream job when the job graph is
 * built ({@code execute()}; {@link JobCheckingEndSink}), so checkpointing may be configured before or
 * after {@code sinkTo}; for SQL when the planner translates the statement, after it has applied the
 * session's configuration to the environment.
 */
final class SinkJobChecks {
    static final String INTERVAL_KEY = CheckpointingOptions.CHECKPOINTING_INTERVAL.key();
    static final String MODE_KEY = CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE.key();
    static final String RUNTIME_MODE_KEY = ExecutionOptions.RUNTIME_MODE.key();

    private SinkJobChecks() {}

    /** Throws IllegalArgumentException naming the setting to change when the job cannot commit correctly. */
    static void check(StreamExecutionEnvironment env, Transformation<?> input, String location) {
        RuntimeExecutionMode mode = env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE);
        if (mode == RuntimeExecutionMode.BATCH) return; // no checkpoints; committed at end of input
        boolean unbounded = hasUnboundedSource(input);
        // AUTOMATIC runs as a batch job when every source is bounded (as Flink's StreamGraphGenerator decides).
        boolean streaming = mode == RuntimeExecutionMode.STREAMING || unbounded;
        CheckpointConfig checkpoints = env.getCheckpointConfig();
        if (!checkpoints.isCheckpointingEnabled()) {
            if (unbounded) {
                throw new IllegalArgumentException(
                    "snapcommit sink " + location + ": checkpointing is disabled, but the sink commits a snapshot "
                    + "only when a checkpoint completes and this job reads an unbounded source, so nothing would "
                    + "ever be committed. Enable checkpointing: set " + INTERVAL_KEY + " (e.g. SET '" + INTERVAL_KEY
                    + "' = '10 s', or env.enableCheckpointing(10000) before env.execute()), or run a bounded "
                    + "job (" + RUNTIME_MODE_KEY + " = batch), which commits once at end of input");
            }
            return; // bounded: the committer commits everything at end of input
        }
        if (streaming && checkpoints.getCheckpointingConsistencyMode() != CheckpointingMode.EXACTLY_ONCE) {
            throw new IllegalArgumentException(
                "snapcommit sink " + location + ": checkpointing mode " + checkpoints.getCheckpointingConsistencyMode()
                + " is not supported; without barrier alignment a checkpoint's files can hold rows that the sources "
                + "replay after a failover, so they would be committed twice. Set " + MODE_KEY + " = EXACTLY_ONCE");
        }
    }

    /** Whether a source upstream of input (or input itself) declares itself unbounded. */
    static boolean hasUnboundedSource(Transformation<?> input) {
        for (Transformation<?> t : input.getTransitivePredecessors()) {
            if (t instanceof WithBoundedness
                && ((WithBoundedness) t).getBoundedness() == Boundedness.CONTINUOUS_UNBOUNDED) {
                return true;
            }
        }
        return false;
    }
}
