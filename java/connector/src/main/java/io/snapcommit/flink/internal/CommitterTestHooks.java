package io.snapcommit.flink.internal;

/**
 * Fault injection for tests that run the committer in the same JVM
 * (MiniCluster). Never set in production; every hook defaults to no-op.
 */
public final class CommitterTestHooks {
    /** Called after a snapshot was committed natively, before the committer records it. */
    public interface AfterCommit {
        void afterCommit(String table, String commitUser, long identifier, long snapshotId) throws Exception;
    }

    public static volatile AfterCommit afterCommit;

    private CommitterTestHooks() {}

    public static void reset() {
        afterCommit = null;
    }
}
