package io.snapcommit.demo;

import java.nio.charset.StandardCharsets;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;
import io.snapcommit.jni.StoreConfig;

/** Reads a snapcommit table back: the snapshot log and the rows of the live files. */
public final class TableContents {
    private TableContents() {}

    /** Every retained snapshot, oldest first. */
    public static List<SnapshotInfo> log(String location) {
        return log(location, null);
    }

    /** As {@link #log(String)}, reading with the store's own settings (null = environment). */
    public static List<SnapshotInfo> log(String location, StoreConfig storage) {
        List<SnapshotInfo> out = new ArrayList<>();
        try (NativeTable t = NativeTable.openTable(location, storage)) {
            long latest = t.latestSnapshotId();
            for (long id = Math.max(1, t.earliestSnapshotId()); id <= latest; id++) out.add(t.snapshot(id));
        }
        return out;
    }

    /** The lines (rows) of every live file of the latest snapshot. */
    public static List<String> liveRows(String location) {
        return liveRows(location, null);
    }

    public static List<String> liveRows(String location, StoreConfig storage) {
        List<String> rows = new ArrayList<>();
        try (NativeTable t = NativeTable.openTable(location, storage);
             NativeStore s = NativeStore.openStore(location, storage)) {
            for (FileEntry f : t.liveFiles(0)) {
                String text = new String(s.getObject(f.file()), StandardCharsets.UTF_8);
                int n = 0;
                for (String line : text.split("\n")) {
                    if (line.isEmpty()) continue;
                    rows.add(line);
                    n++;
                }
                if (n != f.rows()) {
                    throw new IllegalStateException(f.file() + " holds " + n + " rows, the manifest says " + f.rows());
                }
            }
        }
        return rows;
    }

    public static List<FileEntry> liveFiles(String location) {
        return liveFiles(location, null);
    }

    public static List<FileEntry> liveFiles(String location, StoreConfig storage) {
        try (NativeTable t = NativeTable.openTable(location, storage)) {
            return t.liveFiles(0);
        }
    }

    /** The log as a table, like `snapcommit log`. */
    public static String formatLog(List<SnapshotInfo> log) {
        StringBuilder sb = new StringBuilder();
        SimpleDateFormat time = new SimpleDateFormat("HH:mm:ss.SSS");
        sb.append(String.format("%-9s %-10s %-8s %-44s %9s %9s %6s %s%n", "snapshot", "checkpoint", "kind",
                                "commit user", "+rows", "rows", "files", "time"));
        for (SnapshotInfo s : log) {
            sb.append(String.format("%-9d %-10d %-8s %-44s %9d %9d %6d %s%n", s.id(), s.commitIdentifier(),
                                    s.commitKind(), s.commitUser(), s.deltaRecordCount(), s.totalRecordCount(),
                                    s.fileCount(), time.format(new Date(s.timeMillis()))));
        }
        return sb.toString();
    }
}
