package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.InstantiationUtil;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.sink.ChannelComputer;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.junit.jupiter.api.Test;

import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;

/** The bucketed shuffles: Paimon's bucket and channel rules, so each (partition, bucket) has one writer. */
class BucketChannelTest {
    static final RowType ROW = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()},
                                          new String[] {"dt", "id"});

    /** A selector as a task receives it: serialized with the job graph, its extractor made there. */
    static <T extends Serializable> T shipped(T selector) {
        try {
            return InstantiationUtil.clone(selector);
        } catch (IOException | ClassNotFoundException e) {
            throw new AssertionError("the selector does not serialize", e);
        }
    }

    @Test
    void channelIsPaimonsAndOneWriterPerBucket() {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of("bucket", "4",
                                                                                            "bucket-key", "id"));
        BucketChannel.Selector selector = shipped(new BucketChannel.Selector(spec, ROW));
        assertEquals(TypeInformation.of(BucketChannel.Key.class), selector.getProducedType());
        BucketChannel.Channel channel = new BucketChannel.Channel();
        FixedBucketRowKeyExtractor paimon = new FixedBucketRowKeyExtractor(spec.schema());
        RowConverter conv = new RowConverter(ROW);
        Map<String, Integer> writerOf = new HashMap<>();
        int n = 3;
        for (long i = 0; i < 500; i++) {
            GenericRowData row = GenericRowData.of(StringData.fromString("d" + (i % 5)), i);
            BucketChannel.Key key = selector.getKey(row);
            paimon.setRecord(conv.convert(row));
            BinaryRow partition = paimon.partition();
            assertEquals(paimon.bucket(), key.bucket, "Paimon's bucket function");
            assertEquals(partition, key.partition);
            int start = Math.abs(partition.hashCode() == Integer.MIN_VALUE ? Integer.MAX_VALUE : partition.hashCode()) % n;
            int c = channel.partition(key, n);
            assertEquals((start + key.bucket) % n, c, "(|partition.hashCode()| % n + bucket) % n");
            Integer before = writerOf.put(key.partition.hashCode() + "/" + key.bucket, c);
            if (before != null) assertEquals(before, c, "one writer per (partition, bucket)");
        }
        assertEquals(20, writerOf.size(), "5 partitions x 4 buckets seen");
    }

    /**
     * The dynamic-bucket shuffles: to assigner {@code (|pHash % n| + |kHash % a|) % n} (Paimon's
     * BucketAssigner.computeAssigner over the partition's and the trimmed key's BinaryRow hashes, a =
     * min(dynamic-bucket.initial-buckets, n)), hashes of either sign; then (row, bucket) by the
     * fixed-bucket rule.
     */
    @Test
    void assignerChannelIsPaimonsWithInitialBucketsCappingTheAssigners() {
        int n = 3;
        for (String initial : new String[] {null, "1", "2", "8"}) {
            Map<String, String> o = initial == null ? Map.of() : Map.of("dynamic-bucket.initial-buckets", initial);
            PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of("dt", "id"), o);
            BucketChannel.AssignerSelector selector = shipped(new BucketChannel.AssignerSelector(spec, ROW));
            assertEquals(Types.LONG, selector.getProducedType());
            BucketChannel.AssignerChannel channel = new BucketChannel.AssignerChannel(spec.coreOptions()
                                                                                      .dynamicBucketInitialBuckets());
            RowPartitionKeyExtractor paimon = new RowPartitionKeyExtractor(spec.schema());
            RowConverter conv = new RowConverter(ROW);
            int a = initial == null ? n : Math.min(Integer.parseInt(initial), n);
            Map<Integer, java.util.Set<Integer>> channelsOfPartition = new HashMap<>();
            boolean negativeKey = false, negativePartition = false;
            for (long i = 0; i < 500; i++) {
                GenericRowData row = GenericRowData.of(StringData.fromString("d" + (i % 20)), i * 7919);
                int pHash = paimon.partition(conv.convert(row)).hashCode();
                int kHash = paimon.trimmedPrimaryKey(conv.convert(row)).hashCode();
                negativeKey |= kHash < 0;
                negativePartition |= pHash < 0;
                int c = channel.partition(selector.getKey(row), n);
                assertEquals((Math.abs(pHash % n) + Math.abs(kHash % a)) % n, c, "assigner of " + row + ", a=" + a);
                channelsOfPartition.computeIfAbsent(pHash, x -> new java.util.HashSet<>()).add(c);
            }
            assertTrue(negativeKey && negativePartition, "hashes of both signs seen");
            for (java.util.Set<Integer> cs : channelsOfPartition.values())
                assertEquals(a, cs.size(), "a partition's keys spread over min(initial-buckets, n) assigners");

            BucketChannel.WithBucketSelector pairs = shipped(new BucketChannel.WithBucketSelector(spec, ROW));
            GenericRowData row = GenericRowData.of(StringData.fromString("d1"), 5L);
            BucketChannel.Key key = pairs.getKey(Tuple2.of(row, 4));
            assertEquals(paimon.partition(conv.convert(row)), key.partition);
            assertEquals(ChannelComputer.select(key.partition, 4, n), new BucketChannel.Channel().partition(key, n));
        }
    }
}
