package org.seaweedfs.rdma.agent;

import io.vertx.core.Future;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.ec.EcFiles;
import org.seaweedfs.rdma.volume.ec.EcFileSet;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
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
 * the {@code .ecj} followed, and a replaced {@code .ecx} or shrunk {@code .ecj} reopens it under a new epoch. Of its
 * generations ({@code .v<N>} names), the newest complete one is served; a newer one replaces it once complete.
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
    /** The EC layout's block sizes: SeaweedFS's ({@link EcLayout#LARGE_BLOCK}, {@link EcLayout#SMALL_BLOCK}). */
    private final long largeBlock;
    private final long smallBlock;
    private final IndexFormat format;
    private final SegmentMemory memory;
    private final RetiredMappings retired;
    private final LongSupplier epochs;
    private final Events events;
    private final Map<Long, EcServedVolume> volumes = new TreeMap<>();
    /** Per volume, the generations newer than the one served that are not complete yet, opened, by their files. */
    private final Map<Long, Map<EcFileSet, EcServedVolume>> waiting = new HashMap<>();
    private final Set<String> reported = new HashSet<>();
    private boolean closed;

    EcFollower(AgentSettings settings, long largeBlock, long smallBlock, SegmentMemory memory, RetiredMappings retired,
               LongSupplier epochs, Events events) {
        this.settings = settings;
        this.largeBlock = largeBlock;
        this.smallBlock = smallBlock;
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
        Map<Long, List<EcFileSet>> found = scan(datServed);
        for (EcServedVolume volume : List.copyOf(volumes.values())) {
            if (!found.containsKey(volume.volumeId())) {
                volumes.remove(volume.volumeId());
                log.info("EC volume " + volume.name() + " is gone; no longer served");
                events.ecRemoved(volume);
                retire(volume);
            }
        }
        for (Long id : List.copyOf(waiting.keySet())) {
            if (!found.containsKey(id)) {
                keepWaiting(id, List.of(), List.of());
            }
        }
        Future<Void> pass = Future.succeededFuture();
        for (List<EcFileSet> generations : found.values()) {
            pass = pass.compose(v -> closed ? Future.<Void>succeededFuture() : step(generations, startUp)
                    .otherwise(e -> {
                        report(generations.get(0).baseName() + " (EC): " + e.getMessage());
                        return null;
                    }));
        }
        return pass;
    }

    /**
     * One volume's pass over its generations on disk (newest first): the served one is followed, and the newer ones
     * (all of them when the served one's files are gone) contend to replace it ({@link #contend}).
     */
    private Future<Void> step(List<EcFileSet> generations, boolean startUp) {
        long id = generations.get(0).volumeId();
        EcServedVolume current = volumes.get(id);
        if (current == null || !generations.contains(current.files())) {
            return contend(id, generations, false, startUp);
        }
        List<EcFileSet> newer = generations.stream().filter(f -> f.generation() > current.generation()).toList();
        // Under unsuffixed names a new shard file may be a newer generation's: the served one takes none then.
        boolean takeNew = current.files().namedShards() || newer.stream().allMatch(EcFileSet::namedShards);
        Future<Void> followed;
        try {
            followed = Objects.equals(ServedVolume.fileKey(current.files().ecx()), current.ecxKey())
                    ? follow(current, takeNew) : reopen(current, current.files());
        } catch (IOException e) {
            return Future.succeededFuture(); // renamed away mid-pass: the next scan tells
        }
        return followed.compose(v -> {
            if (newer.isEmpty()) {
                keepWaiting(id, List.of(), List.of());
                return Future.succeededFuture();
            }
            return contend(id, newer, true, startUp);
        });
    }

    /**
     * Opens (or refreshes, when already waiting) each of {@code contenders}, newest first, and serves the newest that
     * is complete ({@link EcServedVolume#complete()}: its shards verify and suffice to read every needle) in place of
     * the served one, at once for every sidecar (one push; the old epoch's mappings stay registered for the grace
     * period, so reads that began on it finish on its bytes). When none is complete, the served one stays unless it
     * is gone or serves fewer shards than the newest contender (this agent may hold only some shards of the volume:
     * other agents hold the rest). The newer ones that are not complete wait, opened, for the next pass.
     */
    private Future<Void> contend(long id, List<EcFileSet> contenders, boolean currentStays, boolean startUp) {
        List<EcServedVolume> opened = new ArrayList<>();
        Future<Void> pass = Future.succeededFuture();
        for (EcFileSet files : contenders) {
            pass = pass.compose(v -> closed ? Future.<Void>succeededFuture() : contender(id, files).map(volume -> {
                if (volume != null) {
                    opened.add(volume);
                }
                return null;
            }));
        }
        return pass.map(v -> {
            EcServedVolume current = volumes.get(id);
            EcServedVolume best = opened.stream().filter(EcServedVolume::complete).findFirst().orElse(null);
            if (best == null && !opened.isEmpty() && (!currentStays || !current.complete()
                    && opened.get(0).shardIds().size() >= current.shardIds().size())) {
                best = opened.get(0);
            }
            if (closed) {
                opened.forEach(this::release);
                return null;
            }
            if (best != null) {
                serve(current, best, startUp);
            }
            EcServedVolume served = volumes.get(id);
            int generation = served == null ? -1 : served.generation();
            keepWaiting(id, opened.stream().filter(o -> o != served && o.generation() > generation).toList(), opened);
            return null;
        });
    }

    /**
     * A contender: the one already waiting with these files (its shards refreshed) while its index is as opened, else
     * opened anew; null if it cannot be.
     */
    private Future<EcServedVolume> contender(long id, EcFileSet files) {
        EcServedVolume known = waiting.getOrDefault(id, Map.of()).get(files);
        if (known != null && known.indexAsOpened()) {
            List<String> problems = new ArrayList<>();
            return known.refreshShards(new boolean[1], problems, true).map(gone -> {
                problems.forEach(this::report);
                retired.retire(gone);
                return known;
            });
        }
        EcServedVolume current = volumes.get(id);
        Set<Object> older = current == null || files.generation() < current.generation() ? Set.of()
                : files.generation() > current.generation() ? current.olderAndServedShards() : current.olderShards();
        return open(files, older).otherwise(e -> {
            report(files + ": " + e.getMessage());
            return null;
        });
    }

    /** Serves {@code now} in place of {@code current} (null: nothing served it so far). */
    private void serve(EcServedVolume current, EcServedVolume now, boolean startUp) {
        volumes.put(now.volumeId(), now);
        if (current == null) {
            log.info("Now serving " + now);
            if (!startUp) {
                events.ecAdded(now);
            }
            return;
        }
        log.info(current + " is replaced; now serving " + now);
        events.ecReplaced(current, now);
        retire(current);
    }

    /**
     * The volume's waiting contenders become {@code keep}; the others that waited or were {@code opened} are retired,
     * unless served.
     */
    private void keepWaiting(long id, List<EcServedVolume> keep, List<EcServedVolume> opened) {
        Map<EcFileSet, EcServedVolume> before = waiting.remove(id);
        Map<EcFileSet, EcServedVolume> after = new HashMap<>();
        keep.forEach(v -> after.put(v.files(), v));
        Set<EcServedVolume> dropped = Collections.newSetFromMap(new IdentityHashMap<>());
        dropped.addAll(opened);
        if (before != null) {
            dropped.addAll(before.values());
        }
        dropped.removeAll(keep);
        dropped.remove(volumes.get(id));
        dropped.forEach(this::retire);
        if (!after.isEmpty()) {
            waiting.put(id, after);
            after.values().forEach(v -> report("EC volume " + v.name() + " generation " + v.generation()
                    + " is not complete here (shards " + v.shardIds() + "); the older one is served meanwhile"));
        }
    }

    /**
     * Serves a new epoch from {@code files} in place of {@code current}, at once for every sidecar (one push): the
     * same generation reopened (its index replaced in place, its journal shrunk).
     */
    private Future<Void> reopen(EcServedVolume current, EcFileSet files) {
        return open(files, current.olderShards()).map(now -> {
            serve(current, now, false);
            return null;
        });
    }

    private Future<EcServedVolume> open(EcFileSet files, Set<Object> olderShards) {
        EcServedVolume volume;
        try {
            volume = EcServedVolume.open(files, format, epochs.getAsLong(), largeBlock, smallBlock, memory,
                    olderShards);
            volume.followDeletions();
        } catch (IOException | RuntimeException e) {
            return Future.failedFuture(e);
        }
        List<String> problems = new ArrayList<>();
        return volume.refreshShards(new boolean[1], problems, true).<EcServedVolume>map(gone -> {
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

    private Future<Void> follow(EcServedVolume volume, boolean takeNew) {
        boolean[] changed = new boolean[1];
        List<String> problems = new ArrayList<>();
        return volume.refreshShards(changed, problems, takeNew).compose(gone -> {
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
        waiting.values().forEach(w -> w.values().forEach(v -> released.add(release(v))));
        volumes.clear();
        waiting.clear();
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
     * The EC volumes (by their .ecx or .ecx.v&lt;N&gt;) in every directory, each with its generations that have their
     * index and .vif, newest first, their files chosen among all directories; an id of two collections is served from
     * the first directory listing it.
     */
    private Map<Long, List<EcFileSet>> scan(LongPredicate datServed) {
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
        Map<Long, List<EcFileSet>> found = new LinkedHashMap<>();
        names.forEach((id, name) -> {
            List<EcFileSet> files = EcFileSet.candidates(name.collection(), id, generations.get(id), dirs);
            if (!files.isEmpty()) {
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
