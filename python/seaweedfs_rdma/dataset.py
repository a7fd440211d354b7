"""A map-style dataset of needles, the shape torch.utils.data.DataLoader takes (torch is not imported here)."""

from .client import Client


class NeedleDataset:
    """``dataset[i]`` is ``transform(bytes of fids[i])``; ``len(dataset)`` the number of fids.

    Each process (a DataLoader's workers are forked) opens its own connection on first use. ``__getitems__`` reads
    a whole batch of indices with one POST /batch; a fid that cannot be read raises its NeedleError.
    """

    def __init__(self, fids, url="http://127.0.0.1:8081", transform=None, token=None):
        self.fids = list(fids)
        self.url = url
        self.transform = transform
        self.token = token
        self._client = None

    def __len__(self):
        return len(self.fids)

    def _reader(self):
        if self._client is None:
            self._client = Client(self.url, token=self.token)
        return self._client

    def _value(self, data):
        return self.transform(data) if self.transform is not None else data

    def __getitem__(self, index):
        return self._value(self._reader().read(self.fids[index]))

    def __getitems__(self, indices):
        out = []
        for _fid, value in self._reader().read_many([self.fids[i] for i in indices]):
            if isinstance(value, Exception):
                raise value
            out.append(self._value(value))
        return out

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_client"] = None  # a connection does not travel to another process
        return state
