#!/usr/bin/env bash
# Start-up time of `serve`, from the JVM's launch, RUNS times per role:
#   - agent: one agent serving AGENT_NEEDLES needles (DATA/agent0) whose index files exist (a first, unmeasured
#     start builds them), ready at its "ready:" line;
#   - sidecar: in front of AGENTS agents serving NEEDLES needles in all (started once), ready at its "ready:" line,
#     and routed once /status lists every agent up and every volume.
# Every run is printed, then the median of each figure.
#
#   bench/startup.sh                               # 4 agents, 40 volumes, 20 M needles (5 M per agent)
#   RUNS=3 NEEDLES=2000000 bench/startup.sh        # reduced
#   CDS=1 bench/startup.sh                         # with bin/seaweedfs-rdma's class-data archive (docs/operations.md)
#
# Data: $DATA in bench/scale.sh's layout and stamps (shared with it by default), generated once.
# Output: $BENCH_OUT/startup.jsonl (one JSON object per line, also printed), logs in $BENCH_OUT/logs/startup-*.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
BENCH_OUT=${BENCH_OUT:-$BENCH_DIR/out}
DATA=${DATA:-/tmp/seaweedfs-rdma-scale}
AGENTS=${AGENTS:-4}
VOLUMES=${VOLUMES:-40}
NEEDLES=${NEEDLES:-20000000}
SIZE=${SIZE:-100}
RUNS=${RUNS:-5}
TLS=${TLS:-shm,tcp}
AGENT_PORT_BASE=${AGENT_PORT_BASE:-18615}
SIDECAR_PORT=${SIDECAR_PORT:-18181}
AGENT_JAVA_OPTS=${AGENT_JAVA_OPTS:--Xmx256m}     # each JVM's heap is the operator's (as in the image)
SIDECAR_JAVA_OPTS=${SIDECAR_JAVA_OPTS:--Xmx192m}
JAR=${JAR:-$ROOT/target/seaweedfs-rdma-sidecar.jar}
CDS=${CDS:-0}                          # 1: both roles start with the launcher's class-data archive (recorded here)

RESULTS=$BENCH_OUT/startup.jsonl
PER_VOLUME=$((NEEDLES / VOLUMES))
[ "$PER_VOLUME" -ge 1 ] || { echo "NEEDLES must be at least VOLUMES" >&2; exit 2; }
[ -f "$JAR" ] || { echo "no $JAR (mvn -B -o package -DskipTests)" >&2; exit 2; }
mkdir -p "$BENCH_OUT/logs" "$DATA"
source "$ROOT/bench/lib/proc.sh"    # wait_for_line, stop_pid
source "$ROOT/bench/lib/volumes.sh" # generate_volumes

record() { local line; while IFS= read -r line; do printf '%s\n' "$line" | tee -a "$RESULTS"; done; }
now_ms() { date +%s%3N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

PIDS=() AGENT_PIDS=()
stop_all() { local pid; for pid in "${PIDS[@]}"; do stop_pid "$pid"; done; PIDS=(); }
# On exit, a failed run's too: the agents the sidecar runs stand in front of are kept apart from PIDS.
stop_everything() { stop_all; PIDS=("${AGENT_PIDS[@]}"); stop_all; AGENT_PIDS=(); }
trap stop_everything EXIT

agent_conf() { # agent_conf I -> path of agent I's configuration
    local conf=$BENCH_OUT/startup-agent$1.yaml
    cat > "$conf" <<YAML
roles: [agent]
agent:
  listen: 127.0.0.1:$((AGENT_PORT_BASE + $1))
  volumeDirs: [$DATA/agent$1]
http:
  host: 127.0.0.1
  port: 0
ucx:
  tls: [${TLS//,/, }]
metrics:
  enabled: false
YAML
    echo "$conf"
}

# launch NAME OPTS CONF -> starts serve, sets PID and STARTED (ms); its log is logs/startup-NAME.log
launch() {
    : > "$BENCH_OUT/logs/startup-$1.log"
    STARTED=$(now_ms)
    # shellcheck disable=SC2086
    java $2 -jar "$JAR" serve --conf "$3" > "$BENCH_OUT/logs/startup-$1.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
}

# ready_ms NAME -> ms from launch to the "ready:" line (polled every 10 ms); sets CPU_MS, the process's CPU time
# by then (less bent by other work on the host than the wall time)
ready_ms() {
    local logf=$BENCH_OUT/logs/startup-$1.log
    until grep -q '^ready:' "$logf"; do
        kill -0 "$PID" 2> /dev/null || { echo "$1 died, see $logf:" >&2; tail -n 20 "$logf" >&2; return 1; }
        [ $(( $(now_ms) - STARTED )) -lt 600000 ] || { echo "$1 not ready within 600 s" >&2; return 1; }
        sleep 0.01
    done
    echo $(( $(now_ms) - STARTED ))
}
cpu_ms() { echo $(( $(cpu_ticks "$PID") * 1000 / $(getconf CLK_TCK) )); }

routed() { # routed: every agent up and every volume listed on the sidecar's /status
    curl -s "http://127.0.0.1:$SIDECAR_PORT/status" | python3 -c '
import json, sys
try:
    s = json.load(sys.stdin)
    ok = sum(1 for a in s["agents"] if a["state"] == "up") == int(sys.argv[1]) and len(s["volumes"]) == int(sys.argv[2])
except Exception:
    ok = False
sys.exit(0 if ok else 1)' "$AGENTS" "$VOLUMES"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

generate_volumes "$DATA" "$AGENTS" "$VOLUMES" "$PER_VOLUME" "$SIZE" "$JAR"
if [ "$CDS" = 1 ]; then # the archive the launcher records for the jar, as the image and run.sh serve have it
    archive=${JAR%.jar}.jsa
    JAVA_OPTS=$AGENT_JAVA_OPTS "$ROOT/bin/seaweedfs-rdma" --archive "$JAR" > /dev/null
    AGENT_JAVA_OPTS+=" -XX:SharedArchiveFile=$archive" SIDECAR_JAVA_OPTS+=" -XX:SharedArchiveFile=$archive"
fi
AGENT_NEEDLES=$((PER_VOLUME * $(find "$DATA/agent0" -name '*.idx' | wc -l)))
printf '{"kind":"startup_meta","agents":%d,"volumes":%d,"needles":%d,"agent_needles":%d,"runs":%d,"cds":%d,"nproc":%d,"load":"%s","commit":"%s"}\n' \
    "$AGENTS" "$VOLUMES" "$((PER_VOLUME * VOLUMES))" "$AGENT_NEEDLES" "$RUNS" "$CDS" "$(nproc)" "$(load)" \
    "$(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null || echo unknown)" | record

# ---- agent: a first start builds the index files, then RUNS starts over them ----
conf=$(agent_conf 0)
launch agent-first "$AGENT_JAVA_OPTS" "$conf"; first=$(ready_ms agent-first); cpu=$(cpu_ms); stop_all
printf '{"kind":"startup_agent","what":"first","needles":%d,"ready_ms":%d,"cpu_ms":%d,"load":"%s"}\n' \
    "$AGENT_NEEDLES" "$first" "$cpu" "$(load)" | record
agent_runs=() agent_cpu=()
for run in $(seq 1 "$RUNS"); do
    launch "agent-$run" "$AGENT_JAVA_OPTS" "$conf"; ms=$(ready_ms "agent-$run"); cpu=$(cpu_ms); stop_all
    agent_runs+=("$ms") agent_cpu+=("$cpu")
    printf '{"kind":"startup_agent","what":"restart","run":%d,"needles":%d,"ready_ms":%d,"cpu_ms":%d,"load":"%s"}\n' \
        "$run" "$AGENT_NEEDLES" "$ms" "$cpu" "$(load)" | record
done

# ---- sidecar: RUNS starts in front of every agent ----
agents=""
for i in $(seq 0 $((AGENTS - 1))); do
    launch "agents-$i" "$AGENT_JAVA_OPTS" "$(agent_conf "$i")"
    agents+="${agents:+, }127.0.0.1:$((AGENT_PORT_BASE + i))"
done
for i in $(seq 0 $((AGENTS - 1))); do
    wait_for_line "$BENCH_OUT/logs/startup-agents-$i.log" '^ready:' 1800 "${PIDS[$i]}"
done
AGENT_PIDS=("${PIDS[@]}")
sconf=$BENCH_OUT/startup-sidecar.yaml
cat > "$sconf" <<YAML
roles: [sidecar]
http:
  host: 127.0.0.1
  port: $SIDECAR_PORT
sidecar:
  agents: [$agents]
  fallback: []
ucx:
  tls: [${TLS//,/, }]
YAML
sidecar_runs=() routed_runs=() sidecar_cpu=()
for run in $(seq 1 "$RUNS"); do
    PIDS=()
    launch "sidecar-$run" "$SIDECAR_JAVA_OPTS" "$sconf"
    ms=$(ready_ms "sidecar-$run"); cpu=$(cpu_ms)
    until routed; do
        kill -0 "$PID" 2> /dev/null || { echo "sidecar died" >&2; exit 1; }
        sleep 0.01
    done
    routed_ms=$(( $(now_ms) - STARTED ))
    stop_all
    sidecar_runs+=("$ms") routed_runs+=("$routed_ms") sidecar_cpu+=("$cpu")
    printf '{"kind":"startup_sidecar","run":%d,"agents":%d,"needles":%d,"ready_ms":%d,"cpu_ms":%d,"routed_ms":%d,"load":"%s"}\n' \
        "$run" "$AGENTS" "$((PER_VOLUME * VOLUMES))" "$ms" "$cpu" "$routed_ms" "$(load)" | record
done
stop_everything
med() { printf '%s\n' "$@" | median; }
printf '{"kind":"startup_median","runs":%d,"agent_ready_ms":%d,"agent_cpu_ms":%d,"sidecar_ready_ms":%d,"sidecar_cpu_ms":%d,"sidecar_routed_ms":%d,"load":"%s"}\n' \
    "$RUNS" "$(med "${agent_runs[@]}")" "$(med "${agent_cpu[@]}")" "$(med "${sidecar_runs[@]}")" \
    "$(med "${sidecar_cpu[@]}")" "$(med "${routed_runs[@]}")" "$(load)" | record
