#!/usr/bin/env bash
# cpupair.sh JAR CFGDIR A_YAML B_YAML ROUNDS SECS CONNS LIST — like pair.sh, plus sidecar CPU µs per request per round
set -e
jar=$1; dir=$2; a=$3; b=$4; rounds=$5; secs=$6; conns=$7; list=$8
export UCX_POSIX_ERROR_HANDLING=y UCX_SYSV_ERROR_HANDLING=y UCX_TCP_CM_REUSEADDR=y UCX_ERROR_SIGNALS= UCX_LOG_FILE=stderr
export UCX_TCP_TX_SEG_SIZE=256k UCX_TCP_RX_SEG_SIZE=256k UCX_SYSV_SEG_SIZE=32k UCX_POSIX_SEG_SIZE=32k
mkdir -p /tmp/s13/logs
java -Xmx1g -jar $jar serve --conf $dir/agent.yaml > /tmp/s13/logs/pa.log 2>&1 & ag=$!
trap 'kill $ag $sa $sb 2>/dev/null' EXIT
until grep -q '^ready:' /tmp/s13/logs/pa.log; do sleep 0.2; done
java -Xmx1g ${A_OPTS:-} -jar ${A_JAR:-$jar} serve --conf $a > /tmp/s13/logs/psa.log 2>&1 & sa=$!
java -Xmx1g ${B_OPTS:-} -jar ${B_JAR:-$jar} serve --conf $b > /tmp/s13/logs/psb.log 2>&1 & sb=$!
pa=$(sed -n 's/^  port: *//p' $a); pb=$(sed -n 's/^  port: *//p' $b)
for p in $pa $pb; do until curl -s -D - -o /dev/null "http://127.0.0.1:$p$(head -n1 $list)" | grep -qi '^x-source: *rdma'; do sleep 0.2; done; done
pid_of() { ss -ltnpH "sport = :$1" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n1; }
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
tck=$(getconf CLK_TCK)
for p in $pa $pb $pa $pb; do wrk -t1 -c64 -d${WARM:-8}s -s /work/main/bench/lib/random_path.lua http://127.0.0.1:$p/ -- $list > /dev/null; done
for r in $(seq $rounds); do
  for p in $pa $pb; do
    pid=$(pid_of $p); c0=$(cpu $pid)
    out=$(wrk -t1 -c$conns -d${secs}s --latency -s /work/main/bench/lib/random_path.lua http://127.0.0.1:$p/ -- $list)
    c1=$(cpu $pid)
    n=$(echo "$out" | sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
    rps=$(echo "$out" | sed -n 's/^Requests\/sec: *//p')
    p50=$(echo "$out" | awk '$1=="50%"{print $2}')
    echo "r$r $p $rps $p50 $(awk -v c=$((c1-c0)) -v n=$n -v t=$tck 'BEGIN{printf "%.2f", c*1e6/t/n}')"
  done
done
