# Hosts on one machine as Linux network namespaces (root only); sourced by drill.sh's cluster mode.
# The JUnit twin is src/test/java/org/seaweedfs/rdma/testing/NetnsCluster.java: the same names, owner files and clean-up,
# so either removes what the other left behind when its owner died.
#
# Each run has a bridge of its own and no address in this (the root) namespace: this machine's own eth0 may sit
# in 192.0.2.0/24 (it does on the project's VMs), so the hosts' 192.0.2.11, .12, ... (RFC 5737, documentation)
# exist only inside their namespaces, and runs side by side never meet. Names carry the run's tag (5 hex digits):
#   namespace  swr-TAG-HOST      bridge  swrTAG      root end of host i's veth  swrTAGvI   (host end: eth0 inside)
# /run/seaweedfs-rdma-netns/TAG holds "PID STARTTIME" of the run's owner: a run whose owner is gone is removed by
# the next run (netns_reap). Partitions are nft rules in a host's own namespace (table inet swr): they go with it.

NETNS_STATE=${NETNS_STATE:-/run/seaweedfs-rdma-netns}
NETNS_TAG=
NETNS_HOSTS=()

# netns_check — why hosts cannot be made here (non-zero with a reason on stderr), or nothing.
netns_check() {
    [ "$(id -u)" = 0 ] || { echo "network namespaces need root" >&2; return 1; }
    command -v ip > /dev/null || { echo "ip (iproute2) is missing: apt-get install -y iproute2" >&2; return 1; }
    command -v nft > /dev/null || { echo "nft is missing: apt-get install -y nftables" >&2; return 1; }
    local probe="swr-probe-$$"
    ip netns add "$probe" 2> /dev/null || { echo "ip netns add fails here (no network namespaces)" >&2; return 1; }
    ip netns del "$probe"
}

# _netns_starttime PID — the process's start time in clock ticks (field 22 of /proc/PID/stat), empty when gone.
_netns_starttime() { [ -r "/proc/$1/stat" ] && sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $20 }'; }

# _netns_remove TAG — every process, namespace and link of run TAG.
_netns_remove() {
    local tag=$1 ns link pid
    for ns in $(ip netns list | awk '{ print $1 }' | grep "^swr-$tag-"); do
        for pid in $(ip netns pids "$ns" 2> /dev/null); do kill -9 "$pid" 2> /dev/null || true; done
        ip netns del "$ns" 2> /dev/null || true
    done
    for link in $(ip -o link show | awk -F': ' '{ print $2 }' | sed 's/@.*//' | grep "^swr$tag"); do
        ip link del "$link" 2> /dev/null || true
    done
}

# netns_reap — removes the runs whose owner process is gone (crashed or killed runs of this script or the tests).
netns_reap() {
    local f tag pid start
    mkdir -p "$NETNS_STATE"
    for f in "$NETNS_STATE"/*; do
        [ -f "$f" ] || continue
        tag=${f##*/}
        read -r pid start < "$f" || true
        if [ -n "$pid" ] && [ "$(_netns_starttime "$pid")" = "$start" ]; then continue; fi
        _netns_remove "$tag"
        rm -f "$f"
    done
}

# netns_up HOST... — a bridge and one namespace per HOST, each with its address; sets NETNS_TAG.
netns_up() {
    netns_check || return 1
    netns_reap
    local tag
    tag=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n' | cut -c1-5)
    (set -o noclobber; echo "$$ $(_netns_starttime $$)" > "$NETNS_STATE/$tag") 2> /dev/null \
        || { echo "run tag $tag is taken, try again" >&2; return 1; }
    NETNS_TAG=$tag
    NETNS_HOSTS=("$@")
    local bridge="swr$tag" i=0 host ns
    ip link add "$bridge" type bridge
    ip link set "$bridge" up
    for host in "$@"; do
        i=$((i + 1))
        ns=$(netns_name "$host")
        ip netns add "$ns"
        ip link add "swr${tag}v$i" type veth peer name "swr${tag}p$i"
        ip link set "swr${tag}v$i" master "$bridge" up
        ip link set "swr${tag}p$i" netns "$ns"
        ip -n "$ns" link set "swr${tag}p$i" name eth0
        ip -n "$ns" addr add "$(netns_ip "$host")/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        ip netns exec "$ns" nft add table inet swr
        ip netns exec "$ns" nft add chain inet swr in '{ type filter hook input priority 0; }'
        ip netns exec "$ns" nft add chain inet swr out '{ type filter hook output priority 0; }'
    done
}

# netns_down — everything of this run, and its owner file.
netns_down() {
    [ -n "$NETNS_TAG" ] || return 0
    _netns_remove "$NETNS_TAG"
    rm -f "$NETNS_STATE/$NETNS_TAG"
    NETNS_TAG=
}

_netns_index() {
    local i
    for i in "${!NETNS_HOSTS[@]}"; do [ "${NETNS_HOSTS[$i]}" = "$1" ] && { echo $((i + 1)); return; }; done
    echo "no host $1 in this run" >&2; return 1
}

netns_name() { echo "swr-$NETNS_TAG-$1"; }
netns_ip() { local i; i=$(_netns_index "$1") || return 1; echo "192.0.2.$((10 + i))"; }

# netns_exec HOST COMMAND... — COMMAND on HOST.
netns_exec() { local ns; ns=$(netns_name "$1"); shift; ip netns exec "$ns" "$@"; }

# netns_link HOST up|down — HOST's cable in or out (the bridge's end of its veth).
netns_link() { local i; i=$(_netns_index "$1") && ip link set "swr${NETNS_TAG}v$i" "$2"; }

# netns_block HOST PEER / netns_unblock HOST PEER — HOST drops every packet to and from PEER (a partition of
# that pair only); unblock takes the rules away again.
netns_block() {
    local peer; peer=$(netns_ip "$2") || return 1
    netns_exec "$1" nft add rule inet swr in ip saddr "$peer" drop comment "\"$2\""
    netns_exec "$1" nft add rule inet swr out ip daddr "$peer" drop comment "\"$2\""
}
netns_unblock() {
    local chain handle
    for chain in in out; do
        for handle in $(netns_exec "$1" nft -a list chain inet swr "$chain" | grep "comment \"$2\"" \
                | sed 's/.*# handle //'); do
            netns_exec "$1" nft delete rule inet swr "$chain" handle "$handle"
        done
    done
}
