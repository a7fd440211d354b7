"""Read SeaweedFS needles from a seaweedfs-rdma-sidecar (standard library only)."""

from .client import Client, NeedleError, read, read_many
from .dataset import NeedleDataset

__all__ = ["Client", "NeedleError", "NeedleDataset", "read", "read_many"]
