package io.snapcommit.flink;

import java.io.Serializable;

/**
 * Told about each snapshot the sink publishes: to notify a downstream system (refresh a reader,
 * record the snapshot in a catalog or an audit log) as soon as it is visible. Set with
 * {@link SnapcommitSink.Builder#commitListener}; shipped with the job graph, so it must be
 * serializable.
 *
 * <p>Called in the committer task (parallelism 1), on its thread, right after the native commit
 * succeeded (the snapshot is durable and visible) and the committer counted it in its metrics;
 * keep it short. At most once per snapshot: a replay that the table filters after a
 * restore is not reported again, and a failure between the commit and this call loses the call
 * (the table's snapshot log is the complete record). An exception thrown here fails the
 * committer task: the job restarts from its last checkpoint and the replayed commit is filtered
 * by the table, so rows still land exactly once.
 */
@FunctionalInterface
public interface CommitListener extends Serializable {
    void onCommitted(CommitEvent event) throws Exception;
}
