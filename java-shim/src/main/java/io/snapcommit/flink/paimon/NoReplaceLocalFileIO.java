package io.snapcommit.flink.paimon;

import java.io.IOException;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;

/** Paimon's LocalFileIO whose create-only writes cannot replace a file another process created ({@link NativeCreate}). */
final class NoReplaceLocalFileIO extends LocalFileIO {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean tryToWriteAtomic(Path path, String content) throws IOException {
        return NativeCreate.tryToWriteAtomic(path, content, null);
    }
}
