package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.io.UncheckedIOException;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.snapcommit.jni.FileEntry;

class CommittablesTest {
    /** Every field of the entry set, binary partition with NULs, absent and present optionals mixed. */
    static DataFile full(String name) {
        FileEntry e = FileEntry.builder(name)
            .partition(new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0})
            .bucket(3).totalBuckets(4).level(0).rows(10).size(1234)
            .keys(new byte[] {0, 0, 0, 0}, new byte[] {0, 0, 0, 0})
            .keyStats(new byte[] {1}, new byte[] {2}, new long[0])
            .valueStats(new byte[] {3, 4}, new byte[] {5, 6}, new long[] {0, -1, 7})
            .sequenceNumbers(5, 14).schemaId(2).extraFiles(List.of("x.index"))
            .creationTimeMillis(1796089918722L).deleteRowCount(0).fileSource(FileEntry.FILE_SOURCE_APPEND)
            .valueStatsCols(List.of("a", "\u00e4")).externalPath("s3://b/p").firstRowId(8).build();
        return new DataFile("h=5/bucket-3/" + name, e);
    }

    @Test
    void messageRoundTrip() {
        List<DataFile> files = List.of(full("data-a-0.parquet"),
                                       new DataFile("bucket-0/b.parquet",
                                                    FileEntry.appendFile(new byte[0], 0, -1, "b.parquet", 1, 7)));
        Committables.Message m = Committables.decodeMessage(
            Committables.encode(new Committables.Message(42, 1, files)));
        assertEquals(42, m.writerCheckpointId);
        assertEquals(1, m.subtask);
        assertEquals(files, m.files);
        assertEquals(files.get(0).entry, m.files.get(0).entry, "every field of the entry survives");
    }

    @Test
    void pendingRoundTripAndCorruption() {
        List<DataFile> files = List.of(full("data-x-0.orc"));
        byte[] raw = Committables.encode(new Committables.Pending(9, files));
        Committables.Pending p = Committables.decodePending(raw);
        assertEquals(9, p.checkpointId);
        assertEquals(files, p.files);
        assertEquals(10, p.rows());
        assertThrows(UncheckedIOException.class, () -> Committables.decodeMessage(raw));
        byte[] truncated = java.util.Arrays.copyOf(raw, raw.length - 1);
        assertThrows(UncheckedIOException.class, () -> Committables.decodePending(truncated));
    }
}
