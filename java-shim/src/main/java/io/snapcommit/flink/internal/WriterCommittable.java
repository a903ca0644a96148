package io.snapcommit.flink.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

import org.apache.paimon.io.DataInputDeserializer;
import org.apache.paimon.io.DataOutputViewStreamWrapper;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;

/**
 * What a writer subtask sends the committer for one checkpoint: the checkpoint id and Paimon's
 * CommitMessages of that checkpoint, serialized with Paimon's own {@link CommitMessageSerializer}
 * (its version travels with the bytes). Layout: int magic "SCM3", long checkpoint id, int
 * serializer version, then {@code serializeList}.
 */
final class WriterCommittable {
    static final int MAGIC = 0x53434d33; // "SCM3"
    /** Sent at the end of input (Paimon's END_INPUT_CHECKPOINT_ID). */
    static final long END_OF_INPUT = Long.MAX_VALUE;

    final long checkpointId;
    final List<CommitMessage> messages;

    WriterCommittable(long checkpointId, List<CommitMessage> messages) {
        this.checkpointId = checkpointId;
        this.messages = messages;
    }

    byte[] encode() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputViewStreamWrapper out = new DataOutputViewStreamWrapper(bytes);
        CommitMessageSerializer s = new CommitMessageSerializer();
        out.writeInt(MAGIC);
        out.writeLong(checkpointId);
        out.writeInt(s.getVersion());
        s.serializeList(messages, out);
        return bytes.toByteArray();
    }

    static WriterCommittable decode(byte[] raw) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(raw);
        int magic = in.readInt();
        if (magic != MAGIC)
            throw new IOException("not a snapcommit writer committable (magic " + Integer.toHexString(magic) + ")");
        long checkpointId = in.readLong();
        int version = in.readInt();
        List<CommitMessage> messages = new CommitMessageSerializer().deserializeList(version, in);
        if (in.available() != 0) throw new IOException("writer committable: " + in.available() + " trailing bytes");
        return new WriterCommittable(checkpointId, messages);
    }
}
