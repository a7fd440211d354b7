#!/usr/bin/env bash
# One benchmark run: the project beside its peers on this machine (see bench/README.md).
# Results: $BENCH_OUT/results.jsonl (one JSON object per line), report.md and PNG plots beside it.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export BENCH_OUT=${BENCH_OUT:-$BENCH_DIR/out}
export WRK_SECONDS=${WRK_SECONDS:-10}
NGINX_PORT=${NGINX_PORT:-18080}
NGINX_WORKERS=${NGINX_WORKERS:-1 2}   # nginx is measured with each; the report compares with its best per workload
C_SIZES=${C_SIZES:-4K,64K,1M}
C_ARGS=${C_ARGS:-}                                         # extra ucp_get_bench options
TCP_TLS=${TCP_TLS:-tcp}

ROOT=$(cd "$BENCH_DIR/.." && pwd)
JAVA_CP=                                 # the bench mains (bench/java) and the jar; set by build_java
JAVA_GET_ARGS=${JAVA_GET_ARGS:-}         # extra UcxGetBenchMain options
AGENT_PORT_BASE=${AGENT_PORT:-18515}        # the first agent's port; later starts take the next ones
SIDECAR_PORT=${SIDECAR_PORT:-18081}
EVENTBUS_CONCURRENCY=${EVENTBUS_CONCURRENCY:-64}
CPU_CONNS=${CPU_CONNS:-16}
CPU_WARMUP_SECONDS=${CPU_WARMUP_SECONDS:-3}
SIDECAR_WARMUP_SECONDS=${SIDECAR_WARMUP_SECONDS:-20}   # per sidecar start, before anything is measured
PAIR_ROUNDS=${PAIR_ROUNDS:-6}            # sidecar step: rounds alternated with nginx per throughput target (0: none)
PAIR_SECONDS=${PAIR_SECONDS:-4}          # each side's wrk run in a round
MEMORY_CONNS=${MEMORY_CONNS:-1000}
HEAP_READS=${HEAP_READS:-10000000}
HEAP_CHECK_SECONDS=${HEAP_CHECK_SECONDS:-30}
RESULTS=$BENCH_OUT/results.jsonl
source "$BENCH_DIR/lib/http.sh"
source "$BENCH_DIR/lib/proc.sh"
source "$BENCH_DIR/lib/mains.sh"
source "$BENCH_DIR/lib/serve.sh"

check_tools() {
    local missing=()
    for t in gcc make nginx wrk curl python3 java jcmd mvn; do command -v "$t" > /dev/null || missing+=("$t"); done
    [ -e /usr/include/ucp/api/ucp.h ] || missing+=("libucx-dev")
    if [ ${#missing[@]} -gt 0 ]; then
        echo "missing: ${missing[*]} (Debian: apt-get install -y gcc make nginx wrk curl python3 libucx-dev ucx-utils)" >&2
        exit 1
    fi
    find_report_python
}

# Sets REPORT_PYTHON: a python3 with matplotlib when there is one.
find_report_python() {
    # Debian's python3-matplotlib lives in /usr/bin/python3's path, which a pyenv python3 does not see.
    REPORT_PYTHON=python3
    if ! python3 -c 'import matplotlib' 2> /dev/null; then
        if /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
            REPORT_PYTHON=/usr/bin/python3
        else
            echo "note: matplotlib is missing, the report will have no plots; install it with: apt-get install -y python3-matplotlib" >&2
        fi
    fi
}

# The machine and the moment: numbers from a loaded box are not comparable, so the load is recorded.
record_meta() {
    python3 - "$@" <<'PY' | record
import json, os, platform, subprocess, time
def out(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
        return (r.stdout + r.stderr).strip().splitlines()[0]
    except Exception as e:
        return f"unavailable: {e}"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(json.dumps({"kind": "meta", "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "host": platform.node(),
                  "cpus": os.cpu_count(), "cpu": cpu, "kernel": platform.release(),
                  "loadavg_at_start": os.getloadavg()[0],
                  "ucx": out(["ucx_info", "-v"]).replace("# ", ""), "nginx": out(["nginx", "-v"]),
                  "wrk": out(["wrk", "--version"]), "wrk_seconds": int(os.environ["WRK_SECONDS"])}))
PY
}

# ---------- the raw get path: C reference ----------

run_c_get() {
    log "C ucp get: build"
    make -s -C "$BENCH_DIR" OUT="$BENCH_OUT" > /dev/null
    local tls mem
    for tls in "$SHM_TLS" "$TCP_TLS"; do
        for mem in file ucx; do
            log "C ucp get: UCX_TLS=$tls mem=$mem sizes=$C_SIZES"
            # shellcheck disable=SC2086
            "$BENCH_OUT/ucp_get_bench" --tls "$tls" --mem "$mem" --sizes "$C_SIZES" --dir "$BENCH_DATA" $C_ARGS | record
            hook_java_get "$tls" "$mem" "$C_SIZES"
        done
    done
}

# ---------- HTTP: nginx serving the same bytes as plain files ----------

# http_suite IMPL URL_BASE — the HTTP workloads, against any server holding the data.
# http_suite IMPL BASE [VID_4K VID_1M] — the four wrk runs over the volumes' paths (default volumes 1 and 2).
http_suite() {
    local impl=$1 base=$2 small=$BENCH_DATA/vid${3:-1}.paths large=$BENCH_DATA/vid${4:-2}.paths
    http_verify "$base" "$small" "$BENCH_DATA/plain"
    http_verify "$base" "$large" "$BENCH_DATA/plain"
    log "$impl: 4 KiB, 64 connections";   wrk_measure "$impl" 4096 64 "$base" "$small" | record
    log "$impl: 1 MiB, 8 connections";    wrk_measure "$impl" 1048576 8 "$base" "$large" | record
    log "$impl: 4 KiB, 1 connection";     wrk_measure "$impl" 4096 1 "$base" "$small" | record
    log "$impl: 1 MiB, 1 connection";     wrk_measure "$impl" 1048576 1 "$base" "$large" | record
}

run_nginx() {
    local prefix=$BENCH_OUT/nginx workers
    for workers in $NGINX_WORKERS; do
        log "nginx: $workers worker(s) on 127.0.0.1:$NGINX_PORT"
        nginx_start "$BENCH_DATA/plain" "$NGINX_PORT" "$workers" "$prefix"
        trap 'nginx_stop "$BENCH_OUT/nginx"' EXIT
        RECORD_TAG="\"workers\":$workers" http_suite nginx "http://127.0.0.1:$NGINX_PORT"
        nginx_stop "$prefix"
        trap - EXIT
    done
}

# run_vertx_static — the framework's ceiling: bench/peers/VertxStaticHttp.java, a bare Vert.x server (the sidecar's jar,
# its HTTP server options and instance count) answering the same plain files from memory: no volume, UCX or metrics.
run_vertx_static() {
    local port=$((NGINX_PORT + 1))
    log "vertx-static: bare Vert.x HTTP, $(http_instances) instance(s), on 127.0.0.1:$port"
    PEER_PID=
    trap 'stop_pid "$PEER_PID"' EXIT
    start_vertx_peer vertx-static "$port"
    wrk_requests_at "$port" 64 "$SIDECAR_WARMUP_SECONDS" "$BENCH_DATA/vid1.paths" > /dev/null  # JIT, as the sidecar's
    http_suite vertx-static "http://127.0.0.1:$port"
    stop_pid "$PEER_PID"
    trap - EXIT
}

# ---------- hooks: the project's side, plugged in when the read path exists ----------
# Each hook prints JSON lines (through `record`) or says on stderr that it is not wired yet.
# Field names shared with the peers make report.py pair them: see bench/README.md.

# hook_java_get TLS MEM SIZES — the Java get path (UcxGetBenchMain: UcxChannel.get between two UcxWorkerVerticles
# of one JVM, completed on the caller's event loop) for the same UCX_TLS and memory kind as the C run before it.
hook_java_get() {
    log "Java ucp get: UCX_TLS=$1 mem=$2 sizes=$3"
    # shellcheck disable=SC2086
    java $JAVA_OPTS -cp "$JAVA_CP" org.seaweedfs.rdma.ucx.UcxGetBenchMain --tls "$1" --mem "$2" --sizes "$3" \
        --dir "$BENCH_DATA" $JAVA_GET_ARGS 2>> "$BENCH_OUT/logs/java-get.log" | record
}

# ---------- the project's processes: agent and sidecar started with `serve`, each its own JVM ----------

stop_servers() {
    stop_pid "${SIDECAR_PID:-}"; SIDECAR_PID=
    stop_pid "${AGENT_PID:-}"; AGENT_PID=
}

rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
# The process's own resident memory (RssAnon + RssFile): VmRSS without RssShmem, the shared memory it attached: with
# agent.volumeMemory ucx, the agent's volume copies the sidecar reads one-sidedly (the agent's pages, counted in the
# RSS of every process that touched them).
rss_private_mib() { awk '/^RssAnon:|^RssFile:/ { kb += $2 } END { printf "%.1f", kb / 1024 }' "/proc/$1/status"; }
rss_shmem_mib() { awk '/^RssShmem:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# heap_used_mib PID [gc] — heap in use (jcmd GC.heap_info), after a full GC when asked.
heap_used_mib() {
    [ "${2:-}" = gc ] && jcmd "$1" GC.run > /dev/null
    jcmd "$1" GC.heap_info | awk '/ used / { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?/, "", v); printf "%.1f", v / 1024; exit } }'
}

# wrk_requests CONNS SECONDS PATHS — one wrk run against the sidecar; prints "<requests answered> <errors>"
# (errors: socket errors, wrk's 2 s timeouts and non-2xx answers).
wrk_requests() {
    wrk_requests_at "$SIDECAR_PORT" "$@"
}

# wrk_requests_at PORT CONNS SECONDS PATHS — the same against any port.
wrk_requests_at() {
    wrk -t1 -c"$2" -d"$3s" -s "$BENCH_LIB/random_path.lua" "http://127.0.0.1:$1/" -- "$4" 2>&1 \
        | sed -n 's/^WRK_JSON //p' | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["requests"], r["errors"] + r["non_2xx"])'
}

# warm_sidecar — a fresh JVM compiles its hot paths during its first seconds of load: measure the steady state.
warm_sidecar() {
    log "sidecar warm-up: ${SIDECAR_WARMUP_SECONDS}s of 4 KiB at 64 connections, half that of 1 MiB at 8"
    wrk_requests 64 "$SIDECAR_WARMUP_SECONDS" "$BENCH_DATA/vid1.paths" > /dev/null
    wrk_requests 8 "$((SIDECAR_WARMUP_SECONDS / 2))" "$BENCH_DATA/vid2.paths" > /dev/null
}

# hook_sidecar_http CONFIG — agent and sidecar (separate processes) on the volumes whose bytes nginx served as plain
# files; the CPU each spent per request is recorded beside each wrk line (agent_us_per_req, sidecar_us_per_req).
hook_sidecar_http() {
    log "sidecar ($1): agent + sidecar, HTTP on 127.0.0.1:$SIDECAR_PORT"
    trap stop_servers EXIT
    start_agent "$1"
    start_sidecar "$1"
    log "the agent's start-up choice: $(grep -o 'UCX progress of the agent.*' "$BENCH_OUT/logs/agent.log" | head -n1)"
    warm_sidecar
    local base="http://127.0.0.1:$SIDECAR_PORT" shape size conns list a0 s0
    http_verify "$base" "$BENCH_DATA/vid1.paths" "$BENCH_DATA/plain"
    http_verify "$base" "$BENCH_DATA/vid2.paths" "$BENCH_DATA/plain"
    for shape in 4096:64 1048576:8 4096:1 1048576:1; do
        size=${shape%:*} conns=${shape#*:}
        list=$BENCH_DATA/vid1.paths; [ "$size" = 4096 ] || list=$BENCH_DATA/vid2.paths
        log "sidecar ($1): $size B, $conns connection(s)"
        a0=$(cpu_ticks "$AGENT_PID"); s0=$(cpu_ticks "$SIDECAR_PID")
        wrk_measure sidecar "$size" "$conns" "$base" "$list" | with_cpu "$a0" "$s0" | record
    done
    [ "$PAIR_ROUNDS" -gt 0 ] && pair_with_nginx "$1" "$base"
    stop_servers
    trap - EXIT
}

# pair_with_nginx CONFIG URL_BASE — the throughput workloads (4 KiB at 64 connections, 1 MiB at 8) in rounds
# alternated with nginx (bench/pair.sh), nginx at the worker count this run's http step found best for the workload
# (1 for 4 KiB, 2 for 1 MiB where the http step did not run): both see the machine at nearly the same time, which
# steadies their ratio on a host whose speed moves within minutes. Records {"kind":"pair",...}.
pair_with_nginx() {
    local config=$1 base=$2 shape size conns list workers port=$((NGINX_PORT + 2)) prefix=$BENCH_OUT/nginx-pair out
    for shape in 4096:64 1048576:8; do
        size=${shape%:*} conns=${shape#*:}
        list=$BENCH_DATA/vid1.paths; [ "$size" = 4096 ] || list=$BENCH_DATA/vid2.paths
        workers=$(python3 -c 'import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
runs = [r for r in runs if r.get("impl") == "nginx" and r.get("kind") == "http" and r.get("size") == int(sys.argv[2])
        and r.get("conns") == int(sys.argv[3]) and r.get("workers")]
print(max(runs, key=lambda r: r["req_s"])["workers"] if runs else (1 if sys.argv[2] == "4096" else 2))' \
            "$RESULTS" "$size" "$conns")
        log "sidecar ($config): $size B, $conns connections, $PAIR_ROUNDS rounds alternated with nginx ($workers worker(s))"
        nginx_start "$BENCH_DATA/plain" "$port" "$workers" "$prefix"
        trap 'nginx_stop "$BENCH_OUT/nginx-pair"; stop_servers' EXIT
        out=$(ROUNDS=$PAIR_ROUNDS SECONDS_EACH=$PAIR_SECONDS CONNS=$conns WARMUP=$PAIR_SECONDS \
            "$BENCH_DIR/pair.sh" nginx "http://127.0.0.1:$port" sidecar "$base" "$list") \
            || { nginx_stop "$prefix"; echo "pair.sh failed: $out" >&2; return 1; }
        nginx_stop "$prefix"
        trap stop_servers EXIT
        printf '%s\n' "$out" > "$BENCH_OUT/logs/pair-$config-$size-c$conns.txt"
        sed -n 's/^PAIR_JSON //p' <<< "$out" | python3 -c 'import json, sys
r = json.loads(sys.stdin.read())
print(json.dumps({"impl": "sidecar", "kind": "pair", "size": int(sys.argv[1]), "conns": r["conns"],
                  "nginx_workers": int(sys.argv[2]), "rounds": r["rounds"], "nginx_req_s": r["a_req_s"],
                  "sidecar_req_s": r["b_req_s"], "ratio_req_s": r["ratio_req_s"], "round_ratios": r["round_ratios"],
                  "sidecar_ahead": r["b_ahead"], "errors": r["errors"]}))' "$size" "$workers" | record
    done
}

# with_cpu AGENT_TICKS0 SIDECAR_TICKS0 — adds to a wrk line (stdin) each process's CPU per request since the given
# ticks, read once the line is in (the wrk warm-up inside wrk_measure is counted as requests at the same rate).
with_cpu() {
    local line a1 s1
    line=$(cat); a1=$(cpu_ticks "$AGENT_PID"); s1=$(cpu_ticks "$SIDECAR_PID")
    python3 -c 'import json, os, sys
r = json.loads(sys.argv[1]); hz = os.sysconf("SC_CLK_TCK")
n = r["requests"] * (1 + float(sys.argv[4]) / r["duration_s"])
r["agent_us_per_req"] = round(int(sys.argv[2]) * 1e6 / hz / n, 2)
r["sidecar_us_per_req"] = round(int(sys.argv[3]) * 1e6 / hz / n, 2)
print(json.dumps(r))' "$line" "$((a1 - $1))" "$((s1 - $2))" "${WRK_WARMUP_SECONDS:-2}"
}

# hook_eventbus CONFIG — the sidecar embedded in the bench's JVM (SeaweedRdma.deploy), its agent another process; the
# event-bus requests come from an event loop other than the consumer's (what an application's own verticle gets),
# then SeaweedRdma.client() reads from a verticle's own event loop (kind client).
hook_eventbus() {
    log "event bus ($1): sidecar in the bench JVM, agent a process"
    trap stop_servers EXIT
    start_agent "$1"
    sidecar_conf "$1" "$((SIDECAR_PORT + 1))" "$BENCH_OUT/eventbus-sidecar.yaml"  # its HTTP API idles
    # shellcheck disable=SC2086
    java $JAVA_OPTS $SIDECAR_JAVA_OPTS $EMBEDDED_JAVA_OPTS -cp "$JAVA_CP" org.seaweedfs.rdma.eventbus.EventBusBenchMain \
        --conf "$BENCH_OUT/eventbus-sidecar.yaml" --plain "$BENCH_DATA/plain" --seconds "$WRK_SECONDS" \
        --concurrency "$EVENTBUS_CONCURRENCY" --requester other-loop --warmup-seconds "$SIDECAR_WARMUP_SECONDS" "$BENCH_DATA/vid1.paths" "$BENCH_DATA/vid2.paths" \
        2>> "$BENCH_OUT/logs/eventbus.log" | record
    stop_servers
    trap - EXIT
}

# hook_ec CONFIG — erasure-coded reads against plain-volume reads in one agent + sidecar run: volumes 11 (4 KiB) and 12
# (1 MiB) are the same sizes as 1 and 2, erasure-coded 10 + 4 by gen-volume --ec (SeaweedFS's layout, real block
# sizes: each needle's record is read from its data shards, one get per shard interval). Records impl "sidecar-ec"
# and, for the same run, "sidecar-dat".
hook_ec() {
    gen_volume 11 4096 "$COUNT_4K" --ec
    gen_volume 12 1048576 "$COUNT_1M" --ec
    log "ec ($1): agent + sidecar, EC volumes 11/12 against plain volumes 1/2"
    trap stop_servers EXIT
    start_agent "$1"
    start_sidecar "$1"
    warm_sidecar
    http_suite sidecar-ec "http://127.0.0.1:$SIDECAR_PORT" 11 12
    http_suite sidecar-dat "http://127.0.0.1:$SIDECAR_PORT"
    stop_servers
    trap - EXIT
}

# hook_agent_cpu CONFIG — agent process CPU (utime+stime, all threads) over a wrk run through the sidecar, per read.
hook_agent_cpu() {
    local config=$1 size list t0 t1 reads errors
    trap stop_servers EXIT
    log "agent CPU: configuration $config"
    start_agent "$config"
    start_sidecar "$config"
    warm_sidecar
    for size in 4096 1048576; do
        list=$BENCH_DATA/vid1.paths; [ "$size" = 4096 ] || list=$BENCH_DATA/vid2.paths
        wrk_requests "$CPU_CONNS" "$CPU_WARMUP_SECONDS" "$list" > /dev/null # JIT of both fresh JVMs
        t0=$(cpu_ticks "$AGENT_PID")
        read -r reads errors < <(wrk_requests "$CPU_CONNS" "$WRK_SECONDS" "$list")
        t1=$(cpu_ticks "$AGENT_PID")
        [ "$errors" = 0 ] || echo "agent CPU: $errors errors during the run" >&2
        python3 -c 'import json, os, sys
tls, size, reads, ticks, conns, secs, memory = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
hz = os.sysconf("SC_CLK_TCK")
print(json.dumps({"kind": "agent_cpu", "tls": tls, "volume_memory": memory, "size": size, "conns": conns, "reads": reads,
              "agent_cpu_s": round(ticks / hz, 2), "reads_s": round(reads / secs, 1),
              "cpu_us_per_read": round(ticks / hz * 1e6 / reads, 2) if reads > 0 else None}))' \
            "$(sed -n 's/.*UCX worker ucx-worker-1 started; context settings {TLS=\(.*\), NET_DEVICES=.*/\1/p' "$BENCH_OUT/logs/agent.log" | head -n1)" \
            "$size" "$reads" "$((t1 - t0))" "$CPU_CONNS" "$WRK_SECONDS" "$([ "$config" = best ] && echo ucx || echo mapped)" | record
    done
    stop_servers
    trap - EXIT
}

# hook_memory — the sidecar process: peak RSS and heap in use under 1,000 concurrent requests, then the heap
# (after a full GC) every HEAP_CHECK_READS reads up to HEAP_READS reads of 4 KiB needles.
hook_memory() {  # CONFIG
    log "memory ($1): sidecar under $MEMORY_CONNS connections, then heap over $HEAP_READS reads"
    trap stop_servers EXIT
    start_agent "$1"
    start_sidecar "$1"
    warm_sidecar
    local list=$BENCH_DATA/vid1.paths peak=0 peak_private=0 peak_shmem=0 rss heap wrk_pid reads errors
    heap=$(heap_used_mib "$SIDECAR_PID" gc)
    printf '{"kind":"memory","what":"idle_after_start","reads":0,"rss_mib":%s,"rss_private_mib":%s,"rss_shmem_mib":%s,"heap_mib":%s}\n' \
        "$(rss_mib "$SIDECAR_PID")" "$(rss_private_mib "$SIDECAR_PID")" "$(rss_shmem_mib "$SIDECAR_PID")" "$heap" | record
    wrk_requests "$MEMORY_CONNS" "$WRK_SECONDS" "$list" > "$BENCH_OUT/logs/wrk-c$MEMORY_CONNS.count" &
    wrk_pid=$!
    local half=$((SECONDS + WRK_SECONDS / 2))
    heap=
    while kill -0 "$wrk_pid" 2> /dev/null; do
        rss=$(rss_mib "$SIDECAR_PID")
        peak=$(awk -v a="$peak" -v b="$rss" 'BEGIN { print (b > a ? b : a) }')
        rss=$(rss_private_mib "$SIDECAR_PID")
        peak_private=$(awk -v a="$peak_private" -v b="$rss" 'BEGIN { print (b > a ? b : a) }')
        rss=$(rss_shmem_mib "$SIDECAR_PID")
        peak_shmem=$(awk -v a="$peak_shmem" -v b="$rss" 'BEGIN { print (b > a ? b : a) }')
        # jcmd is a JVM start of its own: once, halfway through, so the sampling does not load the box
        if [ -z "$heap" ] && [ $SECONDS -ge $half ]; then heap=$(heap_used_mib "$SIDECAR_PID"); fi
        sleep 0.5
    done
    wait "$wrk_pid"
    read -r reads errors < "$BENCH_OUT/logs/wrk-c$MEMORY_CONNS.count"
    printf '{"kind":"memory","what":"rss_at_%s_concurrent","conns":%s,"reads":%s,"errors":%s,"rss_mib":%s,"rss_private_mib":%s,"rss_shmem_mib":%s,"heap_mib":%s}\n' \
        "$MEMORY_CONNS" "$MEMORY_CONNS" "$reads" "$errors" "$peak" "$peak_private" "$peak_shmem" "$heap" | record
    local total=0 started=$SECONDS n
    while [ "$total" -lt "$HEAP_READS" ]; do
        read -r n errors < <(wrk_requests 64 "$HEAP_CHECK_SECONDS" "$list")
        [ "$n" -gt 0 ] || { echo "memory: wrk failed during the heap run" >&2; break; }
        [ "$errors" = 0 ] || echo "memory: $errors errors during the heap run" >&2
        total=$((total + n))
        printf '{"kind":"memory","what":"heap_after_reads","reads":%s,"seconds":%s,"rss_mib":%s,"rss_private_mib":%s,"heap_mib":%s}\n' \
            "$total" "$((SECONDS - started))" "$(rss_mib "$SIDECAR_PID")" "$(rss_private_mib "$SIDECAR_PID")" \
            "$(heap_used_mib "$SIDECAR_PID" gc)" | record
    done
    stop_servers
    trap - EXIT
}

# for_configs HOOK — the hook once per configuration, its lines tagged with it.
for_configs() {
    local config
    for config in $CONFIGS; do
        case $config in defaults|best) ;; *) echo "unknown configuration '$config' (defaults, best)" >&2; exit 2 ;; esac
        RECORD_TAG="\"config\":\"$config\"" "$1" "$config"
    done
}

# ---------- main ----------

main() {
    local steps=${*:-c http sidecar ec eventbus cpu memory}
    check_tools
    mkdir -p "$BENCH_OUT" "$BENCH_DATA"
    mkdir -p "$BENCH_OUT/logs"
    : > "$RESULTS"
    record_meta
    build_java
    for step in $steps; do
        case $step in
            c) run_c_get ;;
            http) make_http_data; run_nginx; run_vertx_static ;;
            sidecar) make_http_data; for_configs hook_sidecar_http ;;
            ec) make_http_data; for_configs hook_ec ;;
            eventbus) for_configs hook_eventbus ;;
            cpu) for_configs hook_agent_cpu ;;
            memory) RECORD_TAG='"config":"best"' hook_memory best ;;
            *) echo "unknown step '$step' (steps: c http sidecar ec eventbus cpu memory)" >&2; exit 2 ;;
        esac
    done
    log "report"
    "$REPORT_PYTHON" "$BENCH_DIR/report.py" "$RESULTS" --out "$BENCH_OUT"
}

# Sourced (bench/drill.sh reuses its functions): define only.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
