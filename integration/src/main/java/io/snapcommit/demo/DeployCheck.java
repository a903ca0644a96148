package io.snapcommit.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;

/**
 * The write tests/java_deploy_lib.sh runs on a class path made of Flink and the jars docs/flink.md
 * lists for lib/, nothing else: a bounded SQL INSERT into a new ORC table ('file.format' = 'orc',
 * the format whose writer loads the most of Hadoop), then the snapshot must hold the rows and the
 * data file must be ORC. Exit code 0 and a line "deploy-check: ok ..." when it does; any missing
 * class fails the INSERT (its message names the class).
 *
 * <pre>DeployCheck TABLE_DIR</pre>
 */
public final class DeployCheck {
    private DeployCheck() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) throw new IllegalArgumentException("usage: DeployCheck TABLE_DIR");
        String table = args[0];
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.executeSql("CREATE TABLE c (id INT, name STRING, dt STRING) PARTITIONED BY (dt) WITH ("
                     + "'connector' = 'snapcommit', 'path' = '" + table + "', 'file.format' = 'orc')");
        t.executeSql("INSERT INTO c VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2')").await();

        long rows;
        try (NativeTable nt = NativeTable.openTable(table)) {
            SnapshotInfo s = nt.snapshot(nt.latestSnapshotId());
            rows = s.totalRecordCount();
        }
        List<Path> data;
        try (Stream<Path> files = Files.walk(Paths.get(table))) {
            data = files.filter(p -> p.getFileName().toString().startsWith("data-")).collect(Collectors.toList());
        }
        // two partitions: at least one file each, every one ORC
        if (rows != 3 || data.size() < 2)
            throw new IllegalStateException("deploy-check: expected 3 rows in ORC files of 2 partitions, got " + rows
                                            + " rows, files " + data);
        for (Path p : data) checkOrc(p);
        System.out.println("deploy-check: ok, 3 rows in " + data.size() + " ORC files committed to " + table);
    }

    /** An ORC data file: named .orc and starting with "ORC". */
    private static void checkOrc(Path p) throws IOException {
        if (!p.getFileName().toString().endsWith(".orc"))
            throw new IllegalStateException("deploy-check: " + p + " is not an ORC file");
        byte[] head = new byte[3];
        try (java.io.InputStream in = Files.newInputStream(p)) {
            if (in.read(head) != 3 || head[0] != 'O' || head[1] != 'R' || head[2] != 'C')
                throw new IllegalStateException("deploy-check: " + p + " is not an ORC file");
        }
    }
}
