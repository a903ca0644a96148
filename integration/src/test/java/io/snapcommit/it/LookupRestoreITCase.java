package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.TableContents;

/**
 * A restored writer of a table that needs lookup compacts the buckets it had (Paimon's
 * LookupSinkWrite): with lookup-wait off a checkpoint commits level-0 files before their
 * compaction, and after a restore the bucket may get no new row; the restored writer still
 * produces their changelog (changelog-producer lookup) and deletion vectors (level-0 files are
 * invisible to a deletion-vector table's read until compacted). Judged by Paimon 1.4.2's reader.
 *
 * <p>Job 1 must commit its level-0 files uncompacted. With the default (radical) lookup compaction
 * its writers submit that compaction at the savepoint's flush and only do not wait for it, a race
 * a loaded machine can lose. {@link #GENTLE} removes it: Paimon's ForceUpLevel0Compaction then
 * forces level 0 up only at every second compaction trigger of a bucket's writer (its interval is
 * at least num-sorted-run.compaction-trigger, so that is 2 too; one sorted run never reaches it),
 * and job 1 has one trigger (the savepoint's flush) while job 2 has two (the restore's compaction
 * and the end of input's flush, which then waits for it).
 */
class LookupRestoreITCase extends PrimaryKeyITBase {
    static final Map<String, String> GENTLE = Map.of("lookup-compact", "gentle", "lookup-compact.max-interval", "2",
                                                      "num-sorted-run.compaction-trigger", "2");

    static Map<String, String> gentle(Map<String, String> options) {
        Map<String, String> m = new java.util.HashMap<>(options);
        m.putAll(GENTLE);
        return m;
    }

    @Test
    void lookupChangelogOfFilesCommittedBeforeARestore(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String table = restoreWithoutNewRows(cluster, "lkr", gentle(Map.of("changelog-producer", "lookup", "lookup-wait", "false")),
            t -> assertFalse(anyChangelog(t), "job 1's savepoint waited for the lookup compaction"));
        List<String> rows = batch(table);
        assertEquals(ids(TableContents.liveRows(table)), ids(rows), "Paimon's batch read: every row of the live files");
        assertEquals(rows, streamFolded(table), "Paimon's streaming read (lookup changelog) folded by row kind");
        summary("pk lookup restore (lookup-wait off): job 2 (no rows) compacted the restored buckets; the lookup "
                + "changelog of job 1's " + rows.size() + " rows folds to the batch read");
    }

    @Test
    void deletionVectorTableShowsFilesCommittedBeforeARestore(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String table = restoreWithoutNewRows(cluster, "dvr",
            gentle(Map.of("deletion-vectors.enabled", "true", "lookup-wait", "false")),
            t -> assertEquals(List.of(), batch(t), "job 1's level-0 files were compacted before its savepoint"));
        List<Long> live = ids(TableContents.liveRows(table));
        assertFalse(live.isEmpty(), "live files");
        assertEquals(live, ids(batch(table)), "Paimon's batch read of the deletion-vector table");
        summary("pk deletion-vectors restore (lookup-wait off): job 2 (no rows) compacted the restored buckets; "
                + "Paimon's batch read shows all " + live.size() + " rows of job 1");
    }
}
