#!/usr/bin/env bash
# The project's two entry points on a fresh Debian 12 machine (JDK 17 + Maven):
#   ./run.sh demo   build the jar and run the embedded demo (agent + sidecar in one process)
#   ./run.sh test   run the test suite (real UCX over loopback; headless Chromium for the status page)
# Both first make sure UCX (Debian's libucx0 + ucx-utils) is installed; `test` also python3 and chromium.
set -euo pipefail
cd "$(dirname "$0")"

ensure_ucx() {
    if ldconfig -p 2>/dev/null | grep -q 'libucp.so.0'; then
        return
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "run.sh: installing UCX from Debian (libucx0 ucx-utils)..." >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libucx0 ucx-utils >&2
    else
        echo "run.sh: UCX is missing. Install it with:  sudo apt-get install -y libucx0 ucx-utils" >&2
        exit 3
    fi
}

# The status page's test (StatusPageChromiumTest) loads /ui in headless Chromium (Debian's chromium package).
# Installed when missing and possible; without it that one test is skipped and says why.
ensure_chromium() {
    if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
        return
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "run.sh: installing chromium from Debian (for the /ui browser test)..." >&2
        if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
                && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2; }; then
            echo "run.sh: chromium could not be installed; the /ui browser test will be skipped" >&2
        fi
    else
        echo "run.sh: chromium is missing (sudo apt-get install -y chromium); the /ui browser test will be skipped" >&2
    fi
}

# The EC tests read volumes erasure-coded by an independent writer (tools/independent_ec_encode.py, Python 3).
ensure_python() {
    if command -v python3 >/dev/null; then
        return
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "run.sh: installing python3 from Debian (the independent EC writer the tests read)..." >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >&2
    else
        echo "run.sh: python3 is missing. Install it with:  sudo apt-get install -y python3" >&2
        exit 3
    fi
}

# The cross-host tests (CrossHostEndToEndTest) and bench/drill.sh cluster make hosts as network namespaces: root,
# iproute2 and nftables (Debian's). Installed when missing and possible; without them those tests skip and say why.
ensure_netns_tools() {
    command -v ip >/dev/null && command -v nft >/dev/null && return
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "run.sh: installing iproute2 and nftables from Debian (hosts as network namespaces)..." >&2
        if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
                && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 nftables >&2; }; then
            echo "run.sh: iproute2/nftables could not be installed; the cross-host tests will be skipped" >&2
        fi
    fi
}

ensure_tools() {
    for tool in java mvn; do
        command -v "$tool" >/dev/null || { echo "run.sh: '$tool' not found; install JDK 17 and Maven (apt-get install -y openjdk-17-jdk maven)" >&2; exit 3; }
    done
}

# UCX must not install signal handlers that fight the JVM's; with peer error handling on, UCX 1.13 keeps
# shared memory only when these are set (it reads them from the environment alone).
export UCX_ERROR_SIGNALS= UCX_POSIX_ERROR_HANDLING=y UCX_SYSV_ERROR_HANDLING=y UCX_TCP_CM_REUSEADDR=y
# UCX prints its own warnings on stdout by default: keep stdout for the program's output.
export UCX_LOG_FILE=${UCX_LOG_FILE:-stderr}
# Emulated gets over TCP move in TX_SEG_SIZE fragments (8 KiB by default); 256 KiB ones halve 1 MiB reads.
export UCX_TCP_TX_SEG_SIZE=${UCX_TCP_TX_SEG_SIZE:-256k} UCX_TCP_RX_SEG_SIZE=${UCX_TCP_RX_SEG_SIZE:-256k}
# Over shared memory they move in SEG_SIZE fragments (8 KiB by default); 32 KiB (UCX 1.13 cannot take 64).
export UCX_SYSV_SEG_SIZE=${UCX_SYSV_SEG_SIZE:-32k} UCX_POSIX_SEG_SIZE=${UCX_POSIX_SEG_SIZE:-32k}

case "${1:-}" in
    demo)
        shift
        ensure_tools; ensure_ucx
        mvn -q -B package -DskipTests
        exec java -jar target/seaweedfs-rdma-sidecar.jar demo "$@"
        ;;
    test)
        shift
        ensure_tools; ensure_ucx; ensure_python; ensure_chromium
        ensure_netns_tools
        exec mvn -B test "$@"
        ;;
    *)
        echo "usage: ./run.sh demo | ./run.sh test" >&2
        exit 2
        ;;
esac
