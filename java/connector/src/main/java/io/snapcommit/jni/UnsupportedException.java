package io.snapcommit.jni;

/** SC_EUNSUPPORTED: the store cannot honour this operation or strategy (e.g. s3:// before the S3 backend exists). */
public class UnsupportedException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public UnsupportedException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}
