#!/usr/bin/env bash
# ebpair.sh ROUNDS DIR_A DIR_B — in-process client (SeaweedRdma.client) reads of 4 KiB at 64 in flight, by turns, one best agent
export UCX_POSIX_ERROR_HANDLING=y UCX_SYSV_ERROR_HANDLING=y UCX_TCP_CM_REUSEADDR=y UCX_ERROR_SIGNALS= UCX_LOG_FILE=stderr
export UCX_TCP_TX_SEG_SIZE=256k UCX_TCP_RX_SEG_SIZE=256k UCX_SYSV_SEG_SIZE=32k UCX_POSIX_SEG_SIZE=32k
rounds=$1; a=$2; b=$3
java -Xmx1g -jar $a/target/seaweedfs-rdma-sidecar.jar serve --conf /tmp/best/agent.yaml > /tmp/s14/logs/eba.log 2>&1 & ag=$!
trap 'kill $ag 2>/dev/null' EXIT
until grep -q '^ready:' /tmp/s14/logs/eba.log; do sleep 0.2; done
for r in $(seq $rounds); do for d in $a $b; do
  java -Xmx192m -cp $d/target/classes:$d/target/test-classes:$d/target/seaweedfs-rdma-sidecar.jar org.seaweedfs.rdma.eventbus.EventBusBenchMain \
    --conf /tmp/best/sc-best.yaml --plain /tmp/seaweedfs-rdma-bench/plain --seconds ${SECS:-3} --concurrency 64 --modes ${MODES:-client} \
    --warmup-seconds ${WARM:-4} --runs ${RUNS:-3} /tmp/seaweedfs-rdma-bench/vid1.paths 2>/dev/null | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print('r$r', '$d'.split('/')[-1], r['kind'], r['ops_s'], r.get('ops_s_runs'), r.get('p50_us'))"
done; done
