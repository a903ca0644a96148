package io.snapcommit.flink.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.snapcommit.flink.paimon.PaimonAppendCompaction;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.ErrorCode;
import io.snapcommit.jni.ExpireOptions;
import io.snapcommit.jni.ExpireResult;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.UnknownOutcomeException;

/**
 * The committer's table upkeep, off its commit path: one daemon thread with table and store
 * handles of its own (a handle is used by one thread at a time). Each run first compacts small
 * files (when compaction is on: one bounded round of {@link PaimonAppendCompaction}), then expires
 * snapshots (when expiration is on), so that the expiration already sees the COMPACT snapshot.
 *
 * <p>{@link #request()} never blocks: it sets a flag the thread picks up, so requests made while a
 * run is going on coalesce into one more run after it, and at most one run is ever in progress. A
 * failed run is logged and counted and never reaches the job: a commit racing the upkeep is normal
 * (a compaction that lost to another commit is a conflict and is retried by the next run; an
 * interrupted expiration is finished by the next one, see docs/protocols.md "Upkeep").
 *
 * <p>Compaction commits as a user of its own ({@link Compaction#user}, the sink's commit user +
 * "-compact"), with identifiers that only grow: the first is the user's last committed identifier
 * + 1 (so a restarted job never reuses one that was committed), each attempt takes the next.
 */
final class TableUpkeep {
    private static final Logger LOG = LoggerFactory.getLogger(TableUpkeep.class);

    /** Compaction tasks (partition/bucket rewrites) per round at most: a backlog is worked off over runs. */
    static final int DEFAULT_MAX_TASKS = 8;

    /** What a run updates: the committer's metrics (written by the upkeep thread only). */
    interface Sink {
        void ran(ExpireResult r, long millis);

        void failed(long millis);

        /** A compaction round that planned, wrote or committed (any outcome but an error). */
        default void compacted(PaimonAppendCompaction.Result r, long millis) {}

        /** A compaction round that failed (an error, including an unknown outcome). */
        default void compactionFailed(long millis) {}
    }

    /** What compaction needs; null in the constructor = no compaction. */
    static final class Compaction {
        final PaimonTableSpec spec;
        /** Paimon dynamic options of the compaction's table (target-file-size, compaction.min.file-num). */
        final Map<String, String> options;
        final String user;
        final int maxTasks;

        Compaction(PaimonTableSpec spec, Map<String, String> options, String user, int maxTasks) {
            this.spec = Objects.requireNonNull(spec);
            this.options = Objects.requireNonNull(options);
            this.user = Objects.requireNonNull(user);
            if (user.getBytes(StandardCharsets.UTF_8).length > 255)
                throw new IllegalArgumentException("compaction commit user " + user + " is longer than 255 bytes");
            if (maxTasks < 1) throw new IllegalArgumentException("maxTasks must be >= 1, not " + maxTasks);
            this.maxTasks = maxTasks;
        }
    }

    private final String location;
    private final StoreConfig storeConfig;
    /** null = no expiration. */
    private final ExpireOptions options;
    /** null = no compaction. */
    private final Compaction compaction;
    /** Applied to each table handle this thread opens (the sink's retry policy), may be null. */
    private final Consumer<NativeTable> configure;
    private final Sink sink;
    private final Thread thread;

    // guarded by this
    private boolean requested;
    private boolean stopping;
    private boolean drain;
    private boolean expireOff;
    private boolean compactOff;

    // Only the upkeep thread touches these.
    private NativeTable table;
    private PaimonAppendCompaction compactor;
    /** The next compaction identifier; 0 = read the user's watermark first. */
    private long nextCompactId;

    /** Expiration only. */
    TableUpkeep(String location, StoreConfig storeConfig, ExpireOptions options, Sink sink) {
        this(location, storeConfig, options, null, null, sink);
    }

    /**
     * @param options expiration settings, null for no expiration
     * @param compaction compaction settings, null for no compaction
     * @param configure called with each table handle the thread opens (e.g. its retry policy), or null
     */
    TableUpkeep(String location, StoreConfig storeConfig, ExpireOptions options, Compaction compaction,
                Consumer<NativeTable> configure, Sink sink) {
        this.location = Objects.requireNonNull(location);
        this.storeConfig = storeConfig;
        this.options = options;
        this.compaction = compaction;
        this.configure = configure;
        this.sink = Objects.requireNonNull(sink);
        this.expireOff = options == null;
        this.compactOff = compaction == null;
        this.thread = new Thread(this::loop, "snapcommit-upkeep " + location);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Ask for a run after the current one; never blocks. False once stopping (or nothing is left on). */
    synchronized boolean request() {
        if (stopping || (expireOff && compactOff)) return false;
        requested = true;
        notifyAll();
        return true;
    }

    /**
     * Stop taking work and wait at most {@code wait} for the thread. With {@code drain} (the job
     * finished its input) the thread first compacts until nothing is left to compact, then expires
     * until nothing is left to expire, so a finished job leaves its table compacted and within
     * retention; without it (cancel, failover) a run in progress is only waited for. After the
     * wait the thread is interrupted and abandoned: a native call cannot be interrupted, the run
     * ends on its own, closes its handles and leaves a readable table (an interrupted expiration
     * is finished by the next one; files of an unfinished compaction are deleted, or left for
     * orphan removal).
     *
     * @return true when the thread ended within the wait
     */
    boolean close(Duration wait, boolean drain) throws InterruptedException {
        synchronized (this) {
            stopping = true;
            this.drain = drain && !(expireOff && compactOff);
            notifyAll();
        }
        thread.join(Math.max(1, wait.toMillis()));
        if (!thread.isAlive()) return true;
        LOG.warn("table upkeep of {} still running after {} ms: abandoned (the next run finishes it)",
                 location, wait.toMillis());
        thread.interrupt();
        return false;
    }

    private synchronized boolean compactOn() {
        return !compactOff;
    }

    private synchronized boolean expireOn() {
        return !expireOff;
    }

    private void loop() {
        try {
            while (true) {
                boolean last;
                synchronized (this) {
                    while (!requested && !stopping) wait();
                    if ((expireOff && compactOff) || (stopping && !drain)) return;
                    last = stopping;
                    requested = false;
                }
                if (!last) {
                    if (compactOn()) compactOnce();
                    if (expireOn()) expireOnce();
                    continue;
                }
                // Draining: a round rewrites at most maxTasks tasks and a run expires at most
                // snapshot.expire.limit snapshots; go on until caught up (close() bounds the wait).
                if (compactOn()) {
                    PaimonAppendCompaction.Outcome o = compactOnce();
                    while (o == PaimonAppendCompaction.Outcome.COMPACTED && !Thread.currentThread().isInterrupted())
                        o = compactOnce();
                }
                if (expireOn()) {
                    ExpireResult r = expireOnce();
                    while (r != null && r.snapshotsExpired() > 0 && !Thread.currentThread().isInterrupted())
                        r = expireOnce();
                }
                return;
            }
        } catch (InterruptedException e) {
            // close() gave up waiting
        } finally {
            closeHandles();
        }
    }

    private NativeTable table() {
        if (table == null) {
            table = NativeTable.openTable(location, storeConfig);
            if (configure != null) configure.accept(table);
        }
        return table;
    }

    /** One compaction round; its outcome, or null when it failed (logged and counted). */
    private PaimonAppendCompaction.Outcome compactOnce() {
        long started = System.nanoTime();
        long id = 0;
        try {
            NativeTable t = table();
            if (compactor == null) {
                try {
                    compactor = new PaimonAppendCompaction(location, storeConfig, compaction.spec, compaction.options);
                } catch (IllegalArgumentException e) {
                    // Not an append table this compaction may rewrite: every round would refuse it.
                    synchronized (this) {
                        compactOff = true;
                    }
                    LOG.warn("small-file compaction of {} is off for this job: {}", location, e.getMessage());
                    return null;
                }
            }
            if (nextCompactId == 0) {
                OptionalLong last = t.lastCommittedIdentifier(compaction.user);
                nextCompactId = last.isPresent() ? last.getAsLong() + 1 : 1;
            }
            id = nextCompactId;
            PaimonAppendCompaction.Result r = compactor.compact(t, compaction.user, id, compaction.maxTasks);
            if (r.outcome != PaimonAppendCompaction.Outcome.NOTHING_TO_DO) nextCompactId = id + 1;
            long ms = (System.nanoTime() - started) / 1_000_000;
            sink.compacted(r, ms);
            switch (r.outcome) {
                case COMPACTED:
                    LOG.info("compacted {} in {} ms (user {}, identifier {}): {}", location, ms, compaction.user, id, r);
                    break;
                case CONFLICT:
                    // Another commit changed some input meanwhile: normal; the next run plans again.
                    LOG.info("compaction of {} lost to a concurrent change (the next run plans again): {}", location, r);
                    break;
                case ALREADY_COMMITTED:
                    // Someone else committed as this user with this identifier: read the watermark again.
                    LOG.info("compaction identifier {} of {} was already committed: {}", id, compaction.user, r);
                    nextCompactId = 0;
                    break;
                default:
                    LOG.debug("compaction of {}: {}", location, r);
            }
            return r.outcome;
        } catch (Exception e) {
            long ms = (System.nanoTime() - started) / 1_000_000;
            sink.compactionFailed(ms);
            if (e instanceof UnknownOutcomeException) {
                LOG.warn("compaction commit of {} (user {}, identifier {}) has an unknown outcome: its files are "
                         + "left in place (orphan removal takes them if it was not published); the job goes on: {}",
                         location, compaction.user, id, e.getMessage());
            } else {
                LOG.warn("compaction of {} failed after {} ms (the job goes on; the next run retries it): {}",
                         location, ms, e.toString());
            }
            // Fresh handles for the next round; the identifier never goes back (id + 1 at least).
            if (id > 0) nextCompactId = id + 1;
            closeHandles();
            return null;
        }
    }

    /** One expiration; null when it failed (logged and counted). */
    private ExpireResult expireOnce() {
        long started = System.nanoTime();
        try {
            ExpireResult r = table().expire(options);
            long ms = (System.nanoTime() - started) / 1_000_000;
            sink.ran(r, ms);
            // The library logs each run that expired something at INFO already.
            LOG.debug("{} in {} ms: {}", location, ms, r);
            return r;
        } catch (RuntimeException e) {
            long ms = (System.nanoTime() - started) / 1_000_000;
            sink.failed(ms);
            if (e instanceof SnapcommitException && ((SnapcommitException) e).errorCode() == ErrorCode.EUNSUPPORTED) {
                // Tags, branches or consumers (or head/tracker metadata): every run would fail the same way.
                synchronized (this) {
                    expireOff = true;
                }
                LOG.warn("snapshot expiration of {} is not supported for this table and is off for this job: {}",
                         location, e.getMessage());
            } else {
                LOG.warn("snapshot expiration of {} failed after {} ms (the job goes on; the next commit retries "
                         + "it): {}", location, ms, e.toString());
            }
            // A fresh handle for the next run: nothing of a failed run's state is reused.
            closeHandles();
            return null;
        }
    }

    /** Closes the handles (the next run opens new ones). */
    private void closeHandles() {
        if (compactor != null) {
            try {
                compactor.close();
            } catch (Exception e) {
                LOG.debug("closing the compaction of {}: {}", location, e.toString());
            }
            compactor = null;
        }
        if (table != null) {
            try {
                table.close();
            } catch (RuntimeException e) {
                LOG.debug("closing the upkeep table handle of {}: {}", location, e.toString());
            }
            table = null;
        }
    }
}
