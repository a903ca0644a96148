package io.snapcommit.flink.internal;

import java.io.Serializable;
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
import org.apache.paimon.schema.TableSchema;
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

    /** How a selector makes its Paimon extractor from the schema (shipped with the job). */
    interface ExtractorFactory<E> extends Serializable {
        E create(TableSchema schema);
    }

    /**
     * What the selectors share: the table's spec, row converter and key type, shipped with the job,
     * and the Paimon extractor {@code E}, which is not serializable: made from the schema on first use.
     */
    abstract static class SchemaSelector<I, K, E> implements KeySelector<I, K>, ResultTypeQueryable<K> {
        private static final long serialVersionUID = 1L;
        private final PaimonTableSpec spec;
        private final ExtractorFactory<E> factory;
        private final TypeInformation<K> keyType;
        final RowConverter converter;
        private transient E extractor;

        SchemaSelector(PaimonTableSpec spec, RowType rowType, ExtractorFactory<E> factory, TypeInformation<K> keyType) {
            this.spec = spec;
            this.factory = factory;
            this.keyType = keyType;
            this.converter = new RowConverter(rowType);
        }

        final E extractor() {
            if (extractor == null) extractor = factory.create(spec.schema());
            return extractor;
        }

        @Override
        public final TypeInformation<K> getProducedType() {
            return keyType;
        }
    }

    static final class Selector extends SchemaSelector<RowData, Key, FixedBucketRowKeyExtractor> {
        private static final long serialVersionUID = 1L;

        Selector(PaimonTableSpec spec, RowType rowType) {
            super(spec, rowType, FixedBucketRowKeyExtractor::new, TypeInformation.of(Key.class));
        }

        @Override
        public Key getKey(RowData row) {
            FixedBucketRowKeyExtractor extractor = extractor();
            extractor.setRecord(converter.convert(row));
            return new Key(extractor.partition().copy(), extractor.bucket());
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
    static final class AssignerSelector extends SchemaSelector<RowData, Long, RowPartitionKeyExtractor> {
        private static final long serialVersionUID = 1L;

        AssignerSelector(PaimonTableSpec spec, RowType rowType) {
            super(spec, rowType, RowPartitionKeyExtractor::new, Types.LONG);
        }

        @Override
        public Long getKey(RowData row) {
            InternalRow r = converter.convert(row);
            return pack(extractor().partition(r).hashCode(), extractor().trimmedPrimaryKey(r).hashCode());
        }

        static long pack(int partitionHash, int keyHash) {
            return ((long) partitionHash << 32) | (keyHash & 0xffffffffL);
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
    static final class WithBucketSelector extends SchemaSelector<Tuple2<RowData, Integer>, Key, RowPartitionKeyExtractor> {
        private static final long serialVersionUID = 1L;

        WithBucketSelector(PaimonTableSpec spec, RowType rowType) {
            super(spec, rowType, RowPartitionKeyExtractor::new, TypeInformation.of(Key.class));
        }

        @Override
        public Key getKey(Tuple2<RowData, Integer> pair) {
            return new Key(extractor().partition(converter.convert(pair.f0)).copy(), pair.f1);
        }
    }
}
