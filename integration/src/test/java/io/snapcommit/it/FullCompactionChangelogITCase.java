package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.paimon.Snapshot;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.PaimonReader;

/**
 * changelog-producer full-compaction: the writers' global full compaction (Paimon's
 * GlobalFullCompactionSinkWrite) every full-compaction.delta-commits checkpoints and at the end of
 * input, whose changelog Paimon's streaming read returns; judged by Paimon 1.4.2's reader.
 */
class FullCompactionChangelogITCase extends PrimaryKeyITBase {

    @Test
    void fullCompactionChangelogFoldsToTheTableState() throws Exception {
        String path = aggregateWithFailover("fc", "'changelog-producer' = 'full-compaction', "
                                                  + "'full-compaction.delta-commits' = '2'");
        assertEquals(model(), streamFolded(path), "Paimon's streaming read (full-compaction changelog) folded by row kind");
        List<Snapshot> withChangelog = new ArrayList<>();
        try (PaimonReader r = PaimonReader.open(path, Map.of())) {
            for (Snapshot s : r.snapshots()) if (s.changelogManifestList() != null) withChangelog.add(s);
        }
        assertTrue(withChangelog.size() >= 2, "full compactions with changelog: " + withChangelog);
        // The full compactions run at checkpoints 2, 4, ... and at the end of input (the last one).
        for (Snapshot s : withChangelog.subList(0, withChangelog.size() - 1)) {
            assertEquals(Snapshot.CommitKind.COMPACT, s.commitKind(), "changelog only from compaction: " + s);
            assertEquals(0, s.commitIdentifier() % 2, "a full compaction off the delta-commits checkpoints: " + s);
        }
        summary("pk full-compaction changelog (delta-commits 2, map fails once): " + withChangelog.size()
                + " full compactions with changelog; streaming read folded by row kind equals the batch read and "
                + "the model");
    }

    /**
     * The buckets a writer wrote since the last full compaction are in its state: job 2, restored
     * from job 1's savepoint (checkpoint 1, no full compaction: delta-commits 1000), gets no row,
     * yet its end of input fully compacts the buckets job 1 wrote, and their changelog appears.
     */
    @Test
    void bucketsWrittenBeforeARestoreAreFullyCompacted(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String table = restoreWithoutNewRows(cluster, "fcr", Map.of("changelog-producer", "full-compaction",
                                                                     "full-compaction.delta-commits", "1000"),
            t -> assertFalse(anyChangelog(t), "job 1 committed changelog: its savepoint ran a full compaction"));
        List<String> rows = batch(table);
        assertFalse(rows.isEmpty(), "Paimon's batch read");
        assertEquals(rows, streamFolded(table), "Paimon's streaming read (full-compaction changelog) folded by row kind");
        summary("pk full-compaction restore: job 2 (no rows) fully compacted the " + rows.size()
                + " rows job 1 wrote before its savepoint; streaming read folded equals the batch read");
    }
}
