package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.io.UncheckedIOException;
import java.util.List;

import org.junit.jupiter.api.Test;

class CommittablesTest {
    @Test
    void messageRoundTrip() {
        List<DataFile> files = List.of(new DataFile("data/bucket-0/a.json", "", 0, 0, 10, 100),
                                       new DataFile("data/dt=1/bucket-3/b.json", "dt=1", 3, 4, 1, 7));
        Committables.Message m = Committables.decodeMessage(
            Committables.encode(new Committables.Message(42, 1, files)));
        assertEquals(42, m.writerCheckpointId);
        assertEquals(1, m.subtask);
        assertEquals(files, m.files);
    }

    @Test
    void pendingRoundTripAndCorruption() {
        List<DataFile> files = List.of(new DataFile("data/x", "p=\u00e4", 0, 0, 3, 30));
        byte[] raw = Committables.encode(new Committables.Pending(9, files));
        Committables.Pending p = Committables.decodePending(raw);
        assertEquals(9, p.checkpointId);
        assertEquals(files, p.files);
        assertEquals(3, p.rows());
        assertThrows(UncheckedIOException.class, () -> Committables.decodeMessage(raw));
        byte[] truncated = java.util.Arrays.copyOf(raw, raw.length - 1);
        assertThrows(UncheckedIOException.class, () -> Committables.decodePending(truncated));
    }

    @Test
    void partitionValuesAreEscaped() {
        assertEquals("2024-01-01", PartitionPath.escape("2024-01-01"));
        assertEquals("a%2Fb%3D..", PartitionPath.escape("a/b=.."));
        assertEquals("%2E%2E", PartitionPath.escape(".."));
        assertEquals(PartitionPath.DEFAULT_PARTITION, PartitionPath.escape(null));
        assertEquals("%C3%BC", PartitionPath.escape("\u00fc"));
    }
}
