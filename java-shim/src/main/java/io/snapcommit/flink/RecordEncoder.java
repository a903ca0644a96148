package io.snapcommit.flink;

import java.io.Serializable;

import org.apache.flink.api.common.serialization.SerializationSchema;

/**
 * Turns records into the bytes of a data file (one record per line) and
 * decides where each record goes: its partition (a path such as
 * {@code dt=2024-01-01/region=eu}, "" when the table is not partitioned) and
 * its bucket.
 */
public interface RecordEncoder<T> extends Serializable {
    default void open(SerializationSchema.InitializationContext context) throws Exception {}

    /** The encoded record; a trailing newline is added when missing. */
    byte[] encode(T record);

    /** Hive-style partition path of the record; "" for none. */
    default String partition(T record) {
        return "";
    }

    /** Bucket of the record in [0, buckets); only called when the table has buckets > 0. */
    default int bucket(T record, int buckets) {
        return 0;
    }
}
