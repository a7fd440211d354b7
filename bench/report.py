#!/usr/bin/env python3
"""Turn bench results (JSON lines) into report.md (numbers, ratios, the targets) and PNG plots.

Pairs are made on shared fields: the raw get path pairs impl "java-ucp" with "c-ucp" on (tls, mem, size);
HTTP pairs "sidecar" (per configuration, field "config") with nginx at its best worker count for that workload
(field "workers": the highest req/s with many connections, the lowest p50 with one). Missing sides leave a dash,
never a guess."""
import argparse
import json
import os
import shutil
import sys

# Where docs/performance.md embeds the plots of the latest run.
DOCS_PLOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "bench")

MISSING = "–"


def load(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"report.py: {path}:{n}: not JSON ({e})")
    return rows


def size_label(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n >> 10} KiB" if n % 1024 == 0 else f"{n} B"


def fmt(v, digits=1):
    if v is None:
        return MISSING
    if isinstance(v, list):
        return " / ".join(fmt(x, digits) for x in v)
    if isinstance(v, float) and abs(v) < 10 and digits == 1:
        return f"{v:.2f}"
    return f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


def fmt_ratio(r, target=None, higher_is_better=True):
    if r is None:
        return MISSING
    text = f"{r:.2f}x"
    if target is not None:
        ok = r >= target if higher_is_better else r <= target
        text += f" ({'meets' if ok else 'misses'} {'≥' if higher_is_better else '≤'}{target}x)"
    return text


def pick(rows, **match):
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()):
            return r
    return None


def get_table(rows):
    gets = [r for r in rows if r.get("kind") == "get"]
    keys = sorted({(r["tls"], r["mem"], r["size"]) for r in gets}, key=lambda k: (k[0], k[1], k[2]))
    if not keys:
        return []
    out = ["## Raw get path (one outstanding: latency; pipelined: bandwidth)", "",
           "| UCX_TLS | memory | size | C p50 µs | C p99 µs | C GB/s | Java p50 µs | Java p99 µs | Java GB/s "
           "| Java/C p50 | Java/C GB/s | lanes (C) |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for tls, mem, size in keys:
        c = pick(gets, impl="c-ucp", tls=tls, mem=mem, size=size) or {}
        j = pick(gets, impl="java-ucp", tls=tls, mem=mem, size=size) or {}
        lat_target = 1.3 if size == 4096 else None
        bw_target = 0.9 if size == 1 << 20 else None
        out.append(f"| {tls} | {mem} | {size_label(size)} | {fmt(c.get('p50_us'))} | {fmt(c.get('p99_us'))} "
                   f"| {fmt(c.get('gbps'))} | {fmt(j.get('p50_us'))} | {fmt(j.get('p99_us'))} | {fmt(j.get('gbps'))} "
                   f"| {fmt_ratio(ratio(j.get('p50_us'), c.get('p50_us')), lat_target, False)} "
                   f"| {fmt_ratio(ratio(j.get('gbps'), c.get('gbps')), bw_target)} | {c.get('lanes', MISSING)} |")
    out += ["", "GB/s = 10^9 bytes/s of payload. `lanes`: `get=` lanes read UCX-allocated shared memory "
            "one-sidedly; other memory is read over the `rma_bw` lanes (emulated, the owner progresses).", ""]
    return out


# The HTTP targets per configuration: (4 KiB c64 req/s ratio, 1 MiB c8 ratio, one-connection p50 ratio).
HTTP_TARGETS = {"defaults": (0.6, 0.9, 1.2), "best": (0.9, 1.1, 1.0)}


def nginx_best(https, size, conns):
    """nginx's best run for a workload over the worker counts measured (one connection: lowest p50)."""
    runs = [r for r in https if r.get("impl") == "nginx" and r["size"] == size and r["conns"] == conns]
    if not runs:
        return {}
    if conns == 1:
        return min(runs, key=lambda r: r.get("p50_us") or 1e18)
    return max(runs, key=lambda r: r.get("req_s") or 0)


def http_table(rows):
    https = [r for r in rows if r.get("kind") == "http"]
    keys = sorted({(r["size"], r["conns"]) for r in https}, key=lambda k: (k[0], -k[1]))
    if not keys:
        return []
    out = ["## HTTP on loopback (wrk -t1, a random file id per request)", ""]
    nginx = [r for r in https if r.get("impl") == "nginx"]
    if nginx:
        out += ["nginx with each worker count measured:", "",
                "| size | conns | workers | req/s | GB/s | p50 µs | p99 µs |", "|---|---:|---:|---:|---:|---:|---:|"]
        for r in sorted(nginx, key=lambda r: (r["size"], -r["conns"], r.get("workers") or 0)):
            out.append(f"| {size_label(r['size'])} | {r['conns']} | {r.get('workers', MISSING)} | {fmt(r.get('req_s'))} "
                       f"| {fmt(r.get('gbps'))} | {fmt(r.get('p50_us'))} | {fmt(r.get('p99_us'))} |")
        out.append("")
    configs = sorted({r.get("config") for r in https if r.get("impl") == "sidecar"}, key=lambda c: (c != "defaults", str(c)))
    for config in configs or [None]:
        targets = HTTP_TARGETS.get(config, (0.6, 0.8, 1.5))
        out += [f"Sidecar, configuration **{config or 'unnamed'}**, against nginx at its best worker count per workload:", "",
                "| size | conns | nginx workers | nginx req/s | nginx GB/s | nginx p50 µs | sidecar req/s | sidecar GB/s "
                "| sidecar p50 µs | sidecar p99 µs | agent CPU µs/req | sidecar CPU µs/req | sidecar/nginx req/s "
                "| sidecar/nginx p50 |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
        for size, conns in keys:
            n = nginx_best(https, size, conns)
            s = pick(https, impl="sidecar", size=size, conns=conns, **({"config": config} if config else {})) or {}
            thr_target = targets[0] if (size, conns) == (4096, 64) else targets[1] if (size, conns) == (1 << 20, 8) else None
            p50_target = targets[2] if conns == 1 else None
            out.append(f"| {size_label(size)} | {conns} | {n.get('workers', MISSING)} | {fmt(n.get('req_s'))} "
                       f"| {fmt(n.get('gbps'))} | {fmt(n.get('p50_us'))} | {fmt(s.get('req_s'))} | {fmt(s.get('gbps'))} "
                       f"| {fmt(s.get('p50_us'))} | {fmt(s.get('p99_us'))} | {fmt(s.get('agent_us_per_req'))} "
                       f"| {fmt(s.get('sidecar_us_per_req'))} "
                       f"| {fmt_ratio(ratio(s.get('req_s'), n.get('req_s')), thr_target)} "
                       f"| {fmt_ratio(ratio(s.get('p50_us'), n.get('p50_us')), p50_target, False)} |")
        out.append("")
    out += pair_table(rows)
    ceiling = [r for r in https if r.get("impl") == "vertx-static"]
    if ceiling:
        out += ["The framework's ceiling: a bare Vert.x server of the same bytes from memory (bench/peers/VertxStaticHttp.java; "
                "no volume, no UCX, no metrics), against nginx at its best worker count:", "",
                "| size | conns | nginx req/s | nginx p50 µs | Vert.x req/s | Vert.x p50 µs | Vert.x/nginx req/s | Vert.x/nginx p50 |",
                "|---|---:|---:|---:|---:|---:|---|---|"]
        for size, conns in keys:
            n = nginx_best(https, size, conns)
            v = pick(https, impl="vertx-static", size=size, conns=conns) or {}
            out.append(f"| {size_label(size)} | {conns} | {fmt(n.get('req_s'))} | {fmt(n.get('p50_us'))} | {fmt(v.get('req_s'))} "
                       f"| {fmt(v.get('p50_us'))} | {fmt_ratio(ratio(v.get('req_s'), n.get('req_s')), None)} "
                       f"| {fmt_ratio(ratio(v.get('p50_us'), n.get('p50_us')), None, False)} |")
        out.append("")
    errs = [r for r in https if r.get("errors") or r.get("non_2xx")]
    for r in errs:
        out.append(f"\n**{r['impl']} {size_label(r['size'])} c{r['conns']}: {r.get('errors')} socket errors, "
                   f"{r.get('non_2xx')} non-2xx answers — its numbers are suspect.**")
    out += ["", "GB/s counts response bytes including headers.", ""]
    return out


def generic_table(rows, kind, title, columns):
    sel = [r for r in rows if r.get("kind") == kind]
    if not sel:
        return []
    out = [f"## {title}", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in sel:
        out.append("| " + " | ".join(fmt(r.get(c)) if not isinstance(r.get(c), str) else r[c] for c in columns) + " |")
    return out + [""]


def other_targets(rows):
    """The targets that are not ratios: event bus, agent CPU, sidecar memory."""
    out = []

    def line(what, value, target, ok):
        verdict = MISSING if value is None else ("meets" if ok else "misses")
        out.append(f"| {what} | {fmt(value)} | {target} | {verdict} |")

    for eb in (r for r in rows if r.get("kind") == "eventbus" and r.get("size") == 4096):
        where = f" ({eb.get('config', 'unnamed')}, requester {eb.get('requester', 'any')})"
        line("event bus 4 KiB reads/s, 64 in flight" + where, eb.get("ops_s"), "≥ 100,000", (eb.get("ops_s") or 0) >= 100_000)
        line("event bus 4 KiB p50 µs, one at a time" + where, eb.get("p50_us"), "≤ 40", (eb.get("p50_us") or 1e9) <= 40)
    for cl in (r for r in rows if r.get("kind") == "client" and r.get("size") == 4096):
        line("SeaweedRdma.client() 4 KiB reads/s (64 in flight)", cl.get("ops_s"), "≥ 150,000",
             (cl.get("ops_s") or 0) >= 150_000)
        line("SeaweedRdma.client() 4 KiB p50 µs", cl.get("p50_us"), "≤ 10", (cl.get("p50_us") or 1e9) <= 10)
    for r in (r for r in rows if r.get("kind") == "agent_cpu" and r.get("size") == 4096):
        v = r.get("cpu_us_per_read")
        memory = f", volumeMemory {r['volume_memory']}" if r.get("volume_memory") else ""
        line(f"agent CPU µs per 4 KiB read, {r.get('config', '')} UCX_TLS={r.get('tls')}{memory}", v, "≤ 5",
             v is not None and v <= 5)
    rss = next((r for r in rows if r.get("kind") == "memory" and str(r.get("what", "")).startswith("rss_at_")), None)
    if rss:
        if rss.get("rss_private_mib") is not None:
            # VmRSS also counts the agent's shared volume copies the sidecar attached (RssShmem): not its memory.
            line(f"sidecar RSS MiB at {rss.get('conns')} connections, own (RssAnon+RssFile)", rss.get("rss_private_mib"),
                 "≤ 512", (rss.get("rss_private_mib") or 1e9) <= 512)
            out.append(f"| sidecar VmRSS MiB at {rss.get('conns')} connections, with the agent's shared memory it "
                       f"mapped ({fmt(rss.get('rss_shmem_mib'))} MiB RssShmem) | {fmt(rss.get('rss_mib'))} | – | reported |")
        else:
            line(f"sidecar RSS MiB at {rss.get('conns')} connections", rss.get("rss_mib"), "≤ 512",
                 (rss.get("rss_mib") or 1e9) <= 512)
    heap = [r for r in rows if r.get("kind") == "memory" and r.get("what") == "heap_after_reads"]
    if len(heap) >= 2:
        first, last = heap[0], heap[-1]
        growth = (last.get("heap_mib") or 0) - (first.get("heap_mib") or 0)
        line(f"heap growth MiB after GC, {first['reads']:,} → {last['reads']:,} reads ({last.get('seconds')} s)",
             round(growth, 1), "flat (< 16)", growth < 16)
    if not out:
        return []
    return ["## Other targets", "", "| what | measured | target | |", "|---|---|---|---|"] + out + [""]


def pending(rows):
    have = {(r.get("impl"), r.get("kind")) for r in rows}
    kinds = {r.get("kind") for r in rows}
    todo = [name for name, present in (
        ("Java get path (hook_java_get)", ("java-ucp", "get") in have),
        ("sidecar HTTP (hook_sidecar_http)", ("sidecar", "http") in have),
        ("event bus (hook_eventbus)", "eventbus" in kinds),
        ("in-process client (hook_eventbus)", "client" in kinds),
        ("agent CPU per read (hook_agent_cpu)", "agent_cpu" in kinds),
        ("sidecar memory (hook_memory)", "memory" in kinds)) if not present]
    return ["## Not measured in this run", ""] + [f"- {t}" for t in todo] + [""] if todo else []


# Series styles: a colour each (a qualitative palette, never the same colour twice in one plot, up to 20 series),
# and beyond the palette a marker and line style each, so no two series ever look alike.
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#7f7f7f", "#393b79", "#ad494a", "#637939", "#e7969c", "#3182bd", "#fd8d3c", "#31a354", "#756bb1",
           "#843c39", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-."]


def styles(n):
    """n distinct (colour, marker, linestyle) triples; the colours differ for the first len(PALETTE) series."""
    return [dict(color=PALETTE[i % len(PALETTE)], marker=MARKERS[i % len(MARKERS)],
                 linestyle=LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)]) for i in range(n)]


def plots(rows, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib is missing, no plots; install: apt-get install -y python3-matplotlib",
              file=sys.stderr)
        return []
    made = []

    # Latency distribution: percentile curves of every one-outstanding / one-connection series.
    series = [r for r in rows if r.get("pcts_us") and (r.get("kind") in ("get", "eventbus", "client") or r.get("conns") == 1)]
    for size in sorted({r["size"] for r in series}):
        fig, ax = plt.subplots(figsize=(8, 5))
        of_size = [r for r in series if r["size"] == size]
        for r, style in zip(of_size, styles(len(of_size))):
            pts = sorted((float(p), v) for p, v in r["pcts_us"].items())
            label = r["impl"] + (f" {r['tls']}/{r['mem']}" if r.get("kind") == "get" else f" {r['kind']}")
            label += "".join(f" {k} {r[k]}" for k in ("config", "workers") if r.get(k) is not None)
            ax.plot([v for _, v in pts], [p for p, _ in pts], label=label, **style)
        ax.set_xscale("log")
        ax.set_xlabel("latency (µs, log)")
        ax.set_ylabel("percentile")
        ax.set_title(f"Latency distribution, {size_label(size)}, one request in flight")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        name = f"latency_{size}.png"
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, name), dpi=110)
        plt.close(fig)
        made.append(name)

    # Throughput against needle size: pipelined gets and the HTTP runs with many connections.
    fig, ax = plt.subplots(figsize=(8, 5))
    groups = {}
    for r in rows:
        if r.get("gbps") is None:
            continue
        if r.get("kind") == "get":
            groups.setdefault(f"{r['impl']} {r['tls']}/{r['mem']} (window {r.get('window')})", []).append(r)
        elif r.get("kind") == "http" and r.get("conns", 1) > 1:
            who = "".join(f" {k} {r[k]}" for k in ("config", "workers") if r.get(k) is not None)
            groups.setdefault(f"{r['impl']}{who} http (many conns)", []).append(r)
        elif r.get("kind") in ("eventbus", "client"):
            groups.setdefault(f"{r['impl']} {r.get('config', '')}".strip(), []).append(r)
    for (label, rs), style in zip(sorted(groups.items()), styles(len(groups))):
        rs = sorted(rs, key=lambda r: r["size"])
        ax.plot([r["size"] for r in rs], [r["gbps"] for r in rs], label=label, **style)
    if groups:
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("needle size (bytes, log2)")
        ax.set_ylabel("GB/s (log)")
        ax.set_title("Throughput against needle size")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "throughput_vs_size.png"), dpi=110)
        made.append("throughput_vs_size.png")
    plt.close(fig)
    return made


def pair_table(rows):
    """The throughput workloads in rounds alternated with nginx (bench/pair.sh, run by the sidecar step)."""
    pairs = [r for r in rows if r.get("kind") == "pair"]
    if not pairs:
        return []
    out = ["The same throughput workloads in rounds alternated with nginx (`bench/pair.sh`: wrk on nginx, then on the "
           "sidecar, each round; medians), so both see the machine at nearly the same time. On a host whose speed "
           "moves within minutes this ratio is the steadier one:", "",
           "| configuration | size | conns | nginx workers | rounds | nginx req/s | sidecar req/s | sidecar/nginx req/s "
           "| per-round ratios | rounds the sidecar led |",
           "|---|---|---:|---:|---:|---:|---:|---|---|---:|"]
    for r in sorted(pairs, key=lambda r: (r.get("config") != "defaults", str(r.get("config")), r["size"])):
        targets = HTTP_TARGETS.get(r.get("config"), (0.6, 0.8, 1.5))
        target = targets[0] if (r["size"], r["conns"]) == (4096, 64) else targets[1] if (r["size"], r["conns"]) == (1 << 20, 8) else None
        rr = r.get("round_ratios") or []
        spread = f"{min(rr):.2f}-{max(rr):.2f}" if rr else MISSING
        out.append(f"| {r.get('config', MISSING)} | {size_label(r['size'])} | {r['conns']} | {r.get('nginx_workers', MISSING)} "
                   f"| {r.get('rounds', MISSING)} | {fmt(r.get('nginx_req_s'))} | {fmt(r.get('sidecar_req_s'))} "
                   f"| {fmt_ratio(r.get('ratio_req_s'), target)} | {spread} | {r.get('sidecar_ahead', MISSING)} |")
        if r.get("errors"):
            out.append(f"\n**{r.get('config')} {size_label(r['size'])} c{r['conns']}: {r['errors']} errors in the alternated "
                       "rounds: its numbers are suspect.**")
    return out + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("results", help="results.jsonl")
    ap.add_argument("--out", required=True, help="directory for report.md and the plots")
    ap.add_argument("--publish", default=DOCS_PLOTS,
                    help="also copy the plots here, where docs/performance.md shows them (default: docs/bench of this "
                         "checkout; '' to skip)")
    a = ap.parse_args()
    rows = load(a.results)
    os.makedirs(a.out, exist_ok=True)
    meta = next((r for r in rows if r.get("kind") == "meta"), {})
    md = ["# Benchmark report", ""]
    if meta:
        md += [f"{meta.get('date')} on {meta.get('host')}: {meta.get('cpus')} CPUs ({meta.get('cpu')}), "
               f"kernel {meta.get('kernel')}, {meta.get('ucx')}, {meta.get('nginx')}, {meta.get('wrk')}; "
               f"load average at start {meta.get('loadavg_at_start'):.2f}.", ""]
    md += get_table(rows) + http_table(rows)
    md += generic_table(rows, "eventbus", "Event bus (same JVM)",
                        ["config", "requester", "size", "ops_s", "ops_s_runs", "gbps", "p50_us", "p99_us"])
    md += generic_table(rows, "client", "In-process client (SeaweedRdma.client(), a verticle's event loop)",
                        ["config", "size", "ops_s", "ops_s_runs", "gbps", "p50_us", "p99_us"])
    md += generic_table(rows, "agent_cpu", "Agent CPU per read (agent process utime+stime over a wrk run)",
                        ["config", "tls", "volume_memory", "size", "conns", "reads", "reads_s", "agent_cpu_s", "cpu_us_per_read"])
    md += generic_table(rows, "memory", "Sidecar memory", ["what", "reads", "seconds", "rss_mib", "rss_private_mib", "rss_shmem_mib", "heap_mib"])
    md += other_targets(rows)
    made = plots(rows, a.out)
    md += [f"![{p}]({p})" for p in made] + [""] + pending(rows)
    path = os.path.join(a.out, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(md))
    print(f"report.py: wrote {path}" + (f" and {', '.join(made)}" if made else ""), file=sys.stderr)
    if a.publish and made:
        publish(a.out, made, a.publish)


def publish(out_dir, made, docs_dir):
    """Copies the plots of this run to docs_dir (docs/performance.md embeds docs/bench/*.png)."""
    if os.path.abspath(out_dir) == os.path.abspath(docs_dir):
        return
    os.makedirs(docs_dir, exist_ok=True)
    for name in made:
        shutil.copyfile(os.path.join(out_dir, name), os.path.join(docs_dir, name))
    print(f"report.py: copied the plots to {docs_dir} (shown in docs/performance.md)", file=sys.stderr)


if __name__ == "__main__":
    main()
