package io.snapcommit.demo;

import java.util.Properties;

import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/** Factory of {@link CollectingReporter}, found through META-INF/services. */
public final class CollectingReporterFactory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new CollectingReporter();
    }
}
