package io.snapcommit.paimon.fileio;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.UnknownOutcomeException;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.RemoteIterator;
import org.apache.paimon.fs.SeekableInputStream;

/**
 * A Paimon FileIO for {@code snapcommit+s3://} and {@code snapcommit+file://} paths: Paimon's own
 * FileIO of the underlying scheme (as {@link FileIO#get} picks it for {@code s3://} or
 * {@code file://}) does every read and write, except the one write Paimon uses to claim a name,
 * {@link #tryToWriteAtomic}. Paimon's filesystem committer (RenamingSnapshotCommit) claims
 * snapshot-N with {@code !exists(p) && tryToWriteAtomic(p, json)}, whose default is a temporary
 * file renamed over p: on S3 a copy that replaces whatever another committer put there meanwhile.
 * Here the claim is libsnapcommit's conditional create (If-None-Match on S3, a rename that never
 * replaces on a local disk): of two committers of snapshot-N exactly one gets true, and a
 * snapshot already there, whoever wrote it, is never replaced. Schema files (SchemaManager) are
 * claimed the same way.
 *
 * <p>Serializable as Paimon's FileIOs are: the underlying FileIO and the options travel. No
 * native store outlives a claim (NativeClaim), so nothing is leaked by the copies Paimon never
 * closes.
 */
public class SnapcommitFileIO implements FileIO {
    private static final long serialVersionUID = 1L;

    private final SchemeMapping schemes;
    private final Path root;
    private FileIO underlying;
    private Map<String, String> options;
    private transient StoreConfig s3Config; // from options, on first claim

    SnapcommitFileIO(SchemeMapping schemes, Path root) {
        this.schemes = schemes;
        this.root = root;
    }

    @Override
    public void configure(CatalogContext context) {
        this.options = context.options().toMap();
        try {
            this.underlying = FileIO.get(schemes.toUnderlying(root), context);
        } catch (IOException e) {
            throw new IllegalStateException("no Paimon FileIO for " + schemes.toUnderlying(root) + " (the path under "
                                            + root + "): " + e.getMessage(), e);
        }
    }

    private FileIO io() {
        if (underlying == null)
            throw new IllegalStateException(getClass().getSimpleName() + " for " + root + " is not configured");
        return underlying;
    }

    private synchronized StoreConfig s3Config() {
        if (s3Config == null) s3Config = NativeS3Settings.storeConfig(options);
        return s3Config;
    }

    private Path u(Path p) {
        return schemes.toUnderlying(p);
    }

    /**
     * Create {@code path} holding {@code content} only where nothing is; true when this call
     * created it. A lost answer is settled by reading the object back (NativeStore.putIfAbsent);
     * one that cannot be settled is an IOException. Paimon's committer retries after it, but
     * first looks for its own (user, identifier) in the snapshots added since, so a claim that
     * did land is found instead of committed again; a retry at the same id is itself a
     * conditional create and cannot replace the earlier request's snapshot.
     */
    @Override
    public boolean tryToWriteAtomic(Path path, String content) throws IOException {
        try {
            return NativeClaim.claim(u(path), content.getBytes(StandardCharsets.UTF_8), s3Config());
        } catch (UnknownOutcomeException e) {
            throw new IOException("the outcome of claiming " + path + " is unknown: " + e.getMessage(), e);
        } catch (SnapcommitException e) {
            throw new IOException("claiming " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isObjectStore() {
        return io().isObjectStore();
    }

    @Override
    public void setRuntimeContext(Map<String, String> runtimeOptions) {
        io().setRuntimeContext(runtimeOptions);
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        return io().newInputStream(u(path));
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        return io().newOutputStream(u(path), overwrite);
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        return new MappedFileStatus(io().getFileStatus(u(path)), schemes);
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        return MappedFileStatus.all(io().listStatus(u(path)), schemes);
    }

    @Override
    public FileStatus[] listFiles(Path path, boolean recursive) throws IOException {
        return MappedFileStatus.all(io().listFiles(u(path), recursive), schemes);
    }

    @Override
    public RemoteIterator<FileStatus> listFilesIterative(Path path, boolean recursive) throws IOException {
        RemoteIterator<FileStatus> it = io().listFilesIterative(u(path), recursive);
        return new RemoteIterator<FileStatus>() {
            @Override
            public boolean hasNext() throws IOException {
                return it.hasNext();
            }

            @Override
            public FileStatus next() throws IOException {
                return new MappedFileStatus(it.next(), schemes);
            }
        };
    }

    @Override
    public FileStatus[] listDirectories(Path path) throws IOException {
        return MappedFileStatus.all(io().listDirectories(u(path)), schemes);
    }

    @Override
    public boolean exists(Path path) throws IOException {
        return io().exists(u(path));
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        return io().delete(u(path), recursive);
    }

    @Override
    public boolean mkdirs(Path path) throws IOException {
        return io().mkdirs(u(path));
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        return io().rename(u(src), u(dst));
    }

    @Override
    public long getFileSize(Path path) throws IOException {
        return io().getFileSize(u(path));
    }

    @Override
    public boolean isDir(Path path) throws IOException {
        return io().isDir(u(path));
    }

    @Override
    public String readFileUtf8(Path path) throws IOException {
        return io().readFileUtf8(u(path));
    }

    @Override
    public Optional<String> readOverwrittenFileUtf8(Path path) throws IOException {
        return io().readOverwrittenFileUtf8(u(path));
    }

    @Override
    public void writeFile(Path path, String content, boolean overwrite) throws IOException {
        io().writeFile(u(path), content, overwrite);
    }

    @Override
    public void overwriteFileUtf8(Path path, String content) throws IOException {
        io().overwriteFileUtf8(u(path), content);
    }

    @Override
    public void overwriteHintFile(Path path, String content) throws IOException {
        io().overwriteHintFile(u(path), content);
    }

    @Override
    public void copyFile(Path sourcePath, Path targetPath, boolean overwrite) throws IOException {
        io().copyFile(u(sourcePath), u(targetPath), overwrite);
    }

    @Override
    public void close() throws IOException {
        if (underlying != null) underlying.close();
    }

    @Override
    public String toString() {
        return "SnapcommitFileIO{" + schemes.ours() + " over " + underlying + "}";
    }
}
