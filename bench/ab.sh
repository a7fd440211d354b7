#!/usr/bin/env bash
# Before/after of one change: agent + sidecar from JAR (two `serve` JVMs), wrk 4 KiB at 64 and 1 connections,
# requests/s, latency and the CPU each process spent per request (/proc/<pid>/stat). Run the jars alternately.
#   bench/run.sh sidecar                         # once: volumes, path lists, bench/out/{agent,sidecar}.yaml
#   bench/ab.sh before /tmp/before.jar; bench/ab.sh after target/seaweedfs-rdma-sidecar.jar; (repeat)
# Then the event bus from bench/ab/EventBusAb.java (sidecar embedded, same agent), requester EVENTBUS ("other-loop").
# Env: JAVA_OPTS (every JVM, the event-bus harness too), CONNS ("64 1"), SECONDS_EACH (5), WARMUP (6), LIST (4 KiB path list), SIDECAR_CONF, AGENT_CONF,
#      EVENTBUS ("other-loop"; "same-loop" and "typed", the typed client, too; or empty), EB_SECONDS (4).
# CPU is counted for each JVM (serve runs in the JVM launched).
set -euo pipefail
label=${1:?label}; jar=${2:?jar}
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$BENCH_DIR/lib/proc.sh"
out=${BENCH_OUT:-$BENCH_DIR/out}
data=${BENCH_DATA:-/tmp/seaweedfs-rdma-bench}
list=${LIST:-$data/vid1.paths}
sidecar_conf=${SIDECAR_CONF:-$out/sidecar.yaml}
agent_conf=${AGENT_CONF:-$out/agent.yaml}
export UCX_TCP_CM_REUSEADDR=y UCX_ERROR_SIGNALS= UCX_LOG_FILE=stderr
port=$(sed -n 's/^  port: *//p' "$sidecar_conf")
# shellcheck disable=SC2086
java ${JAVA_OPTS:-} -jar "$jar" serve --conf "$agent_conf" > "$out/logs/ab-agent.log" 2>&1 & agent=$!
trap 'kill $agent ${sidecar:-} 2> /dev/null || true' EXIT
until grep -q '^ready:' "$out/logs/ab-agent.log"; do sleep 0.2; done
# shellcheck disable=SC2086
java ${JAVA_OPTS:-} -jar "$jar" serve --conf "$sidecar_conf" > "$out/logs/ab-sidecar.log" 2>&1 & sidecar=$!
url="http://127.0.0.1:$port$(head -n1 "$list")"
until curl -s -D - -o /dev/null "$url" | grep -qi '^x-source: *rdma'; do sleep 0.2; done
wrk -t1 -c64 -d"${WARMUP:-6}s" -s "$BENCH_DIR/lib/random_path.lua" "http://127.0.0.1:$port/" -- "$list" > /dev/null
for c in ${CONNS:-64 1}; do
    a0=$(cpu_ticks $agent); s0=$(cpu_ticks $sidecar)
    r=$(wrk -t1 -c"$c" -d"${SECONDS_EACH:-5}s" --latency -s "$BENCH_DIR/lib/random_path.lua" "http://127.0.0.1:$port/" -- "$list" \
        | sed -n 's/^WRK_JSON //p')
    a1=$(cpu_ticks $agent); s1=$(cpu_ticks $sidecar)
    python3 -c 'import json, os, sys
r = json.loads(sys.argv[5]); n = r["requests"]; hz = os.sysconf("SC_CLK_TCK")
print("%-10s c%-3s %8.0f req/s  p50 %6s us  p99 %7s us  agent %6.1f us/req  sidecar %6.1f us/req  errors %d" % (
    sys.argv[1], sys.argv[2], n / r["duration_s"], r["p50_us"], r["p99_us"], int(sys.argv[3]) * 1e6 / hz / n,
    int(sys.argv[4]) * 1e6 / hz / n, r["errors"] + r["non_2xx"]))' "$label" "$c" $((a1 - a0)) $((s1 - s0)) "$r"
done
# The event bus (EVENTBUS="other-loop same-loop"; empty skips it): the sidecar in the harness's JVM, the same agent.
# bench/ab/EventBusAb.java uses only what every build exports, so one source measures each jar.
kill "$sidecar"; wait "$sidecar" 2> /dev/null || true; sidecar=
for placement in ${EVENTBUS-other-loop}; do
    # timeout: a harness whose read failed would otherwise keep its JVM (Vert.x threads) and this script waiting
    r=$(timeout 600 java ${JAVA_OPTS:-} -Dlogback.configurationFile="$BENCH_DIR/java/logback.xml" -cp "$jar" \
        "$BENCH_DIR/ab/EventBusAb.java" "$sidecar_conf" "$list" "${EB_SECONDS:-4}" "$placement" 2>> "$out/logs/ab-eventbus.log" \
        | grep '^{' || true)
    python3 -c 'import json, sys
r = json.loads(sys.argv[3]) if sys.argv[3] else None
print("%-10s eventbus %-10s %8s reads/s (runs %s)  p50 %6s us  p99 %7s us  cpu us/read: %s process, %s consumer loop"
      % (sys.argv[1], sys.argv[2], r["ops_s"] if r else "FAILED", r["ops_s_runs"] if r else "-", r["p50_us"] if r else "-",
         r["p99_us"] if r else "-", r.get("cpu_us_per_read", "-") if r else "-",
         r.get("consumer_cpu_us_per_read", "-") if r else "-"))' \
        "$label" "$placement" "$r"
done
