package io.snapcommit.flink.internal;

import java.util.Objects;

import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.sink.ChannelComputer;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;

import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;

/**
 * The shuffle of a fixed-bucket table's rows to the writers, as Paimon's FixedBucketSink does
 * (RowDataChannelComputer): partition and bucket from Paimon's {@link FixedBucketRowKeyExtractor},
 * channel {@link ChannelComputer#select(BinaryRow, int, int)} — {@code (|partition.hashCode()| % n
 * + bucket) % n} — so every (partition, bucket) has exactly one writer, which alone restores and
 * compacts its files.
 */
final class BucketChannel {
    private BucketChannel() {}

    /** A row's partition and bucket (never serialized: computed and used on the sending side). */
    static final class Key {
        final BinaryRow partition;
        final int bucket;

        Key(BinaryRow partition, int bucket) {
            this.partition = partition;
            this.bucket = bucket;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).bucket == bucket && ((Key) o).partition.equals(partition);
        }

        @Override
        public int hashCode() {
            return Objects.hash(partition, bucket);
        }
    }

    static final class Selector implements KeySelector<RowData, Key>, ResultTypeQueryable<Key> {
        private static final long serialVersionUID = 1L;
        private final PaimonTableSpec spec;
        private final RowConverter converter;
        private transient FixedBucketRowKeyExtractor extractor;

        Selector(PaimonTableSpec spec, RowType rowType) {
            this.spec = spec;
            this.converter = new RowConverter(rowType);
        }

        @Override
        public Key getKey(RowData row) {
            if (extractor == null) extractor = new FixedBucketRowKeyExtractor(spec.schema());
            extractor.setRecord(converter.convert(row));
            return new Key(extractor.partition().copy(), extractor.bucket());
        }

        @Override
        public TypeInformation<Key> getProducedType() {
            return TypeInformation.of(Key.class);
        }
    }

    static final class Channel implements Partitioner<Key> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Key key, int numChannels) {
            return ChannelComputer.select(key.partition, key.bucket, numChannels);
        }
    }
}
