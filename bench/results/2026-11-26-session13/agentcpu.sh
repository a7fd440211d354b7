#!/usr/bin/env bash
# agentcpu.sh JAR LABEL: defaults agent + sidecar (/tmp/def1), 8 s warm-up, wrk c16 4 KiB 8 s; agent and sidecar CPU µs per read
jar=$1; label=$2
export UCX_POSIX_ERROR_HANDLING=y UCX_SYSV_ERROR_HANDLING=y UCX_TCP_CM_REUSEADDR=y UCX_ERROR_SIGNALS= UCX_LOG_FILE=stderr
export UCX_TCP_TX_SEG_SIZE=256k UCX_TCP_RX_SEG_SIZE=256k UCX_SYSV_SEG_SIZE=32k UCX_POSIX_SEG_SIZE=32k
java -Xmx1g -jar $jar serve --conf /tmp/def1/agent.yaml > /tmp/s13/logs/ca.log 2>&1 & ag=$!
until grep -q '^ready:' /tmp/s13/logs/ca.log; do sleep 0.2; done
java -Xmx1g -jar $jar serve --conf /tmp/def1/sidecar.yaml > /tmp/s13/logs/cs.log 2>&1 & sc=$!
until curl -s -D - -o /dev/null "http://127.0.0.1:18091$(head -n1 /tmp/seaweedfs-rdma-bench/vid1.paths)" | grep -qi '^x-source: *rdma'; do sleep 0.2; done
wrk -t1 -c64 -d8s -s /work/main/bench/lib/random_path.lua http://127.0.0.1:18091/ -- /tmp/seaweedfs-rdma-bench/vid1.paths > /dev/null
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
a0=$(cpu $ag); s0=$(cpu $sc)
out=$(wrk -t1 -c16 -d8s -s /work/main/bench/lib/random_path.lua http://127.0.0.1:18091/ -- /tmp/seaweedfs-rdma-bench/vid1.paths)
a1=$(cpu $ag); s1=$(cpu $sc)
n=$(echo "$out" | sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
echo "$label reqs $n agent_us $(awk -v c=$((a1-a0)) -v n=$n 'BEGIN{printf "%.2f", c*1e4/n}') sidecar_us $(awk -v c=$((s1-s0)) -v n=$n 'BEGIN{printf "%.2f", c*1e4/n}')"
kill $ag $sc; wait 2>/dev/null
