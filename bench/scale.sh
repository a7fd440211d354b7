#!/usr/bin/env bash
# The scale benchmark: AGENTS agents serving VOLUMES volumes of NEEDLES needles in all, one sidecar in
# front of them with default settings. Measures the sidecar's ready time, RSS and heap after a full GC, and HTTP
# reads/s + p50 for (a) a hot set that fits the location cache and (b) needles drawn uniformly from all of them,
# and the agents' CPU per read (from /proc, their idle CPU subtracted); every answer is checked byte for byte
# (ScaleLoadMain). With BASELINE_JAR set, the same run is made with that jar
# too (its own agents: protocol versions must match), for an A/B in one run.
#
#   bench/scale.sh                                  # full scale: 4 agents, 40 volumes, 20 M needles
#   NEEDLES=2000000 SECONDS_PER_SET=10 bench/scale.sh   # reduced
#   BASELINE_JAR=/path/to/main.jar bench/scale.sh   # A/B against another build
#
# Each set's line carries the agents' CPU per read (agent_cpu_us_per_read).
#
# Output: $BENCH_OUT/scale.jsonl (one JSON object per line, also printed), logs in $BENCH_OUT/logs/scale-*.
# Data: $SCALE_DATA/agent<i>/ (volume v goes to agent (v-1) % AGENTS), reused while its stamp matches.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
BENCH_OUT=${BENCH_OUT:-$BENCH_DIR/out}
SCALE_DATA=${SCALE_DATA:-/tmp/seaweedfs-rdma-scale}
AGENTS=${AGENTS:-4}
VOLUMES=${VOLUMES:-40}
NEEDLES=${NEEDLES:-20000000}           # in all, split evenly over the volumes
SIZE=${SIZE:-100}                      # bytes per needle (small: the test is about needle counts, not bytes)
HOT_KEYS=${HOT_KEYS:-2500}             # hot set: the first HOT_KEYS keys of every volume (40 x 2500 = 100k
                                       # locations = 15 MB of cache, within the 64 MiB default)
CONNS=${CONNS:-64}
SECONDS_PER_SET=${SECONDS_PER_SET:-20}
WARMUP_SECONDS=${WARMUP_SECONDS:-10}   # per set (the hot set's misses are paid here)
SETS=${SETS:-hot uniform}              # which read sets, in this order
TLS=${TLS:-shm,tcp}
VOLUME_MEMORY=${VOLUME_MEMORY:-mapped} # 20 M needles of volumes: mapped (no copies in the agents' memory)
AGENT_PORT_BASE=${AGENT_PORT_BASE:-18615}
SIDECAR_PORT=${SIDECAR_PORT:-18181}
LOCATION_CACHE=${LOCATION_CACHE:-}     # sidecar.locationCache.maxBytes; empty: the default (and no key, so a
                                       # baseline jar that lacks the key starts too)
JAVA_OPTS=${JAVA_OPTS:-}
AGENT_JAVA_OPTS=${AGENT_JAVA_OPTS:--Xmx256m}     # each JVM's heap is the operator's (as in the image)
SIDECAR_JAVA_OPTS=${SIDECAR_JAVA_OPTS:--Xmx192m} # the location cache's 64 MiB and room to work
JAR=${JAR:-$ROOT/target/seaweedfs-rdma-sidecar.jar}
BASELINE_JAR=${BASELINE_JAR:-}

RESULTS=$BENCH_OUT/scale.jsonl
mkdir -p "$BENCH_OUT/logs" "$SCALE_DATA"
PER_VOLUME=$((NEEDLES / VOLUMES))
[ "$PER_VOLUME" -ge 1 ] || { echo "NEEDLES must be at least VOLUMES" >&2; exit 2; }
[ "$HOT_KEYS" -le "$PER_VOLUME" ] || HOT_KEYS=$PER_VOLUME
for f in "$JAR" ${BASELINE_JAR:+"$BASELINE_JAR"}; do
    [ -f "$f" ] || { echo "no $f (mvn -B -o package -DskipTests)" >&2; exit 2; }
done
source "$ROOT/bench/lib/mains.sh"
source "$ROOT/bench/lib/proc.sh"   # wait_for_line
source "$ROOT/bench/lib/volumes.sh" # generate_volumes
LOAD_CP=$(build_mains "$JAR" "$BENCH_OUT/mains") || exit 2   # ScaleLoadMain (bench/java) against the jar

log() { printf '== %s\n' "$*" >&2; }
record() { local line; while IFS= read -r line; do printf '%s\n' "$line" | tee -a "$RESULTS"; done; }

PIDS=()
stop_all() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2> /dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2> /dev/null || true; done
    PIDS=()
}
trap stop_all EXIT

rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
heap_after_gc_mib() {
    jcmd "$1" GC.run > /dev/null
    jcmd "$1" GC.heap_info | awk '/ used / { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?/, "", v); printf "%.1f", v / 1024; exit } }'
}
now_ms() { date +%s%3N; }

# run_one NAME JAR — agents, then the sidecar (ready time), memory, the two read sets, memory again. serve runs in the
# JVM launched: each PID is the serving process.
run_one() {
    local name=$1 jar=$2 i port agents="" conf pid started ready_ms up volumes jvm agent_jvms=""
    log "$name: $AGENTS agents"
    for i in $(seq 0 $((AGENTS - 1))); do
        port=$((AGENT_PORT_BASE + i)); conf=$BENCH_OUT/scale-agent$i.yaml
        cat > "$conf" <<YAML
roles: [agent]
agent:
  listen: 127.0.0.1:$port
  volumeDirs: [$SCALE_DATA/agent$i]
  volumeMemory: $VOLUME_MEMORY
http:  # every role answers /health, /metrics: any free port, so several agents fit on one host
  host: 127.0.0.1
  port: 0
ucx:
  tls: [${TLS//,/, }]
metrics:
  enabled: false
YAML
        java $JAVA_OPTS $AGENT_JAVA_OPTS -jar "$jar" serve --conf "$conf" > "$BENCH_OUT/logs/scale-$name-agent$i.log" 2>&1 &
        PIDS+=($!)
        agents+="${agents:+, }127.0.0.1:$port"
    done
    for i in $(seq 0 $((AGENTS - 1))); do
        wait_for_line "$BENCH_OUT/logs/scale-$name-agent$i.log" '^ready:' 1800 "${PIDS[$i]}"
    done
    for i in $(seq 0 $((AGENTS - 1))); do
        jvm=${PIDS[$i]}
        agent_jvms+="${agent_jvms:+,}$jvm"
        printf '{"kind":"scale_agent","impl":"%s","agent":%d,"rss_mib":%s,"heap_after_gc_mib":%s}\n' "$name" "$i" \
            "$(rss_mib "$jvm")" "$(heap_after_gc_mib "$jvm")" | record
    done
    conf=$BENCH_OUT/scale-sidecar.yaml
    cat > "$conf" <<YAML
roles: [sidecar]
http:
  host: 127.0.0.1
  port: $SIDECAR_PORT
sidecar:
  agents: [$agents]
  fallback: []
${LOCATION_CACHE:+  locationCache:
    maxBytes: $LOCATION_CACHE}
ucx:
  tls: [${TLS//,/, }]
YAML
    log "$name: sidecar in front of [$agents] (default settings)"
    started=$(now_ms)
    java $JAVA_OPTS $SIDECAR_JAVA_OPTS -jar "$jar" serve --conf "$conf" > "$BENCH_OUT/logs/scale-$name-sidecar.log" 2>&1 &
    pid=$!; PIDS+=("$pid")
    # Ready: every agent up and every volume routed (from the JVM's launch: its start-up counts too).
    until { read -r up volumes < <(curl -s "http://127.0.0.1:$SIDECAR_PORT/status" | python3 -c '
import json, sys
try:
    s = json.load(sys.stdin)
    print(sum(1 for a in s["agents"] if a["state"] == "up"), len(s["volumes"]))
except Exception:
    print(0, 0)'); [ "$up" = "$AGENTS" ] && [ "$volumes" = "$VOLUMES" ]; }; do
        kill -0 "$pid" 2> /dev/null || { tail -n 20 "$BENCH_OUT/logs/scale-$name-sidecar.log" >&2; return 1; }
        [ $(( $(now_ms) - started )) -lt 600000 ] || { echo "sidecar not ready within 600 s" >&2; return 1; }
        sleep 0.05
    done
    ready_ms=$(( $(now_ms) - started ))
    printf '{"kind":"scale_sidecar","impl":"%s","what":"ready","agents":%d,"volumes":%d,"needles":%d,"ready_ms":%d,"rss_mib":%s,"heap_after_gc_mib":%s}\n' \
        "$name" "$AGENTS" "$VOLUMES" "$((PER_VOLUME * VOLUMES))" "$ready_ms" "$(rss_mib "$pid")" "$(heap_after_gc_mib "$pid")" | record
    local set hot
    for set in $SETS; do
        hot=$([ "$set" = hot ] && echo "$HOT_KEYS" || echo 0)
        log "$name: $set reads, $CONNS connections, ${SECONDS_PER_SET}s after ${WARMUP_SECONDS}s"
        java $JAVA_OPTS -cp "$LOAD_CP" org.seaweedfs.rdma.bench.ScaleLoadMain --port "$SIDECAR_PORT" --volumes "$VOLUMES" \
            --count "$PER_VOLUME" --size "$SIZE" --hot "$hot" --conns "$CONNS" --seconds "$SECONDS_PER_SET" \
            --warmup "$WARMUP_SECONDS" --label "$set" --cpu-pids "$agent_jvms" | sed "s/^{/{\"impl\":\"$name\",/" | record
        printf '{"kind":"scale_sidecar","impl":"%s","what":"after_%s","rss_mib":%s,"heap_after_gc_mib":%s}\n' \
            "$name" "$set" "$(rss_mib "$pid")" "$(heap_after_gc_mib "$pid")" | record
    done
    stop_all
}

generate_volumes "$SCALE_DATA" "$AGENTS" "$VOLUMES" "$PER_VOLUME" "$SIZE" "$JAR"
printf '{"kind":"scale_meta","agents":%d,"volumes":%d,"needles":%d,"size":%d,"hot_keys_per_volume":%d,"conns":%d,"tls":"%s","volume_memory":"%s","load":"%s","commit":"%s"}\n' \
    "$AGENTS" "$VOLUMES" "$((PER_VOLUME * VOLUMES))" "$SIZE" "$HOT_KEYS" "$CONNS" "$TLS" "$VOLUME_MEMORY" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null || echo unknown)" | record
run_one current "$JAR"
if [ -n "$BASELINE_JAR" ]; then
    run_one baseline "$BASELINE_JAR"
fi
