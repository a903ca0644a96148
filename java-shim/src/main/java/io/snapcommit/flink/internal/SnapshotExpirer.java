package io.snapcommit.flink.internal;

import java.time.Duration;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.snapcommit.jni.ErrorCode;
import io.snapcommit.jni.ExpireOptions;
import io.snapcommit.jni.ExpireResult;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.StoreConfig;

/**
 * Snapshot expiration for the committer, off its commit path: one daemon thread with a table
 * handle of its own (a handle is used by one thread at a time). {@link #request()} never blocks:
 * it sets a flag the thread picks up, so requests made while a run is going on coalesce into one
 * more run after it, and at most one run is ever in progress. A failed run is logged and counted
 * and never reaches the job: a commit racing the expiration is normal (the commit retries or the
 * next run finishes the work, see docs/protocols.md "Upkeep").
 */
final class SnapshotExpirer {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpirer.class);

    /** What a run updates: the committer's metrics (written by the expirer thread only). */
    interface Sink {
        void ran(ExpireResult r, long millis);

        void failed(long millis);
    }

    private final String location;
    private final StoreConfig storeConfig;
    private final ExpireOptions options;
    private final Sink sink;
    private final Thread thread;

    // guarded by this
    private boolean requested;
    private boolean stopping;
    private boolean drain;
    private boolean disabled;

    /** Only the expirer thread touches it. */
    private NativeTable table;

    SnapshotExpirer(String location, StoreConfig storeConfig, ExpireOptions options, Sink sink) {
        this.location = Objects.requireNonNull(location);
        this.storeConfig = storeConfig;
        this.options = Objects.requireNonNull(options);
        this.sink = Objects.requireNonNull(sink);
        this.thread = new Thread(this::loop, "snapcommit-expire " + location);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Ask for a run after the current one; never blocks. False once stopping (or turned off). */
    synchronized boolean request() {
        if (stopping || disabled) return false;
        requested = true;
        notifyAll();
        return true;
    }

    /**
     * Stop taking work and wait at most {@code wait} for the thread. With {@code drain} (the job
     * finished its input) the thread first expires until nothing is left to expire, so a finished
     * job leaves its table within retention; without it (cancel, failover) a run in progress is
     * only waited for. After the wait the thread is interrupted and abandoned: a native run
     * cannot be interrupted, it ends on its own, closes its handle and leaves a readable table
     * (an interrupted expiration is finished by the next one).
     *
     * @return true when the thread ended within the wait
     */
    boolean close(Duration wait, boolean drain) throws InterruptedException {
        synchronized (this) {
            stopping = true;
            this.drain = drain && !disabled;
            notifyAll();
        }
        thread.join(Math.max(1, wait.toMillis()));
        if (!thread.isAlive()) return true;
        LOG.warn("snapshot expiration of {} still running after {} ms: abandoned (the next run finishes it)",
                 location, wait.toMillis());
        thread.interrupt();
        return false;
    }

    private void loop() {
        try {
            while (true) {
                boolean last;
                synchronized (this) {
                    while (!requested && !stopping) wait();
                    if (disabled || (stopping && !drain)) return;
                    last = stopping;
                    requested = false;
                }
                ExpireResult r = runOnce();
                if (last) {
                    // Draining: one run expires at most snapshot.expire.limit snapshots; go on until caught up.
                    while (r != null && r.snapshotsExpired() > 0 && !Thread.currentThread().isInterrupted())
                        r = runOnce();
                    return;
                }
            }
        } catch (InterruptedException e) {
            // close() gave up waiting
        } finally {
            closeTable();
        }
    }

    /** One expiration; null when it failed (logged and counted). */
    private ExpireResult runOnce() {
        long started = System.nanoTime();
        try {
            if (table == null) table = NativeTable.openTable(location, storeConfig);
            ExpireResult r = table.expire(options);
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
                    disabled = true;
                }
                LOG.warn("snapshot expiration of {} is not supported for this table and is off for this job: {}",
                         location, e.getMessage());
            } else {
                LOG.warn("snapshot expiration of {} failed after {} ms (the job goes on; the next commit retries "
                         + "it): {}", location, ms, e.toString());
            }
            // A fresh handle for the next run: nothing of a failed run's state is reused.
            closeTable();
            return null;
        }
    }

    private void closeTable() {
        if (table == null) return;
        try {
            table.close();
        } catch (RuntimeException e) {
            LOG.debug("closing the expiration handle of {}: {}", location, e.toString());
        }
        table = null;
    }
}
