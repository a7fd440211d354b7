#!/usr/bin/env python3
"""Figures of bench/drill.sh: `drill_report.py drill DIR` or `drill_report.py soak DIR`.

drill: DIR/reads.txt (drill_checker.py lines) and DIR/events.txt ("<time> <name>"), into DIR/drill.json and a
Markdown table on stdout. Per event (kill, hang, truncate), over the reads started between it and the next event:
reads, right, wrong bytes, failed answers (HTTP status other than 200), unanswered (no answer within the checker's
timeout, or the connection failed), and, from its "<event>.reachable" mark (agent ready again, SIGCONT sent, file
restored): the time to the first right answer with X-Source rdma among reads started after the mark, and to the
end of the last failed read started after it.
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
            if len(parts) != 6:
                continue
            reads.append((float(parts[0]), float(parts[1]), int(parts[2]), parts[3], parts[4], parts[5]))
    reads.sort()
    return reads


def load_events(path):
    with open(path) as f:
        return [(float(t), name) for t, name in (line.split() for line in f if line.strip())]


def tally(reads):
    out = {"reads": len(reads), "right": 0, "wrong": 0, "failed": 0, "unanswered": 0, "by_source": {}, "by_status": {}}
    for _, _, status, source, verdict, _ in reads:
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


def drill(directory):
    reads = load_reads(os.path.join(directory, "reads.txt"))
    events = load_events(os.path.join(directory, "events.txt"))
    times = dict((name, t) for t, name in events)
    result = {"total": tally(reads), "events": {}}
    meta = os.path.join(directory, "meta.json")
    if os.path.exists(meta):
        result["meta"] = json.load(open(meta))
    for marker in ("agent-after-truncation", "agent-at-end"):
        p = os.path.join(directory, marker)
        if os.path.exists(p):
            result[marker.replace("-", "_")] = open(p).read().strip()
    starts = [(t, n) for t, n in events if "." not in n and n not in ("start", "end")]
    for t, name in starts:
        later = [u for u, n in events if u > t and "." not in n]
        until = min(later) if later else float("inf")
        window = [r for r in reads if t <= r[0] < until]
        e = tally(window)
        back = times.get(name + ".reachable")
        if back is not None:
            after = [r for r in window if r[0] >= back]
            rdma = [r[1] - back for r in after if r[3] == "rdma" and r[4] == "ok"]
            failed = [r[1] - back for r in after if r[4] != "ok"]
            e["outage_s"] = round(back - t, 3)
            e["back_on_rdma_s"] = round(min(rdma), 3) if rdma else None
            e["last_failure_after_reachable_s"] = round(max(failed), 3) if failed else None
        result["events"][name] = e
    with open(os.path.join(directory, "drill.json"), "w") as f:
        json.dump(result, f, indent=2)
    rows = [("all", result["total"])] + list(result["events"].items())
    print("| phase | reads | right | wrong bytes | failed (status) | unanswered | success | event to reachable "
          "| reachable to first RDMA answer | reachable to last failure |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for name, e in rows:
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(e["by_status"].items()) if k != "200") or "-"

        def s(key):
            v = e.get(key)
            return "-" if v is None else f"{v:.3f} s"
        print(f"| {name} | {e['reads']:,} | {e['right']:,} | {e['wrong']} | {e['failed']} ({statuses}) | "
              f"{e['unanswered']} | {100 * (e['success_rate'] or 0):.2f} % | {s('outage_s')} | {s('back_on_rdma_s')} "
              f"| {s('last_failure_after_reachable_s')} |")
    print()
    print("sources of right answers:", json.dumps(result["total"]["by_source"]),
          "| agent after truncation:", result.get("agent_after_truncation", "?"),
          "| agent at end:", result.get("agent_at_end", "?"))


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
    if len(sys.argv) != 3 or sys.argv[1] not in ("drill", "soak"):
        sys.exit("usage: drill_report.py drill|soak DIR")
    (drill if sys.argv[1] == "drill" else soak)(sys.argv[2])
