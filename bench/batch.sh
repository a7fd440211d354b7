#!/usr/bin/env bash
# Many needles in one call, measured by turns: every round runs each contender once, in an order rotated by one per
# round; each ratio is taken within a round and the report gives every round and the median of the ratios.
#   1. readMany against one read at a time, on the typed client (copied and lent) and on the event bus
#      (ReadManyBenchMain, the sidecar in the bench's JVM, its agent a process): needles/s and CPU per needle;
#   2. HTTP POST /batch of 256 x 4 KiB needles against one GET per needle (needles/s, sidecar CPU per needle) and
#      against nginx serving the same tar, prebuilt (bytes/s);
#   3. the Python reader (python/seaweedfs_rdma) streaming 100 KB needles with read_many (MB/s).
# Usage: bench/batch.sh [CONFIG]  (CONFIG: defaults | best, as bench/run.sh; default defaults)
# Env: ROUNDS (5), SECONDS_PER_RUN (3), WARM_SECONDS (30: the JIT settles before the rounds, in each JVM measured),
# CONNS (wrk connections, 16), COUNT_100K (200), BENCH_OUT, BENCH_DATA.
# Writes JSON lines to $BENCH_OUT/batch.jsonl; a short run proves the script: ROUNDS=5 SECONDS_PER_RUN=1 WARM_SECONDS=0.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export BENCH_OUT=${BENCH_OUT:-$HERE/out/batch}
export BENCH_DATA=${BENCH_DATA:-/tmp/seaweedfs-rdma-batch-bench}
# Ports of their own, so this runs beside bench/run.sh.
export AGENT_PORT=${AGENT_PORT:-28515} SIDECAR_PORT=${SIDECAR_PORT:-28081} NGINX_PORT=${NGINX_PORT:-28080}
source "$HERE/run.sh"  # defines only: gen_volume, start_agent, start_sidecar, sidecar_conf, stop_servers, ...

CONFIG=${1:-defaults}
ROUNDS=${ROUNDS:-5}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
WARM_SECONDS=${WARM_SECONDS:-30}
CONNS=${CONNS:-16}
COUNT_100K=${COUNT_100K:-200}
VID_4K=21
VID_100K=22
OUT=$BENCH_OUT/batch.jsonl

[ "$ROUNDS" -ge 5 ] || { echo "ROUNDS must be at least 5" >&2; exit 2; }
for t in java curl wrk nginx python3; do command -v "$t" > /dev/null || { echo "missing: $t" >&2; exit 1; }; done
mkdir -p "$BENCH_OUT/logs" "$BENCH_DATA"
: > "$OUT"
emit() { tee -a "$OUT"; }

build_java
gen_volume "$VID_4K" 4096 256
gen_volume "$VID_100K" 102400 "$COUNT_100K"

cleanup() { stop_servers; nginx_stop "$BENCH_OUT/nginx"; }
trap cleanup EXIT
start_agent "$CONFIG"
mkdir -p "$BENCH_OUT/logs"

log "1. readMany against one at a time (typed client, event bus): $ROUNDS rounds of ${SECONDS_PER_RUN}s runs"
sidecar_conf "$CONFIG" "$((SIDECAR_PORT + 1))" "$BENCH_OUT/readmany-sidecar.yaml"
# shellcheck disable=SC2086
java $JAVA_OPTS $SIDECAR_JAVA_OPTS $EMBEDDED_JAVA_OPTS -cp "$JAVA_CP" org.seaweedfs.rdma.bench.ReadManyBenchMain \
    --conf "$BENCH_OUT/readmany-sidecar.yaml" --plain "$BENCH_DATA/plain" --rounds "$ROUNDS" \
    --seconds "$SECONDS_PER_RUN" --warm "$((WARM_SECONDS / 5))" "$BENCH_DATA/vid$VID_4K.paths" \
    2>> "$BENCH_OUT/logs/readmany.log" | emit

log "2. HTTP: POST /batch of 256 x 4 KiB, one GET per needle, nginx serving the same tar"
# As run.sh's start_sidecar, waiting for RDMA on this script's volume.
sidecar_conf "$CONFIG" "$SIDECAR_PORT" "$BENCH_OUT/sidecar.yaml"
# shellcheck disable=SC2086
java $JAVA_OPTS $SIDECAR_JAVA_OPTS -jar "$JAR" serve --conf "$BENCH_OUT/sidecar.yaml" > "$BENCH_OUT/logs/sidecar.log" 2>&1 &
SIDECAR_PID=$!
wait_for_line "$BENCH_OUT/logs/sidecar.log" '^ready:' 60 "$SIDECAR_PID"
first="http://127.0.0.1:$SIDECAR_PORT$(head -n1 "$BENCH_DATA/vid$VID_4K.paths")"
for _ in $(seq 300); do curl -s -D - -o /dev/null "$first" | grep -qi '^x-source: *rdma' && break; sleep 0.1; done
curl -s -D - -o /dev/null "$first" | grep -qi '^x-source: *rdma' || { echo "no RDMA read at $first" >&2; exit 1; }
sed 's|^/||' "$BENCH_DATA/vid$VID_4K.paths" > "$BENCH_OUT/batch-body.txt"
mkdir -p "$BENCH_OUT/tar"
curl -sf -X POST --data-binary "@$BENCH_OUT/batch-body.txt" "http://127.0.0.1:$SIDECAR_PORT/batch" \
    -o "$BENCH_OUT/tar/batch.tar"
python3 - "$BENCH_OUT/tar/batch.tar" "$BENCH_DATA/plain" "$BENCH_OUT/batch-body.txt" <<'PY'
import sys, tarfile
archive, plain, body = sys.argv[1:]
fids = [l.strip() for l in open(body) if l.strip()]
with tarfile.open(archive) as t:
    members = t.getmembers()
    assert [m.name for m in members] == fids, "members in request order"
    for m in members:
        assert t.extractfile(m).read() == open(f"{plain}/{m.name}", "rb").read(), m.name
PY
nginx_start "$BENCH_OUT/tar" "$NGINX_PORT" 1 "$BENCH_OUT/nginx"
curl -sf "http://127.0.0.1:$NGINX_PORT/batch.tar" | cmp -s - "$BENCH_OUT/tar/batch.tar" \
    || { echo "nginx does not serve the tar" >&2; exit 1; }
echo "/batch.tar" > "$BENCH_OUT/tar.paths"
TAR_BYTES=$(stat -c %s "$BENCH_OUT/tar/batch.tar")
# warm-up: the JIT and the location cache
wrk -t1 -c"$CONNS" -d"${WARM_SECONDS}s" -s "$BENCH_LIB/batch_post.lua" "http://127.0.0.1:$SIDECAR_PORT/" \
    -- "$BENCH_OUT/batch-body.txt" > /dev/null
wrk -t1 -c"$CONNS" -d"$((WARM_SECONDS / 2))s" -s "$BENCH_LIB/random_path.lua" "http://127.0.0.1:$SIDECAR_PORT/" \
    -- "$BENCH_DATA/vid$VID_4K.paths" > /dev/null

# one_http RUN ROUND POSITION — one wrk run; prints its JSON line (needles/s, bytes/s, sidecar CPU per needle).
one_http() {
    local run=$1 log="$BENCH_OUT/logs/wrk-batch-$1-$2.txt" script list base per t0 t1
    case $run in
        batch) script=batch_post.lua; list=$BENCH_OUT/batch-body.txt; base=$SIDECAR_PORT; per=256 ;;
        get) script=random_path.lua; list=$BENCH_DATA/vid$VID_4K.paths; base=$SIDECAR_PORT; per=1 ;;
        nginx) script=random_path.lua; list=$BENCH_OUT/tar.paths; base=$NGINX_PORT; per=256 ;;
    esac
    t0=$(cpu_ticks "$SIDECAR_PID")
    wrk -t1 -c"$CONNS" -d"${SECONDS_PER_RUN}s" -s "$BENCH_LIB/$script" "http://127.0.0.1:$base/" -- "$list" \
        > "$log" 2>&1 || { echo "wrk failed, see $log" >&2; return 1; }
    t1=$(cpu_ticks "$SIDECAR_PID")
    grep '^WRK_JSON ' "$log" | sed 's/^WRK_JSON //' | python3 -c '
import json, os, sys
r = json.loads(sys.stdin.read())
run, rnd, pos, per, ticks, tar = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
needles = r["requests"] * per
out = {"kind": "batch-http", "run": run, "round": rnd, "position": pos, "req_s": round(r["requests"] / r["duration_s"], 1),
       "needles_s": round(needles / r["duration_s"]), "body_bytes_s": round(r["requests"] * (tar if per == 256 else 4096) / r["duration_s"]),
       "errors": r["errors"], "non_2xx": r["non_2xx"]}
if run != "nginx":
    out["sidecar_cpu_us_per_needle"] = round(ticks * 1e6 / os.sysconf("SC_CLK_TCK") / max(needles, 1), 2)
print(json.dumps(out))' "$run" "$2" "$3" "$per" "$((t1 - t0))" "$TAR_BYTES"
}

runs=(batch get nginx)
for ((round = 0; round < ROUNDS; round++)); do
    for ((k = 0; k < ${#runs[@]}; k++)); do
        one_http "${runs[$(((k + round) % ${#runs[@]}))]}" "$round" "$k" | emit
    done
done

log "3. the Python reader: read_many of $COUNT_100K x 100 KB needles"
for ((round = 0; round < ROUNDS; round++)); do
    PYTHONPATH="$ROOT/python" python3 "$BENCH_LIB/python_reader_bench.py" "http://127.0.0.1:$SIDECAR_PORT" \
        "$BENCH_DATA/vid$VID_100K.paths" "$SECONDS_PER_RUN" "$BENCH_DATA/plain" \
        | python3 -c 'import json,sys; r=json.load(sys.stdin); r.update(kind="python-reader", round=int(sys.argv[1])); print(json.dumps(r))' "$round" \
        | emit
done

log "summary (medians of per-round ratios)"
python3 - "$OUT" <<'PY' | emit
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
http = {}
for l in lines:
    if l.get("kind") == "batch-http":
        http.setdefault(l["round"], {})[l["run"]] = l
vs_get = [r["batch"]["needles_s"] / r["get"]["needles_s"] for r in http.values()]
vs_nginx = [r["batch"]["body_bytes_s"] / r["nginx"]["body_bytes_s"] for r in http.values()]
py = [l["mb_s"] for l in lines if l.get("kind") == "python-reader"]
print(json.dumps({"kind": "batch-summary",
                  "batch_over_get_needles_rounds": [round(x, 2) for x in vs_get],
                  "batch_over_get_needles_median": round(statistics.median(vs_get), 2),
                  "batch_over_nginx_bytes_rounds": [round(x, 2) for x in vs_nginx],
                  "batch_over_nginx_bytes_median": round(statistics.median(vs_nginx), 2),
                  "batch_needles_s_median": statistics.median(r["batch"]["needles_s"] for r in http.values()),
                  "batch_sidecar_cpu_us_per_needle_median":
                      statistics.median(r["batch"]["sidecar_cpu_us_per_needle"] for r in http.values()),
                  "get_sidecar_cpu_us_per_needle_median":
                      statistics.median(r["get"]["sidecar_cpu_us_per_needle"] for r in http.values()),
                  "python_mb_s_rounds": py, "python_mb_s_median": statistics.median(py)}))
PY
