package io.snapcommit.jni;

/** SC_ETABLEEXISTS: a table already exists at this location. */
public class TableExistsException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public TableExistsException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}
