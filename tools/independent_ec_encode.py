#!/usr/bin/env python3
"""An independent erasure-coding writer for SeaweedFS volumes, written from the format description alone
(docs: SeaweedFS's ec_encoder.go layout and klauspost/reedsolomon's default matrix; no project code), so that the
project's EC reader is tested against files it did not write itself.

    python3 tools/independent_ec_encode.py DIR VID [--collection C] [--data-shards 10] [--parity-shards 4]
                                           [--offset5] [--keep-dat] [--ecsum] [--ecsum-block-size 16777216]
                                           [--generation N]

Reads DIR/[C_]VID.dat and .idx and writes, as `weed shell ec.encode` leaves them on a volume server:
  .ec00 .. .ecNN  rows of data-shards blocks: 1 GiB blocks while more than a whole large row remains, then
                  1 MiB blocks, the last row zero-padded; block i of a row goes to shard i % data-shards; parity
                  shards are Reed-Solomon over GF(2^8) (polynomial 0x11d) with the Vandermonde-derived matrix
  .ecx            the live .idx entries, sorted by key, same entry form (16 bytes, or 17 with --offset5)
  .ecj            empty (ids deleted later are appended, 8 bytes big-endian each)
  .vif            protobuf JSON of VolumeInfo: version, datFileSize (int64 as a string), ecShardConfig when the
                  shard counts are not 10 + 4
  .ecsum          with --ecsum: the bitrot checksums (weed/storage/erasure_coding/ec_bitrot.go, the
                  EcBitrotProtection message of volume_server.proto): a 14-byte big-endian header (magic "ECSU",
                  format version 1, payload length, CRC-32C of the payload) and the protobuf payload {algorithm 1
                  (CRC-32C), block_size, generation 0, ec_shard_config {data, parity}, one shards entry per shard
                  {shard_id, covered_size, block_crc32c: the CRC-32C of each block_size block, packed u32
                  little-endian}, encode_uuid}
With --generation N (N > 0) the files are those of a vacuumed EC generation N, named with a ".vN" suffix
(.ec00.vN .. .ecNN.vN, .ecx.vN, .vif.vN, .ecsum.vN with generation N in its payload; ec_bitrot.go and the Rust
volume server's ec_volume.rs name them so); the .ecj keeps its name and is created only when absent.
Then removes the .dat and .idx unless --keep-dat (the volume server deletes them after ec.encode).
"""
import argparse
import json
import os
import struct
import sys

from independent_inspect import crc32c  # CRC-32C (Castagnoli), the sibling tool's

LARGE_BLOCK = 1 << 30
SMALL_BLOCK = 1 << 20

# GF(2^8) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d), generator 2.
EXP = [0] * 512
LOG = [0] * 256
_x = 1
for _i in range(255):
    EXP[_i] = _x
    LOG[_x] = _i
    _x <<= 1
    if _x & 0x100:
        _x ^= 0x11D
for _i in range(255, 512):
    EXP[_i] = EXP[_i - 255]


def gmul(a, b):
    return 0 if a == 0 or b == 0 else EXP[LOG[a] + LOG[b]]


def gpow(a, n):
    if n == 0:
        return 1
    return 0 if a == 0 else EXP[(LOG[a] * n) % 255]


def ginv(a):
    if a == 0:
        raise ZeroDivisionError("0 has no inverse in GF(2^8)")
    return EXP[255 - LOG[a]]


def invert(m):
    """Gauss-Jordan inverse of a square matrix over GF(2^8)."""
    n = len(m)
    a = [row[:] + [1 if i == j else 0 for j in range(n)] for i, row in enumerate(m)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        scale = ginv(a[col][col])
        a[col] = [gmul(v, scale) for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [v ^ gmul(f, p) for v, p in zip(a[r], a[col])]
    return [row[n:] for row in a]


def encoding_matrix(data, total):
    """Vandermonde rows r^c (total x data) times the inverse of its top data x data square: the top becomes the
    identity, the rest are the parity rows."""
    vand = [[gpow(r, c) for c in range(data)] for r in range(total)]
    top_inv = invert(vand[:data])
    out = []
    for r in range(total):
        out.append([0] * data)
        for c in range(data):
            v = 0
            for k in range(data):
                v ^= gmul(vand[r][k], top_inv[k][c])
            out[r][c] = v
    return out


_MUL_TABLES = [bytes(gmul(c, x) for x in range(256)) for c in range(256)]


def parity(blocks, rows):
    """Each parity block: the XOR over data blocks of (coefficient x block), bytes.translate doing the products."""
    size = len(blocks[0])
    out = []
    for row in rows:
        acc = 0
        for coef, block in zip(row, blocks):
            if coef:
                acc ^= int.from_bytes(block.translate(_MUL_TABLES[coef]), "little")
        out.append(acc.to_bytes(size, "little"))
    return out


def encode_rows(dat, shards, data, rows):
    size = os.fstat(dat.fileno()).st_size
    remaining = size
    pos = 0

    def row(block):
        nonlocal pos, remaining
        blocks = []
        for _ in range(data):
            dat.seek(pos)
            chunk = dat.read(block) if pos < size else b""
            blocks.append(chunk + bytes(block - len(chunk)))
            pos += block
        for f, b in zip(shards, blocks + parity(blocks, rows)):
            f.write(b)
        remaining -= block * data

    while remaining > LARGE_BLOCK * data:
        row(LARGE_BLOCK)
    while remaining > 0:
        row(SMALL_BLOCK)
    return size


def live_index(idx_path, offset5):
    width = 17 if offset5 else 16
    entries = {}
    with open(idx_path, "rb") as f:
        raw = f.read()
    if len(raw) % width:
        sys.exit("%s: %d bytes is not a whole number of %d-byte entries" % (idx_path, len(raw), width))
    for i in range(0, len(raw), width):
        e = raw[i:i + width]
        key, lo = struct.unpack(">QI", e[:12])
        hi = e[12] if offset5 else 0
        (size,) = struct.unpack(">I", e[width - 4:])
        offset = lo | (hi << 32)
        if offset != 0 and size != 0xFFFFFFFF and size < 0x80000000:
            entries[key] = e
        else:
            entries.pop(key, None)
    return [entries[k] for k in sorted(entries)]


def varint(n):
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, value):
    return varint((number << 3) | 2) + varint(len(value)) + value


def ecsum(shard_paths, data, parity, block_size, generation):
    """The .ecsum file's bytes: header + EcBitrotProtection for the generation."""
    payload = field_varint(1, 1) + field_varint(2, block_size)
    if generation:
        payload += field_varint(3, generation)  # generation 0 is the default: not written
    payload += field_bytes(4, field_varint(1, data) + field_varint(2, parity))
    for shard_id, path in enumerate(shard_paths):
        crcs = bytearray()
        covered = 0
        with open(path, "rb") as f:
            while True:
                block = f.read(block_size)
                if not block:
                    break
                covered += len(block)
                crcs += struct.pack("<I", crc32c(block))
        entry = (field_varint(1, shard_id) if shard_id else b"") + field_varint(2, covered)
        payload += field_bytes(5, entry + field_bytes(3, bytes(crcs)))
    payload += field_bytes(6, os.urandom(16))
    return struct.pack(">IHII", 0x45435355, 1, len(payload), crc32c(payload)) + payload


def main():
    p = argparse.ArgumentParser(description="Erasure-code a SeaweedFS volume as ec.encode does (independent writer).")
    p.add_argument("dir")
    p.add_argument("vid", type=int)
    p.add_argument("--collection", default="")
    p.add_argument("--data-shards", type=int, default=10)
    p.add_argument("--parity-shards", type=int, default=4)
    p.add_argument("--offset5", action="store_true", help="17-byte index entries (5-byte offsets)")
    p.add_argument("--keep-dat", action="store_true")
    p.add_argument("--ecsum", action="store_true", help="also write the .ecsum bitrot checksums")
    p.add_argument("--ecsum-block-size", type=int, default=16 << 20)
    p.add_argument("--generation", type=int, default=0, help="write EC generation N (.vN names)")
    a = p.parse_args()
    if a.generation < 0:
        sys.exit("the generation must be >= 0")
    v = ".v%d" % a.generation if a.generation else ""
    if a.data_shards < 1 or a.parity_shards < 1 or a.data_shards + a.parity_shards > 32:
        sys.exit("shard counts must be >= 1 each and at most 32 together")
    base = os.path.join(a.dir, ("%s_%d" % (a.collection, a.vid)) if a.collection else str(a.vid))
    total = a.data_shards + a.parity_shards
    rows = encoding_matrix(a.data_shards, total)[a.data_shards:]
    shard_paths = ["%s.ec%02d%s" % (base, i, v) for i in range(total)]
    shards = [open(path, "wb") for path in shard_paths]
    try:
        with open(base + ".dat", "rb") as dat:
            version = dat.read(1)[0]
            dat_size = encode_rows(dat, shards, a.data_shards, rows)
    finally:
        for f in shards:
            f.close()
    with open(base + ".ecx" + v, "wb") as f:
        f.write(b"".join(live_index(base + ".idx", a.offset5)))
    if not os.path.exists(base + ".ecj"):
        open(base + ".ecj", "wb").close()
    info = {"version": version, "replication": "000", "bytesOffset": 5 if a.offset5 else 4,
            "datFileSize": str(dat_size)}
    if (a.data_shards, a.parity_shards) != (10, 4):
        info["ecShardConfig"] = {"dataShards": a.data_shards, "parityShards": a.parity_shards}
    with open(base + ".vif" + v, "w") as f:
        json.dump(info, f, indent=2)
    if a.ecsum:
        with open(base + ".ecsum" + v, "wb") as f:
            f.write(ecsum(shard_paths, a.data_shards, a.parity_shards, a.ecsum_block_size, a.generation))
    if not a.keep_dat:
        os.remove(base + ".dat")
        os.remove(base + ".idx")


if __name__ == "__main__":
    main()
