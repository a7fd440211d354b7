"""MB/s of the Python reader (python/seaweedfs_rdma) streaming needles with read_many for a number of seconds.

Usage: python3 python_reader_bench.py URL PATHS_FILE SECONDS PLAIN_DIR. Checks one pass against the plain files
first, then prints one JSON line {"needles", "bytes", "seconds", "mb_s", "needles_s"}.
"""

import json
import os
import sys
import time

from seaweedfs_rdma import Client


def main():
    url, paths, seconds, plain = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    fids = [line.strip().lstrip("/") for line in open(paths) if line.strip()]
    client = Client(url, batch_size=256)
    for fid, data in client.read_many(fids):
        if isinstance(data, Exception):
            raise data
        with open(os.path.join(plain, fid), "rb") as f:
            if f.read() != data:
                raise SystemExit("wrong bytes for " + fid)
    needles = total = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _fid, data in client.read_many(fids):
            total += len(data)
            needles += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({"needles": needles, "bytes": total, "seconds": round(elapsed, 3),
                      "mb_s": round(total / elapsed / 1e6, 1), "needles_s": round(needles / elapsed)}))


if __name__ == "__main__":
    main()
