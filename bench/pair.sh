#!/usr/bin/env bash
# Two HTTP servers already running (e.g. nginx and the sidecar), measured in alternation: wrk on A, then on B, for
# ROUNDS rounds, so both see the same machine at nearly the same time. On a shared VM whose speed moves by 10-20 %
# within minutes, a ratio of medians over alternated rounds is steadier than one point of each taken minutes apart.
#   bench/pair.sh NAME_A URL_A NAME_B URL_B PATHS_FILE
# Env: ROUNDS (8), SECONDS_EACH (4), CONNS (64), WARMUP (8 s on each first, alternated too), OUT (a directory for
# the raw wrk lines; none kept when unset).
# Prints one line per run and then, per server, the median req/s and p50, and B/A of both medians; last, the same as
# one "PAIR_JSON {...}" line for scripts (bench/run.sh records it).
set -euo pipefail
name_a=${1:?NAME_A}; url_a=${2:?URL_A}; name_b=${3:?NAME_B}; url_b=${4:?URL_B}; list=${5:?PATHS_FILE}
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rounds=${ROUNDS:-8}; secs=${SECONDS_EACH:-4}; conns=${CONNS:-64}; warmup=${WARMUP:-8}
[ -s "$list" ] || { echo "pair.sh: no path list at $list" >&2; exit 2; }
for url in "$url_a" "$url_b"; do
    curl -sf -o /dev/null "$url$(head -n1 "$list")" || { echo "pair.sh: $url does not answer $(head -n1 "$list")" >&2; exit 1; }
done
lines=$(mktemp); trap 'rm -f "$lines"' EXIT
run() {  # NAME URL SECONDS -> one "NAME req_s p50_us errors" line
    wrk -t1 -c"$conns" -d"${3}s" -s "$BENCH_DIR/lib/random_path.lua" "$2/" -- "$list" | sed -n 's/^WRK_JSON //p' \
        | python3 -c 'import json, sys
r = json.loads(sys.stdin.read())
print(sys.argv[1], round(r["requests"] / r["duration_s"], 1), r["p50_us"], r["errors"] + r["non_2xx"])' "$1"
}
if [ "$warmup" -gt 0 ]; then
    run "$name_a" "$url_a" "$warmup" > /dev/null; run "$name_b" "$url_b" "$warmup" > /dev/null
fi
for r in $(seq "$rounds"); do
    for side in a b; do
        if [ $side = a ]; then line=$(run "$name_a" "$url_a" "$secs"); else line=$(run "$name_b" "$url_b" "$secs"); fi
        echo "round $r $line"
        echo "$line" >> "$lines"
    done
done
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"; cat "$lines" > "$OUT/pair-$name_a-$name_b-c$conns-$(date -u +%H%M%S).txt"
fi
python3 - "$lines" "$name_a" "$name_b" "$conns" <<'PY'
import json, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
a, b, conns = sys.argv[2], sys.argv[3], sys.argv[4]
def med(name, col):
    return statistics.median(float(r[col]) for r in rows if r[0] == name)
errors = sum(int(r[3]) for r in rows)
per_round = [float(y[1]) / float(x[1]) for x, y in zip([r for r in rows if r[0] == a], [r for r in rows if r[0] == b])]
wins = sum(1 for r in per_round if r > 1)
for n in (a, b):
    print("median %-14s c%-3s %10.1f req/s  p50 %6.0f us" % (n, conns, med(n, 1), med(n, 2)))
print("%s/%s: req/s %.2fx, p50 %.2fx; %s ahead in %d of %d rounds; errors %d"
      % (b, a, med(b, 1) / med(a, 1), med(b, 2) / med(a, 2), b, wins, len(per_round), errors))
print("PAIR_JSON " + json.dumps({
    "a": a, "b": b, "conns": int(conns), "rounds": len(per_round), "a_req_s": round(med(a, 1), 1), "b_req_s": round(med(b, 1), 1),
    "a_p50_us": med(a, 2), "b_p50_us": med(b, 2), "ratio_req_s": round(med(b, 1) / med(a, 1), 3),
    "ratio_p50": round(med(b, 2) / med(a, 2), 3), "b_ahead": wins, "errors": errors,
    "round_ratios": [round(r, 3) for r in per_round]}))
PY
