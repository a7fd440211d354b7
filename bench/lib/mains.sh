#!/usr/bin/env bash
# The bench mains (bench/java: UcxGetBenchMain, UcxGetLatencyMain, EventBusBenchMain, ScaleLoadMain,
# IndexBenchMain) compiled
# against the project's jar. Source it, then: build_mains JAR OUT_DIR; it prints the class path to run them with.
#   cp=$(build_mains target/seaweedfs-rdma-sidecar.jar bench/out/mains)
#   java -cp "$cp" org.seaweedfs.rdma.ucx.UcxGetBenchMain --tls shm,tcp --mem file --sizes 4K
# Some mains sit in the project's packages to reach package-private parts (the UCX worker's pairs), as tests do.
build_mains() {
    local jar=${1:?jar} out=${2:?output directory} src
    src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../java" && pwd)
    [ -f "$jar" ] || { echo "build_mains: $jar is missing (mvn -o -DskipTests package)" >&2; return 2; }
    mkdir -p "$out"
    # shellcheck disable=SC2046
    javac -nowarn -encoding UTF-8 --release 17 -cp "$jar" -d "$out" $(find "$src" -name '*.java') >&2 || return 1
    cp "$src/logback.xml" "$out/"  # logs to stderr: stdout carries only the JSON lines
    echo "$out:$jar"
}
