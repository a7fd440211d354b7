"""Reads fids (one per line on stdin) from a sidecar with every face of the package and prints what it got.

Usage: python3 check_reader.py URL < fids. Prints one JSON object per fid and face:
{"face": "read_many"|"read"|"dataset"|"tarfile", "fid", "status", "length", "sha256"}; "status" is 200 or the
error's. The "tarfile" face parses the raw POST /batch answer with the standard library's tarfile, a reader
independent of the package's own.
"""

import hashlib
import http.client
import io
import json
import sys
import tarfile
import urllib.parse

from seaweedfs_rdma import Client, NeedleDataset, NeedleError


def emit(face, fid, value):
    if isinstance(value, NeedleError):
        out = {"face": face, "fid": fid, "status": value.status, "length": 0, "sha256": ""}
    else:
        out = {"face": face, "fid": fid, "status": 200, "length": len(value),
               "sha256": hashlib.sha256(value).hexdigest()}
    print(json.dumps(out), flush=True)


def raw_tar(url, fids):
    parsed = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port)
    connection.request("POST", "/batch", body=("\n".join(fids) + "\n").encode())
    response = connection.getresponse()
    assert response.status == 200, response.status
    assert response.getheader("Content-Type") == "application/x-tar"
    data = response.read()
    connection.close()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
        for member in archive.getmembers():
            content = archive.extractfile(member).read()
            if member.name.endswith(".error"):
                error = json.loads(content)
                emit("tarfile", member.name[:-len(".error")],
                     NeedleError(member.name, error["status"], error["error"]))
            else:
                emit("tarfile", member.name, content)


def main():
    url = sys.argv[1]
    fids = [line.strip() for line in sys.stdin if line.strip()]
    client = Client(url, batch_size=7)  # several batches, so the connection is reused between them
    for fid, value in client.read_many(fids):
        emit("read_many", fid, value)
    for fid in fids:
        try:
            emit("read", fid, client.read(fid))
        except NeedleError as e:
            emit("read", fid, e)
    dataset = NeedleDataset(fids, url)
    assert len(dataset) == len(fids)
    for i in range(len(dataset)):
        try:
            emit("dataset", fids[i], dataset[i])
        except NeedleError as e:
            emit("dataset", fids[i], e)
    try:  # a DataLoader's batched fetch: the whole batch, or the first fid that cannot be read raised
        for fid, data in zip(fids, dataset.__getitems__(list(range(len(dataset))))):
            emit("getitems", fid, data)
    except NeedleError as e:
        emit("getitems", e.fid, e)
    raw_tar(url, fids)


if __name__ == "__main__":
    main()
