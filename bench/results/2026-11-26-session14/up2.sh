#!/usr/bin/env bash
# up2.sh JAR A_OPTS B_OPTS — agent (best) + sidecars on 18092 (A) and 18093 (B)
export UCX_POSIX_ERROR_HANDLING=y UCX_SYSV_ERROR_HANDLING=y UCX_TCP_CM_REUSEADDR=y UCX_ERROR_SIGNALS= UCX_LOG_FILE=stderr
export UCX_TCP_TX_SEG_SIZE=256k UCX_TCP_RX_SEG_SIZE=256k UCX_SYSV_SEG_SIZE=32k UCX_POSIX_SEG_SIZE=32k
jar=$1
java -Xmx1g -jar $jar serve --conf /tmp/best/agent.yaml > /tmp/s14/logs/ua.log 2>&1 &
until grep -q '^ready:' /tmp/s14/logs/ua.log; do sleep 0.2; done
java -Xmx1g $2 -jar ${A_JAR:-$jar} serve --conf /tmp/best/sc-best.yaml > /tmp/s14/logs/usa.log 2>&1 &
java -Xmx1g $3 -jar ${B_JAR:-$jar} serve --conf /tmp/best/sc-best-b.yaml > /tmp/s14/logs/usb.log 2>&1 &
until grep -q '^ready:' /tmp/s14/logs/usa.log && grep -q '^ready:' /tmp/s14/logs/usb.log; do sleep 0.2; done
echo up
