#!/usr/bin/env bash
# The sidecar beside its peers, measured by turns (bench/README.md): every server up at once, answers checked, each
# warmed, then ROUNDS rounds in which every server runs every workload once, in an order rotated each round; the
# report gives the median of the per-round ratios and lists every round.
#   bench/turns.sh                                   # ~17 minutes with the defaults (~25 with a baseline)
#   BASELINE_JAR=/tmp/before.jar bench/turns.sh      # and the pairs of another build: B/A by turns
#   ROUNDS=2 ROUND_SECONDS=2 WARM_SECONDS=4 bench/turns.sh   # a short check of the script (no headline)
# Raw lines: $TURNS_OUT/turns.jsonl; the report: $TURNS_OUT/report.md (also printed). Exits non-zero when an answer
# is wrong, a request fails or answers non-2xx, in the checks or in any round.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
export BENCH_OUT=${BENCH_OUT:-$BENCH_DIR/out}
TURNS_OUT=${TURNS_OUT:-$BENCH_OUT/turns}
ROUNDS=${ROUNDS:-5}                      # a headline needs at least 5
ROUND_SECONDS=${ROUND_SECONDS:-5}        # each wrk run (and event-bus run) of a round
WARM_SECONDS=${WARM_SECONDS:-40}         # per server before the rounds: 4 KiB at 64 conns, half that of 1 MiB at 8;
                                         # C2 settles after ~30-45 s of a workload (JFR: 68, 7, 5 compilations in
                                         # three 15 s windows of 4 KiB load), so a shorter warm-up measures the JIT
CHECK_NEEDLES=${CHECK_NEEDLES:-5}        # needles per size read from every server and compared, before and after
EVENTBUS=${EVENTBUS:-on}                 # off: no event-bus and typed-client turns
EVENTBUS_CONCURRENCY=${EVENTBUS_CONCURRENCY:-64}
BASELINE_JAR=${BASELINE_JAR:-}           # another build's jar: its pairs (CONFIGS) run by turns beside this one's
TURNS_PORT=${TURNS_PORT:-18280}          # nginx; then the bare peer, the header-equal peer, the sidecars
AGENT_PORT_BASE=${TURNS_AGENT_PORT:-18300}
NGINX_WORKERS=2
RESULTS=$TURNS_OUT/turns.jsonl
source "$BENCH_DIR/lib/http.sh"
source "$BENCH_DIR/lib/proc.sh"
source "$BENCH_DIR/lib/mains.sh"
source "$BENCH_DIR/lib/serve.sh"
BENCH_OUT=$TURNS_OUT   # configurations, logs and compiled mains of this run go beside its results

# The HTTP servers, in the order of round 1: name -> URL, process (CPU), agent (sidecars), kind.
SERVERS=()
declare -A URL=() PROC=() AGENT_OF=() KIND=()
# The embedded event bus and typed client, one JVM per pair: name -> process, agent, input fd, output file.
BUSES=()
declare -A BUS_PID=() BUS_AGENT=() BUS_FD=() BUS_OUT=()
PIDS=()                                  # every process started, stopped at exit
PROBLEMS=0
SIDECAR_PORT=$((TURNS_PORT + 3))

cleanup() {
    local pid fd
    for fd in "${BUS_FD[@]}"; do exec {fd}>&- 2> /dev/null || true; done
    # A process whose start failed is not in PIDS yet.
    for pid in "${PIDS[@]}" "${AGENT_PID:-}" "${SIDECAR_PID:-}" "${PEER_PID:-}"; do stop_pid "$pid"; done
    nginx_stop "$TURNS_OUT/nginx"
}

# port_free PORT — fails, naming it, when something listens on 127.0.0.1:PORT already.
port_free() {
    if (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; then
        echo "port $1 is in use: set TURNS_PORT / TURNS_AGENT_PORT to free ones" >&2
        return 1
    fi
}

# add_server NAME URL PID AGENT_PID KIND
add_server() { SERVERS+=("$1"); URL[$1]=$2; PROC[$1]=$3; AGENT_OF[$1]=$4; KIND[$1]=$5; }

# start_pair CONFIG NAME JAR MAINS_CP — agent + sidecar `serve` processes from JAR, and (EVENTBUS=on and MAINS_CP set)
# an event-bus JVM embedding a sidecar of the same configuration that reads from the same agent.
start_pair() {
    local config=$1 name=$2 jar=$3 cp=$4
    log "$name: agent + sidecar ($config) from $jar, HTTP on 127.0.0.1:$SIDECAR_PORT"
    port_free "$SIDECAR_PORT"
    start_agent "$config" "$name-agent" "$jar"
    PIDS+=("$AGENT_PID")
    start_sidecar "$config" "$name-sidecar" "$jar"
    PIDS+=("$SIDECAR_PID")
    add_server "$name" "http://127.0.0.1:$SIDECAR_PORT" "$SIDECAR_PID" "$AGENT_PID" sidecar
    SIDECAR_PORT=$((SIDECAR_PORT + 1))
    if [ "$EVENTBUS" = on ] && [ -n "$cp" ]; then start_bus "$config" "$name" "$cp"; fi
}

# start_bus CONFIG NAME CLASSPATH — EventBusTurnsMain (bench/java) on the 4 KiB needles, driven through a FIFO.
start_bus() {
    local config=$1 name=$2 cp=$3 conf=$TURNS_OUT/$2-eventbus.yaml fifo=$TURNS_OUT/$2-eventbus.in fd pid
    sidecar_conf "$config" 0 "$conf"   # its HTTP API idles on any free port
    rm -f "$fifo"; mkfifo "$fifo"
    BUS_OUT[$name]=$TURNS_OUT/$name-eventbus.out
    # shellcheck disable=SC2086
    java $JAVA_OPTS $SIDECAR_JAVA_OPTS $EMBEDDED_JAVA_OPTS -cp "$cp" org.seaweedfs.rdma.eventbus.EventBusTurnsMain --conf "$conf" \
        --plain "$BENCH_DATA/plain" "$BENCH_DATA/vid1.paths" < "$fifo" > "${BUS_OUT[$name]}" \
        2> "$TURNS_OUT/logs/$name-eventbus.log" &
    pid=$!
    PIDS+=("$pid")
    exec {fd}> "$fifo"
    BUSES+=("$name"); BUS_PID[$name]=$pid; BUS_AGENT[$name]=$AGENT_PID; BUS_FD[$name]=$fd
    wait_for_line "${BUS_OUT[$name]}" '"kind":"ready"' 120 "$pid"
}

# bus_command NAME COMMAND TIMEOUT — one command to an event-bus JVM; prints its answer line.
bus_command() {
    local name=$1 out=${BUS_OUT[$1]} before deadline=$((SECONDS + $3))
    before=$(wc -l < "$out")
    echo "$2" >&"${BUS_FD[$name]}"
    until [ "$(wc -l < "$out")" -gt "$before" ]; do
        kill -0 "${BUS_PID[$name]}" 2> /dev/null || { echo "$name's event-bus JVM died (logs/)" >&2; return 1; }
        [ $SECONDS -lt $deadline ] || { echo "$name's event-bus JVM did not answer '$2' within $3 s" >&2; return 1; }
        sleep 0.05
    done
    tail -n 1 "$out"
}

start_all() {
    local port=$TURNS_PORT config baseline_cp=
    for p in "$TURNS_PORT" $((TURNS_PORT + 1)) $((TURNS_PORT + 2)); do port_free "$p"; done
    log "nginx: $NGINX_WORKERS workers, sendfile, on 127.0.0.1:$port"
    nginx_start "$BENCH_DATA/plain" "$port" "$NGINX_WORKERS" "$TURNS_OUT/nginx"
    add_server nginx "http://127.0.0.1:$port" "$(cat "$TURNS_OUT/nginx/nginx.pid")" "" nginx
    log "bare Vert.x peer and the header-equal one, $(http_instances) instance(s) each"
    start_vertx_peer bare $((port + 1)); PIDS+=("$PEER_PID")
    add_server bare "http://127.0.0.1:$((port + 1))" "$PEER_PID" "" bare
    start_vertx_peer header-equal $((port + 2)) --sidecar-headers; PIDS+=("$PEER_PID")
    add_server header-equal "http://127.0.0.1:$((port + 2))" "$PEER_PID" "" header-equal
    for config in $CONFIGS; do start_pair "$config" "$config" "$JAR" "$JAVA_CP"; done
    if [ -n "$BASELINE_JAR" ]; then
        if [ "$EVENTBUS" = on ]; then
            baseline_cp=$(build_mains "$BASELINE_JAR" "$TURNS_OUT/mains-baseline" \
                2> "$TURNS_OUT/logs/mains-baseline.log") || {
                baseline_cp=
                echo "note: the bench mains do not compile against $BASELINE_JAR (logs/mains-baseline.log): no" \
                     "event-bus turns for the baseline" >&2
            }
        fi
        for config in $CONFIGS; do start_pair "$config" "baseline-$config" "$BASELINE_JAR" "$baseline_cp"; done
    fi
}

# problem WHAT — a wrong answer or failed request: recorded, counted, the run fails at its end.
problem() {
    echo "PROBLEM: $*" >&2
    python3 -c 'import json, sys; print(json.dumps({"kind": "problem", "what": sys.argv[1]}))' "$*" >> "$RESULTS"
    PROBLEMS=$((PROBLEMS + 1))
}

# check_answers WHEN — CHECK_NEEDLES needles of each size from every server, byte for byte; the sidecars' answers
# must come over RDMA, and the header-equal peer's headers must be the sidecar's (in any order).
check_answers() {
    local name list path n i k tmp=$TURNS_OUT/check sidecar=${CONFIGS%% *} answer
    mkdir -p "$tmp"
    for list in "$BENCH_DATA/vid1.paths" "$BENCH_DATA/vid2.paths"; do
        n=$(wc -l < "$list")
        for k in $(seq 0 $((CHECK_NEEDLES - 1))); do
            i=$((1 + k * (n - 1) / (CHECK_NEEDLES > 1 ? CHECK_NEEDLES - 1 : 1)))
            path=$(sed -n "${i}p" "$list")
            rm -f "$tmp"/*.headers
            for name in "${SERVERS[@]}"; do
                if ! curl -sf -D "$tmp/$name.headers" -o "$tmp/$name.body" "${URL[$name]}$path"; then
                    problem "$1: $name does not answer $path with 2xx"; continue
                fi
                cmp -s "$tmp/$name.body" "$BENCH_DATA/plain$path" || problem "$1: $name answers wrong bytes at $path"
                if [ "${KIND[$name]}" = sidecar ] && ! grep -qi '^x-source: *rdma' "$tmp/$name.headers"; then
                    problem "$1: $name's answer to $path is not an RDMA read: $(tr -d '\r' < "$tmp/$name.headers" \
                        | grep -i '^x-source' || echo 'no X-Source')"
                fi
            done
            if [ -f "$tmp/$sidecar.headers" ] && ! diff <(tr -d '\r' < "$tmp/$sidecar.headers" | sort) \
                    <(tr -d '\r' < "$tmp/header-equal.headers" | sort) > "$tmp/headers.diff"; then
                problem "$1: the header-equal peer's headers differ from the $sidecar sidecar's at $path:" \
                    "$(tr '\n' ' ' < "$tmp/headers.diff")"
            fi
        done
    done
    for name in "${BUSES[@]}"; do
        answer=$(bus_command "$name" "check $CHECK_NEEDLES" 120) || answer="no answer"
        python3 -c 'import json, sys
r = json.loads(sys.argv[1])
sys.exit(0 if r.get("kind") == "check" and r["checked"] > 0 and not r["wrong"] else 1)' "$answer" \
            || problem "$1: $name's event bus or typed client: $answer"
    done
}

# snapshots PID AGENT_PID — cpu_snapshot of a server and its threads, and of its agent when it has one.
snapshots() { cpu_snapshot server "$1" threads; [ -z "$2" ] || cpu_snapshot agent "$2"; }

# measure ROUND SLOT NAME WORKLOAD SIZE CONNS — one wrk run of ROUND_SECONDS, recorded with the CPU per request.
measure() {
    local name=$3 size=$5 conns=$6 list=$BENCH_DATA/vid1.paths run
    [ "$size" = 4096 ] || list=$BENCH_DATA/vid2.paths
    snapshots "${PROC[$name]}" "${AGENT_OF[$name]}" > "$TURNS_OUT/cpu.before"
    run=$(wrk_run "$name" "$size" "$conns" "${URL[$name]}" "$list" "$ROUND_SECONDS" \
        "$TURNS_OUT/logs/wrk-r$1-$name-$4.txt") || { problem "round $1: wrk failed on $name ($4)"; return 0; }
    snapshots "${PROC[$name]}" "${AGENT_OF[$name]}" > "$TURNS_OUT/cpu.after"
    record_turn "$1" "$2" "$name" "${KIND[$name]}" "$4" "$run"
}

# measure_bus ROUND SLOT NAME MODE CONCURRENCY — one event-bus or typed-client run of ROUND_SECONDS in NAME's JVM.
measure_bus() {
    local name=$3 run
    snapshots "${BUS_PID[$name]}" "${BUS_AGENT[$name]}" > "$TURNS_OUT/cpu.before"
    run=$(bus_command "$name" "run $4 $ROUND_SECONDS $5" $((ROUND_SECONDS + 120))) || run="no answer"
    snapshots "${BUS_PID[$name]}" "${BUS_AGENT[$name]}" > "$TURNS_OUT/cpu.after"
    if [[ $run != *'"ops_s"'* ]]; then problem "round $1: $name's $4 run: $run"; return 0; fi
    record_turn "$1" "$2" "$name" sidecar "$4-c$5" "$run"
}

# record_turn ROUND SLOT NAME KIND WORKLOAD RUN_LINE — the turn's line (lib/turn_line.py: the CPU between the
# snapshots cpu.before and cpu.after) appended to the results and summarized.
record_turn() {
    local tags line
    tags=$(printf '{"kind":"turn","round":%s,"slot":%s,"server":"%s","server_kind":"%s","workload":"%s"}' "${@:1:5}")
    line=$(python3 "$BENCH_DIR/lib/turn_line.py" "$6" "$tags" "$TURNS_OUT/cpu.before" "$TURNS_OUT/cpu.after")
    printf '%s\n' "$line" >> "$RESULTS"
    summarize "$line"
}

# summarize LINE — one line on stderr per turn; a problem in it is counted.
summarize() {
    local out
    out=$(python3 -c 'import json, sys
r = json.loads(sys.argv[1])
rate = "%9.0f/s" % r.get("req_s", r.get("ops_s", 0))
cpu = " ".join("%s %s" % (k.replace("_us_per_req", ""), r[k])
               for k in ("server_us_per_req", "loop_us_per_req", "agent_us_per_req") if r.get(k) is not None)
print("round %d  %-22s %-18s %s  p50 %7s us  %s us/req%s" % (r["round"], r["server"], r["workload"], rate,
      r["p50_us"], cpu, "  PROBLEM: " + "; ".join(r["problems"]) if r.get("problems") else ""))' "$1")
    echo "$out" >&2
    [[ $out != *PROBLEM* ]] || PROBLEMS=$((PROBLEMS + 1))
}

# rotated I ITEMS... — ITEMS rotated left by I.
rotated() {
    local i=$1 k; shift
    local items=("$@") n=$#
    for k in $(seq 0 $((n - 1))); do echo "${items[$(((k + i) % n))]}"; done
}

warm_up() {
    local name
    for name in "${SERVERS[@]}"; do
        log "warm-up: $name, ${WARM_SECONDS}s of 4 KiB at 64 connections, $((WARM_SECONDS / 2))s of 1 MiB at 8"
        wrk_requests_on "${URL[$name]}" 64 "$WARM_SECONDS" "$BENCH_DATA/vid1.paths"
        wrk_requests_on "${URL[$name]}" 8 "$((WARM_SECONDS / 2))" "$BENCH_DATA/vid2.paths"
    done
    for name in "${BUSES[@]}"; do
        log "warm-up: $name's event bus (${WARM_SECONDS}s, $EVENTBUS_CONCURRENCY in flight) and typed client"
        bus_command "$name" "run eventbus $WARM_SECONDS $EVENTBUS_CONCURRENCY" $((WARM_SECONDS + 120)) > /dev/null
        bus_command "$name" "run client $((WARM_SECONDS / 2)) 1" $((WARM_SECONDS + 120)) > /dev/null
    done
}

# wrk_requests_on URL CONNS SECONDS PATHS — a run whose figures are not kept (warm-up).
wrk_requests_on() {
    [ "$3" -gt 0 ] || return 0
    wrk -t1 -c"$2" -d"$3s" -s "$BENCH_LIB/random_path.lua" "$1/" -- "$4" > /dev/null
}

run_rounds() {
    local round slot name shape workload order
    for round in $(seq "$ROUNDS"); do
        for shape in 4k-c64:4096:64 1m-c8:1048576:8 4k-c1:4096:1; do
            IFS=: read -r workload size conns <<< "$shape"
            mapfile -t order < <(rotated $((round - 1)) "${SERVERS[@]}")
            log "round $round/$ROUNDS, $workload: ${order[*]}"
            slot=0
            for name in "${order[@]}"; do
                slot=$((slot + 1))
                measure "$round" "$slot" "$name" "$workload" "$size" "$conns"
            done
        done
        [ ${#BUSES[@]} -gt 0 ] || continue
        mapfile -t order < <(rotated $((round - 1)) "${BUSES[@]}")
        log "round $round/$ROUNDS, event bus and typed client: ${order[*]}"
        slot=0
        for name in "${order[@]}"; do
            slot=$((slot + 1)); measure_bus "$round" "$slot" "$name" eventbus "$EVENTBUS_CONCURRENCY"
        done
        slot=0
        for name in "${order[@]}"; do slot=$((slot + 1)); measure_bus "$round" "$slot" "$name" client 1; done
    done
}

# The machine, the build and the command: a figure means little without them.
record_meta() {
    local command="ROUNDS=$ROUNDS ROUND_SECONDS=$ROUND_SECONDS WARM_SECONDS=$WARM_SECONDS CONFIGS=\"$CONFIGS\""
    command+=" METRICS=$METRICS${BASELINE_JAR:+ BASELINE_JAR=$BASELINE_JAR}${JAVA_OPTS:+ JAVA_OPTS=\"$JAVA_OPTS\"}"
    command+="${HTTP_INSTANCES:+ HTTP_INSTANCES=$HTTP_INSTANCES} bench/turns.sh"
    python3 - "$command" "$(git -C "$ROOT" rev-parse --short HEAD)" \
        "$(git -C "$ROOT" status --porcelain -- src pom.xml | wc -l)" "$BASELINE_JAR" "$(http_instances)" \
        <<'PY' >> "$RESULTS"
import json, os, platform, subprocess, sys, time
lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
cpu = next((l.split(":", 1)[1].strip() for l in lscpu.splitlines() if l.startswith("Model name")), "?")
print(json.dumps({"kind": "meta", "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "host": platform.node(),
                  "cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release(), "command": sys.argv[1],
                  "commit": sys.argv[2], "uncommitted_files": int(sys.argv[3]), "baseline_jar": sys.argv[4],
                  "http_instances": int(sys.argv[5]), "loadavg_start": os.getloadavg(),
                  "rounds": int(os.environ["ROUNDS"]), "round_seconds": float(os.environ["ROUND_SECONDS"]),
                  "warm_seconds": int(os.environ["WARM_SECONDS"])}))
PY
}

main() {
    local config
    for t in nginx wrk curl python3 java javac mvn lscpu; do
        command -v "$t" > /dev/null || { echo "missing: $t (see bench/README.md)" >&2; exit 1; }
    done
    for config in $CONFIGS; do
        case $config in defaults|best) ;; *) echo "unknown configuration '$config' (defaults, best)" >&2; exit 2 ;; esac
    done
    [ -z "$BASELINE_JAR" ] || [ -f "$BASELINE_JAR" ] || { echo "BASELINE_JAR: no file $BASELINE_JAR" >&2; exit 2; }
    [ "$ROUNDS" -ge 5 ] || echo "note: $ROUNDS rounds: too few for a headline (5 at least)" >&2
    mkdir -p "$TURNS_OUT/logs" "$BENCH_DATA"
    : > "$RESULTS"
    export ROUNDS ROUND_SECONDS WARM_SECONDS
    build_java   # after the output directory is there: the mains compile into it
    record_meta
    make_http_data
    trap cleanup EXIT
    start_all
    log "checking answers: $CHECK_NEEDLES needles per size from every server"
    check_answers before
    [ "$PROBLEMS" -eq 0 ] || { echo "wrong answers before the rounds: nothing measured" >&2; exit 1; }
    warm_up
    run_rounds
    log "checking answers again"
    check_answers after
    python3 -c 'import json, os; print(json.dumps({"kind": "end", "loadavg_end": os.getloadavg()}))' >> "$RESULTS"
    python3 "$BENCH_DIR/turns_report.py" "$RESULTS" > "$TURNS_OUT/report.md"
    cat "$TURNS_OUT/report.md"
    [ "$PROBLEMS" -eq 0 ] || { echo "$PROBLEMS problem(s): see the report" >&2; exit 1; }
}

main "$@"
