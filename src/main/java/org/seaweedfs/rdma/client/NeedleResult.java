package org.seaweedfs.rdma.client;

/**
 * One element of {@link NeedleClient#readMany}: the needle, or why this fid alone could not be read.
 *
 * @param fid     the file id as asked for
 * @param needle  the needle; null when the read failed
 * @param failure why it failed; null when it succeeded
 */
public record NeedleResult(String fid, Needle needle, NeedleException failure) {

    public NeedleResult {
        if ((needle == null) == (failure == null)) {
            throw new IllegalArgumentException("a result is a needle or a failure");
        }
    }

    public static NeedleResult of(Needle needle) {
        return new NeedleResult(needle.fid(), needle, null);
    }

    public static NeedleResult failed(String fid, NeedleException failure) {
        return new NeedleResult(fid, null, failure);
    }

    public boolean succeeded() {
        return needle != null;
    }

    /** The needle, or its failure thrown. */
    public Needle orThrow() {
        if (failure != null) {
            throw failure;
        }
        return needle;
    }
}
