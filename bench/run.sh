#!/usr/bin/env bash
# One benchmark run: the project beside its peers on this machine (see bench/README.md).
# Results: $BENCH_OUT/results.jsonl (one JSON object per line), report.md and PNG plots beside it.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export BENCH_OUT=${BENCH_OUT:-$BENCH_DIR/out}
BENCH_DATA=${BENCH_DATA:-/tmp/seaweedfs-rdma-bench}      # plain files (reused between runs)
export WRK_SECONDS=${WRK_SECONDS:-10}
NGINX_PORT=${NGINX_PORT:-18080}
NGINX_WORKERS=${NGINX_WORKERS:-1}                          # 1 worker + 1 wrk thread = the 2 cores
COUNT_4K=${COUNT_4K:-4000}
COUNT_1M=${COUNT_1M:-1000}
C_SIZES=${C_SIZES:-4K,64K,1M}
C_ARGS=${C_ARGS:-}                                         # extra ucp_get_bench options
SHM_TLS=${SHM_TLS:-shm,tcp}   # tcp must be listed: the listener's connection manager runs on it
TCP_TLS=${TCP_TLS:-tcp}

RESULTS=$BENCH_OUT/results.jsonl
source "$BENCH_DIR/lib/http.sh"

# record — JSON lines on stdin are shown and appended to the results; any other line goes to stderr.
record() {
    local line
    while IFS= read -r line; do
        if [[ $line == "{"* ]]; then printf '%s\n' "$line" | tee -a "$RESULTS"; else printf '%s\n' "$line" >&2; fi
    done
}

log() { printf '\n== %s\n' "$*" >&2; }

check_tools() {
    local missing=()
    for t in gcc make nginx wrk curl python3; do command -v "$t" > /dev/null || missing+=("$t"); done
    [ -e /usr/include/ucp/api/ucp.h ] || missing+=("libucx-dev")
    if [ ${#missing[@]} -gt 0 ]; then
        echo "missing: ${missing[*]} (Debian: apt-get install -y gcc make nginx wrk curl python3 libucx-dev ucx-utils)" >&2
        exit 1
    fi
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

make_http_data() {
    log "plain files: $COUNT_4K x 4 KiB, $COUNT_1M x 1 MiB in $BENCH_DATA/plain"
    make_plain_files "$BENCH_DATA/plain" 1 4096 "$COUNT_4K" "$BENCH_DATA/vid1.paths"
    make_plain_files "$BENCH_DATA/plain" 2 1048576 "$COUNT_1M" "$BENCH_DATA/vid2.paths"
}

# http_suite IMPL URL_BASE — the three HTTP shapes of the issue, against any server holding the data.
http_suite() {
    local impl=$1 base=$2
    http_verify "$base" "$BENCH_DATA/vid1.paths" "$BENCH_DATA/plain"
    http_verify "$base" "$BENCH_DATA/vid2.paths" "$BENCH_DATA/plain"
    log "$impl: 4 KiB, 64 connections";   wrk_measure "$impl" 4096 64 "$base" "$BENCH_DATA/vid1.paths" | record
    log "$impl: 1 MiB, 8 connections";    wrk_measure "$impl" 1048576 8 "$base" "$BENCH_DATA/vid2.paths" | record
    log "$impl: 4 KiB, 1 connection";     wrk_measure "$impl" 4096 1 "$base" "$BENCH_DATA/vid1.paths" | record
    log "$impl: 1 MiB, 1 connection";     wrk_measure "$impl" 1048576 1 "$base" "$BENCH_DATA/vid2.paths" | record
}

run_nginx() {
    local prefix=$BENCH_OUT/nginx
    log "nginx: $NGINX_WORKERS worker(s) on 127.0.0.1:$NGINX_PORT"
    nginx_start "$BENCH_DATA/plain" "$NGINX_PORT" "$NGINX_WORKERS" "$prefix"
    trap 'nginx_stop "$BENCH_OUT/nginx"' EXIT
    http_suite nginx "http://127.0.0.1:$NGINX_PORT"
    nginx_stop "$prefix"
    trap - EXIT
}

# ---------- hooks: the project's side, plugged in when the read path exists ----------
# Each hook prints JSON lines (through `record`) or says on stderr that it is not wired yet.
# Field names shared with the peers make report.py pair them: see bench/README.md.

# hook_java_get TLS MEM SIZES — the Java get path for the same transport (UCX_TLS=TLS) and memory kind
# (file | ucx) as the C run just before it; lines {"impl":"java-ucp","kind":"get","tls","mem","size",
# "p50_us","p99_us","gbps","pcts_us"}.
hook_java_get() { echo "hook_java_get: not wired yet (tls=$1 mem=$2)" >&2; }

# hook_sidecar_http — start agent + sidecar (separate processes) on volumes holding the bytes of
# $BENCH_DATA/plain under the same file ids, then `http_suite sidecar http://127.0.0.1:<port>`, then stop them.
hook_sidecar_http() { echo "hook_sidecar_http: not wired yet" >&2; }

# hook_eventbus — in-JVM event-bus reads at 4 KiB and 1 MiB; lines {"impl":"java-eventbus","kind":"eventbus",
# "size","ops_s","gbps","p50_us","p99_us","pcts_us"}.
hook_eventbus() { echo "hook_eventbus: not wired yet" >&2; }

# hook_agent_cpu — agent CPU time per read over shared memory and over TCP; lines {"kind":"agent_cpu",
# "tls","size","reads","cpu_us_per_read"} (e.g. /proc/<agent pid>/stat utime+stime delta / reads).
hook_agent_cpu() { echo "hook_agent_cpu: not wired yet" >&2; }

# hook_memory — sidecar memory; lines {"kind":"memory","what":"rss_at_1000_concurrent"|"heap_after_reads",
# "reads","rss_mib","heap_mib"}.
hook_memory() { echo "hook_memory: not wired yet" >&2; }

# ---------- main ----------

main() {
    local steps=${*:-c http sidecar eventbus cpu memory}
    check_tools
    mkdir -p "$BENCH_OUT" "$BENCH_DATA"
    : > "$RESULTS"
    record_meta
    for step in $steps; do
        case $step in
            c) run_c_get ;;
            http) make_http_data; run_nginx ;;
            sidecar) make_http_data; hook_sidecar_http ;;
            eventbus) hook_eventbus ;;
            cpu) hook_agent_cpu ;;
            memory) hook_memory ;;
            *) echo "unknown step '$step' (steps: c http sidecar eventbus cpu memory)" >&2; exit 2 ;;
        esac
    done
    log "report"
    "$REPORT_PYTHON" "$BENCH_DIR/report.py" "$RESULTS" --out "$BENCH_OUT"
}

main "$@"
