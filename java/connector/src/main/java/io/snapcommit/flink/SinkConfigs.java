package io.snapcommit.flink;

import java.time.Duration;

import io.snapcommit.jni.StoreConfig;

/** Builds a {@link SinkConfig} from plain values (for the table factory and other front ends). */
public final class SinkConfigs {
    private SinkConfigs() {}

    public static SinkConfig of(String location, String strategy, String commitUser, int maxRetries,
                                Duration minRetryWait, Duration maxRetryWait, Duration commitTimeout,
                                long targetFileSize, String fileExtension, int buckets, StoreConfig storeConfig) {
        return new SinkConfig(location, strategy, commitUser, maxRetries, minRetryWait, maxRetryWait, commitTimeout,
                              targetFileSize, fileExtension, buckets, storeConfig);
    }
}
