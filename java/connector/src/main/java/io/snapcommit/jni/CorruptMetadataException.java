package io.snapcommit.jni;

/** SC_ECORRUPT: table metadata is damaged or truncated; the message names the object. */
public class CorruptMetadataException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public CorruptMetadataException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}
