package io.snapcommit.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;

/**
 * A metric reporter for an embedded (MiniCluster) Flink: keeps every
 * snapcommit metric ever registered in this JVM, including those of task
 * attempts that ended, so a test or the demo can read what the committer
 * reported through Flink's metric system. Enable with
 * {@code metrics.reporter.collect.factory.class: io.snapcommit.demo.CollectingReporterFactory}.
 */
public final class CollectingReporter implements MetricReporter {
    /** One registration: the metric's full identifier and the metric object. */
    public static final class Registration {
        public final String identifier;
        public final Metric metric;

        Registration(String identifier, Metric metric) {
            this.identifier = identifier;
            this.metric = metric;
        }
    }

    private static final List<Registration> REGISTRATIONS = new CopyOnWriteArrayList<>();

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        String id = group.getMetricIdentifier(metricName);
        if (id.contains(".snapcommit.")) REGISTRATIONS.add(new Registration(id, metric));
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // kept on purpose: a task attempt's counters still count after it ended
    }

    /** Registrations whose identifier contains jobName and ends with ".snapcommit." + name. */
    public static List<Registration> find(String jobName, String name) {
        List<Registration> out = new ArrayList<>();
        for (Registration r : REGISTRATIONS) {
            if (r.identifier.contains(jobName) && r.identifier.endsWith(".snapcommit." + name)) out.add(r);
        }
        return out;
    }

    /** Sum of a counter over every task attempt of the job (counters restart at 0 per attempt). */
    public static long counter(String jobName, String name) {
        long sum = 0;
        for (Registration r : find(jobName, name)) {
            if (r.metric instanceof Counter) sum += ((Counter) r.metric).getCount();
        }
        return sum;
    }

    /** A numeric gauge of the job's last task attempt that registered it; -1 when none. */
    public static long gauge(String jobName, String name) {
        long v = -1;
        for (Registration r : find(jobName, name)) {
            if (r.metric instanceof org.apache.flink.metrics.Gauge) {
                Object x = ((org.apache.flink.metrics.Gauge<?>) r.metric).getValue();
                if (x instanceof Number) v = ((Number) x).longValue();
            }
        }
        return v;
    }

    /** Latency summary over every attempt: {count, p50, p99, max} in ms; count 0 when none. */
    public static long[] histogram(String jobName, String name) {
        List<Long> values = new ArrayList<>();
        long count = 0;
        double p50 = 0, p99 = 0;
        long max = 0;
        for (Registration r : find(jobName, name)) {
            if (!(r.metric instanceof Histogram)) continue;
            Histogram h = (Histogram) r.metric;
            HistogramStatistics s = h.getStatistics();
            if (h.getCount() == 0) continue;
            // weight percentiles by the attempt's share (attempts rarely overlap; good enough for a summary)
            p50 = Math.max(p50, s.getQuantile(0.5));
            p99 = Math.max(p99, s.getQuantile(0.99));
            max = Math.max(max, s.getMax());
            count += h.getCount();
            values.add(h.getCount());
        }
        return new long[] {count, Math.round(p50), Math.round(p99), max};
    }

    public static void clear() {
        REGISTRATIONS.clear();
    }
}
