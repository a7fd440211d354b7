"""One measured turn of bench/turns.sh as a JSON line: the run's own line (wrk_run or EventBusTurnsMain) under the
round's tags (kind "turn", round, slot, server, workload), the CPU each process spent per request between two
cpu_snapshot files (lib/proc.sh), and the problems the run shows (errors, non-2xx answers, answers shorter than the
needle).

    python3 turn_line.py RUN_JSON TAGS_JSON BEFORE_FILE AFTER_FILE

CPU fields (microseconds per request or read; a clock tick is 10 ms, so they need runs of thousands of requests):
server_us_per_req (the server's whole process: every thread, children included), loop_us_per_req (its busiest
Vert.x event loop thread, with loop_thread naming it), agent_us_per_req (the agent's whole process, sidecars only).
"""
import json
import os
import sys

HZ = os.sysconf("SC_CLK_TCK")


def snapshot(path):
    processes, threads = {}, {}
    for line in open(path):
        f = line.split()
        if f[0] == "process":
            processes[f[1]] = int(f[2])
        elif f[0] == "thread":
            threads[(f[1], f[2])] = (int(f[3]), f[4] if len(f) > 4 else "?")
    return processes, threads


def main():
    run, tags = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    (p0, t0), (p1, t1) = snapshot(sys.argv[3]), snapshot(sys.argv[4])
    line = dict(run)
    line.update(tags)
    n = run.get("requests", run.get("reads", 0))

    def per_request(ticks):
        return round(ticks * 1e6 / HZ / n, 2) if n else None

    if "server" in p0 and "server" in p1:
        line["server_us_per_req"] = per_request(p1["server"] - p0["server"])
    loops = [(ticks - t0.get(key, (0, ""))[0], key[1], name) for key, (ticks, name) in t1.items()
             if key[0] == "server" and name.startswith("vert.x-eventloo")]
    if loops:
        ticks, tid, name = max(loops)
        line["loop_us_per_req"] = per_request(ticks)
        line["loop_thread"] = f"{name}/{tid}"
    if "agent" in p0 and "agent" in p1:
        line["agent_us_per_req"] = per_request(p1["agent"] - p0["agent"])
    problems = []
    if run.get("errors"):
        problems.append(f"{run['errors']} socket errors or timeouts")
    if run.get("non_2xx"):
        problems.append(f"{run['non_2xx']} non-2xx answers")
    if "bytes" in run and n and run["bytes"] < n * run["size"]:
        problems.append(f"answers shorter than the needle: {run['bytes']} bytes for {n} answers of {run['size']}")
    if not n:
        problems.append("no request answered")
    if problems:
        line["problems"] = problems
    print(json.dumps(line))


if __name__ == "__main__":
    main()
