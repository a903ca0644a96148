package io.snapcommit.paimon.fileio;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.Path;

/**
 * Scheme {@code snapcommit+file}: a table at {@code snapcommit+file:///dir} is read and written by
 * Paimon's LocalFileIO and its snapshots are claimed by a rename that never replaces (Paimon's own
 * local rename guards with a lock of one JVM only).
 */
public class SnapcommitLocalLoader implements FileIOLoader {
    private static final long serialVersionUID = 1L;

    public static final String SCHEME = "snapcommit+file";

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FileIO load(Path path) {
        return new SnapcommitFileIO(new SchemeMapping(SCHEME, "file"), path);
    }
}
