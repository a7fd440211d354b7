#!/usr/bin/env bash
# The fault drill and the soak (see bench/README.md, "Fault drill and soak"; results in docs/reliability.md).
#   bench/drill.sh            faults under HTTP load: kill -9 + restart of the agent, SIGSTOP/SIGCONT, truncation,
#                             and SIGSTOP/SIGCONT of one of four agents serving an erasure-coded volume's shards,
#                             then that agent's four shards deleted from disk (and put back)
#   bench/drill.sh soak       steady load at half capacity for DURATION; RSS, heap after GC and open fds over time
#   bench/drill.sh cluster    faults across hosts (network namespaces, root): cables out, a killed agent, a hung agent,
#                             a sidecar cut off from the master, a partial partition, a stopped EC shard agent,
#                             its shards deleted (lib/cluster.sh)
#   bench/drill.sh cluster-perf   throughput across hosts: sidecar against nginx on the agent's host (lib/cluster.sh)
# Agent and sidecar are separate `serve` processes; the load (lib/drill_checker.py) checks every byte of every
# answer against the plain files gen-volume --plain wrote. Stand-ins for a volume server (serving a replica of the
# volume) and its master are the live HTTP fallback (DRILL_HTTP_FALLBACK=0: read-through only, so reads while the
# agent is down or hung cannot be served and are counted as failed).
set -euo pipefail

DRILL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=run.sh
source "$DRILL_DIR/run.sh"      # settings, gen_volume, build_java, wait_for_line, stop_pid, rss/heap helpers

# shellcheck source=lib/cluster.sh
source "$BENCH_LIB/cluster.sh"

DRILL_OUT=${DRILL_OUT:-$BENCH_OUT/drill}
DRILL_TLS=${DRILL_TLS:-$TCP_TLS}                          # mapped volumes without RDMA: tcp (see conf/config.yaml)
DRILL_VOLUME_MEMORY=${DRILL_VOLUME_MEMORY:-mapped}        # the agent's default; ucx to drill the copies
DRILL_THREADS=${DRILL_THREADS:-8}                         # the checker's connections
DRILL_STEADY=${DRILL_STEADY:-10}                          # seconds of load before and after each event
DRILL_WARMUP=${DRILL_WARMUP:-5}                           # seconds of load, not counted, before the healthy phase
DRILL_STACKS=${DRILL_STACKS:-0}                           # 1: the sidecar's threads (jcmd) 0.5 s into each hang
DRILL_DOWN=${DRILL_DOWN:-2}                               # seconds between kill -9 and the restart
DRILL_HANG=${DRILL_HANG:-5}                               # seconds between SIGSTOP and SIGCONT
DRILL_TRUNCATED=${DRILL_TRUNCATED:-5}                     # seconds the .dat stays cut
DRILL_EC_DELETED=${DRILL_EC_DELETED:-10}                  # seconds the stopped EC agent's shards stay deleted
DURATION=${DURATION:-30m}                                 # soak length: 90, 90s, 30m, 2h
SOAK_SAMPLE=${SOAK_SAMPLE:-15}                            # seconds between soak samples
SOAK_PROBE=${SOAK_PROBE:-5}                               # seconds of full-speed load to find the capacity
DRILL_AGENT_PORT=${DRILL_AGENT_PORT:-18615}
DRILL_SIDECAR_PORT=${DRILL_SIDECAR_PORT:-18681}
DRILL_HTTP_FALLBACK=${DRILL_HTTP_FALLBACK:-1}             # 1: volume-server and master stand-ins, the HTTP fallback
DRILL_VS_PORT=${DRILL_VS_PORT:-18682}
DRILL_EC=${DRILL_EC:-1}                                   # 1: volume 11 erasure-coded 10 + 4 over four more agents
DRILL_EC_PORT=${DRILL_EC_PORT:-18616}                     # the EC agents listen on this port and the next three
# The shards each EC agent holds (one agent a line): the first, stopped by the drill, holds four, which the other
# agents' ten rebuild.
DRILL_EC_SHARDS=${DRILL_EC_SHARDS:-"0 1 2 3|4 5 6|7 8 9|10 11 12 13"}
EC_PIDS=()
DRILL_MASTER_PORT=${DRILL_MASTER_PORT:-18683}
CHECKER_PID=
STAND_IN_PIDS=()

now() { date +%s.%N; }

# mark NAME [SCOPE] — a drill event with its time, for drill_report.py; SCOPE ("*:/11,") names the reads the fault
# concerns (its latency, and the healthy figures it is set against), all by default.
mark() { printf '%s %s %s\n' "$(now)" "$1" "${2:-}" >> "$DRILL_OUT/events.txt"; log "event: $1"; }

# The reads of the drill's agent (volume 1), those of the EC volume (11).
PLAIN_SCOPE='*:/1,'
EC_SCOPE='*:/11,'

# agent_yaml PORT DIR — an agent's configuration: serving DIR's volumes on PORT.
agent_yaml() {
    cat <<YAML
roles: [agent]
agent:
  listen: 127.0.0.1:$1
  volumeDirs: [$2]
  volumeMemory: $DRILL_VOLUME_MEMORY
http:  # every role answers /health, /metrics: any free port, so several agents fit on one host
  host: 127.0.0.1
  port: 0
ucx:
  tls: $(yaml_list "$DRILL_TLS")
metrics:
  enabled: false
YAML
}

drill_agent() {
    agent_yaml "$DRILL_AGENT_PORT" "$DRILL_DATA" > "$DRILL_OUT/agent.yaml"
    # shellcheck disable=SC2086
    java $JAVA_OPTS $AGENT_JAVA_OPTS -jar "$JAR" serve --conf "$DRILL_OUT/agent.yaml" >> "$DRILL_OUT/logs/agent.log" 2>&1 &
    AGENT_PID=$!
}

# start_ec_agents — volume 11's shards split over four agents as DRILL_EC_SHARDS says (each with the .ecx, .ecj and
# .vif), each its own JVM on DRILL_EC_PORT + N; their pids in EC_PIDS, the first the one the drill stops.
start_ec_agents() {
    [ "$DRILL_EC" = 1 ] || return 0
    local n=0 shards dir log
    IFS='|' read -r -a shards <<< "$DRILL_EC_SHARDS"
    for n in "${!shards[@]}"; do
        dir=$DRILL_OUT/ec/$n
        ec_shard_dir "$dir" "${shards[$n]}"
        agent_yaml $((DRILL_EC_PORT + n)) "$dir" > "$DRILL_OUT/ec-agent-$n.yaml"
        log=$DRILL_OUT/logs/ec-agent-$n.log
        # shellcheck disable=SC2086
        java $JAVA_OPTS $AGENT_JAVA_OPTS -jar "$JAR" serve --conf "$DRILL_OUT/ec-agent-$n.yaml" > "$log" 2>&1 &
        EC_PIDS+=($!)
        wait_ready $! "$log" 0
    done
}

# ec_shard_dir DIR SHARDS — DIR afresh with volume 11's .ecx, .ecj and .vif and the shards SHARDS lists ("0 1 2 3").
ec_shard_dir() {
    local dir=$1 id
    rm -rf "$dir"; mkdir -p "$dir"
    cp "$BENCH_DATA/volumes/11.ecx" "$BENCH_DATA/volumes/11.ecj" "$BENCH_DATA/volumes/11.vif" "$dir/" 2> /dev/null || true
    for id in $2; do
        cp "$BENCH_DATA/volumes/11.ec$(printf '%02d' "$id")" "$dir/"
    done
}

# ec_shards_gone DIR SHARDS — the shards SHARDS lists ("0 1 2 3") deleted from DIR: the agent serving DIR drops them
# at its next poll and sidecars rebuild their bytes from the other shards. ec_shards_back DIR SHARDS copies them back.
ec_shards_gone() {
    local id
    for id in $2; do rm -f "$1/11.ec$(printf '%02d' "$id")"; done
}

ec_shards_back() {
    local id name
    for id in $2; do
        name=11.ec$(printf '%02d' "$id")
        # Written aside and renamed: the agent takes a shard that appears with its full size.
        cp "$BENCH_DATA/volumes/$name" "$1/.$name" && mv "$1/.$name" "$1/$name"
    done
}

# drill_agents — the sidecar's agents: the drill's agent, then the EC agents (the stopped one first: its reads look
# needles up there, so a stop hangs the lookups too).
drill_agents() {
    local list="127.0.0.1:$DRILL_AGENT_PORT" n
    for n in "${!EC_PIDS[@]}"; do list="$list, 127.0.0.1:$((DRILL_EC_PORT + n))"; done
    printf '[%s]' "$list"
}

# ready_count LOG — "ready:" lines in a log (0 when it does not exist yet).
ready_count() { local n; n=$(grep -c '^ready:' "$1" 2> /dev/null) || true; echo "${n:-0}"; }

# wait_ready PID LOG BEFORE — until the process's log has more "ready:" lines than BEFORE (50 ms polls).
wait_ready() {
    local pid=$1 log=$2 before=$3 deadline=$((SECONDS + 60))
    until [ "$(ready_count "$log")" -gt "$before" ]; do
        kill -0 "$pid" 2> /dev/null || { echo "process $pid died, see $log" >&2; tail -n 20 "$log" >&2; return 1; }
        [ $SECONDS -lt $deadline ] || { echo "not ready within 60 s, see $log" >&2; return 1; }
        sleep 0.05
    done
}

# no_relaunch PID — the drill signals PID: it must be the serving JVM, with no child process of its own.
no_relaunch() {
    # ucx_info, which serve runs at start-up to report UCX's settings, may still run then: it is no relaunch.
    if pgrep -P "$1" | xargs -r -n1 ps -o comm= -p | grep -qvx ucx_info; then
        echo "process $1 started a child process: serve must run in the JVM launched" >&2
        return 1
    fi
}

# start_drill_agent — the agent on its port. Right after a kill -9 the port may still be held (UCX reports "Device
# is busy" while the dead agent's sockets drain, even with UCX_TCP_CM_REUSEADDR=y): retry, as an operator would; the
# "reachable" mark is set when it is ready, so the wait does not count against the recovery.
start_drill_agent() {
    local before tries=0
    while :; do
        before=$(ready_count "$DRILL_OUT/logs/agent.log")
        drill_agent
        if wait_ready "$AGENT_PID" "$DRILL_OUT/logs/agent.log" "$before" 2> /dev/null; then
            no_relaunch "$AGENT_PID"
            [ $tries -eq 0 ] || log "agent: listening after $tries retries (port still held)"
            return 0
        fi
        tries=$((tries + 1))
        if [ $tries -ge 300 ] || ! tail -n 3 "$DRILL_OUT/logs/agent.log" | grep -q 'cannot listen'; then
            echo "the agent did not start, see $DRILL_OUT/logs/agent.log" >&2
            return 1
        fi
        sleep 0.2
    done
}

# start_stand_ins — a volume server serving a replica of the volume (its own copy: the drill cuts the agent's) and
# the master that lists it (test classes: StandInMain, compiled by the build's `package -DskipTests`). With the EC
# volume, the volume server answers for it too, as one holding its shards would: the same needles as a plain
# volume (gen-volume writes the same ones for the same arguments), and the master lists it there.
start_stand_ins() {
    [ "$DRILL_HTTP_FALLBACK" = 1 ] || return 0
    local replica=$DRILL_OUT/replica locations=("1=127.0.0.1:$DRILL_VS_PORT")
    rm -rf "$replica"; mkdir -p "$replica"
    cp "$DRILL_DATA/1.dat" "$DRILL_DATA/1.idx" "$replica/"
    if [ "$DRILL_EC" = 1 ]; then
        # shellcheck disable=SC2086
        java $JAVA_OPTS -jar "$JAR" gen-volume "$replica" --vid 11 --count "$COUNT_4K" --size 4096 > /dev/null
        locations+=("11=127.0.0.1:$DRILL_VS_PORT")
    fi
    local_stand_in volume-server "127.0.0.1:$DRILL_VS_PORT" "$replica"
    local_stand_in master "127.0.0.1:$DRILL_MASTER_PORT" "${locations[@]}"
}

# local_stand_in ROLE ARGS... — one stand-in on this host in the background, until ready; its pid joins
# STAND_IN_PIDS.
local_stand_in() {
    local log=$DRILL_OUT/logs/$1.log
    # shellcheck disable=SC2086
    java $JAVA_OPTS -cp "$ROOT/target/test-classes:$JAVA_CP" org.seaweedfs.rdma.testing.StandInMain "$@" > "$log" 2>&1 &
    STAND_IN_PIDS+=($!)
    wait_ready $! "$log" 0
}

# The fallbacks of the sidecar's YAML: read-through, then the volume server through the master when it runs.
drill_fallbacks() {
    if [ "$DRILL_HTTP_FALLBACK" = 1 ]; then
        printf '  master: 127.0.0.1:%s\n  fallback: [read-through, http]\n' "$DRILL_MASTER_PORT"
    else
        printf '  fallback: [read-through]\n'
    fi
}

start_drill_sidecar() {
    cat > "$DRILL_OUT/sidecar.yaml" <<YAML
roles: [sidecar]
http:
  host: 127.0.0.1
  port: $DRILL_SIDECAR_PORT
sidecar:
  agents: $(drill_agents)
$(drill_fallbacks)
ucx:
  tls: $(yaml_list "$DRILL_TLS")
metrics:
  enabled: true
YAML
    # shellcheck disable=SC2086
    java $JAVA_OPTS $SIDECAR_JAVA_OPTS -jar "$JAR" serve --conf "$DRILL_OUT/sidecar.yaml" > "$DRILL_OUT/logs/sidecar.log" 2>&1 &
    SIDECAR_PID=$!
    wait_ready "$SIDECAR_PID" "$DRILL_OUT/logs/sidecar.log" 0
    no_relaunch "$SIDECAR_PID"
    wait_for_rdma "$DRILL_SIDECAR_PORT" 60
}

# start_checker OUT [extra options] — the byte-checking load in the background; sets CHECKER_PID.
start_checker() {
    local out=$1; shift
    local paths=("$BENCH_DATA/vid1.paths")
    [ "$DRILL_EC" = 1 ] && paths+=("$BENCH_DATA/vid11.paths")
    python3 "$BENCH_LIB/drill_checker.py" --base "http://127.0.0.1:$DRILL_SIDECAR_PORT" --plain "$BENCH_DATA/plain" \
        --out "$out" "$@" "${paths[@]}" > "$out.summary" &
    CHECKER_PID=$!
}

stop_checker() {
    [ -n "$CHECKER_PID" ] || return 0
    kill -TERM "$CHECKER_PID" 2> /dev/null || true
    wait "$CHECKER_PID" || true
    CHECKER_PID=
}

cleanup() {
    stop_checker
    [ -n "${AGENT_PID:-}" ] && kill -CONT "$AGENT_PID" 2> /dev/null || true
    stop_pid "${SIDECAR_PID:-}"; SIDECAR_PID=
    stop_pid "${AGENT_PID:-}"; AGENT_PID=
    local pid
    for pid in "${EC_PIDS[@]}"; do kill -CONT "$pid" 2> /dev/null || true; stop_pid "$pid"; done
    EC_PIDS=()
    for pid in "${STAND_IN_PIDS[@]}"; do stop_pid "$pid"; done
    STAND_IN_PIDS=()
    if [ -f "$DRILL_OUT/1.dat.orig" ]; then   # a run cut short mid-truncation: put the volume back
        cp "$DRILL_OUT/1.dat.orig" "$DRILL_DATA/1.dat"
    fi
}

# Volume 1 (COUNT_4K x 4 KiB) copied to a directory of its own: the drill truncates it.
prepare() {
    local t
    for t in java jcmd python3 curl truncate dd; do
        command -v "$t" > /dev/null || { echo "missing: $t" >&2; exit 1; }
    done
    find_report_python
    build_java
    mkdir -p "$BENCH_DATA" "$DRILL_OUT/logs"
    rm -f "$DRILL_OUT"/events.txt "$DRILL_OUT"/logs/*.log
    gen_volume 1 4096 "$COUNT_4K"
    [ "$DRILL_EC" = 1 ] && gen_volume 11 4096 "$COUNT_4K" --ec
    DRILL_DATA=$DRILL_OUT/volumes
    rm -rf "$DRILL_DATA"; mkdir -p "$DRILL_DATA"
    cp "$BENCH_DATA/volumes/1.dat" "$BENCH_DATA/volumes/1.idx" "$DRILL_DATA/"
    trap cleanup EXIT
    start_stand_ins
    start_drill_agent
    start_ec_agents
    start_drill_sidecar
}

# sidecar_stacks NAME — with DRILL_STACKS=1, the sidecar's threads half a second into a fault, in logs/NAME.stacks.
sidecar_stacks() {
    [ "$DRILL_STACKS" = 1 ] || return 0
    sleep 0.5
    jcmd "$SIDECAR_PID" Thread.print > "$DRILL_OUT/logs/$1.stacks" 2>&1 || true
}

# hedge_meters — the sidecar's hedge and deadline meters, for drill_report.py.
hedge_meters() {
    curl -s "http://127.0.0.1:$DRILL_SIDECAR_PORT/metrics" \
        | grep -E '^seaweedfs_rdma_(hedges_|hedge_delay|reads_past_deadline)' > "$DRILL_OUT/hedges.txt" || true
}

run_drill() {
    prepare
    python3 -c 'import json, os; print(json.dumps({"kind": "meta", "loadavg_at_start": os.getloadavg()[0], "cpus": os.cpu_count()}))' \
        > "$DRILL_OUT/meta.json"
    # Warm-up: every agent's connection and the JIT settle before the healthy figures the faults are set against.
    start_checker "$DRILL_OUT/warmup.txt" --threads "$DRILL_THREADS" --seconds "$DRILL_WARMUP"
    wait "$CHECKER_PID" || true
    start_checker "$DRILL_OUT/reads.txt" --threads "$DRILL_THREADS"
    mark start
    sleep "$DRILL_STEADY"

    mark kill "$PLAIN_SCOPE"                        # the agent dies at once, its connections with it
    kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2> /dev/null || true
    sleep "$DRILL_DOWN"
    start_drill_agent                               # same port (UCX_TCP_CM_REUSEADDR=y, set by run.sh)
    mark kill.reachable
    sleep "$DRILL_STEADY"

    mark hang "$PLAIN_SCOPE"                        # the agent stops answering; its sockets stay open
    kill -STOP "$AGENT_PID"
    sidecar_stacks hang
    sleep "$DRILL_HANG"
    kill -CONT "$AGENT_PID"
    mark hang.reachable
    sleep "$DRILL_STEADY"

    local dat=$DRILL_DATA/1.dat size
    size=$(stat -c %s "$dat")
    cp "$dat" "$DRILL_OUT/1.dat.orig"
    mark truncate "$PLAIN_SCOPE"                    # in place: the same inode, the agent's mappings see the cut
    truncate -s $((size / 2)) "$dat"
    sleep "$DRILL_TRUNCATED"
    kill -0 "$AGENT_PID" 2> /dev/null && echo alive > "$DRILL_OUT/agent-after-truncation" \
        || echo dead > "$DRILL_OUT/agent-after-truncation"
    dd if="$DRILL_OUT/1.dat.orig" of="$dat" bs=1M conv=notrunc status=none   # the same bytes back, in place
    rm -f "$DRILL_OUT/1.dat.orig"
    mark truncate.reachable
    sleep "$DRILL_STEADY"

    if [ "$DRILL_EC" = 1 ]; then
        mark ec-hang "$EC_SCOPE"                    # an agent holding four of the EC volume's shards stops
        kill -STOP "${EC_PIDS[0]}"
        sidecar_stacks ec-hang
        sleep "$DRILL_HANG"
        kill -CONT "${EC_PIDS[0]}"
        mark ec-hang.reachable
        sleep "$DRILL_STEADY"

        mark ec-deleted "$EC_SCOPE"                 # the same agent's four shards go from disk; it keeps running
        ec_shards_gone "$DRILL_OUT/ec/0" "${DRILL_EC_SHARDS%%|*}"
        sleep "$DRILL_EC_DELETED"
        ec_shards_back "$DRILL_OUT/ec/0" "${DRILL_EC_SHARDS%%|*}"
        mark ec-deleted.reachable
        sleep "$DRILL_STEADY"
    fi

    mark end
    stop_checker
    hedge_meters
    kill -0 "$AGENT_PID" 2> /dev/null && echo alive > "$DRILL_OUT/agent-at-end" || echo dead > "$DRILL_OUT/agent-at-end"
    cleanup
    trap - EXIT
    "$REPORT_PYTHON" "$DRILL_DIR/drill_report.py" drill "$DRILL_OUT"
}

# seconds DURATION — 90, 90s, 30m, 2h as seconds.
seconds() {
    case $1 in
        *h) echo $(( ${1%h} * 3600 )) ;;
        *m) echo $(( ${1%m} * 60 )) ;;
        *s) echo "${1%s}" ;;
        *) echo "$1" ;;
    esac
}

# sample NAME PID — one soak sample of a process: RSS, heap in use after a full GC, open file descriptors.
sample() {
    printf '{"t":%s,"process":"%s","rss_mib":%s,"heap_after_gc_mib":%s,"fds":%s}\n' "$(now)" "$1" \
        "$(rss_mib "$2")" "$(heap_used_mib "$2" gc)" "$(ls "/proc/$2/fd" | wc -l)" >> "$DRILL_OUT/soak.jsonl"
}

run_soak() {
    local total
    total=$(seconds "$DURATION")
    prepare
    rm -f "$DRILL_OUT/soak.jsonl"
    log "soak: capacity probe, ${SOAK_PROBE}s at full speed ($DRILL_THREADS connections)"
    python3 "$BENCH_LIB/drill_checker.py" --base "http://127.0.0.1:$DRILL_SIDECAR_PORT" --plain "$BENCH_DATA/plain" \
        --out "$DRILL_OUT/probe.txt" --threads "$DRILL_THREADS" --seconds "$SOAK_PROBE" "$BENCH_DATA/vid1.paths" \
        > "$DRILL_OUT/probe.summary"
    local rate
    rate=$(python3 -c 'import json, sys; print(max(1.0, json.load(open(sys.argv[1]))["reads_s"] / 2))' "$DRILL_OUT/probe.summary")
    log "soak: ${total}s at $rate reads/s (half of the probe's rate), a sample every ${SOAK_SAMPLE}s"
    echo "{\"capacity_reads_s\": $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["reads_s"])' "$DRILL_OUT/probe.summary"), \"rate\": $rate, \"duration_s\": $total}" \
        > "$DRILL_OUT/soak-meta.json"
    start_checker "$DRILL_OUT/soak-reads.txt" --threads "$DRILL_THREADS" --rate "$rate"
    local end=$((SECONDS + total))
    while :; do
        sample sidecar "$SIDECAR_PID"
        sample agent "$AGENT_PID"
        [ $SECONDS -lt $end ] || break
        sleep "$(( SOAK_SAMPLE < end - SECONDS ? SOAK_SAMPLE : end - SECONDS ))"
    done
    stop_checker
    cleanup
    trap - EXIT
    "$REPORT_PYTHON" "$DRILL_DIR/drill_report.py" soak "$DRILL_OUT"
}

case ${1:-drill} in
    drill) run_drill ;;
    soak) run_soak ;;
    cluster) run_cluster_drill ;;
    cluster-perf) run_cluster_perf ;;
    *) echo "usage: bench/drill.sh [drill|soak|cluster|cluster-perf]" >&2; exit 2 ;;
esac
