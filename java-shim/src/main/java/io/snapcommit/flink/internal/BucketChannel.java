package io.snapcommit.flink.internal;

import java.util.Objects;

import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.table.sink.ChannelComputer;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.utils.MathUtils;

import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;

/**
 * The shuffles of a bucketed table's rows. Fixed buckets: to the writers, as Paimon's FixedBucketSink does
 * (RowDataChannelComputer): partition and bucket from Paimon's {@link FixedBucketRowKeyExtractor},
 * channel {@link ChannelComputer#select(BinaryRow, int, int)} — {@code (|partition.hashCode()| % n
 * + bucket) % n} — so every (partition, bucket) has exactly one writer, which alone restores and
 * compacts its files.
 *
 * <p>Dynamic buckets, as Paimon's DynamicBucketSink: first to the bucket assigners
 * ({@link AssignerSelector}, {@link AssignerChannel}: RowAssignerChannelComputer's
 * {@link BucketAssigner#computeAssigner} on the partition's and the trimmed primary key's hashes),
 * then the assigned (row, bucket) pairs to the writers by the same (partition, bucket) rule
 * ({@link WithBucketSelector}, {@link Channel}; RowWithBucketChannelComputer).
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

    /** The assigner key of a row: its partition's hash (high 32 bits) and its trimmed primary key's hash. */
    static final class AssignerSelector implements KeySelector<RowData, Long>, ResultTypeQueryable<Long> {
        private static final long serialVersionUID = 1L;
        private final PaimonTableSpec spec;
        private final RowConverter converter;
        private transient RowPartitionKeyExtractor extractor;

        AssignerSelector(PaimonTableSpec spec, RowType rowType) {
            this.spec = spec;
            this.converter = new RowConverter(rowType);
        }

        @Override
        public Long getKey(RowData row) {
            if (extractor == null) extractor = new RowPartitionKeyExtractor(spec.schema());
            InternalRow r = converter.convert(row);
            return pack(extractor.partition(r).hashCode(), extractor.trimmedPrimaryKey(r).hashCode());
        }

        static long pack(int partitionHash, int keyHash) {
            return ((long) partitionHash << 32) | (keyHash & 0xffffffffL);
        }

        @Override
        public TypeInformation<Long> getProducedType() {
            return Types.LONG;
        }
    }

    /**
     * The assigner subtask of a key: Paimon's rule with {@code min(initial-buckets, channels)}
     * assigners (all channels when dynamic-bucket.initial-buckets is unset).
     */
    static final class AssignerChannel implements Partitioner<Long> {
        private static final long serialVersionUID = 1L;
        private final Integer numAssigners;

        AssignerChannel(Integer numAssigners) {
            this.numAssigners = numAssigners;
        }

        @Override
        public int partition(Long key, int numChannels) {
            int assigners = MathUtils.min(numAssigners, numChannels);
            return BucketAssigner.computeAssigner((int) (key >> 32), (int) (long) key, numChannels, assigners);
        }
    }

    /** The (partition, bucket) of an assigned pair. */
    static final class WithBucketSelector implements KeySelector<Tuple2<RowData, Integer>, Key>,
                                                     ResultTypeQueryable<Key> {
        private static final long serialVersionUID = 1L;
        private final PaimonTableSpec spec;
        private final RowConverter converter;
        private transient RowPartitionKeyExtractor extractor;

        WithBucketSelector(PaimonTableSpec spec, RowType rowType) {
            this.spec = spec;
            this.converter = new RowConverter(rowType);
        }

        @Override
        public Key getKey(Tuple2<RowData, Integer> pair) {
            if (extractor == null) extractor = new RowPartitionKeyExtractor(spec.schema());
            return new Key(extractor.partition(converter.convert(pair.f0)).copy(), pair.f1);
        }

        @Override
        public TypeInformation<Key> getProducedType() {
            return TypeInformation.of(Key.class);
        }
    }
}
