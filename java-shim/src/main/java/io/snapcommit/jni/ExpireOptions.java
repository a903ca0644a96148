package io.snapcommit.jni;

import java.io.Serializable;
import java.time.Duration;

/**
 * What {@link NativeTable#expire(ExpireOptions)} keeps, with Paimon's option names. Every setting
 * left unset comes from the table's own Paimon options (its schema's {@code snapshot.num-retained.min},
 * {@code snapshot.num-retained.max}, {@code snapshot.time-retained}, {@code snapshot.expire.limit}),
 * else from Paimon's defaults (10, Integer.MAX_VALUE, 1 h, 50). Immutable; the library checks the
 * ranges (min >= 1, max >= min, limit >= 1) and answers {@link ErrorCode#EINVAL}.
 */
public final class ExpireOptions implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Nothing set: the table's options, else Paimon's defaults. */
    public static final ExpireOptions FROM_TABLE = new ExpireOptions(-1, -1, -1, -1, false);

    private final long retainMin;
    private final long retainMax;
    private final long olderThanMs;
    private final long limit;
    private final boolean dryRun;

    private ExpireOptions(long retainMin, long retainMax, long olderThanMs, long limit, boolean dryRun) {
        this.retainMin = retainMin;
        this.retainMax = retainMax;
        this.olderThanMs = olderThanMs;
        this.limit = limit;
        this.dryRun = dryRun;
    }

    private static long positive(String name, long v) {
        if (v < 1) throw new IllegalArgumentException(name + " must be >= 1, got " + v);
        return v;
    }

    /** {@code snapshot.num-retained.min}: at least this many snapshots are kept. */
    public ExpireOptions retainMin(long n) {
        return new ExpireOptions(positive("snapshot.num-retained.min", n), retainMax, olderThanMs, limit, dryRun);
    }

    /** {@code snapshot.num-retained.max}: at most this many snapshots are kept. */
    public ExpireOptions retainMax(long n) {
        return new ExpireOptions(retainMin, positive("snapshot.num-retained.max", n), olderThanMs, limit, dryRun);
    }

    /** {@code snapshot.time-retained}: a snapshot younger than this is kept unless the maximum forces it out. */
    public ExpireOptions olderThan(Duration d) {
        if (d.isNegative()) throw new IllegalArgumentException("snapshot.time-retained must be >= 0, got " + d);
        return new ExpireOptions(retainMin, retainMax, d.toMillis(), limit, dryRun);
    }

    /** {@code snapshot.expire.limit}: at most this many snapshots expired per run. */
    public ExpireOptions limit(long n) {
        return new ExpireOptions(retainMin, retainMax, olderThanMs, positive("snapshot.expire.limit", n), dryRun);
    }

    /** Plan and count only; nothing is deleted. */
    public ExpireOptions dryRun(boolean v) {
        return new ExpireOptions(retainMin, retainMax, olderThanMs, limit, v);
    }

    /** Set explicitly, else empty (the table's option or the default applies). */
    public java.util.OptionalLong retainMin() { return opt(retainMin); }
    public java.util.OptionalLong retainMax() { return opt(retainMax); }
    public java.util.OptionalLong olderThanMillis() { return opt(olderThanMs); }
    public java.util.OptionalLong limit() { return opt(limit); }
    public boolean dryRun() { return dryRun; }

    private static java.util.OptionalLong opt(long v) {
        return v < 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(v);
    }

    /** The native form: {min, max, olderThanMs, limit, dryRun}, -1 = unset (jni_table.c). */
    long[] toNative() {
        return new long[] {retainMin, retainMax, olderThanMs, limit, dryRun ? 1 : 0};
    }

    @Override
    public String toString() {
        return "ExpireOptions{retainMin=" + show(retainMin) + ", retainMax=" + show(retainMax) + ", olderThan="
               + (olderThanMs < 0 ? "table" : olderThanMs + "ms") + ", limit=" + show(limit)
               + (dryRun ? ", dryRun" : "") + "}";
    }

    private static String show(long v) {
        return v < 0 ? "table" : Long.toString(v);
    }
}
