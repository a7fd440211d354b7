#!/usr/bin/env python3
"""HTTP load that checks every byte: GETs random needles from the sidecar and compares each body with the plain
file gen-volume --plain wrote for it. Used by bench/drill.sh (fault drill and soak).

Every request is one line in --out: "t_start t_end status source verdict path"
  status  HTTP status, 0 when no answer came (connection error, --timeout)
  source  the X-Source header (rdma, read-through, http), - when absent
  verdict ok (200, right bytes), wrong (200, other bytes), fail (anything else)
Runs until SIGTERM/SIGINT or --seconds; then prints one JSON summary line on stdout.
Standard library only.
"""
import argparse
import http.client
import json
import os
import random
import signal
import sys
import threading
import time
import urllib.parse


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True, help="the sidecar, e.g. http://127.0.0.1:18081")
    p.add_argument("--plain", required=True, help="directory of the plain files, named by file id")
    p.add_argument("--threads", type=int, default=8, help="concurrent connections (one thread each)")
    p.add_argument("--rate", type=float, default=0, help="requests per second in all; 0: as fast as possible")
    p.add_argument("--seconds", type=float, default=0, help="stop after this long; 0: at SIGTERM")
    p.add_argument("--timeout", type=float, default=10, help="seconds one request may take")
    p.add_argument("--out", required=True, help="per-request lines go here")
    p.add_argument("paths", nargs="+", help="files listing URL paths (/1,0a...), one a line")
    return p.parse_args()


class Checker:
    def __init__(self, args):
        self.args = args
        url = urllib.parse.urlparse(args.base)
        self.host, self.port = url.hostname, url.port or 80
        self.paths = []
        for f in args.paths:
            with open(f) as fh:
                self.paths += [line.strip() for line in fh if line.strip()]
        if not self.paths:
            sys.exit("drill_checker: no paths")
        self.expected = {}
        self.expected_lock = threading.Lock()
        self.stop = threading.Event()
        self.out = open(args.out, "w", buffering=1 << 20)
        self.out_lock = threading.Lock()
        self.counts = {"reads": 0, "ok": 0, "wrong": 0, "fail": 0, "unanswered": 0}

    def expected_bytes(self, path):
        with self.expected_lock:
            body = self.expected.get(path)
        if body is None:
            with open(os.path.join(self.args.plain, path.lstrip("/")), "rb") as fh:
                body = fh.read()
            with self.expected_lock:
                self.expected[path] = body
        return body

    def connect(self):
        return http.client.HTTPConnection(self.host, self.port, timeout=self.args.timeout)

    def run_thread(self, seed):
        rnd = random.Random(seed)
        conn = self.connect()
        interval = self.args.threads / self.args.rate if self.args.rate > 0 else 0
        next_at = time.monotonic()
        lines = []
        counts = dict.fromkeys(self.counts, 0)
        while not self.stop.is_set():
            if interval:
                next_at += interval
                delay = next_at - time.monotonic()
                if delay > 0:
                    if self.stop.wait(delay):
                        break
                else:
                    next_at = time.monotonic()  # behind: no burst to catch up
            path = self.paths[rnd.randrange(len(self.paths))]
            t0 = time.time()
            status, source, verdict = 0, "-", "fail"
            try:
                conn.request("GET", path)
                resp = conn.getresponse()
                body = resp.read()
                status = resp.status
                source = resp.getheader("X-Source", "-")
                if status == 200:
                    verdict = "ok" if body == self.expected_bytes(path) else "wrong"
                if resp.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = self.connect()
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = self.connect()
            t1 = time.time()
            counts["reads"] += 1
            counts[verdict] += 1
            counts["unanswered"] += status == 0
            lines.append(f"{t0:.6f} {t1:.6f} {status} {source} {verdict} {path}\n")
            if len(lines) >= 256:
                self.flush(lines)
        self.flush(lines)
        conn.close()
        with self.out_lock:
            for k, v in counts.items():
                self.counts[k] += v

    def flush(self, lines):
        with self.out_lock:
            self.out.writelines(lines)
        lines.clear()

    def run(self):
        for s in (signal.SIGTERM, signal.SIGINT):
            signal.signal(s, lambda *_: self.stop.set())
        started = time.time()
        threads = [threading.Thread(target=self.run_thread, args=(i,), daemon=True) for i in range(self.args.threads)]
        for t in threads:
            t.start()
        if self.args.seconds > 0:
            self.stop.wait(self.args.seconds)
            self.stop.set()
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(0.2)
        self.out.close()
        elapsed = time.time() - started
        summary = dict(self.counts, seconds=round(elapsed, 3),
                       reads_s=round(self.counts["reads"] / elapsed, 1) if elapsed > 0 else 0)
        print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    Checker(parse_args()).run()
