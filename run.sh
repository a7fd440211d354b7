#!/usr/bin/env bash
# The project's entry points on a fresh Debian 12 machine (JDK 17 + Maven):
#   ./run.sh demo   build the jar and run the embedded demo (agent + sidecar in one process)
#   ./run.sh serve --conf FILE
#                   run the roles FILE enables in one JVM (JAVA_OPTS: its options, e.g. -Xmx256m) through
#                   bin/seaweedfs-rdma, with a class-data archive recorded once per build of the jar (a shorter
#                   start, docs/operations.md); builds the jar first when there is none
#   ./run.sh test   run the test suite (real UCX over loopback; headless Chromium for the status page); further
#                   arguments go to Maven, e.g. -Dseaweedfs.test.require=netns,chromium,unshare,io_uring (CI's)
#                   to fail, not skip, the tests whose environment is missing
# Both first make sure UCX (Debian's libucx0 + ucx-utils) and gcc + libc6-dev (the agent's SIGBUS guard) are
# installed; `test` also python3, chromium, iproute2, nftables and util-linux, and stops when it cannot.
set -euo pipefail
cd "$(dirname "$0")"

# Installs Debian packages as root (why: $1, the rest: packages); otherwise, or when that fails, says so and stops.
# (Called after `||`, where `set -e` does not stop on a failed command: each failure is checked here.)
apt_install() {
    local why=$1
    shift
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "run.sh: installing $* from Debian ($why)..." >&2
        if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
                && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2; }; then
            echo "run.sh: $* could not be installed ($why)" >&2
            exit 3
        fi
    else
        echo "run.sh: $* missing ($why). Install with:  sudo apt-get install -y $*" >&2
        exit 3
    fi
}

ensure_ucx() {
    ldconfig -p 2>/dev/null | grep -q 'libucp.so.0' || apt_install "UCX" libucx0 ucx-utils
}

# The build compiles the agent's SIGBUS guard (src/main/c) and fails without a C compiler and libc's headers.
ensure_gcc() {
    command -v gcc >/dev/null && [ -e /usr/include/signal.h ] || apt_install "the agent's SIGBUS guard" gcc libc6-dev
}

# The status page's test (StatusPageChromiumTest) loads /ui in headless Chromium (Debian's chromium package).
ensure_chromium() {
    command -v chromium >/dev/null || command -v chromium-browser >/dev/null \
        || apt_install "the /ui browser test" chromium
}

# The EC tests read volumes erasure-coded by an independent writer (tools/independent_ec_encode.py, Python 3).
ensure_python() {
    command -v python3 >/dev/null || apt_install "the independent EC writer the tests read" python3
}

# The cross-host tests (CrossHostEndToEndTest) and bench/drill.sh cluster make hosts as network namespaces: root,
# iproute2 and nftables (Debian's); DefaultPortsSideBySideTest runs in namespaces of its own (util-linux's unshare).
ensure_netns_tools() {
    command -v ip >/dev/null && command -v nft >/dev/null && command -v unshare >/dev/null \
        || apt_install "the tests across network namespaces" iproute2 nftables util-linux
}

ensure_tools() {
    for tool in java mvn; do
        command -v "$tool" >/dev/null || { echo "run.sh: '$tool' not found; install JDK 17 and Maven (apt-get install -y openjdk-17-jdk maven)" >&2; exit 3; }
    done
}

# UCX must not install signal handlers that fight the JVM's (UCX reads this from the environment alone); a restarted
# agent rebinds its port at once. Transport settings (segment sizes, shared memory's error handling) are set by the
# library on every UCX context, so that all peers agree (docs/protocol.md).
export UCX_ERROR_SIGNALS= UCX_TCP_CM_REUSEADDR=y
# UCX prints its own warnings on stdout by default: keep stdout for the program's output.
export UCX_LOG_FILE=${UCX_LOG_FILE:-stderr}

JAR=target/seaweedfs-rdma-sidecar.jar

case "${1:-}" in
    demo)
        shift
        ensure_tools; ensure_ucx; ensure_gcc
        mvn -q -B package -DskipTests
        exec bin/seaweedfs-rdma "$JAR" demo "$@"
        ;;
    serve)
        shift
        ensure_tools; ensure_ucx; ensure_gcc
        [ -f "$JAR" ] || mvn -q -B package -DskipTests
        if ! [ -f "${JAR%.jar}.jsa" ] || [ "$JAR" -nt "${JAR%.jar}.jsa" ]; then
            bin/seaweedfs-rdma --archive "$JAR" >&2 || echo "run.sh: starting without a class-data archive" >&2
        fi
        exec bin/seaweedfs-rdma "$JAR" serve "$@"
        ;;
    test)
        shift
        ensure_tools; ensure_ucx; ensure_gcc; ensure_python; ensure_chromium; ensure_netns_tools
        exec mvn -B test "$@"
        ;;
    *)
        echo "usage: ./run.sh demo | ./run.sh serve --conf FILE | ./run.sh test" >&2
        exit 2
        ;;
esac
