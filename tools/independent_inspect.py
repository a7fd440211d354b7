#!/usr/bin/env python3
"""An independent reader of SeaweedFS volumes, written from the format description alone (no project code),
to cross-check `inspect`: prints the same JSON lines, sorted by fid.

    python3 tools/independent_inspect.py <volume dir> [--offset5] | sort > a
    java -jar target/seaweedfs-rdma-sidecar.jar inspect <volume dir> [--offset5] | sort > b
    diff a b
"""
import json
import os
import re
import struct
import sys

_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    _TABLE.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def legacy(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def fid(vid, key, cookie):
    raw = struct.pack(">QI", key, cookie)
    i = 0
    while i < 8 and raw[i] == 0:
        i += 1
    return "%d,%s" % (vid, raw[i:].hex())


def live_entries(idx_path, offset5):
    entry = 17 if offset5 else 16
    live = {}
    with open(idx_path, "rb") as f:
        data = f.read()
    for p in range(0, len(data) - len(data) % entry, entry):
        key = struct.unpack_from(">Q", data, p)[0]
        if offset5:
            low, high, size = struct.unpack_from(">IBI", data, p + 8)
            offset = (high << 32) | low
        else:
            offset, size = struct.unpack_from(">II", data, p + 8)
        signed = size - (1 << 32) if size >= 1 << 31 else size
        if offset != 0 and signed >= 0:
            live[key] = (offset * 8, size)
        else:
            live.pop(key, None)
    return live


def needle(dat, version, offset, size):
    dat.seek(offset)
    header = dat.read(16)
    cookie, key, stored_size = struct.unpack(">IQI", header)
    body = dat.read(size + 4)
    out = {"cookie": cookie, "key": key, "name": "", "mime": "", "last_modified": 0, "compressed": False}
    if size == 0:
        return out, b"", None
    if version == 1:
        data = body[:size]
    else:
        data_size = struct.unpack_from(">I", body, 0)[0]
        data = body[4:4 + data_size]
        p = 4 + data_size
        flags = body[p] if p < size else 0
        p += 1
        out["compressed"] = bool(flags & 0x01)
        if flags & 0x02 and p < size:
            n = body[p]; out["name"] = body[p + 1:p + 1 + n].decode("utf-8", "replace"); p += 1 + n
        if flags & 0x04 and p < size:
            n = body[p]; out["mime"] = body[p + 1:p + 1 + n].decode("utf-8", "replace"); p += 1 + n
        if flags & 0x08 and p < size:
            out["last_modified"] = int.from_bytes(body[p:p + 5], "big"); p += 5
    stored = struct.unpack_from(">I", body, size)[0]
    return out, data, stored


def main():
    args = [a for a in sys.argv[1:] if a != "--offset5"]
    offset5 = "--offset5" in sys.argv
    directory = args[0]
    for name in sorted(os.listdir(directory)):
        m = re.fullmatch(r"(?:(.+)_)?(\d+)\.dat", name)
        if not m:
            continue
        vid = int(m.group(2))
        idx = os.path.join(directory, name[:-4] + ".idx")
        with open(os.path.join(directory, name), "rb") as dat:
            version = dat.read(1)[0]
            for key, (offset, size) in sorted(live_entries(idx, offset5).items(), key=lambda kv: kv[1][0]):
                meta, data, stored = needle(dat, version, offset, size)
                crc = crc32c(data)
                if size == 0:
                    state = "empty"
                elif stored == crc:
                    state = "raw"
                elif stored == legacy(crc):
                    state = "legacy"
                else:
                    state = "bad"
                print(json.dumps({"fid": fid(vid, key, meta["cookie"]), "size": len(data), "crc": "%08x" % crc,
                                  "crc_state": state, "name": meta["name"], "mime": meta["mime"],
                                  "last_modified": meta["last_modified"], "compressed": meta["compressed"]},
                                 separators=(",", ":")))


if __name__ == "__main__":
    main()
