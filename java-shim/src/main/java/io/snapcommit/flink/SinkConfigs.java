package io.snapcommit.flink;

import java.time.Duration;

import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.Strategy;

/** Builds a {@link SinkConfig} from plain values (for the table factory and other front ends). */
public final class SinkConfigs {
    private SinkConfigs() {}

    /** {@code strategy} by its configuration name (auto, rename, ...; case-insensitive, null = auto). */
    public static SinkConfig of(String location, String strategy, String commitUser, int maxRetries,
                                Duration minRetryWait, Duration maxRetryWait, Duration commitTimeout,
                                long targetFileSize, StoreConfig storeConfig) {
        return new SinkConfig(location, Strategy.parse(strategy), commitUser, maxRetries, minRetryWait, maxRetryWait,
                              commitTimeout, targetFileSize, storeConfig, null);
    }
}
