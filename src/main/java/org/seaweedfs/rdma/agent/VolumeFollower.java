package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.ucx.SigbusGuard;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.protocol.SyncEntryWriter;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleIndex;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.VolumeDirectory;
import org.seaweedfs.rdma.volume.VolumeFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Follows the volume server's files, one pass per poll, on the agent's context: new volumes are opened, grown
 * {@code .dat} files served further (mapped or copied), new {@code .idx} entries applied (growth is served first, so
 * entries are applied only once their records are readable remotely), replaced files (compaction) reopened under a
 * new epoch, vanished volumes dropped. Every change is reported to {@link Events}. Passes must not overlap.
 */
final class VolumeFollower {

    /** What a pass found; called on the agent's context, in order. */
    interface Events {
        /** Whether any sidecar mirrors this volume epoch, so new entries should be collected for a push. */
        boolean wantsEntries(ServedVolume volume);

        void added(ServedVolume volume);

        /** New segments are registered. */
        void grown(ServedVolume volume);

        /** Entries [from, volume.appliedPosition()) were applied; {@code packed} holds them when collected. */
        void applied(ServedVolume volume, long from, byte[] packed);

        void replaced(ServedVolume old, ServedVolume now);

        void removed(ServedVolume volume);

        /** The volume's exposed index was withdrawn for a new one (same epoch). */
        default void indexReplaced(ServedVolume volume) {
        }
    }

    private static final Logger log = LoggerFactory.getLogger(VolumeFollower.class);
    /** Passes to wait for the second file of a compaction to be renamed in before reopening with one changed. */
    private static final int REPLACE_WAIT_POLLS = 4;
    /** Passes an index entry may wait for its record before the operator is told. */
    private static final int STALL_WARN_PASSES = 40;

    private final AgentSettings settings;
    private final IndexFormat format;
    private final SegmentMemory memory;
    private final RetiredMappings retired;
    private final AgentMetrics metrics;
    private final Events events;
    private final Map<Long, ServedVolume> volumes = new TreeMap<>();
    private final Map<Long, Integer> replaceWaits = new HashMap<>();
    /**
     * Volumes whose mapped pages the SIGBUS guard replaced, until a reopen succeeds: the guard's flag is taken once,
     * and a reopen that fails (the .dat being rewritten at that moment) must be tried again on the next pass rather
     * than leave zero pages served for good.
     */
    private final Set<Long> lostPagesToReopen = new HashSet<>();
    private final Set<String> reported = new HashSet<>();
    private long lastEpoch;
    private boolean closed;

    VolumeFollower(AgentSettings settings, SegmentMemory memory, RetiredMappings retired, AgentMetrics metrics,
                   Events events) {
        this.settings = settings;
        this.format = IndexFormat.of(settings.offset5());
        this.memory = memory;
        this.retired = retired;
        this.metrics = metrics;
        this.events = events;
    }

    ServedVolume volume(long volumeId) {
        return volumes.get(volumeId);
    }

    Collection<ServedVolume> volumes() {
        return volumes.values();
    }

    /** One pass over every volume directory. Failures of one volume are logged (once per message) and skipped. */
    Future<Void> poll(boolean startUp) {
        Set<Path> unreadable = new HashSet<>();
        Map<Long, VolumeFiles> found = scan(unreadable);
        for (ServedVolume volume : new ArrayList<>(volumes.values())) {
            VolumeFiles now = found.get(volume.volumeId());
            boolean dirUnreadable = unreadable.contains(volume.files().dat().getParent());
            if (!dirUnreadable && (now == null || !now.dat().equals(volume.files().dat()))) {
                remove(volume);
            }
        }
        Future<Void> pass = Future.succeededFuture();
        for (VolumeFiles files : found.values()) {
            pass = pass.compose(v -> closed ? Future.<Void>succeededFuture() : step(files, startUp)
                    .otherwise(e -> {
                        report(files.name() + ": " + e.getMessage(), e);
                        return null;
                    }));
        }
        return pass.onComplete(ar -> publishGauges());
    }

    /** Stops following and releases every volume (at once: nobody is served any more). */
    Future<Void> close() {
        closed = true;
        List<Future<Void>> released = new ArrayList<>();
        for (ServedVolume volume : volumes.values()) {
            released.add(release(volume));
        }
        volumes.clear();
        publishGauges();
        return Future.join(released).<Void>mapEmpty().otherwiseEmpty();
    }

    private Future<Void> step(VolumeFiles files, boolean startUp) {
        ServedVolume current = volumes.get(files.volumeId());
        if (current == null) {
            return openEpoch(files).map(volume -> {
                volumes.put(volume.volumeId(), volume);
                if (!startUp) {
                    log.info("Now serving " + describe(volume));
                    events.added(volume);
                }
                return null;
            });
        }
        try {
            if (!Objects.equals(files.idx(), current.files().idx()) || replacedOnDisk(current)) {
                return openEpoch(files).map(now -> {
                    volumes.put(now.volumeId(), now);
                    lostPagesToReopen.remove(now.volumeId());
                    metrics.reopens().increment();
                    log.info("Volume " + now.name() + " was replaced on disk (compaction); serving epoch "
                            + Long.toUnsignedString(now.epoch()) + " instead of "
                                    + Long.toUnsignedString(current.epoch())
                            + ": " + describe(now));
                    events.replaced(current, now);
                    retire(current);
                    return null;
                });
            }
        } catch (NoSuchFileException e) {
            return Future.succeededFuture(); // renamed away mid-pass: the next scan tells
        } catch (IOException e) {
            return Future.failedFuture(e);
        }
        return follow(current);
    }

    /** Maps the growth of the .dat, then applies the new .idx entries. */
    private Future<Void> follow(ServedVolume volume) {
        long size;
        try {
            size = volume.datSize();
        } catch (IOException e) {
            return Future.failedFuture(e);
        }
        Future<Void> mapped = Future.succeededFuture();
        if (size > volume.segments().mappedEnd()) {
            mapped = volume.segments().growTo(size).map(replaced -> {
                retired.retire(replaced);
                metrics.remaps().increment();
                if (!closed) {
                    events.grown(volume);
                }
                return null;
            });
        }
        return mapped.compose(v -> {
            if (closed || volumes.get(volume.volumeId()) != volume) {
                return Future.succeededFuture();
            }
            try {
                if (!volume.indexGrew()) {
                    return exposeIndex(volume);
                }
                SyncEntryWriter collect = events.wantsEntries(volume)
                        ? new SyncEntryWriter(Integer.MAX_VALUE / SyncEntryReader.ENTRY_BYTES) : null;
                long from = volume.follow(collect);
                if (volume.stalledPasses() == STALL_WARN_PASSES) {
                    log.warn("Volume " + volume.name() + ": the .idx entry at byte " + from + " points past the "
                            + volume.segments().mappedEnd()
                                    + " bytes of the .dat; later entries wait until it is written");
                }
                if (volume.appliedPosition() > from) {
                    events.applied(volume, from, collect == null ? null : collect.toPacked());
                }
                List<ServedSegment> withdrawn = volume.takeWithdrawnIndexes();
                if (!withdrawn.isEmpty()) {
                    retired.retire(withdrawn);
                    events.indexReplaced(volume);
                }
                return exposeIndex(volume);
            } catch (IOException | RuntimeException e) {
                return Future.failedFuture(e);
            }
        });
    }

    /** Exposes the volume's index to one-sided readers if it is not; a failure only costs them lookups, said once. */
    private Future<Void> exposeIndex(ServedVolume volume) {
        return volume.exposeIndex().otherwise(e -> {
            report("volume " + volume.name() + ": sidecars look its needles up, its index is not exposed: "
                    + e.getMessage(), null);
            return null;
        });
    }

    /** Opens, maps and loads a volume under a fresh epoch; releases what it took on failure. */
    private Future<ServedVolume> openEpoch(VolumeFiles files) {
        ServedVolume volume;
        long size;
        try {
            volume = ServedVolume.open(files, format, nextEpoch(), memory, settings.indexCacheDir(),
                    NeedleIndex.DEFAULT_MIN_OVERLAY);
            size = volume.datSize();
        } catch (IOException e) {
            return Future.failedFuture(e);
        }
        return volume.segments().growTo(size).compose(none -> {
            try {
                volume.follow(null);
                return exposeIndex(volume).map(volume);
            } catch (IOException | RuntimeException e) {
                return Future.<ServedVolume>failedFuture(e);
            }
        }).recover(e -> {
            release(volume); // never advertised
            return Future.failedFuture(e);
        }).compose(v -> {
            if (closed) {
                release(volume);
                return Future.failedFuture("agent stopping");
            }
            replaceWaits.remove(files.volumeId());
            return Future.succeededFuture(v);
        });
    }

    /**
     * Whether the files at the volume's paths are no longer the ones this epoch opened: another file (inode), a file
     * shorter than what was served, or a different compaction revision. When only one of the pair changed, waits a
     * few passes for the other rename of the compaction before reopening anyway.
     */
    private boolean replacedOnDisk(ServedVolume volume) throws IOException {
        if (lostPages(volume)) {
            log.warn("Volume " + volume.name() + ": pages of its mapped .dat could not be read (truncated in place or"
                    + " an I/O error) and were replaced by zero pages; reopening it");
            lostPagesToReopen.add(volume.volumeId());
        }
        if (lostPagesToReopen.contains(volume.volumeId())) {
            return true;
        }
        VolumeFiles files = volume.files();
        long datSize = Files.size(files.dat());
        boolean datChanged = !Objects.equals(ServedVolume.fileKey(files.dat()), volume.datKey())
                || datSize < volume.segments().mappedEnd()
                || (datSize != volume.datSize() && revision(files.dat()) != volume.superBlock().compactionRevision());
        boolean idxChanged = !Objects.equals(ServedVolume.fileKey(files.idx()), volume.idxKey())
                || Files.size(files.idx()) < volume.appliedPosition();
        if (datChanged == idxChanged) {
            replaceWaits.remove(volume.volumeId());
            return datChanged;
        }
        int waited = replaceWaits.merge(volume.volumeId(), 1, Integer::sum);
        if (waited <= REPLACE_WAIT_POLLS) {
            return false;
        }
        log.warn("Only the " + (datChanged ? ".dat" : ".idx") + " of volume " + volume.name()
                + " was replaced; reopening it anyway");
        return true;
    }

    /** Whether the SIGBUS guard replaced a page of one of the volume's mappings since the last pass. */
    private static boolean lostPages(ServedVolume volume) {
        boolean lost = false;
        for (ServedSegment segment : volume.segments().segments()) {
            if (!segment.isCopy()) {
                lost |= SigbusGuard.takeFaulted(segment.region().address());
            }
        }
        return lost;
    }

    private static int revision(Path dat) throws IOException {
        try (FileChannel ch = FileChannel.open(dat, StandardOpenOption.READ)) {
            ByteBuffer head = ByteBuffer.allocate(SuperBlock.HEADER_SIZE);
            while (head.hasRemaining() && ch.read(head, head.position()) > 0) {
                // read the whole header
            }
            return head.hasRemaining() ? -1 : head.getShort(4) & 0xFFFF;
        }
    }

    private void remove(ServedVolume volume) {
        volumes.remove(volume.volumeId());
        replaceWaits.remove(volume.volumeId());
        lostPagesToReopen.remove(volume.volumeId());
        log.info("Volume " + volume.name() + " is gone from " + volume.files().dat().getParent()
                + "; no longer served");
        events.removed(volume);
        retire(volume);
    }

    private void retire(ServedVolume volume) {
        retired.retire(volume.segments().segments());
        retired.retire(volume.indexMemory());
        closeQuietly(volume);
    }

    /** Releases a volume's memory now and closes its files. */
    private Future<Void> release(ServedVolume volume) {
        List<Future<Void>> released = new ArrayList<>();
        volume.segments().segments().forEach(s -> released.add(memory.release(s)));
        volume.indexMemory().forEach(s -> released.add(memory.release(s)));
        closeQuietly(volume);
        return Future.join(released).mapEmpty();
    }

    /** The volumes in every directory, by id; the first of two volumes with one id wins (the served one first). */
    private Map<Long, VolumeFiles> scan(Set<Path> unreadable) {
        Map<Long, VolumeFiles> found = new LinkedHashMap<>();
        for (Path dir : settings.volumeDirs()) {
            VolumeDirectory.Listing listing;
            try {
                listing = VolumeDirectory.scan(dir, settings.volumeIdxDir());
            } catch (IOException e) {
                unreadable.add(dir);
                report("cannot list volume directory " + dir + ": " + e.getMessage(), null);
                continue;
            }
            listing.problems().forEach(p -> report("skipping " + p, null));
            for (VolumeFiles files : listing.volumes()) {
                if (!files.hasIndex()) {
                    report("skipping volume " + files.name() + " in " + dir + ": no .idx beside " + files.dat()
                            + (settings.volumeIdxDir() == null ? "" : " nor in " + settings.volumeIdxDir())
                            + "; it is served once the volume server writes the .idx (checked every poll). If the"
                            + " index was lost, stop the volume server and rebuild it from the .dat with 'weed fix "
                                    + "-dir="
                            + dir + " -volumeId=" + files.volumeId()
                                    + "' (set agent.offset5 to match the index format)", null);
                    continue;
                }
                VolumeFiles other = found.get(files.volumeId());
                if (other == null) {
                    found.put(files.volumeId(), files);
                    continue;
                }
                ServedVolume served = volumes.get(files.volumeId());
                VolumeFiles keep = served != null && served.files().dat().equals(files.dat()) ? files : other;
                VolumeFiles skip = keep == files ? other : files;
                found.put(files.volumeId(), keep);
                report("skipping " + skip.dat() + ": volume id " + files.volumeId() + " is already served from "
                        + keep.dat(), null);
            }
        }
        return found;
    }

    long nextEpoch() {
        // Strictly increasing, and above any epoch an earlier run handed out a moment ago (microseconds of wall time).
        lastEpoch = Math.max(lastEpoch + 1, System.currentTimeMillis() * 1000);
        return lastEpoch;
    }

    private void publishGauges() {
        Map<Long, Integer> needles = new TreeMap<>();
        Map<Long, AgentVolumeStatus> status = new TreeMap<>();
        volumes.values().forEach(v -> {
            needles.put(v.volumeId(), v.needles());
            List<ServedSegment> served = v.segments().segments();
            status.put(v.volumeId(), new AgentVolumeStatus(v.volumeId(), v.files().collection(), v.epoch(),
                    served.stream().anyMatch(ServedSegment::isCopy) ? "ucx" : "mapped", v.needles(), served.size(),
                    v.segments().mappedEnd()));
        });
        metrics.publishVolumes(needles, List.copyOf(status.values()));
    }

    /** Logs a problem once (the same problem recurs every pass until fixed). */
    private void report(String problem, Throwable cause) {
        if (reported.size() < 10_000 && reported.add(problem)) {
            log.warn(problem, cause instanceof IOException || cause == null ? null : cause);
        }
    }

    static String describe(ServedVolume v) {
        return v.name() + " (epoch " + Long.toUnsignedString(v.epoch()) + ", v" + v.version() + ", " + v.needles()
                + " needles, " + v.segments().mappedEnd() + " bytes in " + v.segments().segments().size()
                        + " segments, "
                + memoryOf(v.segments()) + ")";
    }

    /** How a volume's bytes are served: mapped, a UCX copy, or (a copy that outgrew the limit) both. */
    private static String memoryOf(DatSegments segments) {
        long copied = segments.copiedBytes();
        if (copied == 0) {
            return "mapped";
        }
        long mapped = segments.mappedEnd() - copied;
        return "ucx copy of " + copied + " bytes" + (mapped == 0 ? "" : ", " + mapped + " bytes mapped");
    }

    private static void closeQuietly(ServedVolume volume) {
        try {
            volume.close();
        } catch (IOException e) {
            log.debug("Closing " + volume + ": " + e.getMessage());
        }
    }
}
