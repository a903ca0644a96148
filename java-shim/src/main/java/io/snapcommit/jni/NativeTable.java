package io.snapcommit.jni;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * A snapcommit table (sc_table). Calls are serialized per handle: a native
 * table is used by one thread at a time; use one handle per thread for
 * parallel work. Several handles, in one process or many, may commit to the
 * same table concurrently.
 */
public final class NativeTable implements AutoCloseable {
    static {
        NativeLoader.load();
    }

    private long handle;
    private final String location;

    private NativeTable(long handle, String location) {
        this.handle = handle;
        this.location = location;
    }

    /** Open the table at location; {@link ErrorCode#ENOTABLE} when there is none. Settings from the environment. */
    public static NativeTable openTable(String location) {
        return openTable(location, null);
    }

    /** Open the table at location with its store's own settings (null = environment and defaults). */
    public static NativeTable openTable(String location, StoreConfig config) {
        return new NativeTable(open(Utf8.z(location), nativeConfig(config)), location);
    }

    /**
     * Create an empty table claiming snapshots with strategy.
     * Returns false when a table already exists there (nothing changed).
     */
    public static boolean createTable(String location, Strategy strategy) {
        return createTable(location, strategy, null);
    }

    /** As {@link #createTable(String, Strategy)}, with the store's own settings. */
    public static boolean createTable(String location, Strategy strategy, StoreConfig config) {
        try {
            create(Utf8.z(location), strategy.code(), nativeConfig(config));
            return true;
        } catch (SnapcommitException e) {
            if (e.errorCode() == ErrorCode.ETABLEEXISTS) return false;
            throw e;
        }
    }

    /**
     * Create the table with a schema: Paimon's schema JSON or the short form of
     * {@code snapcommit/table.h} (sc_table_create_with_schema); null = no fields. Stored as schema/schema-0.
     * @return false when a table already exists there
     * @throws SnapcommitException EINVAL naming the problem in the schema, store errors
     */
    public static boolean createTable(String location, Strategy strategy, StoreConfig config, String schemaJson) {
        try {
            createWithSchema(Utf8.z(location), strategy.code(), nativeConfig(config),
                             schemaJson == null ? null : schemaJson.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return true;
        } catch (SnapcommitException e) {
            if (e.errorCode() == ErrorCode.ETABLEEXISTS) return false;
            throw e;
        }
    }

    /**
     * Open the table, creating it when absent; races with other creators and adopters are fine.
     * A location that holds a Paimon table but no snapcommit metadata ({@code schema/schema-0}
     * present, {@code metadata/table.json} absent, as Paimon's own committer leaves it) is
     * <em>adopted</em>: the native create without a schema writes only {@code metadata/table.json}
     * and keeps Paimon's schema and snapshots; {@code schemaJson} is then not written (the caller
     * checks it against {@link #schemaJson()}). Otherwise the table is created with
     * {@code schemaJson} (see above).
     */
    public static NativeTable openOrCreate(String location, Strategy strategy, StoreConfig config, String schemaJson) {
        // Creation is put-if-absent at each step (schema-0, then table.json): a racing creator or
        // adopter that wins makes ours ETABLEEXISTS, and then the table is opened. One more round
        // covers the window between a racing creator's schema-0 and its table.json: the schema
        // is there by then, so this round adopts (or finds the table.json the other one wrote).
        SnapcommitException last = null;
        for (int round = 0; round < 3; round++) {
            try {
                return openTable(location, config);
            } catch (SnapcommitException e) {
                if (e.errorCode() != ErrorCode.ENOTABLE) throw e;
                last = e;
            }
            boolean adopt = paimonSchemaJson(location, config) != null;
            createTable(location, strategy, config, adopt ? null : schemaJson);
        }
        try {
            return openTable(location, config);
        } catch (SnapcommitException e) {
            if (e.errorCode() == ErrorCode.ENOTABLE && last != null) e.addSuppressed(last);
            throw e;
        }
    }

    /**
     * The latest schema of a Paimon table at location ({@code schema/schema-<highest id>}, Paimon's
     * schema JSON as stored), or null when there is no {@code schema/schema-0}. Reads the schema
     * files directly: for a table not (yet) opened through snapcommit, e.g. one Paimon's own
     * committer wrote and snapcommit will adopt.
     */
    public static String paimonSchemaJson(String location, StoreConfig config) {
        try (NativeStore store = NativeStore.openStore(location, config)) {
            long best = -1;
            for (String key : store.listKeys("schema/schema-")) {
                String digits = key.substring("schema/schema-".length());
                if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(Character::isDigit)
                    || (digits.length() > 1 && digits.charAt(0) == '0'))
                    continue; // not a schema file (Paimon's temporary files have other names)
                best = Math.max(best, Long.parseLong(digits));
            }
            if (best < 0) return null;
            // Adoption keys on schema-0 (as the native create does): schema files without it are
            // no table to adopt, and neither a table to create over.
            if (!store.listKeys("schema/schema-0").contains("schema/schema-0"))
                throw new IllegalStateException(location + " holds schema/schema-" + best + " but no schema/schema-0: "
                                                + "not a Paimon table snapcommit can adopt, and no place to create one");
            return new String(store.getObject("schema/schema-" + best), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** Open the table, creating it with the given strategy when absent (races with other creators are fine). */
    public static NativeTable openOrCreate(String location, Strategy strategy) {
        return openOrCreate(location, strategy, null);
    }

    /** As {@link #openOrCreate(String, Strategy)}, with the store's own settings. */
    public static NativeTable openOrCreate(String location, Strategy strategy, StoreConfig config) {
        try {
            return openTable(location, config);
        } catch (SnapcommitException e) {
            if (e.errorCode() != ErrorCode.ENOTABLE) throw e;
            createTable(location, strategy, config);
            return openTable(location, config);
        }
    }

    private static byte[][] nativeConfig(StoreConfig config) {
        return config == null ? null : config.toNative();
    }

    public String location() {
        return location;
    }

    /** Claim retries: at most maxRetries (-1: no count limit), spread backoff between minWait and maxWait, total budget timeout (null: none). */
    public synchronized void retryPolicy(int maxRetries, Duration minWait, Duration maxWait, Duration timeout) {
        setRetryPolicy(live(), maxRetries, minWait.toMillis(), maxWait.toMillis(),
                       timeout == null ? 0 : timeout.toMillis());
    }

    /** The strategy the table was created with (never AUTO: creation resolves it). */
    public synchronized Strategy strategy() {
        return Strategy.ofCode(strategy(live()));
    }

    public synchronized String tableUuid() {
        return uuid(live());
    }

    /**
     * Publish changes as the next snapshot, exactly once per (user, identifier).
     *
     * @throws AlreadyCommittedException the identifier is at or below the user's watermark (nothing written)
     * @throws ConflictException a real conflict; never retried
     * @throws UnknownOutcomeException the claim's outcome could not be reconciled: do not assume failure
     * @throws RetriesExhaustedException claims kept being lost
     */
    public synchronized CommitResult commit(String user, long identifier, CommitKind kind, long baseSnapshot,
                                            NativeChanges changes) {
        return new CommitResult(commit(live(), Utf8.z(user), identifier, kind.code(), baseSnapshot, changes.live()));
    }

    /**
     * Commit one checkpoint as Paimon does (sc_table_commit_checkpoint): the APPEND part, then the
     * COMPACT part, each a snapshot of its own with the same identifier; an empty or null part
     * writes nothing.
     *
     * @param watermark the checkpoint's event-time watermark, or null for none
     * @throws AlreadyCommittedException the identifier is at or below the user's watermark
     * @throws SnapcommitException as {@link #commit}; when the APPEND part landed and the COMPACT
     *     part failed, {@link SnapcommitException#landedSnapshot()} names the APPEND snapshot
     */
    public synchronized CheckpointResult commitCheckpoint(String user, long identifier, long baseSnapshot,
                                                          Long watermark, NativeChanges append,
                                                          NativeChanges compact) {
        return commitCheckpoint(user, identifier, baseSnapshot, watermark, append, compact, Overwrite.NONE);
    }

    /**
     * The same as an INSERT OVERWRITE (sc_checkpoint_request.overwrite): the append part replaces
     * what {@code overwrite} names, planned anew on every attempt; the changelog of both parts is
     * dropped, as Paimon's overwrite commits none.
     */
    public synchronized CheckpointResult commitCheckpoint(String user, long identifier, long baseSnapshot,
                                                          Long watermark, NativeChanges append,
                                                          NativeChanges compact, Overwrite overwrite) {
        return new CheckpointResult(commitCheckpoint(live(), Utf8.z(user), identifier, baseSnapshot,
                                                     watermark != null, watermark == null ? 0 : watermark,
                                                     append == null ? 0 : append.live(),
                                                     compact == null ? 0 : compact.live(), overwrite.scope(),
                                                     overwrite.partition() == null ? null
                                                                                   : Utf8.z(overwrite.partition())));
    }

    /** The last identifier committed by user, empty when it has none. */
    public synchronized OptionalLong lastCommittedIdentifier(String user) {
        long id = lastCommitted(live(), Utf8.z(user));
        return id < 0 ? OptionalLong.empty() : OptionalLong.of(id);
    }

    /** The identifiers user has not committed yet (above its watermark), in input order. */
    public synchronized long[] filterUncommitted(String user, long[] identifiers) {
        return filterCommitted(live(), Utf8.z(user), identifiers);
    }

    public synchronized long latestSnapshotId() {
        return latestId(live());
    }

    public synchronized long earliestSnapshotId() {
        return earliestId(live());
    }

    public synchronized SnapshotInfo snapshot(long id) {
        return snapshotInfo(live(), id);
    }

    /** Live files of snapshot id (0 = latest). */
    public synchronized List<FileEntry> liveFiles(long id) {
        return Arrays.asList(files(live(), id));
    }

    /** The table's current schema as Paimon's schema JSON (sc_table_schema_json). */
    public synchronized String schemaJson() {
        return new String(schemaJson(live()), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Verify metadata, hash chain and manifests; {@link ErrorCode#ECORRUPT} names the damage. */
    public synchronized void fsck() {
        fsck(live());
    }

    /**
     * Expire old snapshots (sc_table_expire): the settings {@code options} leaves unset come from the
     * table's own Paimon options, else Paimon's defaults. Runs off the claim path; a commit through
     * another handle may run at the same time. Run one expiration per table at a time.
     *
     * @throws SnapcommitException EINVAL (settings out of range, or a table option that does not
     *     parse), EUNSUPPORTED (a table with tags, branches or consumers; head or tracker metadata),
     *     ECORRUPT, store errors; a failed run may have done part of the work, and running again
     *     finishes it
     */
    public synchronized ExpireResult expire(ExpireOptions options) {
        return new ExpireResult(expire(live(), (options == null ? ExpireOptions.FROM_TABLE : options).toNative()));
    }

    private long live() {
        if (handle == 0) throw new IllegalStateException("table " + location + " is closed");
        return handle;
    }

    @Override
    public synchronized void close() {
        long h = handle;
        handle = 0;
        if (h != 0) close(h);
    }

    private static native long open(byte[] location, byte[][] config);

    private static native void create(byte[] location, int strategy, byte[][] config);

    private static native void createWithSchema(byte[] location, int strategy, byte[][] config, byte[] schema);

    private static native byte[] schemaJson(long handle);

    private static native void close(long handle);

    private static native void setRetryPolicy(long handle, int maxRetries, long minWaitMs, long maxWaitMs,
                                              long timeoutMs);

    private static native int strategy(long handle);

    private static native String uuid(long handle);

    private static native long[] commit(long handle, byte[] user, long identifier, int kind, long baseSnapshot,
                                        long changes);

    private static native long[] commitCheckpoint(long handle, byte[] user, long identifier, long baseSnapshot,
                                                  boolean hasWatermark, long watermark, long append, long compact,
                                                  int overwrite, byte[] overwritePartition);

    private static native long lastCommitted(long handle, byte[] user);

    private static native long[] filterCommitted(long handle, byte[] user, long[] ids);

    private static native long latestId(long handle);

    private static native long earliestId(long handle);

    private static native SnapshotInfo snapshotInfo(long handle, long id);

    private static native FileEntry[] files(long handle, long id);

    private static native void fsck(long handle);

    private static native long[] expire(long handle, long[] options);
}
