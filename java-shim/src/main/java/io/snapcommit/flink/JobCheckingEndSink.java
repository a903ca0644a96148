package io.snapcommit.flink;

import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The terminal sink of a DataStream snapcommit topology (the committer emits nothing; this discards
 * it) and the hook that runs {@link SinkJobChecks} when the job graph is built rather than when
 * {@code sinkTo} is called.
 *
 * <p>Why here: a DataStream job may configure checkpointing after it adds its sinks (Flink accepts
 * {@code sinkTo(...); env.enableCheckpointing(...); env.execute()}), so the environment read at
 * {@code sinkTo} can be incomplete. Flink translates a Sink V2 when it generates the stream graph
 * ({@code execute}, {@code executeAsync}, {@code getStreamGraph}); for a sink that implements
 * {@link SupportsPreWriteTopology} the translator (SinkTransformationTranslator.SinkExpander, the
 * same in Flink 1.20 and 2.x) calls {@link #addPreWriteTopology} with the sink's input stream, whose
 * environment is the user's environment with its final configuration. A refusal there is an
 * exception out of {@code execute()}, before anything is submitted, so no operator is ever started
 * and no restart loop can follow. The alternative of failing in the operator's initializeState
 * would only fail after submission and would need a non-restartable error to avoid restarts.
 *
 * <p>{@link SupportsPreWriteTopology} and {@link DiscardingSink} have the same package and shape in
 * Flink 1.20 and 2.x, so this one source compiles for both lines. The input stream is returned
 * unchanged: no operator is added.
 */
final class JobCheckingEndSink<T> extends DiscardingSink<T> implements SupportsPreWriteTopology<T> {
    private static final long serialVersionUID = 1L;
    private final String location;

    JobCheckingEndSink(String location) {
        this.location = location;
    }

    @Override
    public DataStream<T> addPreWriteTopology(DataStream<T> input) {
        SinkJobChecks.check(input.getExecutionEnvironment(), input.getTransformation(), location);
        return input;
    }
}
