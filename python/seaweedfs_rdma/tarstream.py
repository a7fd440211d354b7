"""Members of a ustar stream read from a file-like object, one at a time, without reading ahead."""

BLOCK = 512


class TarFormatError(ValueError):
    """The stream is not the tar a sidecar writes."""


def _read_exactly(stream, n):
    data = stream.read(n)
    if data is None:
        data = b""
    while len(data) < n:
        more = stream.read(n - len(data))
        if not more:
            raise TarFormatError("the stream ended inside a member (%d of %d bytes)" % (len(data), n))
        data += more
    return data


def _octal(field):
    text = field.split(b"\0", 1)[0].strip()
    return int(text, 8) if text else 0


def members(stream):
    """Yields (name, mtime, data) for each member; stops at the archive's end (a zero block)."""
    pax = {}
    while True:
        header = _read_exactly(stream, BLOCK)
        if header == bytes(BLOCK):
            _read_exactly(stream, BLOCK)  # the second zero block
            return
        checksum = _octal(header[148:156])
        if checksum != sum(header[:148]) + 8 * 32 + sum(header[156:]):
            raise TarFormatError("a member header's checksum does not match")
        name = header[:100].split(b"\0", 1)[0].decode("utf-8")
        size = _octal(header[124:136])
        mtime = _octal(header[136:148])
        kind = header[156:157]
        data = _read_exactly(stream, size)
        rest = -size % BLOCK
        if rest:
            _read_exactly(stream, rest)
        if kind == b"x":  # a pax header: its records apply to the next member
            pax = _pax_records(data)
            continue
        if kind not in (b"0", b"\0"):
            raise TarFormatError("member %r is not a regular file (type %r)" % (name, kind))
        name = pax.get("path", name)
        mtime = int(float(pax.get("mtime", mtime)))
        pax = {}
        yield name, mtime, data


def _pax_records(data):
    records = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        length = int(data[at:space])
        key, _, value = data[space + 1:at + length - 1].partition(b"=")
        records[key.decode("utf-8")] = value.decode("utf-8")
        at += length
    return records
