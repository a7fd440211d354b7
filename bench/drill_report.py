#!/usr/bin/env python3
"""Figures of bench/drill.sh: `drill_report.py drill|soak|cluster|cluster-perf DIR`.

drill: DIR/reads.txt (drill_checker.py lines) and DIR/events.txt ("<time> <name>"), into DIR/drill.json and a
Markdown table on stdout. Per event (kill, hang, truncate), over the reads started between it and the next event:
reads, right, wrong bytes, failed answers (HTTP status other than 200), unanswered (no answer within the checker's
timeout, or the connection failed), and, from its "<event>.reachable" mark (agent ready again, SIGCONT sent, file
restored): the time to the first right answer with X-Source rdma among reads started after the mark, and to the
end of the last failed read started after it. Read latency p50/p99/max during each fault (reads started between the
event and its mark, of the event's scope: "<time> <name> *:/11," for volume 11's) next to the healthy figures (reads
answered before the first event, all of them and those of the event's scope), and counting the reads that clients
stalled by a slow read would have sent meanwhile at their healthy pace; the sidecar's hedge meters
(DIR/hedges.txt) as hedged reads per hundred.
cluster: as drill, over the reads of both client hosts (a seventh column names the host) and events whose third
field scopes the fault ("HOST:PATH-PREFIX", * for any host): time back on RDMA is measured over the reads in scope;
the hedge meters of both sidecars (DIR/hedges.txt) summed.
cluster-perf: DIR/results.jsonl (wrk runs across hosts) as a table, sidecar against nginx.
soak: DIR/soak.jsonl (samples) into DIR/soak.png (RSS, heap after GC, open fds over time) and a table on stdout.
"""
import json
import os
import sys


def load_reads(path):
    reads = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) not in (6, 7):
                continue
            reads.append((float(parts[0]), float(parts[1]), int(parts[2]), parts[3], parts[4], parts[5])
                         + tuple(parts[6:]))
    reads.sort()
    return reads


def load_events(path):
    with open(path) as f:
        return [(float(p[0]), p[1]) for p in (line.split() for line in f if line.strip())]


def load_scopes(path):
    with open(path) as f:
        return dict((p[1], p[2]) for p in (line.split() for line in f if line.strip()) if len(p) > 2)


def tally(reads):
    out = {"reads": len(reads), "right": 0, "wrong": 0, "failed": 0, "unanswered": 0, "by_source": {}, "by_status": {}}
    for _, _, status, source, verdict, *_ in reads:
        if verdict == "ok":
            out["right"] += 1
            out["by_source"][source] = out["by_source"].get(source, 0) + 1
        elif verdict == "wrong":
            out["wrong"] += 1
        elif status == 0:
            out["unanswered"] += 1
        else:
            out["failed"] += 1
        out["by_status"][str(status)] = out["by_status"].get(str(status), 0) + 1
    out["success_rate"] = round(out["right"] / out["reads"], 6) if reads else None
    return out


def latency(reads):
    """p50, p99 and max of the reads' times from start to answer, in ms (None without reads)."""
    times = sorted(r[1] - r[0] for r in reads)
    if not times:
        return None

    def at(q):
        return round(1000 * times[min(len(times) - 1, int(q * len(times)))], 1)
    return {"p50_ms": at(0.50), "p99_ms": at(0.99), "max_ms": round(1000 * times[-1], 1)}


def with_stalled(reads, interval):
    """The reads' latencies (as latency()) counting the reads their stalled clients would have sent meanwhile: each
    client sends its next read when one is answered, so a read that took L held back reads it would have sent every
    `interval` (the healthy mean time of a read); each counts as waiting from when it would have been sent (L - I,
    L - 2I, ... down to I: HdrHistogram's correction for coordinated omission)."""
    if not reads or not interval:
        return latency(reads)
    times = []
    for r in reads:
        t = r[1] - r[0]
        times.append(t)
        missed = t - interval
        while missed >= interval:
            times.append(missed)
            missed -= interval
    return latency([(0.0, t) for t in times])


def latency_cell(e):
    """A phase's "p50 / p99 / max ms": the healthy reads', or those made during its fault (then the healthy reads' of
    the same scope after them, in brackets)."""
    def cell(lat):
        return f"{lat['p50_ms']} / {lat['p99_ms']} / {lat['max_ms']} ms"
    lat = e.get("latency") or e.get("latency_during_fault")
    if lat is None:
        return "-"
    healthy = e.get("healthy_latency_in_scope")
    stalled = e.get("latency_with_stalled_clients")
    return cell(lat) + ("" if stalled is None or stalled == lat else f"; with stalled clients' reads {cell(stalled)}") \
        + ("" if healthy is None else f" (healthy {cell(healthy)})")


def cells(e):
    """A phase's failed statuses ("504: 3") and a formatter of its durations in seconds ("-" when unknown)."""
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(e["by_status"].items()) if k != "200") or "-"

    def seconds(key):
        v = e.get(key)
        return "-" if v is None else f"{v:.3f} s"
    return statuses, seconds


def phases(directory):
    """The reads as a whole and per event, from each event to the next; an event's scope (cluster mode, the third
    field of its line) selects the reads its recovery is measured on."""
    reads = load_reads(os.path.join(directory, "reads.txt"))
    events = load_events(os.path.join(directory, "events.txt"))
    scopes = load_scopes(os.path.join(directory, "events.txt"))
    times = dict((name, t) for t, name in events)
    result = {"total": tally(reads), "events": {}}
    faults = [t for t, n in events if "." not in n and n not in ("start", "end")]
    healthy = []
    pace = None
    if "start" in times:
        healthy = [r for r in reads if times["start"] <= r[0] and r[1] < (min(faults) if faults else float("inf"))]
        result["healthy"] = tally(healthy)
        result["healthy"]["latency"] = latency(healthy)
        # A client's healthy pace: the mean time of a read (each client sends its next when one is answered).
        pace = sum(r[1] - r[0] for r in healthy) / len(healthy) if healthy else None
    meta = os.path.join(directory, "meta.json")
    if os.path.exists(meta):
        result["meta"] = json.load(open(meta))
    for t, name in [(t, n) for t, n in events if "." not in n and n not in ("start", "end")]:
        later = [u for u, n in events if u > t and "." not in n]
        window = [r for r in reads if t <= r[0] < (min(later) if later else float("inf"))]
        e = tally(window)
        e["scope"] = scopes.get(name, "*:/")
        e["slowest_s"] = round(max((r[1] - r[0] for r in window), default=0), 3)
        back = times.get(name + ".reachable")
        if back is not None:
            after = [r for r in window if r[0] >= back and in_scope(r, e["scope"])]
            rdma = [r[1] - back for r in after if r[3] == "rdma" and r[4] == "ok"]
            failed = [r[1] - back for r in after if r[4] != "ok"]
            e["outage_s"] = round(back - t, 3)
            during = [r for r in window if r[0] < back and in_scope(r, e["scope"])]
            e["latency_during_fault"] = latency(during)
            e["latency_with_stalled_clients"] = with_stalled(during, pace)
            e["healthy_latency_in_scope"] = latency([r for r in healthy if in_scope(r, e["scope"])])
            e["back_on_rdma_s"] = round(min(rdma), 3) if rdma else None
            e["last_failure_after_reachable_s"] = round(max(failed), 3) if failed else None
        result["events"][name] = e
    return result


def drill(directory):
    result = phases(directory)
    for marker in ("agent-after-truncation", "agent-at-end"):
        p = os.path.join(directory, marker)
        if os.path.exists(p):
            result[marker.replace("-", "_")] = open(p).read().strip()
    hedges = hedge_meters(directory)
    if hedges:
        result["hedges"] = hedges
    with open(os.path.join(directory, "drill.json"), "w") as f:
        json.dump(result, f, indent=2)
    rows = [("all", result["total"])] + ([("healthy", result["healthy"])] if "healthy" in result else []) \
        + list(result["events"].items())
    print("| phase | reads | right | wrong bytes | failed (status) | unanswered | success | event to reachable "
          "| reachable to first RDMA answer | reachable to last failure | p50 / p99 / max (healthy, or during the fault) |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for name, e in rows:
        statuses, s = cells(e)
        lat = latency_cell(e)
        print(f"| {name} | {e['reads']:,} | {e['right']:,} | {e['wrong']} | {e['failed']} ({statuses}) | "
              f"{e['unanswered']} | {100 * (e['success_rate'] or 0):.2f} % | {s('outage_s')} | {s('back_on_rdma_s')} "
              f"| {s('last_failure_after_reachable_s')} | {lat} |")
    print()
    print_hedges(result, hedges)
    print("sources of right answers:", json.dumps(result["total"]["by_source"]),
          "| agent after truncation:", result.get("agent_after_truncation", "?"),
          "| agent at end:", result.get("agent_at_end", "?"))


def hedge_meters(directory):
    """Hedges started and won (all sources) and reads past the deadline, from DIR/hedges.txt (Prometheus lines)."""
    path = os.path.join(directory, "hedges.txt")
    if not os.path.exists(path):
        return None
    out = {"started": 0.0, "won": 0.0, "past_deadline": 0.0}
    for line in open(path):
        name, _, value = line.rpartition(" ")
        key = ("started" if name.startswith("seaweedfs_rdma_hedges_started") else
               "won" if name.startswith("seaweedfs_rdma_hedges_won") else
               "past_deadline" if name.startswith("seaweedfs_rdma_reads_past_deadline") else None)
        if key:
            out[key] += float(value)
    return out


def print_hedges(result, hedges):
    """The hedges as a share of all reads, and the reads past the deadline (nothing without hedges.txt)."""
    if hedges:
        total = result["total"]["reads"] or 1
        print(f"hedges started: {hedges['started']:,.0f} ({100 * hedges['started'] / total:.2f} % of reads), won: "
              f"{hedges['won']:,.0f}, reads past the deadline: {hedges['past_deadline']:,.0f}")


def in_scope(read, scope):
    host, _, prefix = scope.partition(":")
    return (host == "*" or (len(read) > 6 and read[6] == host)) and read[5].startswith(prefix)


def cluster(directory):
    result = phases(directory)
    hedges = hedge_meters(directory)
    if hedges:
        result["hedges"] = hedges
    with open(os.path.join(directory, "drill.json"), "w") as f:
        json.dump(result, f, indent=2)
    print("| phase | fault on | reads | wrong bytes | failed (status) | unanswered | served by fallback | slowest "
          "| fault to heal | heal to first RDMA answer in scope | heal to last failure in scope "
          "| p50 / p99 / max (healthy, or in scope during the fault) |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    rows = [("all", result["total"])] + ([("healthy", result["healthy"])] if "healthy" in result else []) \
        + list(result["events"].items())
    for name, e in rows:
        statuses, s = cells(e)
        fallback = sum(v for k, v in e["by_source"].items() if k != "rdma")
        print(f"| {name} | {e.get('scope', '-')} | {e['reads']:,} | {e['wrong']} | {e['failed']} ({statuses}) | "
              f"{e['unanswered']} | {fallback:,} | {s('slowest_s')} | {s('outage_s')} | {s('back_on_rdma_s')} "
              f"| {s('last_failure_after_reachable_s')} | {latency_cell(e)} |")
    print()
    print_hedges(result, hedges)
    print("sources of right answers:", json.dumps(result["total"]["by_source"]))
    lanes = os.path.join(directory, "lanes.txt")
    if os.path.exists(lanes):
        print("UCX lanes per host (count, lanes):")
        for line in open(lanes):
            print("    " + line.rstrip())


def cluster_perf(directory):
    rows = [json.loads(line) for line in open(os.path.join(directory, "results.jsonl")) if line.startswith("{")]
    by = {(r["impl"].replace("-cross-host", ""), r["size"], r["conns"]): r for r in rows}
    print("| needle | connections | sidecar req/s | nginx req/s | sidecar / nginx | sidecar p50 / p99 (µs) "
          "| nginx p50 / p99 (µs) |")
    print("|---|---:|---:|---:|---:|---|---|")
    for size, conns in sorted({(r["size"], r["conns"]) for r in rows}, key=lambda k: (k[0], -k[1])):
        s, n = by.get(("sidecar", size, conns)), by.get(("nginx", size, conns))
        if not s or not n:
            continue
        label = f"{size // 1024} KiB" if size < 1 << 20 else f"{size >> 20} MiB"
        print(f"| {label} | {conns} | {s['req_s']:,.0f} | {n['req_s']:,.0f} | {s['req_s'] / n['req_s']:.2f}x | "
              f"{s['p50_us']:.0f} / {s['p99_us']:.0f} | {n['p50_us']:.0f} / {n['p99_us']:.0f} |")


def soak(directory):
    samples = [json.loads(line) for line in open(os.path.join(directory, "soak.jsonl")) if line.strip()]
    if not samples:
        sys.exit("drill_report.py: no soak samples")
    t0 = min(s["t"] for s in samples)
    by = {}
    for s in samples:
        by.setdefault(s["process"], []).append(s)
    meta_path = os.path.join(directory, "soak-meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    summary_path = os.path.join(directory, "soak-reads.txt.summary")
    if os.path.exists(summary_path):
        meta["reads"] = json.loads(open(summary_path).read().strip().splitlines()[-1])
    print("soak:", json.dumps(meta))
    print("| process | metric | first | last | max |")
    print("|---|---|---:|---:|---:|")
    metrics = (("rss_mib", "RSS (MiB)"), ("heap_after_gc_mib", "heap after GC (MiB)"), ("fds", "open fds"))
    for process, rows in sorted(by.items()):
        for key, label in metrics:
            values = [r[key] for r in rows]
            print(f"| {process} | {label} | {values[0]} | {values[-1]} | {max(values)} |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing: no plot (apt-get install -y python3-matplotlib)", file=sys.stderr)
        return
    fig, axes = plt.subplots(len(metrics), 1, figsize=(8, 9), sharex=True)
    for ax, (key, label) in zip(axes, metrics):
        for process, rows in sorted(by.items()):
            ax.plot([(r["t"] - t0) / 60 for r in rows], [r[key] for r in rows], marker=".", label=process)
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
    axes[-1].set_xlabel("minutes")
    rate = meta.get("rate")
    fig.suptitle("soak" + (f": {rate:.0f} reads/s, byte-checked" if rate else ""))
    fig.tight_layout()
    out = os.path.join(directory, "soak.png")
    fig.savefig(out, dpi=100)
    print("plot:", out)


if __name__ == "__main__":
    modes = {"drill": drill, "soak": soak, "cluster": cluster, "cluster-perf": cluster_perf}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit("usage: drill_report.py drill|soak|cluster|cluster-perf DIR")
    modes[sys.argv[1]](sys.argv[2])
