# HTTP peers and the wrk driver; sourced by run.sh. Needs: nginx, wrk, python3, curl.
# Every function takes what it measures as parameters, so the sidecar is measured by the same code.

BENCH_LIB=${BENCH_LIB:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}

# nginx_start ROOT PORT WORKERS PREFIX [ADDRESS] — nginx on ADDRESS:PORT (default 127.0.0.1) serving ROOT, config and
# logs in PREFIX.
# The comparison settings: sendfile on, access log off, open_file_cache (nginx's best static setup).
nginx_start() {
    local root=$1 port=$2 workers=$3 prefix=$4
    mkdir -p "$prefix/tmp"
    chmod a+rx "$root"
    cat > "$prefix/nginx.conf" <<CONF
worker_processes $workers;
pid $prefix/nginx.pid;
error_log $prefix/error.log warn;
events { worker_connections 4096; use epoll; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000000;
    keepalive_timeout 120s;
    open_file_cache max=20000 inactive=120s;
    open_file_cache_valid 120s;
    default_type application/octet-stream;
    client_body_temp_path $prefix/tmp/body;
    proxy_temp_path $prefix/tmp/proxy;
    fastcgi_temp_path $prefix/tmp/fastcgi;
    uwsgi_temp_path $prefix/tmp/uwsgi;
    scgi_temp_path $prefix/tmp/scgi;
    server {
        listen ${5:-127.0.0.1}:$port;
        root $root;
        location / { }
    }
}
CONF
    nginx -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" || { echo "nginx failed to start" >&2; return 1; }
    wait_for_http "http://127.0.0.1:$port/" 10
}

# nginx_stop PREFIX
nginx_stop() {
    local pidfile="$1/nginx.pid"
    [ -f "$pidfile" ] || return 0
    kill -QUIT "$(cat "$pidfile")" 2>/dev/null
    for _ in $(seq 50); do [ -f "$pidfile" ] || return 0; sleep 0.1; done
}

# wait_for_http URL SECONDS — until anything answers HTTP at URL.
wait_for_http() {
    local url=$1 deadline=$((SECONDS + $2))
    until curl -s -o /dev/null "$url"; do
        [ $SECONDS -lt $deadline ] || { echo "nothing answers at $url" >&2; return 1; }
        sleep 0.1
    done
}

# http_verify URL_BASE PATHS_FILE ROOT — the first and last path must answer exactly the file's bytes.
http_verify() {
    local base=$1 list=$2 root=$3 path
    for path in "$(head -n1 "$list")" "$(tail -n1 "$list")"; do
        curl -sf "$base$path" | cmp -s - "$root$path" || { echo "wrong bytes at $base$path" >&2; return 1; }
    done
}

# wrk_measure IMPL SIZE CONNS URL_BASE PATHS_FILE [SECONDS] — wrk_run after a short warm-up (WRK_WARMUP_SECONDS, 2)
# for WRK_SECONDS (10); wrk's own --latency report is kept in $BENCH_OUT/logs/.
wrk_measure() {
    local impl=$1 size=$2 conns=$3 base=$4 list=$5 secs=${6:-${WRK_SECONDS:-10}}
    mkdir -p "$BENCH_OUT/logs"
    wrk -t1 -c"$conns" -d"${WRK_WARMUP_SECONDS:-2}s" -s "$BENCH_LIB/random_path.lua" "$base/" -- "$list" > /dev/null
    wrk_run "$impl" "$size" "$conns" "$base" "$list" "$secs" "$BENCH_OUT/logs/wrk-$impl-$size-c$conns.txt"
}

# wrk_run IMPL SIZE CONNS URL_BASE PATHS_FILE SECONDS LOG — one wrk run (1 thread, a random path of the list per
# request) printed as one JSON line; wrk's own --latency report goes to LOG:
#   {"impl","kind":"http","size","conns","req_s","gbps" (GB/s of response bytes incl. headers),
#    "p50_us","p99_us","mean_us","errors","non_2xx","requests","bytes","duration_s","pcts_us":{...}}
wrk_run() {
    local impl=$1 size=$2 conns=$3 base=$4 list=$5 secs=$6 log=$7
    wrk -t1 -c"$conns" -d"${secs}s" --latency -s "$BENCH_LIB/random_path.lua" "$base/" -- "$list" > "$log" 2>&1 \
        || { echo "wrk failed, see $log" >&2; return 1; }
    grep '^WRK_JSON ' "$log" | sed 's/^WRK_JSON //' | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
impl, size, conns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = {"impl": impl, "kind": "http", "size": size, "conns": conns,
       "req_s": round(r["requests"] / r["duration_s"], 1),
       "gbps": round(r["bytes"] / r["duration_s"] / 1e9, 3)}
out.update({k: r[k] for k in ("p50_us", "p99_us", "mean_us", "errors", "non_2xx", "requests", "bytes", "duration_s",
                              "pcts_us")})
print(json.dumps(out))' "$impl" "$size" "$conns"
}
