package org.seaweedfs.rdma.volume;

import java.util.concurrent.TimeUnit;

/**
 * A SeaweedFS time-to-live, stored as two bytes (count, unit). Units: 1 minute, 2 hour, 3 day, 4 week,
 * 5 month (30 days), 6 year (365 days). Count 0 or an unknown unit means "never expires", as in SeaweedFS.
 */
public record Ttl(int count, int unit) {

    public static final Ttl NONE = new Ttl(0, 0);
    public static final int MINUTE = 1, HOUR = 2, DAY = 3, WEEK = 4, MONTH = 5, YEAR = 6;

    private static final long[] UNIT_MINUTES = {0, 1, 60, 24 * 60, 7 * 24 * 60, 30 * 24 * 60, 365 * 24 * 60};

    public Ttl {
        if (count < 0 || count > 255 || unit < 0 || unit > 255) {
            throw new IllegalArgumentException("ttl count and unit must be bytes (0..255): " + count + ", " + unit);
        }
    }

    public static Ttl of(int count, int unit) {
        if (unit < 1 || unit >= UNIT_MINUTES.length) {
            throw new IllegalArgumentException("ttl unit " + unit + " is not one of 1 (minute) .. 6 (year)");
        }
        return new Ttl(count, unit);
    }

    /** Decodes the two stored bytes (unsigned). */
    public static Ttl decode(byte count, byte unit) {
        return count == 0 && unit == 0 ? NONE : new Ttl(count & 0xFF, unit & 0xFF);
    }

    public long minutes() {
        return unit < UNIT_MINUTES.length ? count * UNIT_MINUTES[unit] : 0;
    }

    public boolean expires() {
        return minutes() != 0;
    }

    /**
     * True when a needle written at {@code writtenAtNs} (unix nanoseconds) has expired at {@code nowMillis}.
     * SeaweedFS hides it once {@code now >= written + ttl}.
     */
    public boolean expiredAt(long writtenAtNs, long nowMillis) {
        if (!expires()) {
            return false;
        }
        long writtenMillis = TimeUnit.NANOSECONDS.toMillis(writtenAtNs);
        return nowMillis >= writtenMillis + TimeUnit.MINUTES.toMillis(minutes());
    }

    @Override
    public String toString() {
        return count + "," + unit;
    }
}
