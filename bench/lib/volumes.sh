# Benchmark volumes in bench/scale.sh's layout; sourced by scale.sh and startup.sh.

# generate_volumes DATA AGENTS VOLUMES PER_VOLUME SIZE JAR — gen-volume --derived, one volume at a time: volume v
# goes to DATA/agent<(v-1) % AGENTS>, reused while its stamp matches (JAVA_OPTS passed to the generating JVM).
generate_volumes() {
    local data=$1 agents=$2 volumes=$3 per_volume=$4 size=$5 jar=$6 v dir stamp want
    for v in $(seq 1 "$volumes"); do
        dir=$data/agent$(((v - 1) % agents))
        stamp=$dir/$v.stamp want="derived count=$per_volume size=$size"
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then continue; fi
        mkdir -p "$dir"; rm -f "$dir/$v.dat" "$dir/$v.idx" "$stamp"
        printf '== gen-volume %s: %s needles of %s bytes -> %s\n' "$v" "$per_volume" "$size" "$dir" >&2
        # shellcheck disable=SC2086
        java ${JAVA_OPTS:-} -jar "$jar" gen-volume "$dir" --vid "$v" --count "$per_volume" --size "$size" --derived
        echo "$want" > "$stamp"
    done
}
