package io.snapcommit.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;

/**
 * One Paimon committer of the race of tests/paimon/race_paimon_fileio.sh, and the race's judge. Only
 * Apache Paimon 1.4.2's Java API is used: the FileIO is whatever Paimon's discovery gives the table
 * path's scheme (s3 / file: Paimon's own; snapcommit+s3 / snapcommit+file: the snapcommit FileIO
 * jar, when on the class path), and the committer is Paimon's filesystem one (RenamingSnapshotCommit,
 * no lock), as a filesystem catalog without a lock uses.
 *
 * <pre>
 * commit TABLE USER K ROWS LOG   K commits, identifiers 1..K, each of ROWS rows (USER, i, 0..ROWS-1)
 * check TABLE ROWS LOG...        judge the table against every committer's LOG
 * </pre>
 * The table (columns u STRING, i BIGINT, s BIGINT, bucket-unaware append) exists already. S3
 * settings come from AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION.
 *
 * <p>LOG lines: {@code CLAIM <snapshot-id> <user> <identifier> <sha256>} each time this JVM's
 * FileIO said it created snapshot-N (what its writer believes it committed; "-" for no hash), and
 * {@code REFUSED snapshot-N} when it was told another committer had it (Paimon then retries at
 * the next id: the race was real), and {@code COMMITTED <user> <identifier>} when Paimon's commit
 * returned.
 */
public final class PaimonCommitRace {
    private PaimonCommitRace() {}

    public static void main(String[] args) throws Exception {
        if (args.length >= 6 && args[0].equals("commit")) {
            commit(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), args[5]);
        } else if (args.length >= 4 && args[0].equals("check")) {
            List<String> logs = new ArrayList<>();
            for (int k = 3; k < args.length; k++) logs.add(args[k]);
            System.exit(check(args[1], Integer.parseInt(args[2]), logs) ? 0 : 1);
        } else {
            System.err.println("usage: PaimonCommitRace commit TABLE USER K ROWS LOG | check TABLE ROWS LOG...");
            System.exit(2);
        }
    }

    static Map<String, String> s3Options() {
        Map<String, String> o = new HashMap<>();
        Map<String, String> env = System.getenv();
        if (env.get("AWS_ENDPOINT_URL_S3") != null) {
            o.put("s3.endpoint", env.get("AWS_ENDPOINT_URL_S3"));
            o.put("s3.path.style.access", "true");
            if (env.get("AWS_ENDPOINT_URL_S3").startsWith("http://")) o.put("s3.connection.ssl.enabled", "false");
        }
        if (env.get("AWS_ACCESS_KEY_ID") != null) o.put("s3.access-key", env.get("AWS_ACCESS_KEY_ID"));
        if (env.get("AWS_SECRET_ACCESS_KEY") != null) o.put("s3.secret-key", env.get("AWS_SECRET_ACCESS_KEY"));
        o.put("s3.endpoint.region", env.getOrDefault("AWS_REGION", "us-east-1"));
        return o;
    }

    /** The FileIO Paimon's discovery picks for the table's scheme, configured with the S3 settings. */
    static FileIO fileIO(String table) throws IOException {
        return FileIO.get(new Path(table), CatalogContext.create(Options.fromMap(s3Options())));
    }

    private static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The FileIO with every call passed on, and each successful tryToWriteAtomic of a snapshot
     * logged: the snapshot's writer's own record of what it claimed, before anyone can replace it.
     */
    static FileIO recording(FileIO io, PrintWriter log) {
        return (FileIO) Proxy.newProxyInstance(FileIO.class.getClassLoader(), new Class<?>[] {FileIO.class},
                                               (proxy, m, a) -> {
            Object r;
            try {
                r = m.invoke(io, a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (m.getName().equals("tryToWriteAtomic") && Boolean.FALSE.equals(r)
                && ((Path) a[0]).getName().startsWith("snapshot-")) {
                synchronized (log) { // lost to another committer: Paimon retries at the next id
                    log.printf("REFUSED %s%n", ((Path) a[0]).getName());
                    log.flush();
                }
            }
            if (m.getName().equals("tryToWriteAtomic") && Boolean.TRUE.equals(r)
                && ((Path) a[0]).getName().startsWith("snapshot-")) {
                String json = (String) a[1];
                Snapshot s = Snapshot.fromJson(json);
                synchronized (log) {
                    log.printf("CLAIM %d %s %d %s%n", s.id(), s.commitUser(), s.commitIdentifier(),
                               sha256(json.getBytes(StandardCharsets.UTF_8)));
                    log.flush();
                }
            }
            return r;
        });
    }

    static void commit(String tablePath, String user, int k, int rows, String logFile) throws Exception {
        try (PrintWriter log = new PrintWriter(Files.newBufferedWriter(Paths.get(logFile), StandardCharsets.UTF_8))) {
            FileStoreTable table = FileStoreTableFactory.create(recording(fileIO(tablePath), log), new Path(tablePath));
            Map<String, String> dynamic = new HashMap<>();
            dynamic.put(CoreOptions.WRITE_ONLY.key(), "true"); // appends only: no compaction commits
            dynamic.put(CoreOptions.COMMIT_MAX_RETRIES.key(), "1000"); // a loser retries at the next id
            table = table.copy(dynamic);
            StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser(user);
            try (StreamTableWrite write = builder.newWrite(); StreamTableCommit commit = builder.newCommit()) {
                for (long i = 1; i <= k; i++) {
                    for (long s = 0; s < rows; s++) write.write(GenericRow.of(BinaryString.fromString(user), i, s));
                    List<CommitMessage> messages = write.prepareCommit(false, i);
                    commit.commit(i, messages);
                    synchronized (log) {
                        log.printf("COMMITTED %s %d%n", user, i);
                        log.flush();
                    }
                }
            }
        }
    }

    private record Landed(String user, long identifier, String sha) {}

    static boolean check(String tablePath, int rows, List<String> logs) throws Exception {
        FileIO io = fileIO(tablePath);
        Path snapshotDir = new Path(tablePath + "/snapshot");
        Map<Long, Landed> chain = new TreeMap<>();
        for (FileStatus f : io.listStatus(snapshotDir)) {
            String name = f.getPath().getName();
            if (!name.startsWith("snapshot-")) continue;
            byte[] bytes;
            try (var in = io.newInputStream(new Path(snapshotDir, name))) {
                bytes = in.readAllBytes();
            }
            Snapshot s = Snapshot.fromJson(new String(bytes, StandardCharsets.UTF_8));
            chain.put(s.id(), new Landed(s.commitUser(), s.commitIdentifier(), sha256(bytes)));
        }
        int claims = 0, refused = 0, overwritten = 0;
        Map<String, Integer> committed = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (String logFile : logs) {
            for (String line : Files.readAllLines(Paths.get(logFile), StandardCharsets.UTF_8)) {
                String[] f = line.trim().split(" ");
                if (f[0].equals("CLAIM")) {
                    claims++;
                    long id = Long.parseLong(f[1]);
                    Landed l = chain.get(id);
                    boolean same = l != null && l.user.equals(f[2]) && l.identifier == Long.parseLong(f[3])
                                   && (f[4].equals("-") || l.sha.equals(f[4]));
                    if (!same) {
                        overwritten++;
                        problems.add("snapshot-" + id + " claimed by " + f[2] + "/" + f[3] + " now holds "
                                     + (l == null ? "nothing" : l.user + "/" + l.identifier));
                    }
                } else if (f[0].equals("REFUSED")) {
                    refused++;
                } else if (f[0].equals("COMMITTED")) {
                    committed.merge(f[1] + "/" + f[2], 1, Integer::sum);
                }
            }
        }
        Map<String, Integer> inChain = new TreeMap<>();
        for (Landed l : chain.values()) inChain.merge(l.user + "/" + l.identifier, 1, Integer::sum);
        int chainMissing = 0, chainDup = 0, chainExtra = 0;
        for (String c : committed.keySet()) {
            int n = inChain.getOrDefault(c, 0);
            if (n == 0) chainMissing++;
            if (n > 1) chainDup++;
            if (n != 1) problems.add(c + " is in the snapshot chain " + n + " times");
        }
        for (String c : inChain.keySet())
            if (!committed.containsKey(c)) {
                chainExtra++;
                problems.add(c + " is in the chain but its committer did not report it committed");
            }

        // Every row of every committed (user, identifier) exactly once, read by Paimon's reader.
        FileStoreTable table = FileStoreTableFactory.create(io, new Path(tablePath));
        ReadBuilder rb = table.newReadBuilder();
        Map<String, Integer> seen = new HashMap<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(r -> seen.merge(r.getString(0) + "/" + r.getLong(1) + "/" + r.getLong(2), 1,
                                                    Integer::sum));
        }
        long rowsMissing = 0, rowsDup = 0;
        for (String c : committed.keySet())
            for (int s = 0; s < rows; s++) {
                int n = seen.getOrDefault(c + "/" + s, 0);
                if (n == 0) rowsMissing++;
                if (n > 1) rowsDup += n - 1;
            }
        boolean ok = overwritten == 0 && chainMissing == 0 && chainDup == 0 && chainExtra == 0 && rowsMissing == 0
                     && rowsDup == 0;
        System.out.printf("race %s: commits=%d snapshots=%d claims=%d refused=%d overwritten=%d chain_missing=%d chain_dup=%d "
                          + "chain_extra=%d rows_read=%d rows_missing=%d rows_dup=%d%n", tablePath, committed.size(),
                          chain.size(), claims, refused, overwritten, chainMissing, chainDup, chainExtra,
                          seen.values().stream().mapToInt(Integer::intValue).sum(), rowsMissing, rowsDup);
        for (String p : problems.subList(0, Math.min(10, problems.size()))) System.out.println("  " + p);
        return ok;
    }
}
