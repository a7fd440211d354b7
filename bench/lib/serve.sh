# The servers of a bench run: the project's agent and sidecar (`serve`, each its own JVM), the bare Vert.x peers, the
# bench volumes and the build. Sourced by run.sh and turns.sh after lib/proc.sh and lib/mains.sh, once they set
# BENCH_DIR, BENCH_OUT, ROOT, AGENT_PORT_BASE and SIDECAR_PORT (and RESULTS for `record`); the settings below keep a
# value set before.

BENCH_DATA=${BENCH_DATA:-/tmp/seaweedfs-rdma-bench}   # volumes, plain copies, path lists (reused between runs)
COUNT_4K=${COUNT_4K:-4000}
COUNT_1M=${COUNT_1M:-1000}
SHM_TLS=${SHM_TLS:-shm,tcp}              # tcp must be listed: the listener's connection manager runs on it
JAR=$ROOT/target/seaweedfs-rdma-sidecar.jar
JAVA_OPTS=${JAVA_OPTS:-}                 # every JVM of the run
AGENT_JAVA_OPTS=${AGENT_JAVA_OPTS:-}
SIDECAR_JAVA_OPTS=${SIDECAR_JAVA_OPTS:-}
# What the jar's manifest gives `serve`, for the mains that embed the sidecar on a class path, as
# docs/api.md advises an application embedding it: Netty's small heap buffers are not zeroed before use.
EMBEDDED_JAVA_OPTS="--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
# The configurations measured side by side (each: agent + sidecar started with it):
#   defaults  conf/config.yaml as shipped: volumes mapped, UCX chooses transports, metrics on; the bench sets only
#             addresses, fallback: [] (every answer an RDMA read) and the in-flight bounds its load needs
#   best      the agent serves UCX copies of its volumes (agent.volumeMemory: ucx), ucx.tls [shm, tcp], 2 MiB read
#             buffers (a 1 MiB needle in one get), the sidecar's sockets on BEST_TRANSPORT (http.transport),
#             metrics on
CONFIGS=${CONFIGS:-defaults best}
METRICS=${METRICS:-true}                 # metrics.enabled of agent and sidecar in every configuration (serve's default)
HTTP_INSTANCES=${HTTP_INSTANCES:-}       # sidecar http.instances; empty: the shipped default (half the cores)
BEST_TRANSPORT=${BEST_TRANSPORT:-io_uring}  # the best configuration's sidecar http.transport
SIDECAR_POOL=${SIDECAR_POOL:-256MiB}     # sidecar.bufferPool.totalBytes
SIDECAR_BUFFER=${SIDECAR_BUFFER:-2MiB}   # sidecar.bufferPool.bufferSize: a 1 MiB needle's record (data + ~40 B of
                                         # header and tail) then fits one buffer, one get instead of two

# UCX's early variables, for the C program and the bench mains; `serve` sets them itself before UCX loads. With them
# set, an older build (BASELINE_JAR) does not relaunch itself either, so a PID is the process that serves.
export UCX_TCP_CM_REUSEADDR=y UCX_ERROR_SIGNALS= UCX_LOG_FILE=stderr

log() { printf '\n== %s\n' "$*" >&2; }

# record — JSON lines on stdin are shown and appended to $RESULTS; any other line goes to stderr.
record() {
    local line
    while IFS= read -r line; do
        if [[ $line == "{"* ]]; then
            [ -z "${RECORD_TAG:-}" ] || line="{$RECORD_TAG,${line:1}"
            printf '%s\n' "$line" | tee -a "$RESULTS"
        else printf '%s\n' "$line" >&2; fi
    done
}

# ---------- data and build ----------

# The same bytes twice: `gen-volume` writes volume VID (real format, for the agent) and each needle's data as a
# plain file named by its file id (for nginx), and prints the URL paths wrk spreads requests over.
make_http_data() {
    gen_volume 1 4096 "$COUNT_4K"
    gen_volume 2 1048576 "$COUNT_1M"
}

# gen_volume VID SIZE COUNT [--ec] — reused while the stamp matches (a 1 GiB volume takes a while to write).
gen_volume() {
    local vid=$1 size=$2 count=$3 vols=$BENCH_DATA/volumes extra=("${@:4}")
    local stamp=$vols/$vid.stamp want="gen-volume --vid $1 --size $2 --count $3 ${extra[*]}"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -s "$BENCH_DATA/vid$vid.paths" ]; then
        log "volume $vid: reusing $count x $size B in $vols (plain copies in $BENCH_DATA/plain)"
        return
    fi
    log "volume $vid: $count x $size B in $vols, plain copies in $BENCH_DATA/plain"
    mkdir -p "$vols" "$BENCH_DATA/plain"
    find "$BENCH_DATA/plain" -maxdepth 1 -name "$vid,*" -delete
    rm -f "$vols/$vid.dat" "$vols/$vid.idx" "$vols/$vid".ec?? "$vols/$vid.ecx" "$vols/$vid.ecj" "$vols/$vid.vif" "$stamp"
    java -jar "$JAR" gen-volume "$vols" --vid "$vid" --count "$count" --size "$size" --plain "$BENCH_DATA/plain" \
        "${extra[@]}" > "$BENCH_DATA/vid$vid.paths"
    echo "$want" > "$stamp"
}

# build_java — the jar (unless BENCH_SKIP_BUILD is set and it exists), then the bench mains; sets JAVA_CP.
build_java() {
    if [ -z "${BENCH_SKIP_BUILD:-}" ] || [ ! -f "$JAR" ]; then
        log "build: mvn -o -DskipTests package, then the bench mains (bench/java) against the jar"
        (cd "$ROOT" && mvn -q -B -o -DskipTests package)
    fi
    JAVA_CP=$(build_mains "$JAR" "$BENCH_OUT/mains")
}

# ---------- the project's processes: agent and sidecar started with `serve`, each its own JVM ----------

# yaml_list "a,b" -> [a, b]
yaml_list() { printf '[%s]' "$(sed 's/,/, /g' <<< "$1")"; }

# config_ucx CONFIG — the ucx section of a configuration (empty: the defaults)
config_ucx() { [ "$1" = best ] && printf 'ucx:\n  tls: %s\n' "$(yaml_list "$SHM_TLS")"; return 0; }

# start_agent CONFIG [NAME [JAR]] — agent serving $BENCH_DATA/volumes on 127.0.0.1:$AGENT_PORT, configuration
# $BENCH_OUT/NAME.yaml, log logs/NAME.log (NAME: agent); sets AGENT_PID and AGENT_PORT. Each start takes the next
# port: the previous agent's port may still be held (UCX reports "Device is busy") right after it stopped.
AGENT_STARTS=0
start_agent() {
    local name=${2:-agent} jar=${3:-$JAR}
    AGENT_PORT=$((AGENT_PORT_BASE + AGENT_STARTS))
    AGENT_STARTS=$((AGENT_STARTS + 1))
    local conf=$BENCH_OUT/$name.yaml
    cat > "$conf" <<YAML
roles: [agent]
agent:
  listen: 127.0.0.1:$AGENT_PORT
  volumeDirs: [$BENCH_DATA/volumes]
$([ "$1" = best ] && echo "  volumeMemory: ucx")
http:  # every role answers /health, /metrics: any free port, so several agents fit on one host
  host: 127.0.0.1
  port: 0
$(config_ucx "$1")
metrics:
  enabled: $METRICS
YAML
    # shellcheck disable=SC2086
    java $JAVA_OPTS $AGENT_JAVA_OPTS -jar "$jar" serve --conf "$conf" > "$BENCH_OUT/logs/$name.log" 2>&1 &
    AGENT_PID=$!
    wait_for_line "$BENCH_OUT/logs/$name.log" '^ready:' 60 "$AGENT_PID"
}

# sidecar_conf CONFIG PORT FILE — the sidecar's configuration, reading from the agent on $AGENT_PORT (also used
# in-JVM by the event-bus bench, with PORT 0: its HTTP API idles).
sidecar_conf() {
    cat > "$3" <<YAML
roles: [sidecar]
http:
  host: 127.0.0.1
  port: $2
$([ -n "$HTTP_INSTANCES" ] && echo "  instances: $HTTP_INSTANCES")
$([ "$1" = best ] && printf '  transport: %s\n' "$BEST_TRANSPORT")
sidecar:
  agents: [127.0.0.1:$AGENT_PORT]
  fallback: []
  maxInFlightReads: 4096
$([ "$1" = best ] && printf '  bufferPool:\n    bufferSize: %s\n    totalBytes: %s\n' "$SIDECAR_BUFFER" "$SIDECAR_POOL")
$(config_ucx "$1")
metrics:
  enabled: $METRICS
YAML
}

# start_sidecar CONFIG [NAME [JAR]] — sidecar on 127.0.0.1:$SIDECAR_PORT reading from the agent on $AGENT_PORT,
# configuration $BENCH_OUT/NAME.yaml, log logs/NAME.log (NAME: sidecar); sets SIDECAR_PID. It is ready once a needle
# answers with X-Source: rdma (the connection to the agent is made in the background).
start_sidecar() {
    local name=${2:-sidecar} jar=${3:-$JAR}
    local conf=$BENCH_OUT/$name.yaml
    sidecar_conf "$1" "$SIDECAR_PORT" "$conf"
    # shellcheck disable=SC2086
    java $JAVA_OPTS $SIDECAR_JAVA_OPTS -jar "$jar" serve --conf "$conf" > "$BENCH_OUT/logs/$name.log" 2>&1 &
    SIDECAR_PID=$!
    wait_for_line "$BENCH_OUT/logs/$name.log" '^ready:' 60 "$SIDECAR_PID"
    wait_for_rdma "$SIDECAR_PORT" 30
}

# wait_for_rdma PORT SECONDS — until the sidecar on PORT answers the first needle of volume 1 with X-Source: rdma.
wait_for_rdma() {
    local url="http://127.0.0.1:$1$(head -n1 "$BENCH_DATA/vid1.paths")" deadline=$((SECONDS + $2))
    until curl -s -D - -o /dev/null "$url" | grep -qi '^x-source: *rdma'; do
        [ $SECONDS -lt $deadline ] || { echo "the sidecar does not read over RDMA: $url" >&2; return 1; }
        sleep 0.2
    done
}

# ---------- the framework's ceilings: bench/peers/VertxStaticHttp.java ----------

# http_instances — the sidecar's http.instances: HTTP_INSTANCES, else the shipped default (half the cores, >= 1).
http_instances() {
    if [ -n "$HTTP_INSTANCES" ]; then echo "$HTTP_INSTANCES"; else echo $(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 )); fi
}

# start_vertx_peer NAME PORT [--sidecar-headers] — a bare Vert.x server (the sidecar's jar, its HTTP server options
# and instance count) answering the plain files from memory, log logs/NAME.log; sets PEER_PID.
start_vertx_peer() {
    local log=$BENCH_OUT/logs/$1.log
    # shellcheck disable=SC2086
    java $JAVA_OPTS -Dlogback.configurationFile="$ROOT/src/test/resources/logback-test.xml" -cp "$JAR" \
        "$BENCH_DIR/peers/VertxStaticHttp.java" "$BENCH_DATA/plain" "$2" "$(http_instances)" "${@:3}" \
        > "$log" 2>&1 &
    PEER_PID=$!
    wait_for_line "$log" '^ready:' 60 "$PEER_PID"
}
