package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;
import org.junit.jupiter.api.Test;

import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;

/** The fixed-bucket shuffle: Paimon's bucket and channel rule, so each (partition, bucket) has one writer. */
class BucketChannelTest {
    static final RowType ROW = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()},
                                          new String[] {"dt", "id"});

    @Test
    void channelIsPaimonsAndOneWriterPerBucket() {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of("bucket", "4",
                                                                                            "bucket-key", "id"));
        BucketChannel.Selector selector = new BucketChannel.Selector(spec, ROW);
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
}
