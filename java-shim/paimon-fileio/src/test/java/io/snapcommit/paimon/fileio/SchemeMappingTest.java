package io.snapcommit.paimon.fileio;

import static org.junit.jupiter.api.Assertions.*;

import org.apache.paimon.fs.Path;
import org.junit.jupiter.api.Test;

/** Our scheme to the underlying one and back: only the scheme changes. */
class SchemeMappingTest {
    private final SchemeMapping s3 = new SchemeMapping(SnapcommitS3Loader.SCHEME, "s3");

    @Test
    void pathsUnderABucketKeepBucketAndKey() {
        assertEquals(new Path("s3://b/wh/db.db/t/snapshot/snapshot-1"),
                     s3.toUnderlying(new Path("snapcommit+s3://b/wh/db.db/t/snapshot/snapshot-1")));
        assertEquals(new Path("snapcommit+s3://b/wh/a b"), s3.toOurs(new Path("s3://b/wh/a b")));
        assertEquals(new Path("file:/x"), s3.toUnderlying(new Path("file:/x")), "another scheme passes unchanged");
    }

    /** A warehouse at the bucket's root has no path at all: 'snapcommit+s3://bucket'. */
    @Test
    void theBucketsRootMapsBothWays() {
        assertEquals(new Path("s3://b/"), s3.toUnderlying(new Path("snapcommit+s3://b")));
        assertEquals(new Path("snapcommit+s3://b/"), s3.toOurs(new Path("s3://b")));
        assertEquals(new Path("s3://b/db.db"), s3.toUnderlying(new Path(new Path("snapcommit+s3://b"), "db.db")));
    }
}
