package io.snapcommit.flink.internal;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.apache.flink.api.common.serialization.RuntimeContextInitializationContextAdapters;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import io.snapcommit.flink.RecordEncoder;
import io.snapcommit.flink.SinkConfig;
import io.snapcommit.jni.NativeStore;

/**
 * Writer subtask: encodes records into newline-delimited data files, one
 * open buffer per (partition, bucket), and puts each file into storage
 * through the native store under {@code data/} with a unique name.
 *
 * <p>Before every checkpoint barrier (and at end of input) it writes out all
 * open buffers and sends the list of new files downstream to the committer,
 * so a completed checkpoint never depends on rows held in memory: the writer
 * keeps no state of its own.
 */
public final class SnapcommitWriterOperator<T> extends AbstractStreamOperator<byte[]>
        implements OneInputStreamOperator<T, byte[]>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private final SinkConfig config;
    private final RecordEncoder<T> encoder;

    private transient NativeStore store;
    private transient Map<String, Buffer> open;
    private transient List<DataFile> written;
    private transient String writerId;
    private transient long fileCounter;
    private transient int subtask;
    private transient boolean endOfInput;
    private transient Counter rowsOut, filesOut, bytesOut;

    public SnapcommitWriterOperator(SinkConfig config, RecordEncoder<T> encoder) {
        this.config = Objects.requireNonNull(config);
        this.encoder = Objects.requireNonNull(encoder);
    }

    /** Rows of one (partition, bucket) since the last file was written. */
    private static final class Buffer extends ByteArrayOutputStream {
        final String partition;
        final int bucket;
        long rows;

        Buffer(String partition, int bucket) {
            super(64 * 1024);
            this.partition = partition;
            this.bucket = bucket;
        }

        byte[] array() { return buf; }
    }

    @Override
    public void open() throws Exception {
        super.open();
        subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        writerId = UUID.randomUUID().toString();
        open = new LinkedHashMap<>();
        written = new ArrayList<>();
        MetricGroup g = getMetricGroup().addGroup("snapcommit");
        rowsOut = g.counter("rowsWritten");
        filesOut = g.counter("filesWritten");
        bytesOut = g.counter("bytesWritten");
        encoder.open(RuntimeContextInitializationContextAdapters.serializationAdapter(
            getRuntimeContext(), mg -> mg.addGroup("user")));
        store = NativeStore.openStore(config.location(), config.storeConfig());
    }

    @Override
    public void processElement(StreamRecord<T> element) throws Exception {
        T record = element.getValue();
        byte[] line = encoder.encode(record);
        String partition = encoder.partition(record);
        if (partition == null) partition = "";
        int bucket = config.buckets() > 0 ? encoder.bucket(record, config.buckets()) : 0;
        String key = partition + '\u0000' + bucket;
        Buffer b = open.get(key);
        if (b == null) {
            b = new Buffer(partition, bucket);
            open.put(key, b);
        }
        b.write(line, 0, line.length);
        if (line.length == 0 || line[line.length - 1] != '\n') b.write('\n');
        b.rows++;
        if (b.size() >= config.targetFileSize()) {
            writeFile(b);
            open.remove(key);
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (!endOfInput) emit(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        if (!endOfInput) {
            endOfInput = true;
            emit(Committables.Message.END_OF_INPUT);
        }
    }

    /** Write every open buffer, then tell the committer which files are new. */
    private void emit(long checkpointId) {
        for (Buffer b : open.values()) writeFile(b);
        open.clear();
        if (written.isEmpty()) return;
        byte[] msg = Committables.encode(new Committables.Message(checkpointId, subtask, new ArrayList<>(written)));
        output.collect(new StreamRecord<>(msg));
        written.clear();
    }

    private void writeFile(Buffer b) {
        if (b.rows == 0) return;
        StringBuilder key = new StringBuilder("data/");
        if (!b.partition.isEmpty()) key.append(b.partition).append('/');
        key.append("bucket-").append(b.bucket).append('/')
           .append("data-").append(writerId).append('-').append(subtask).append('-').append(fileCounter++);
        if (config.fileExtension() != null && !config.fileExtension().isEmpty())
            key.append('.').append(config.fileExtension());
        store.putObject(key.toString(), b.array(), 0, b.size());
        written.add(new DataFile(key.toString(), b.partition, b.bucket, config.buckets(), b.rows, b.size()));
        rowsOut.inc(b.rows);
        filesOut.inc();
        bytesOut.inc(b.size());
    }

    @Override
    public void close() throws Exception {
        try {
            if (store != null) store.close();
        } finally {
            store = null;
            super.close();
        }
    }
}
