# Process figures from /proc; sourced by run.sh and ab.sh.

# cpu_ticks PID — utime + stime of the whole process (all threads) and its children, in clock ticks (a bench main may
# start helper processes; `serve` runs in the JVM launched).
cpu_ticks() { local p t=0; for p in $1 $(pgrep -P "$1"); do t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat"))); done; echo $t; }
