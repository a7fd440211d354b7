# Cluster mode of bench/drill.sh: the product across hosts made as network namespaces (lib/netns.sh; root only).
#   drill.sh cluster        faults under load across hosts (results: $BENCH_OUT/cluster/report.md)
#   drill.sh cluster-perf   sidecar on one host reading from an agent on another, against nginx on the agent's host
# Sourced by drill.sh after run.sh (settings, gen_volume, build_java, wait_for_line, stop_pid, http.sh).

# shellcheck source=netns.sh
source "$BENCH_LIB/netns.sh"

CLUSTER_OUT=${CLUSTER_OUT:-$BENCH_OUT/cluster}
CLUSTER_STEADY=${CLUSTER_STEADY:-8}        # seconds of load before the first fault and after each heal
CLUSTER_DOWN=${CLUSTER_DOWN:-6}            # seconds each fault lasts
CLUSTER_THREADS=${CLUSTER_THREADS:-4}      # checker connections per client host
CLUSTER_AGENT_PORT=18515
CLUSTER_HTTP_PORT=8081                     # sidecars' HTTP
CLUSTER_VS_PORT=8080                       # volume-server stand-ins (the HTTP fallback), beside the agents
CLUSTER_NGINX_PORT=18080
# Each host's process: pid by host name, the log it writes.
declare -A HOST_PID=()

host_log() { echo "$CLUSTER_OUT/logs/$1.log"; }

# host_java HOST JAVA-ARGS... — a JVM on HOST in the background, logging to its log; records its pid: serve runs in
# the JVM launched, so the pid is the serving JVM.
host_java() {
    local host=$1; shift
    # UCX_LOG_LEVEL=info: UCX logs the lanes of every endpoint (ep_cfg[..]: rma_am(tcp/eth0) ...).
    # shellcheck disable=SC2086
    # (ip netns exec, not the netns_exec function: it execs java, so $! is the JVM, not a subshell.)
    UCX_LOG_LEVEL=info ip netns exec "$(netns_name "$host")" java -Xmx256m $JAVA_OPTS "$@" \
        >> "$(host_log "$host")" 2>&1 &
    HOST_PID[$host]=$!
}

# host_ready HOST — until HOST's log has one more "ready:" line than before its start (counted by the caller).
host_ready() {
    local host=$1 before=$2 deadline=$((SECONDS + 90)) n
    while :; do
        n=$(grep -c '^ready:' "$(host_log "$host")" 2> /dev/null) || true
        [ "${n:-0}" -gt "$before" ] && return 0
        kill -0 "${HOST_PID[$host]}" 2> /dev/null || { echo "$host died:" >&2; tail -n 20 "$(host_log "$host")" >&2; return 1; }
        [ $SECONDS -lt $deadline ] || { echo "$host not ready within 90 s" >&2; return 1; }
        sleep 0.05
    done
}

ready_lines() { local n; n=$(grep -c '^ready:' "$(host_log "$1")" 2> /dev/null) || true; echo "${n:-0}"; }

# serve_on HOST YAML — the product's jar, `serve --conf` with YAML (contract keys only) on HOST, until ready.
serve_on() {
    local host=$1 conf=$CLUSTER_OUT/$1.yaml before
    printf '%s\n' "$2" > "$conf"
    before=$(ready_lines "$host")
    host_java "$host" -jar "$JAR" serve --conf "$conf"
    host_ready "$host" "$before"
}

# stand_in HOST ARGS... — the master or volume-server stand-in (test classes: StandInMain, compiled by the build's
# `package -DskipTests`) on HOST, until ready.
stand_in() {
    local host=$1 before; shift
    before=$(ready_lines "$host")
    host_java "$host" -cp "$ROOT/target/test-classes:$JAVA_CP" org.seaweedfs.rdma.testing.StandInMain "$@"
    host_ready "$host" "$before"
}

cluster_agent_yaml() {
    cat <<YAML
roles: [agent]
http: {host: $(netns_ip "$1"), port: 18090}
agent: {listen: '$(netns_ip "$1"):$CLUSTER_AGENT_PORT', volumeDirs: ['$2']}
ucx: {tls: [tcp]}
YAML
}

# sidecar_yaml AGENTS FALLBACK [MASTER] — AGENTS a YAML list of host:port; MASTER a host:port or nothing.
sidecar_yaml() {
    cat <<YAML
roles: [sidecar]
http: {host: 0.0.0.0, port: $CLUSTER_HTTP_PORT}
sidecar: {agents: $1, fallback: $2${3:+, master: '$3'}}
ucx: {tls: [tcp]}
YAML
}

# start_cluster_agent HOST — the agent of HOST (its volumes in $CLUSTER_OUT/HOST); retried while a killed
# predecessor's port is still held.
start_cluster_agent() {
    local host=$1 tries=0
    until serve_on "$host" "$(cluster_agent_yaml "$host" "$CLUSTER_OUT/$host")" 2> /dev/null; do
        tries=$((tries + 1))
        if [ $tries -ge 100 ] || ! tail -n 3 "$(host_log "$host")" | grep -q 'cannot listen'; then
            echo "the agent on $host did not start, see $(host_log "$host")" >&2
            return 1
        fi
        sleep 0.2
    done
}

cluster_cleanup() {
    local host
    for host in "${!HOST_PID[@]}"; do
        kill -CONT "${HOST_PID[$host]}" 2> /dev/null || true   # a run cut short mid-hang
        stop_pid "${HOST_PID[$host]}"
    done
    HOST_PID=()
    netns_down
}

cluster_prepare() {
    local t
    for t in java python3 curl ip nft; do command -v "$t" > /dev/null || { echo "missing: $t" >&2; exit 1; }; done
    netns_check || exit 1
    find_report_python
    build_java
    rm -rf "$CLUSTER_OUT"; mkdir -p "$CLUSTER_OUT/logs"
    trap cluster_cleanup EXIT
}

# ---------- the drill ----------

# cmark NAME [SCOPE] — an event; SCOPE (client host, path prefix) names the reads the fault hits, for the report.
cmark() { printf '%s %s %s\n' "$(date +%s.%N)" "$1" "${2:-}" >> "$CLUSTER_OUT/events.txt"; log "event: $1 ${2:-}"; }

run_cluster_drill() {
    cluster_prepare
    gen_volume 1 4096 "$COUNT_4K"
    gen_volume 3 4096 "$COUNT_4K"
    mkdir -p "$CLUSTER_OUT/agent1" "$CLUSTER_OUT/agent2"
    cp "$BENCH_DATA"/volumes/1.dat "$BENCH_DATA"/volumes/1.idx "$CLUSTER_OUT/agent1/"
    cp "$BENCH_DATA"/volumes/3.dat "$BENCH_DATA"/volumes/3.idx "$CLUSTER_OUT/agent2/"
    # Volume 11 erasure-coded 10 + 4 over hosts ec1, ec2, ... of their own, one agent each, as DRILL_EC_SHARDS
    # splits the shards (ec1, stopped by the drill, holds four); the master lists it on all of them.
    local ec_hosts=() shards n paths=("$BENCH_DATA/vid1.paths" "$BENCH_DATA/vid3.paths")
    if [ "$DRILL_EC" = 1 ]; then
        gen_volume 11 4096 "$COUNT_4K" --ec
        IFS='|' read -r -a shards <<< "$DRILL_EC_SHARDS"
        for n in "${!shards[@]}"; do
            ec_hosts+=("ec$((n + 1))")
            ec_shard_dir "$CLUSTER_OUT/ec$((n + 1))" "${shards[$n]}"
        done
        paths+=("$BENCH_DATA/vid11.paths")
    fi
    netns_up master agent1 agent2 sidecar1 sidecar2 "${ec_hosts[@]}"
    log "hosts: $(for h in "${NETNS_HOSTS[@]}"; do printf '%s=%s ' "$h" "$(netns_ip "$h")"; done)"
    local a1 a2 h ec_servers=()
    a1=$(netns_ip agent1); a2=$(netns_ip agent2)
    for h in "${ec_hosts[@]}"; do ec_servers+=("$(netns_ip "$h"):$CLUSTER_VS_PORT"); done
    # shellcheck disable=SC2046
    stand_in master master "$(netns_ip master):9333" "1=$a1:$CLUSTER_VS_PORT" "3=$a2:$CLUSTER_VS_PORT" \
        $([ ${#ec_servers[@]} -eq 0 ] || (IFS=,; echo "11=${ec_servers[*]}"))
    stand_in agent1 volume-server "$a1:$CLUSTER_VS_PORT" "$CLUSTER_OUT/agent1"
    HOST_PID[vs1]=${HOST_PID[agent1]}
    stand_in agent2 volume-server "$a2:$CLUSTER_VS_PORT" "$CLUSTER_OUT/agent2"
    HOST_PID[vs2]=${HOST_PID[agent2]}
    start_cluster_agent agent1
    start_cluster_agent agent2
    for h in "${ec_hosts[@]}"; do start_cluster_agent "$h"; done
    # sidecar1 knows agent1 up front; sidecar2 finds both through the master.
    local master; master=$(netns_ip master):9333
    serve_on sidecar1 "$(sidecar_yaml "['$a1:$CLUSTER_AGENT_PORT']" '[read-through, http]' "$master")"
    serve_on sidecar2 "$(sidecar_yaml '[]' '[read-through, http]' "$master")"
    local s
    for s in sidecar1 sidecar2; do
        for vid in "${paths[@]}"; do wait_for_rdma_on "$s" "$(head -n1 "$vid")"; done
    done

    python3 -c 'import json, os; print(json.dumps({"kind": "meta", "loadavg_at_start": os.getloadavg()[0], "cpus": os.cpu_count()}))' \
        > "$CLUSTER_OUT/meta.json"
    local pids=()
    for s in sidecar1 sidecar2; do
        ip netns exec "$(netns_name "$s")" python3 "$BENCH_LIB/drill_checker.py" --base "http://127.0.0.1:$CLUSTER_HTTP_PORT" \
            --plain "$BENCH_DATA/plain" --threads "$CLUSTER_THREADS" --out "$CLUSTER_OUT/reads-$s.txt" \
            "${paths[@]}" > "$CLUSTER_OUT/reads-$s.summary" &
        pids+=($!)
    done
    cmark start
    sleep "$CLUSTER_STEADY"

    cmark link "*:/1,"                      # agent1's host loses its cable: volume 1 from both sidecars
    netns_link agent1 down
    sleep "$CLUSTER_DOWN"
    netns_link agent1 up
    cmark link.reachable
    sleep "$CLUSTER_STEADY"

    cmark kill "*:/3,"                      # agent2's process dies (its host and volume server stay)
    kill -9 "${HOST_PID[agent2]}"; wait "${HOST_PID[agent2]}" 2> /dev/null || true
    sleep "$CLUSTER_DOWN"
    start_cluster_agent agent2
    cmark kill.reachable
    sleep "$CLUSTER_STEADY"

    cmark hang "*:/3,"                      # agent2 stops answering with reads in flight; its sockets stay open
    kill -STOP "${HOST_PID[agent2]}"
    sleep "$CLUSTER_DOWN"
    kill -CONT "${HOST_PID[agent2]}"
    cmark hang.reachable
    sleep "$CLUSTER_STEADY"

    cmark master "sidecar1:/"               # sidecar1 cannot reach the master
    netns_block sidecar1 master
    sleep "$CLUSTER_DOWN"
    netns_unblock sidecar1 master
    cmark master.reachable
    sleep "$CLUSTER_STEADY"

    cmark partial "sidecar2:/1,"            # sidecar2 cannot reach agent1; everything else can
    netns_block sidecar2 agent1
    sleep "$CLUSTER_DOWN"
    netns_unblock sidecar2 agent1
    cmark partial.reachable
    sleep "$CLUSTER_STEADY"

    if [ ${#ec_hosts[@]} -gt 0 ]; then
        cmark ec-hang "*:/11,"              # ec1's agent, holding four of volume 11's shards, stops answering
        kill -STOP "${HOST_PID[ec1]}"
        sleep "$CLUSTER_DOWN"
        kill -CONT "${HOST_PID[ec1]}"
        cmark ec-hang.reachable
        sleep "$CLUSTER_STEADY"

        cmark ec-deleted "*:/11,"           # ec1's four shards go from its disk; its agent keeps running
        ec_shards_gone "$CLUSTER_OUT/ec1" "${DRILL_EC_SHARDS%%|*}"
        sleep "$DRILL_EC_DELETED"
        ec_shards_back "$CLUSTER_OUT/ec1" "${DRILL_EC_SHARDS%%|*}"
        cmark ec-deleted.reachable
        sleep "$CLUSTER_STEADY"
    fi

    cmark end
    local pid
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
    for s in sidecar1 sidecar2; do                  # hedges and reads past the deadline, both sidecars
        netns_exec "$s" curl -s "http://127.0.0.1:$CLUSTER_HTTP_PORT/metrics" \
            | grep -E '^seaweedfs_rdma_(hedges_|hedge_delay|reads_past_deadline)' || true
    done > "$CLUSTER_OUT/hedges.txt"
    for pid in "${pids[@]}"; do wait "$pid" || true; done
    for s in sidecar1 sidecar2; do
        awk -v c="$s" '{ print $0, c }' "$CLUSTER_OUT/reads-$s.txt"
    done > "$CLUSTER_OUT/reads.txt"
    for s in agent1 agent2 sidecar1 sidecar2; do
        printf '%s: %s\n' "$s" "$(grep -o 'ep_cfg\[[0-9]*\]: .*' "$(host_log "$s")" | sed 's/ep_cfg\[[0-9]*\]: //' \
            | sort | uniq -c | tr -s ' ' | paste -sd ';')"
    done > "$CLUSTER_OUT/lanes.txt"
    cluster_cleanup
    trap - EXIT
    "$REPORT_PYTHON" "$BENCH_DIR/drill_report.py" cluster "$CLUSTER_OUT" | tee "$CLUSTER_OUT/report.md"
}

# wait_for_rdma_on HOST PATH — until the sidecar on HOST answers PATH over RDMA (the first read of a volume makes
# it ask the master where the volume lives).
wait_for_rdma_on() {
    local deadline=$((SECONDS + 60))
    until netns_exec "$1" curl -s -D - -o /dev/null "http://127.0.0.1:$CLUSTER_HTTP_PORT$2" | grep -qi '^x-source: *rdma'; do
        [ $SECONDS -lt $deadline ] || { echo "$1 does not read $2 over RDMA" >&2; return 1; }
        sleep 0.2
    done
}

# ---------- throughput across hosts ----------

# The client host (sidecar1) reads 4 KiB and 1 MiB needles: through its sidecar from agent1's host, and from nginx on
# agent1's host serving the same bytes as plain files (how an application reads from a volume server today).
run_cluster_perf() {
    command -v nginx > /dev/null && command -v wrk > /dev/null || { echo "missing: nginx, wrk" >&2; exit 1; }
    cluster_prepare
    make_http_data
    mkdir -p "$CLUSTER_OUT/agent1"
    cp "$BENCH_DATA"/volumes/1.dat "$BENCH_DATA"/volumes/1.idx "$BENCH_DATA"/volumes/2.dat "$BENCH_DATA"/volumes/2.idx \
        "$CLUSTER_OUT/agent1/"
    netns_up agent1 sidecar1
    local a1 results=$CLUSTER_OUT/results.jsonl
    a1=$(netns_ip agent1)
    start_cluster_agent agent1
    serve_on sidecar1 "$(sidecar_yaml "['$a1:$CLUSTER_AGENT_PORT']" '[]')"
    wait_for_rdma_on sidecar1 "$(head -n1 "$BENCH_DATA/vid1.paths")"
    netns_exec agent1 bash -c "source '$BENCH_LIB/http.sh'; nginx_start '$BENCH_DATA/plain' $CLUSTER_NGINX_PORT 1 \
        '$CLUSTER_OUT/nginx' 0.0.0.0" || return 1
    log "warm-up: ${SIDECAR_WARMUP_SECONDS}s through the sidecar"
    netns_exec sidecar1 wrk -t1 -c16 -d"${SIDECAR_WARMUP_SECONDS}s" -s "$BENCH_LIB/random_path.lua" \
        "http://127.0.0.1:$CLUSTER_HTTP_PORT/" -- "$BENCH_DATA/vid1.paths" > /dev/null
    local shape size conns vid impl base
    for shape in "4096 64 1" "1048576 8 2" "4096 1 1" "1048576 1 2"; do
        read -r size conns vid <<< "$shape"
        for impl in sidecar nginx; do
            base=http://127.0.0.1:$CLUSTER_HTTP_PORT
            [ $impl = nginx ] && base=http://$a1:$CLUSTER_NGINX_PORT
            log "$impl across hosts: $size B, $conns connections"
            netns_exec sidecar1 env BENCH_OUT="$CLUSTER_OUT" WRK_SECONDS="$WRK_SECONDS" bash -c \
                "source '$BENCH_LIB/http.sh'; http_verify '$base' '$BENCH_DATA/vid$vid.paths' '$BENCH_DATA/plain' \
                && wrk_measure '$impl-cross-host' $size $conns '$base' '$BENCH_DATA/vid$vid.paths'" | tee -a "$results"
        done
    done
    netns_exec agent1 bash -c "source '$BENCH_LIB/http.sh'; nginx_stop '$CLUSTER_OUT/nginx'"
    cluster_cleanup
    trap - EXIT
    "$REPORT_PYTHON" "$BENCH_DIR/drill_report.py" cluster-perf "$CLUSTER_OUT" | tee "$CLUSTER_OUT/perf.md"
}
