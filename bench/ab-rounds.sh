#!/usr/bin/env bash
# Alternated A/B rounds of bench/ab.sh: ROUNDS rounds of BEFORE_JAR and AFTER_JAR, the order swapped every round.
#   bench/ab-rounds.sh 6 /tmp/before.jar target/seaweedfs-rdma-sidecar.jar
# Env as bench/ab.sh (BENCH_OUT, SIDECAR_CONF, AGENT_CONF, JAVA_OPTS, CONNS, SECONDS_EACH, WARMUP, EVENTBUS, ...).
set -euo pipefail
rounds=${1:?rounds}; before=${2:?before jar}; after=${3:?after jar}
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for round in $(seq "$rounds"); do
    if (( round % 2 )); then order="before after"; else order="after before"; fi
    for label in $order; do
        jar=$before; [ "$label" = after ] && jar=$after
        echo "round $round $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
        "$BENCH_DIR/ab.sh" "$label" "$jar" 2>&1 | grep -v '^\s*$'
    done
done
