package io.snapcommit.paimon.fileio;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.Path;

/**
 * Scheme {@code snapcommit+s3}: a table at {@code snapcommit+s3://bucket/path} is read and written
 * by Paimon's S3 FileIO (paimon-s3, configured by the same s3.* options) and its snapshots are
 * claimed by a conditional PUT. Paimon allows one loader per scheme, so {@code s3} itself stays
 * Paimon's.
 */
public class SnapcommitS3Loader implements FileIOLoader {
    private static final long serialVersionUID = 1L;

    public static final String SCHEME = "snapcommit+s3";

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FileIO load(Path path) {
        return new SnapcommitFileIO(new SchemeMapping(SCHEME, "s3"), path);
    }
}
