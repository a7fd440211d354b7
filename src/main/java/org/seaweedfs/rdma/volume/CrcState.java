package org.seaweedfs.rdma.volume;

import java.util.Locale;

/** The verdict on a needle's stored checksum. */
public enum CrcState {
    /** Stored value is the CRC-32C of the data (SeaweedFS 3.09 and later). */
    RAW,
    /** Stored value is the transformed form older writers used. */
    LEGACY,
    /** Neither form matches: the data or the checksum is corrupt. */
    BAD,
    /** Size 0: nothing stored, nothing verified. */
    EMPTY;

    /** True when the data may be served. */
    public boolean isGood() {
        return this != BAD;
    }

    /** Lowercase name, as {@code inspect} prints it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
