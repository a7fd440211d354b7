package org.seaweedfs.rdma.agent;

import io.vertx.core.Future;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.ec.EcFiles;
import org.seaweedfs.rdma.volume.ec.EcFileSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.TreeSet;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * Follows the erasure-coded volumes in the volume directories, one pass per poll after the {@code .dat} pass, on
 * the agent's context: an {@code <base>.ecx} in any data directory or the volume server's index directory makes an
 * EC volume (unless a {@code .dat} volume of that id is served: the {@code .dat} wins), its files chosen among all
 * of them ({@link EcFileSet}); its shards, in any data directory, are served as they appear and dropped as they go,
 * the {@code .ecj} followed, and a replaced {@code .ecx} or shrunk {@code .ecj} reopens it under a new epoch.
 */
final class EcFollower {

    /** What a pass found; called on the agent's context. */
    interface Events {
        void ecAdded(EcServedVolume volume);

        /** The shards served changed (same epoch): sidecars re-fetch the list. */
        void ecShardsChanged(EcServedVolume volume);

        /** Virtual index entries [from, appliedPosition) are new (deletions). */
        void ecDeleted(EcServedVolume volume, long from);

        void ecReplaced(EcServedVolume old, EcServedVolume now);

        void ecRemoved(EcServedVolume volume);
    }

    private static final Logger log = LoggerFactory.getLogger(EcFollower.class);

    private final AgentSettings settings;
    private final AgentLimits limits;
    private final IndexFormat format;
    private final SegmentMemory memory;
    private final RetiredMappings retired;
    private final LongSupplier epochs;
    private final Events events;
    private final Map<Long, EcServedVolume> volumes = new TreeMap<>();
    private final Set<String> reported = new HashSet<>();
    private boolean closed;

    EcFollower(AgentSettings settings, AgentLimits limits, SegmentMemory memory, RetiredMappings retired,
               LongSupplier epochs, Events events) {
        this.settings = settings;
        this.limits = limits;
        this.format = IndexFormat.of(settings.offset5());
        this.memory = memory;
        this.retired = retired;
        this.epochs = epochs;
        this.events = events;
    }

    EcServedVolume volume(long volumeId) {
        return volumes.get(volumeId);
    }

    Collection<EcServedVolume> volumes() {
        return volumes.values();
    }

    /** One pass; {@code datServed} tells which ids a .dat volume already serves. */
    Future<Void> poll(boolean startUp, LongPredicate datServed) {
        Map<Long, EcFileSet> found = scan(datServed);
        for (EcServedVolume volume : List.copyOf(volumes.values())) {
            if (!found.containsKey(volume.volumeId())) {
                volumes.remove(volume.volumeId());
                log.info("EC volume " + volume.name() + " is gone; no longer served");
                events.ecRemoved(volume);
                retire(volume);
            }
        }
        Future<Void> pass = Future.succeededFuture();
        for (EcFileSet files : found.values()) {
            pass = pass.compose(v -> closed ? Future.<Void>succeededFuture() : step(files, startUp).otherwise(e -> {
                report(files.baseName() + " (EC): " + e.getMessage());
                return null;
            }));
        }
        return pass;
    }

    private Future<Void> step(EcFileSet files, boolean startUp) {
        EcServedVolume current = volumes.get(files.volumeId());
        if (current == null) {
            return open(files, Set.of()).map(now -> {
                volumes.put(now.volumeId(), now);
                log.info("Now serving " + now);
                if (!startUp) {
                    events.ecAdded(now);
                }
                return null;
            });
        }
        if (!files.equals(current.files())) {
            return reopen(current, files); // another generation, or files moved between directories
        }
        try {
            if (Objects.equals(ServedVolume.fileKey(files.ecx()), current.ecxKey())) {
                return follow(current);
            }
        } catch (IOException e) {
            return Future.succeededFuture(); // renamed away mid-pass: the next scan tells
        }
        return reopen(current, files);
    }

    /**
     * Serves a new epoch from {@code files} in place of {@code current}, at once for every sidecar (one push); the
     * old epoch's mappings stay registered for the grace period, so reads that began on it finish on its bytes.
     */
    private Future<Void> reopen(EcServedVolume current, EcFileSet files) {
        Set<Object> older = files.generation() > current.files().generation() ? current.olderAndServedShards()
                : current.olderShards();
        return open(files, older).map(now -> {
            volumes.put(now.volumeId(), now);
            log.info(current + " was replaced on disk; now serving " + now);
            events.ecReplaced(current, now);
            retire(current);
            return null;
        });
    }

    private Future<EcServedVolume> open(EcFileSet files, Set<Object> olderShards) {
        EcServedVolume volume;
        try {
            volume = EcServedVolume.open(files, format, epochs.getAsLong(), limits.ecLargeBlock(),
                    limits.ecSmallBlock(), limits.segmentBytes(), memory, olderShards);
            volume.followDeletions();
        } catch (IOException | RuntimeException e) {
            return Future.failedFuture(e);
        }
        List<String> problems = new ArrayList<>();
        return volume.refreshShards(new boolean[1], problems).<EcServedVolume>map(gone -> {
            problems.forEach(this::report);
            return volume;
        }).compose(v -> {
            if (closed) {
                release(volume);
                return Future.failedFuture("agent stopping");
            }
            return Future.succeededFuture(v);
        });
    }

    private Future<Void> follow(EcServedVolume volume) {
        boolean[] changed = new boolean[1];
        List<String> problems = new ArrayList<>();
        return volume.refreshShards(changed, problems).compose(gone -> {
            problems.forEach(this::report);
            retired.retire(gone);
            if (closed || volumes.get(volume.volumeId()) != volume) {
                return Future.succeededFuture();
            }
            if (changed[0]) {
                log.info("EC volume " + volume.name() + " now serves shards " + volume.shardIds());
                events.ecShardsChanged(volume);
            }
            try {
                long from = volume.followDeletions();
                if (volume.appliedPosition() > from) {
                    events.ecDeleted(volume, from);
                }
                return Future.succeededFuture();
            } catch (IOException e) {
                log.info("EC volume " + volume.name() + ": " + e.getMessage() + "; reopening it");
                return reopen(volume, volume.files());
            }
        });
    }

    Future<Void> close() {
        closed = true;
        List<Future<Void>> released = new ArrayList<>();
        volumes.values().forEach(v -> released.add(release(v)));
        volumes.clear();
        return Future.join(released).<Void>mapEmpty().otherwiseEmpty();
    }

    private void retire(EcServedVolume volume) {
        retired.retire(volume.segments());
        volume.close();
    }

    private Future<Void> release(EcServedVolume volume) {
        List<Future<Void>> released = new ArrayList<>();
        volume.segments().forEach(s -> released.add(memory.release(s)));
        volume.close();
        return Future.join(released).mapEmpty();
    }

    /**
     * The EC volumes (by their .ecx or .ecx.v&lt;N&gt;) in every directory, each at its newest complete generation with
     * its files chosen among all directories; an id of two collections is served from the first directory listing it.
     */
    private Map<Long, EcFileSet> scan(LongPredicate datServed) {
        List<Path> dirs = settings.volumeFileDirs();
        Map<Long, EcFiles> names = new LinkedHashMap<>();
        Map<Long, Set<Integer>> generations = new HashMap<>();
        for (Path dir : dirs) {
            try (DirectoryStream<Path> list = Files.newDirectoryStream(dir, "*.ecx*")) {
                for (Path ecx : list) {
                    EcFiles files = EcFiles.ofIndex(ecx);
                    if (files == null || datServed.test(files.volumeId())) {
                        continue;
                    }
                    EcFiles other = names.putIfAbsent(files.volumeId(), files);
                    if (other != null && !other.collection().equals(files.collection())) {
                        report("skipping " + ecx + ": EC volume " + files.volumeId() + " is already served from "
                                + other.ecx());
                        continue;
                    }
                    generations.computeIfAbsent(files.volumeId(), id -> new TreeSet<>())
                            .add(EcFiles.ecxGeneration(ecx.getFileName().toString()));
                }
            } catch (IOException e) {
                report("cannot list volume directory " + dir + " for EC volumes: " + e.getMessage());
            }
        }
        Map<Long, EcFileSet> found = new LinkedHashMap<>();
        names.forEach((id, name) -> {
            EcFileSet files = EcFileSet.newest(name.collection(), id, generations.get(id), dirs);
            if (files != null) {
                found.put(id, files);
            }
        });
        return found;
    }

    private void report(String problem) {
        if (reported.size() < 10_000 && reported.add(problem)) {
            log.warn(problem);
        }
    }
}
