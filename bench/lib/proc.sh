# Processes: waiting for one, stopping one, their figures from /proc; sourced by run.sh, turns.sh, ab.sh, scale.sh.

# cpu_ticks PID — utime + stime of the whole process (all threads) and its children, in clock ticks (a bench main may
# start helper processes; `serve` runs in the JVM launched). A child gone meanwhile (the short-lived `ucx_info` a server
# runs after its ready line) counts as 0.
cpu_ticks() {
    local p t=0 v
    for p in $1 $(pgrep -P "$1"); do
        v=$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2> /dev/null) || v=0
        t=$((t + ${v:-0}))
    done
    echo $t
}

# serving_pid PID — the JVM that serves: PID, or its child when an older build's `serve` relaunched itself.
serving_pid() { local child; child=$(pgrep -P "$1" java | head -n1 || true); echo "${child:-$1}"; }

# cpu_snapshot LABEL PID [threads] — "process LABEL TICKS" (cpu_ticks) and, when asked, "thread LABEL TID TICKS NAME"
# for each thread of the serving JVM (fields 14 + 15 of /proc/PID/task/TID/stat; the name's spaces as _).
cpu_snapshot() {
    echo "process $1 $(cpu_ticks "$2")"
    [ "${3:-}" = threads ] || return 0
    awk -v label="$1" '{
        open = index($0, "("); match($0, /.*\)/); name = substr($0, open + 1, RLENGTH - open - 1)
        split(substr($0, RLENGTH + 2), f, " "); gsub(/ /, "_", name)
        print "thread", label, $1, f[12] + f[13], name
    }' /proc/"$(serving_pid "$2")"/task/*/stat 2> /dev/null || true
}

# wait_for_line FILE REGEX SECONDS PID
wait_for_line() {
    local deadline=$((SECONDS + $3))
    until grep -q "$2" "$1" 2> /dev/null; do
        kill -0 "$4" 2> /dev/null || { echo "process $4 died, see $1:" >&2; tail -n 20 "$1" >&2; return 1; }
        [ $SECONDS -lt $deadline ] || { echo "no '$2' in $1 within $3 s" >&2; return 1; }
        sleep 0.1
    done
}

stop_pid() {
    local pid=$1
    [ -n "$pid" ] || return 0
    kill "$pid" 2> /dev/null || return 0
    for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null || true
}
