package io.snapcommit.flink.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.paimon.PaimonDataWriter;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;
import io.snapcommit.jni.NativeStore;

/**
 * Writer subtask: converts rows to Paimon rows and writes them into Paimon data files (Parquet by
 * default) with Paimon's own writers, one open file per (partition, bucket) as Paimon routes rows
 * ({@link PaimonDataWriter}), and puts each finished file into storage through the native store at
 * {@code <partition path>/bucket-<b>/data-<uuid>-<n>.<format>}.
 *
 * <p>Before every checkpoint barrier (and at end of input) it finishes all open files and sends
 * their manifest entries downstream to the committer, so a completed checkpoint never depends on
 * rows held in memory: the writer keeps no state of its own.
 */
public final class SnapcommitWriterOperator extends AbstractStreamOperator<byte[]>
        implements OneInputStreamOperator<RowData, byte[]>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private final SinkConfig config;
    private final PaimonTableSpec spec;
    private final RowType rowType;

    private transient NativeStore store;
    private transient PaimonDataWriter data;
    private transient RowConverter converter;
    private transient Path tmpDir;
    private transient List<DataFile> written;
    private transient int subtask;
    private transient boolean endOfInput;
    private transient Counter rowsOut, filesOut, bytesOut;

    public SnapcommitWriterOperator(SinkConfig config, PaimonTableSpec spec, RowType rowType) {
        this.config = Objects.requireNonNull(config);
        this.spec = Objects.requireNonNull(spec);
        this.rowType = Objects.requireNonNull(rowType);
    }

    @Override
    public void open() throws Exception {
        super.open();
        subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        written = new ArrayList<>();
        MetricGroup g = getMetricGroup().addGroup("snapcommit");
        rowsOut = g.counter("rowsWritten");
        filesOut = g.counter("filesWritten");
        bytesOut = g.counter("bytesWritten");
        converter = new RowConverter(rowType);
        tmpDir = Files.createTempDirectory("snapcommit-writer-" + subtask + "-");
        data = new PaimonDataWriter(spec, config.targetFileSize(), tmpDir);
        store = NativeStore.openStore(config.location(), config.storeConfig());
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData row = element.getValue();
        if (row.getRowKind() != RowKind.INSERT)
            throw new IllegalArgumentException("snapcommit tables are append-only: got a " + row.getRowKind()
                                               + " row");
        for (PaimonDataWriter.Written w : data.write(converter.convert(row))) put(w);
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

    /** Finish every open file, then tell the committer which files are new. */
    private void emit(long checkpointId) throws IOException {
        for (PaimonDataWriter.Written w : data.flush()) put(w);
        if (written.isEmpty()) return;
        byte[] msg = Committables.encode(new Committables.Message(checkpointId, subtask, new ArrayList<>(written)));
        output.collect(new StreamRecord<>(msg));
        written.clear();
    }

    private void put(PaimonDataWriter.Written w) {
        store.putObject(w.path, w.bytes, 0, w.bytes.length);
        written.add(new DataFile(w.path, w.entry));
        rowsOut.inc(w.entry.rows());
        filesOut.inc();
        bytesOut.inc(w.bytes.length);
    }

    @Override
    public void close() throws Exception {
        try {
            if (data != null) data.close();
            if (store != null) store.close();
            if (tmpDir != null) {
                try (Stream<Path> s = Files.walk(tmpDir)) {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } finally {
            data = null;
            store = null;
            tmpDir = null;
            super.close();
        }
    }
}
