"""The markdown report of a bench/turns.sh run, from its raw lines (turns.jsonl).

    python3 bench/turns_report.py bench/out/turns/turns.jsonl > report.md

Per workload: the median of the per-round ratios (sidecar / header-equal, sidecar / bare, header-equal / bare,
sidecar / nginx, and B/A against the baseline's pairs) with every round's ratio, then each server's median; the CPU
per request; the event bus and the typed client; the problems. Throughput ratios are of req/s (higher: faster); the
one-connection ratios are of p50 latency (lower: faster).
"""
import json
import statistics
import sys

WORKLOADS = [
    ("4k-c64", "4 KiB, 64 connections", "req_s", "req/s"),
    ("1m-c8", "1 MiB, 8 connections", "req_s", "req/s"),
    ("4k-c1", "4 KiB, 1 connection", "p50_us", "p50 µs"),
]


def fmt(x, digits=0):
    return "-" if x is None else f"{x:,.{digits}f}"


def main():
    lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
    meta = next((l for l in lines if l["kind"] == "meta"), {})
    end = next((l for l in lines if l["kind"] == "end"), {})
    turns = [l for l in lines if l["kind"] == "turn"]
    servers = list(dict.fromkeys(t["server"] for t in turns))
    sidecars = [s for s in servers if any(t["server"] == s and t["server_kind"] == "sidecar" for t in turns)]
    configs = [s for s in sidecars if not s.startswith("baseline-")]
    rounds = sorted({t["round"] for t in turns})
    by = {(t["server"], t["workload"], t["round"]): t for t in turns}

    def value(server, workload, rnd, key):
        t = by.get((server, workload, rnd))
        return t.get(key) if t and not t.get("problems") else None

    def ratio_row(label, a, b, workload, key):
        per_round = []
        for r in rounds:
            x, y = value(a, workload, r, key), value(b, workload, r, key)
            per_round.append(x / y if x and y else None)
        known = [x for x in per_round if x is not None]
        med = statistics.median(known) if known else None
        return f"| {label} | **{fmt(med, 2)}x** | " + " ".join(fmt(x, 2) for x in per_round) + " |"

    out = [f"# By turns: the sidecar beside its peers ({meta.get('date', '?')})", ""]
    load_end = end.get("loadavg_end", [None])
    out += [f"- CPU: {meta.get('cpu', '?')} ({meta.get('cpus', '?')} CPUs), host {meta.get('host', '?')}, "
            f"kernel {meta.get('kernel', '?')}",
            f"- Commit: `{meta.get('commit', '?')}`"
            + (f" with {meta['uncommitted_files']} uncommitted file(s) in src/ and pom.xml"
               if meta.get("uncommitted_files") else ""),
            f"- Command: `{meta.get('command', '?')}`",
            f"- Load average (1 min): {fmt(meta.get('loadavg_start', [None])[0], 2)} at the start, "
            f"{fmt(load_end[0], 2)} at the end",
            f"- {len(rounds)} rounds; in each, every server runs each workload once for {meta.get('round_seconds')} s "
            f"(`wrk -t1`, a random needle per request), in an order rotated each round; each server warmed "
            f"{meta.get('warm_seconds')} s first",
            "- Servers: " + ", ".join(servers) + f" (Vert.x servers with {meta.get('http_instances', '?')} HTTP "
            "instance(s); nginx with 2 workers and sendfile"
            + (f"; baseline pairs from `{meta['baseline_jar']}`" if meta.get("baseline_jar") else "") + ")"]
    if len(rounds) < 5:
        out += ["", f"**{len(rounds)} rounds: a check of the method, not a headline (5 rounds at least).**"]

    for workload, title, key, unit in WORKLOADS:
        if not any(t["workload"] == workload for t in turns):
            continue
        better = "lower is faster" if key == "p50_us" else "higher is faster"
        out += ["", f"## {title}: {unit} ({better})", "",
                f"| ratio | median | rounds {rounds[0]}-{rounds[-1]} |", "|---|---|---|"]
        rows = []
        for c in configs:
            rows.append(ratio_row(f"{c} / header-equal", c, "header-equal", workload, key))
        for c in configs:
            rows.append(ratio_row(f"{c} / bare", c, "bare", workload, key))
        rows.append(ratio_row("header-equal / bare", "header-equal", "bare", workload, key))
        for c in configs:
            rows.append(ratio_row(f"{c} / nginx", c, "nginx", workload, key))
        for c in configs:
            if f"baseline-{c}" in servers:
                rows.append(ratio_row(f"{c}: B / A (this build / baseline)", c, f"baseline-{c}", workload, key))
        out += rows
        out += ["", f"| server | median {unit} |" + (" median GB/s |" if workload == "1m-c8" else "")
                + " rounds | process µs/req | event loop µs/req | agent µs/read |",
                "|---|---|" + ("---|" if workload == "1m-c8" else "") + "---|---|---|---|"]
        for s in servers:
            vals = [value(s, workload, r, key) for r in rounds]
            known = [v for v in vals if v is not None]

            def med(k):
                xs = [value(s, workload, r, k) for r in rounds]
                xs = [x for x in xs if x is not None]
                return statistics.median(xs) if xs else None
            row = f"| {s} | {fmt(statistics.median(known) if known else None)} |"
            if workload == "1m-c8":
                row += f" {fmt(med('gbps'), 2)} |"
            row += " " + " ".join(fmt(v) for v in vals) + " |"
            row += f" {fmt(med('server_us_per_req'), 1)} | {fmt(med('loop_us_per_req'), 1)} |" \
                   f" {fmt(med('agent_us_per_req'), 1)} |"
            out.append(row)

    buses = list(dict.fromkeys(t["server"] for t in turns if t["workload"].startswith(("eventbus", "client"))))
    if buses:
        eb = next(t["workload"] for t in turns if t["workload"].startswith("eventbus"))
        out += ["", f"## Embedded event bus ({eb.split('-c')[1]} in flight) and typed client (one outstanding), "
                "4 KiB", "",
                "The sidecar deployed in the bench's JVM (`SeaweedRdma.deploy`) reading from the pair's agent; "
                "event-bus requests from another event loop than the consumer's; the typed client from a verticle's "
                "own loop. µs/read: the whole bench JVM (requester included) and the agent.", "",
                "| pair | event bus needles/s | rounds | JVM µs/read | agent µs/read | typed client p50 µs | rounds"
                " | agent µs/read |", "|---|---|---|---|---|---|---|---|"]
        client = next((t["workload"] for t in turns if t["workload"].startswith("client")), None)
        for s in buses:
            def series(workload, k):
                return [value(s, workload, r, k) for r in rounds]

            def med(xs):
                xs = [x for x in xs if x is not None]
                return statistics.median(xs) if xs else None
            ops, p50 = series(eb, "ops_s"), series(client, "p50_us")
            out.append(f"| {s} | **{fmt(med(ops))}** | {' '.join(fmt(x) for x in ops)} |"
                       f" {fmt(med(series(eb, 'server_us_per_req')), 1)} |"
                       f" {fmt(med(series(eb, 'agent_us_per_req')), 1)} |"
                       f" **{fmt(med(p50), 2)}** | {' '.join(fmt(x, 2) for x in p50)} |"
                       f" {fmt(med(series(client, 'agent_us_per_req')), 1)} |")
        ab = [c for c in configs if c in buses and f"baseline-{c}" in buses]
        if ab:
            out += ["", f"| ratio (B: this build, A: the baseline) | median | rounds {rounds[0]}-{rounds[-1]} |",
                    "|---|---|---|"]
            for c in ab:
                out.append(ratio_row(f"{c}: event bus needles/s, B / A", c, f"baseline-{c}", eb, "ops_s"))
                out.append(ratio_row(f"{c}: typed client p50, B / A", c, f"baseline-{c}", client, "p50_us"))

    problems = [l["what"] for l in lines if l["kind"] == "problem"]
    problems += [f"round {t['round']}, {t['server']}, {t['workload']}: {'; '.join(t['problems'])}"
                 for t in turns if t.get("problems")]
    out += ["", "## Problems", ""]
    out += [f"- {p}" for p in problems] if problems else ["None: every answer checked was right, every request 2xx."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
