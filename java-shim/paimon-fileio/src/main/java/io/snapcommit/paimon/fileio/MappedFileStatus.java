package io.snapcommit.paimon.fileio;

import org.apache.paimon.fs.FileStatus;

/** A FileStatus of the underlying FileIO whose path is given back in our scheme. */
final class MappedFileStatus implements FileStatus {
    private final FileStatus status;
    private final SchemeMapping schemes;

    MappedFileStatus(FileStatus status, SchemeMapping schemes) {
        this.status = status;
        this.schemes = schemes;
    }

    static FileStatus[] all(FileStatus[] statuses, SchemeMapping schemes) {
        if (statuses == null) return null;
        FileStatus[] out = new FileStatus[statuses.length];
        for (int i = 0; i < statuses.length; i++) out[i] = new MappedFileStatus(statuses[i], schemes);
        return out;
    }

    @Override
    public long getLen() {
        return status.getLen();
    }

    @Override
    public boolean isDir() {
        return status.isDir();
    }

    @Override
    public org.apache.paimon.fs.Path getPath() {
        return schemes.toOurs(status.getPath());
    }

    @Override
    public long getModificationTime() {
        return status.getModificationTime();
    }

    @Override
    public long getAccessTime() {
        return status.getAccessTime();
    }

    @Override
    public String getOwner() {
        return status.getOwner();
    }

    @Override
    public String toString() {
        return "MappedFileStatus{" + getPath() + ", " + status + "}";
    }
}
