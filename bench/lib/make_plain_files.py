#!/usr/bin/env python3
"""Write the plain files nginx serves: COUNT random files of SIZE bytes named like SeaweedFS file ids
("<vid>,<key hex><cookie 8 hex>") in DIR, and the list of their URL paths ("/<vid>,<fid>", one per line) in the file --paths.

The same names are what the sidecar serves, so one wrk path list fits both peers once the volume
generator writes these bytes as needles. An existing, complete set is reused (no rewrite)."""
import argparse
import os
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir")
    ap.add_argument("--vid", type=int, required=True, help="volume id used in the names")
    ap.add_argument("--size", type=int, required=True, help="bytes per file")
    ap.add_argument("--count", type=int, required=True, help="number of files")
    ap.add_argument("--paths", required=True, help="where the URL path list is written")
    ap.add_argument("--seed", type=int, default=1, help="names and bytes are reproducible from it")
    a = ap.parse_args()
    if a.vid < 1 or a.size < 1 or a.count < 1:
        sys.exit("make_plain_files: --vid, --size and --count must be positive")

    paths_file = a.paths
    rng = random.Random(a.seed * 1_000_003 + a.vid)
    names = [f"{a.vid},{key:x}{rng.getrandbits(32):08x}" for key in range(1, a.count + 1)]
    def complete(n):
        p = os.path.join(a.dir, n)
        return os.path.exists(p) and os.path.getsize(p) == a.size
    if os.path.exists(paths_file) and all(complete(n) for n in names):
        print(f"make_plain_files: reusing {a.count} x {a.size} B in {a.dir}", file=sys.stderr)
        return
    os.makedirs(a.dir, exist_ok=True)
    for n in names:
        with open(os.path.join(a.dir, n), "wb") as f:
            f.write(rng.randbytes(a.size))
    with open(paths_file, "w") as f:
        f.writelines(f"/{n}\n" for n in names)
    print(f"make_plain_files: wrote {a.count} x {a.size} B to {a.dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
