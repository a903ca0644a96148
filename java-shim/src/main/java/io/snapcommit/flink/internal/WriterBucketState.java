package io.snapcommit.flink.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.sink.ChannelComputer;
import org.apache.paimon.utils.SerializationUtils;

/**
 * Per-bucket values a writer keeps across restores, as Paimon's StoreSinkWriteStateImpl: a union
 * list state of (key, partition, bucket, value); on restore each subtask keeps the entries of the
 * buckets that Paimon's channel rule ({@link ChannelComputer#select(BinaryRow, int, int)}, the
 * writers' shuffle) now sends to it, so they follow their bucket when the parallelism changes.
 */
final class WriterBucketState {
    static final String NAME = "snapcommit_writer_bucket_state";

    /** One bucket's value (Paimon's StoreSinkWriteState.StateValue). */
    static final class Value {
        final BinaryRow partition;
        final int bucket;
        final byte[] value;

        Value(BinaryRow partition, int bucket, byte[] value) {
            this.partition = partition;
            this.bucket = bucket;
            this.value = value;
        }
    }

    private final ListState<Tuple4<String, byte[], Integer, byte[]>> state;
    private final Map<String, List<Value>> values = new HashMap<>();

    WriterBucketState(StateInitializationContext context, int subtask, int subtasks) throws Exception {
        state = context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>(NAME, Types.TUPLE(
            Types.STRING, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO, Types.INT,
            PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)));
        for (Tuple4<String, byte[], Integer, byte[]> t : state.get()) {
            BinaryRow partition = SerializationUtils.deserializeBinaryRow(t.f1);
            if (ChannelComputer.select(partition, t.f2, subtasks) == subtask)
                values.computeIfAbsent(t.f0, k -> new ArrayList<>()).add(new Value(partition, t.f2, t.f3));
        }
    }

    /** The restored (or last put) values of key; empty when none. */
    List<Value> get(String key) {
        return values.getOrDefault(key, List.of());
    }

    void put(String key, List<Value> v) {
        values.put(key, v);
    }

    /** Writes every key's values into the operator state (from the operator's snapshotState). */
    void snapshot() throws Exception {
        List<Tuple4<String, byte[], Integer, byte[]>> list = new ArrayList<>();
        values.forEach((key, vs) -> {
            for (Value v : vs)
                list.add(Tuple4.of(key, SerializationUtils.serializeBinaryRow(v.partition), v.bucket, v.value));
        });
        state.update(list);
    }
}
