package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.flink.paimon.PaimonStoreTable;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;
import io.snapcommit.jni.StoreConfig;

/** Writer → committer messages and committer state: Paimon's serializers inside a versioned envelope. */
class CommittableCodecTest {
    @TempDir Path dir;

    static final RowType ROW = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()},
                                          new String[] {"dt", "id"});

    private List<CommitMessage> messages() throws Exception {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of());
        FileStoreTable table = PaimonStoreTable.open(dir.toString(), StoreConfig.DEFAULTS, spec,
                                                     Map.of("write-only", "true"));
        RowConverter conv = new RowConverter(ROW);
        try (TableWriteImpl<?> w = table.newWrite("u", 0)) {
            for (int i = 0; i < 6; i++) w.write(conv.convert(GenericRowData.of(StringData.fromString("d" + (i % 3)), (long) i)));
            return w.prepareCommit(false, 7);
        }
    }

    @Test
    void writerCommittableRoundTrips() throws Exception {
        List<CommitMessage> m = messages();
        assertEquals(3, m.size());
        WriterCommittable back = WriterCommittable.decode(new WriterCommittable(7, m).encode());
        assertEquals(7, back.checkpointId);
        assertEquals(m, back.messages);
    }

    @Test
    void committerStateRoundTripsAndRefusesOtherBytes() throws Exception {
        ManifestCommittable c = new ManifestCommittable(9, 1234L, messages());
        ManifestCommittable back = SnapcommitCommitterOperator.decodeState(SnapcommitCommitterOperator.encodeState(c));
        assertEquals(c, back);
        assertEquals(1234L, back.watermark());
        assertThrows(IOException.class, () -> SnapcommitCommitterOperator.decodeState(new byte[] {0, 0, 0, 1, 0, 0, 0, 1}));
        assertThrows(IOException.class, () -> WriterCommittable.decode(new byte[] {0x53, 0x43, 0x4d, 0x32, 0, 0, 0, 0}));
    }

    /** SCP2 records of the sink before Paimon's write path: their checkpoint id is read, the rest left alone. */
    @Test
    void legacyStateNamesItsCheckpoint() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        out.writeInt(0x53435032);
        out.writeLong(42);
        out.writeInt(0); // no files
        assertEquals(42, SnapcommitCommitterOperator.legacyCheckpointId(b.toByteArray()));
        assertThrows(IOException.class, () -> SnapcommitCommitterOperator.legacyCheckpointId(new byte[12]));
    }
}
