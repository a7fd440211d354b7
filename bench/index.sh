#!/usr/bin/env bash
# The agent's needle index at scale: one agent serving VOLUMES volumes of NEEDLES needles in all (gen-volume
# --derived, SIZE bytes each). Measures, against an agent serving no volumes with the same heap bound:
#   - first start (no index files: each built from its .idx) and restart (index files mapped, checksums verified):
#     ready time from the JVM's launch and the agent's own time to open its volumes (its ready log line), RSS (and
#     its anonymous / file-backed parts), heap after a full GC;
#   - RSS growth per needle = (RSS - RSS of the empty agent) / NEEDLES;
#   - lookups per second on one core (taskset -c 0) over the index files, every key found (IndexBenchMain);
#   - the widest entries the format packs: SYNTHETIC random 64-bit keys, 5-byte offsets, 32-bit sizes.
#
#   bench/index.sh                                    # 5 M needles in 10 volumes
#   NEEDLES=50000000 bench/index.sh                   # 50 M (about 4 GB of .dat and .idx; check df first)
#
# Output: $BENCH_OUT/index.jsonl (one JSON object per line, also printed), logs in $BENCH_OUT/logs/index-*.
# Data: $INDEX_DATA/agent0/ in bench/scale.sh's layout and stamps, so AGENTS=1 SCALE_DATA=$INDEX_DATA bench/scale.sh
# with the same VOLUMES, NEEDLES and SIZE reads the same needles through a sidecar. Delete it when done.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
BENCH_OUT=${BENCH_OUT:-$BENCH_DIR/out}
NEEDLES=${NEEDLES:-5000000}
VOLUMES=${VOLUMES:-10}
SIZE=${SIZE:-40}
INDEX_DATA=${INDEX_DATA:-/tmp/seaweedfs-rdma-index-$NEEDLES}
AGENT_HEAP=${AGENT_HEAP:-128m}         # the same heap for the empty agent and the full one
# The heap fully committed and touched up front, so that RSS compares the rest (GC timing moves an elastic heap's
# RSS by more than the index of 5 M needles weighs).
AGENT_JVM=${AGENT_JVM:-"-Xms$AGENT_HEAP -Xmx$AGENT_HEAP -XX:+AlwaysPreTouch"}
LOOKUP_SECONDS=${LOOKUP_SECONDS:-10}
SETTLE_SECONDS=${SETTLE_SECONDS:-3}    # after ready, before RSS is read
SYNTHETIC=${SYNTHETIC:-5000000}        # 0: skip
AGENT_PORT=${AGENT_PORT:-18715}
JAR=${JAR:-$ROOT/target/seaweedfs-rdma-sidecar.jar}

RESULTS=$BENCH_OUT/index.jsonl
DIR=$INDEX_DATA/agent0
EMPTY=$INDEX_DATA/empty
mkdir -p "$BENCH_OUT/logs" "$DIR" "$EMPTY"
PER_VOLUME=$((NEEDLES / VOLUMES))
[ "$PER_VOLUME" -ge 1 ] || { echo "NEEDLES must be at least VOLUMES" >&2; exit 2; }
[ -f "$JAR" ] || { echo "no $JAR (mvn -B -o package -DskipTests)" >&2; exit 2; }
source "$ROOT/bench/lib/mains.sh"
LOAD_CP=$(build_mains "$JAR" "$BENCH_OUT/mains") || exit 2   # IndexBenchMain (bench/java) against the jar

log() { printf '== %s\n' "$*" >&2; }
record() { local line; while IFS= read -r line; do printf '%s\n' "$line" | tee -a "$RESULTS"; done; }
now_ms() { date +%s%3N; }
status_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
heap_after_gc_mib() {
    jcmd "$1" GC.run > /dev/null
    jcmd "$1" GC.heap_info | awk '/ used / { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?/, "", v); printf "%.1f", v / 1024; exit } }'
}

PID=
stop_agent() { if [ -n "$PID" ]; then kill "$PID" 2> /dev/null || true; wait "$PID" 2> /dev/null || true; PID=; fi; }
trap stop_agent EXIT

generate() { # as bench/scale.sh does, for AGENTS=1
    local v stamp want
    for v in $(seq 1 "$VOLUMES"); do
        stamp=$DIR/$v.stamp want="derived count=$PER_VOLUME size=$SIZE"
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then continue; fi
        rm -f "$DIR/$v.dat" "$DIR/$v.idx" "$DIR/$v.rdx" "$stamp"
        log "gen-volume $v: $PER_VOLUME needles of $SIZE bytes -> $DIR"
        java -jar "$JAR" gen-volume "$DIR" --vid "$v" --count "$PER_VOLUME" --size "$SIZE" --derived
        echo "$want" > "$stamp"
    done
}

# run_agent WHAT DIR NEEDLES: starts an agent on DIR, waits for ready, records ready time and memory, stops it.
run_agent() {
    local what=$1 dir=$2 needles=$3 conf=$BENCH_OUT/index-agent.yaml logf=$BENCH_OUT/logs/index-$1.log started
    cat > "$conf" <<YAML
roles: [agent]
agent:
  listen: 127.0.0.1:$AGENT_PORT
  volumeDirs: [$dir]
http:
  host: 127.0.0.1
  port: 0
ucx:
  tls: [tcp, self]
metrics:
  enabled: false
YAML
    : > "$logf"
    started=$(now_ms)
    # shellcheck disable=SC2086
    java $AGENT_JVM -jar "$JAR" serve --conf "$conf" > "$logf" 2>&1 &
    PID=$!
    until grep -q '^ready:' "$logf" 2> /dev/null; do
        kill -0 "$PID" 2> /dev/null || { echo "agent died, see $logf:" >&2; tail -n 20 "$logf" >&2; return 1; }
        [ $(( $(now_ms) - started )) -lt 1800000 ] || { echo "agent not ready within 1800 s" >&2; return 1; }
        sleep 0.02
    done
    local ready_ms=$(( $(now_ms) - started )) open_ms
    open_ms=$(sed -n 's/.* EC volumes (opened in \([0-9]*\) ms).*/\1/p' "$logf" | head -n 1)
    sleep "$SETTLE_SECONDS"
    local rss anon file heap # serve runs in the JVM launched: PID is the serving process
    rss=$(status_kib "$PID" VmRSS) anon=$(status_kib "$PID" RssAnon) file=$(status_kib "$PID" RssFile)
    heap=$(heap_after_gc_mib "$PID")
    printf '{"kind":"index_agent","what":"%s","volumes":%d,"needles":%d,"heap":"%s","ready_ms":%d,"volumes_open_ms":%s,"rss_kib":%d,"rss_anon_kib":%d,"rss_file_kib":%d,"heap_after_gc_mib":%s,"load":"%s"}\n' \
        "$what" "$([ "$needles" = 0 ] && echo 0 || echo "$VOLUMES")" "$needles" "$AGENT_HEAP" "$ready_ms" "${open_ms:-null}" "$rss" "$anon" \
        "$file" "$heap" "$(cut -d' ' -f1-3 /proc/loadavg)" | record
    stop_agent
}

rss_of() { grep "\"what\":\"$1\"" "$RESULTS" | tail -n 1 | sed 's/.*"rss_kib":\([0-9]*\).*/\1/'; }

generate
printf '{"kind":"index_meta","volumes":%d,"needles":%d,"size":%d,"heap":"%s","load":"%s","commit":"%s"}\n' \
    "$VOLUMES" "$((PER_VOLUME * VOLUMES))" "$SIZE" "$AGENT_HEAP" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null || echo unknown)" | record
run_agent empty "$EMPTY" 0
rm -f "$DIR"/*.rdx
log "first start: every index built from its .idx"
run_agent first_start "$DIR" "$((PER_VOLUME * VOLUMES))"
log "restart: every index file mapped"
run_agent restart "$DIR" "$((PER_VOLUME * VOLUMES))"
for what in first_start restart; do
    printf '{"kind":"index_rss_growth","what":"%s","needles":%d,"bytes_per_needle":%s}\n' "$what" \
        "$((PER_VOLUME * VOLUMES))" "$(awk -v a="$(rss_of "$what")" -v b="$(rss_of empty)" \
        -v n="$((PER_VOLUME * VOLUMES))" 'BEGIN { printf "%.2f", (a - b) * 1024 / n }')" | record
done
log "lookups on one core, ${LOOKUP_SECONDS}s"
taskset -c 0 java -Xmx"$AGENT_HEAP" -cp "$LOAD_CP" org.seaweedfs.rdma.bench.IndexBenchMain --dir "$DIR" \
    --volumes "$VOLUMES" --seconds "$LOOKUP_SECONDS" | record
if [ "$SYNTHETIC" -gt 0 ]; then
    log "synthetic: $SYNTHETIC random keys, 5-byte offsets, 32-bit sizes"
    java -Xmx"$AGENT_HEAP" -cp "$LOAD_CP" org.seaweedfs.rdma.bench.IndexBenchMain --synthetic "$SYNTHETIC" \
        --scratch "$INDEX_DATA/synthetic" | record
    rm -rf "$INDEX_DATA/synthetic"
fi
