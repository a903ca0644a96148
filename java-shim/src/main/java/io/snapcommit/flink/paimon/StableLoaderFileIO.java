package io.snapcommit.flink.paimon;

import java.io.IOException;
import java.util.Objects;

import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;

import io.snapcommit.jni.StoreConfig;

/**
 * A FileIO whose every call, streams included, runs with the connector's own class loader as the
 * thread's context class loader. paimon-s3 keeps one S3A file system per configuration for the
 * life of the JVM, and S3A's upload threads are started lazily by whichever thread first writes;
 * a thread inherits the context class loader of its creator, so without this the first job's
 * user-code class loader would be kept by threads that later jobs reuse — and Flink closes it when
 * that job ends ("Trying to access closed classloader"). Its create-only writes go through
 * libsnapcommit ({@link NativeCreate}).
 */
final class StableLoaderFileIO implements FileIO {
    private static final long serialVersionUID = 1L;

    private final FileIO inner;
    private final StoreConfig storage;

    /** @param storage the S3 settings create-only writes go through libsnapcommit with ({@link NativeCreate}) */
    StableLoaderFileIO(FileIO inner, StoreConfig storage) {
        this.inner = Objects.requireNonNull(inner);
        this.storage = storage;
    }

    private interface Call<T> {
        T run() throws IOException;
    }

    private static <T> T stable(Call<T> call) throws IOException {
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        t.setContextClassLoader(StableLoaderFileIO.class.getClassLoader());
        try {
            return call.run();
        } finally {
            t.setContextClassLoader(before);
        }
    }

    @Override
    public boolean isObjectStore() {
        return inner.isObjectStore();
    }

    @Override
    public void configure(CatalogContext context) {
        inner.configure(context);
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        SeekableInputStream in = stable(() -> inner.newInputStream(path));
        return new SeekableInputStream() {
            @Override
            public void seek(long pos) throws IOException {
                stable(() -> { in.seek(pos); return null; });
            }

            @Override
            public long getPos() throws IOException {
                return in.getPos();
            }

            @Override
            public int read() throws IOException {
                return stable(in::read);
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return stable(() -> in.read(b, off, len));
            }

            @Override
            public void close() throws IOException {
                stable(() -> { in.close(); return null; });
            }
        };
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        PositionOutputStream out = stable(() -> inner.newOutputStream(path, overwrite));
        return new PositionOutputStream() {
            @Override
            public long getPos() throws IOException {
                return out.getPos();
            }

            @Override
            public void write(int b) throws IOException {
                stable(() -> { out.write(b); return null; });
            }

            @Override
            public void write(byte[] b) throws IOException {
                stable(() -> { out.write(b); return null; });
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                stable(() -> { out.write(b, off, len); return null; });
            }

            @Override
            public void flush() throws IOException {
                stable(() -> { out.flush(); return null; });
            }

            @Override
            public void close() throws IOException {
                stable(() -> { out.close(); return null; });
            }
        };
    }

    /** A conditional create, never S3A's check-then-copy rename (a schema or snapshot claim of Paimon's). */
    @Override
    public boolean tryToWriteAtomic(Path path, String content) throws IOException {
        return stable(() -> NativeCreate.tryToWriteAtomic(path, content, storage));
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        return stable(() -> inner.getFileStatus(path));
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        return stable(() -> inner.listStatus(path));
    }

    @Override
    public boolean exists(Path path) throws IOException {
        return stable(() -> inner.exists(path));
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        return stable(() -> inner.delete(path, recursive));
    }

    @Override
    public boolean mkdirs(Path path) throws IOException {
        return stable(() -> inner.mkdirs(path));
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        return stable(() -> inner.rename(src, dst));
    }

    @Override
    public void close() throws IOException {
        stable(() -> { inner.close(); return null; });
    }
}
