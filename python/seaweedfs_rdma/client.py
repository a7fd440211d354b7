"""HTTP reads from a sidecar: GET /<fid> for one needle, POST /batch (a streamed tar) for many."""

import http.client
import json
import os
import urllib.parse

from . import tarstream

_ERROR_SUFFIX = ".error"


class NeedleError(Exception):
    """A fid that could not be read: ``status`` is the HTTP-like code (404, 401, 502 corrupt, 503, ...)."""

    def __init__(self, fid, status, message):
        super().__init__("%s: %s (%d)" % (fid, message, status))
        self.fid = fid
        self.status = status
        self.message = message


class Client:
    """One keep-alive connection to a sidecar's HTTP API (not shared across threads; re-opened after a fork).

    ``batch_size`` fids go in each POST /batch (keep it within the sidecar's ``sidecar.batch.maxFids``).
    """

    def __init__(self, url="http://127.0.0.1:8081", token=None, timeout=60.0, batch_size=1024):
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError("url must be http(s)://host[:port], got %r" % url)
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._https = parsed.scheme == "https"
        self._host = parsed.hostname
        self._port = parsed.port or (443 if self._https else 80)
        self._token = token
        self._timeout = timeout
        self.batch_size = batch_size
        self._connection = None
        self._pid = None

    def _connect(self):
        if self._connection is None or self._pid != os.getpid():
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._connection = cls(self._host, self._port, timeout=self._timeout)
            self._pid = os.getpid()
        return self._connection

    def close(self):
        if self._connection is not None and self._pid == os.getpid():
            self._connection.close()
        self._connection = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _request(self, method, path, body=None, headers=None):
        headers = dict(headers or {})
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        for attempt in (0, 1):
            connection = self._connect()
            try:
                connection.request(method, path, body=body, headers=headers)
                return connection.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()  # a keep-alive connection the server closed meanwhile: once more on a new one
                if attempt:
                    raise

    def read(self, fid, token=None):
        """The needle's bytes, as GET /<fid> answers them (decompressed); NeedleError when it cannot be read."""
        path = "/" + urllib.parse.quote(fid, safe=",")
        if token:
            path += "?jwt=" + urllib.parse.quote(token)
        response = self._request("GET", path)
        body = response.read()
        if response.status != 200:
            raise NeedleError(fid, response.status, _error_text(body) or response.reason)
        return body

    def read_many(self, fids, tokens=None):
        """Yields (fid, bytes) or (fid, NeedleError) for every fid, in order, streaming POST /batch answers.

        ``tokens``: a read token per fid (None where none), sent beside each fid.
        """
        fids = list(fids)
        if tokens is not None:
            tokens = list(tokens)
            if len(tokens) != len(fids):
                raise ValueError("tokens: one per fid (%d fids, %d tokens)" % (len(fids), len(tokens)))
        for start in range(0, len(fids), self.batch_size):
            part = fids[start:start + self.batch_size]
            part_tokens = tokens[start:start + self.batch_size] if tokens is not None else None
            yield from self._batch(part, part_tokens)

    def _batch(self, fids, tokens):
        lines = []
        for i, fid in enumerate(fids):
            if any(c.isspace() for c in fid) or not fid:
                raise ValueError("fid %r: empty or with whitespace" % fid)
            token = tokens[i] if tokens is not None else None
            lines.append(fid + (" " + token if token else ""))
        body = ("\n".join(lines) + "\n").encode("utf-8")
        response = self._request("POST", "/batch", body=body, headers={"Content-Type": "text/plain"})
        if response.status != 200:
            raise NeedleError("POST /batch", response.status, _error_text(response.read()) or response.reason)
        finished = False
        try:
            index = 0
            for name, _mtime, data in tarstream.members(response):
                if index >= len(fids):
                    raise tarstream.TarFormatError("more members than fids")
                fid = fids[index]
                index += 1
                if name == fid + _ERROR_SUFFIX:
                    error = json.loads(data.decode("utf-8"))
                    yield fid, NeedleError(fid, int(error.get("status", 500)), error.get("error", ""))
                elif name == fid:
                    yield fid, data
                else:
                    raise tarstream.TarFormatError("member %r where %r was due" % (name, fid))
            if index != len(fids):
                raise tarstream.TarFormatError("%d members for %d fids" % (index, len(fids)))
            response.read()  # the end of the chunked body, so the connection can be used again
            finished = True
        finally:
            if not finished:
                self.close()  # abandoned or broken mid-stream: this connection cannot be reused


def _error_text(body):
    try:
        return json.loads(body.decode("utf-8")).get("error")
    except (ValueError, AttributeError, UnicodeDecodeError):
        return body.decode("utf-8", "replace")[:200] if body else None


_default = None


def _client(url):
    global _default
    if url is not None:
        return Client(url)
    if _default is None:
        _default = Client(os.environ.get("SEAWEEDFS_RDMA_URL", "http://127.0.0.1:8081"))
    return _default


def read(fid, url=None, token=None):
    """One needle from the sidecar at ``url`` (default: $SEAWEEDFS_RDMA_URL, else http://127.0.0.1:8081)."""
    return _client(url).read(fid, token=token)


def read_many(fids, url=None, tokens=None):
    """(fid, bytes) or (fid, NeedleError) for every fid, in order, from one streamed POST /batch per batch."""
    return _client(url).read_many(fids, tokens=tokens)
