package io.snapcommit.flink.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Versioned binary forms of what flows from writers to the committer and of
 * the committer's checkpoint state. Plain byte[] on the wire and in state:
 * no Kryo, no Flink serializer that could change between Flink versions.
 */
public final class Committables {
    private static final int MESSAGE_MAGIC = 0x53434d32;  // "SCM2": writer -> committer message
    private static final int PENDING_MAGIC = 0x53435032;  // "SCP2": one pending checkpoint in state

    private Committables() {}

    /** What one writer subtask wrote between two barriers (or up to end of input). */
    public static final class Message {
        /** The writer's view: the checkpoint it flushed for, or END_OF_INPUT. Informational only. */
        public final long writerCheckpointId;
        public final int subtask;
        public final List<DataFile> files;

        public static final long END_OF_INPUT = Long.MAX_VALUE;

        public Message(long writerCheckpointId, int subtask, List<DataFile> files) {
            this.writerCheckpointId = writerCheckpointId;
            this.subtask = subtask;
            this.files = files;
        }
    }

    /** Files of one checkpoint the committer has not committed yet; identifier = checkpoint id. */
    public static final class Pending {
        public final long checkpointId;
        public final List<DataFile> files;

        public Pending(long checkpointId, List<DataFile> files) {
            this.checkpointId = checkpointId;
            this.files = files;
        }

        public long rows() {
            long r = 0;
            for (DataFile f : files) r += f.rows();
            return r;
        }
    }

    public static byte[] encode(Message m) {
        return write(out -> {
            out.writeInt(MESSAGE_MAGIC);
            out.writeLong(m.writerCheckpointId);
            out.writeInt(m.subtask);
            writeFiles(out, m.files);
        });
    }

    public static Message decodeMessage(byte[] data) {
        return read(data, in -> {
            expect(in.readInt(), MESSAGE_MAGIC, "writer message");
            long cp = in.readLong();
            int subtask = in.readInt();
            return new Message(cp, subtask, readFiles(in));
        });
    }

    public static byte[] encode(Pending p) {
        return write(out -> {
            out.writeInt(PENDING_MAGIC);
            out.writeLong(p.checkpointId);
            writeFiles(out, p.files);
        });
    }

    public static Pending decodePending(byte[] data) {
        return read(data, in -> {
            expect(in.readInt(), PENDING_MAGIC, "pending checkpoint");
            long cp = in.readLong();
            return new Pending(cp, readFiles(in));
        });
    }

    private static void writeFiles(DataOutputStream out, List<DataFile> files) throws IOException {
        out.writeInt(files.size());
        for (DataFile f : files) f.write(out);
    }

    private static List<DataFile> readFiles(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 10_000_000) throw new IOException("bad file count " + n);
        List<DataFile> files = new ArrayList<>(n);
        for (int i = 0; i < n; i++) files.add(DataFile.read(in));
        return files;
    }

    private static void expect(int got, int want, String what) throws IOException {
        if (got != want) throw new IOException("not a snapcommit " + what + " (magic " + Integer.toHexString(got) + ")");
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static <T> T read(byte[] data, Reader<T> r) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            T t = r.read(in);
            if (in.available() != 0) throw new IOException("trailing bytes");
            return t;
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt snapcommit committable", e);
        }
    }
}
