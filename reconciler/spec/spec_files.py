"""The spec files' bytes as one command read them: each file opened once, whatever asks again.

A command loads reconciler.yaml and the topic files, may load them again (import plans over the
files it wrote; a names-only read of reconciler.yaml picks the cluster), and digests them for
the saved plan (digest.py). Every one of those reads goes through one `SpecFiles`, so the
digest names exactly the bytes that were planned, even when a file changes on disk meanwhile,
and no file is opened twice. A file the command writes itself (import's new files, the pinned
cluster id) is recorded with `wrote`: the next read gets those bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

from reconciler import readable


class SpecFiles:
    """Bytes by path (as given: the loader gives real paths), or the error the first read met."""

    def __init__(self) -> None:
        self._read: dict[str, bytes | OSError | readable.Unfit] = {}

    def read(self, path: Path, cap: int) -> bytes:
        """The file's bytes (readable.read_bytes: a regular file of at most `cap` bytes),
        read on the first call only; a later call raises what the first met."""
        key = os.fspath(path)
        if key not in self._read:
            try:
                self._read[key] = readable.read_bytes(path, cap)
            except (OSError, readable.Unfit) as exc:
                self._read[key] = exc
                raise
        found = self._read[key]
        if not isinstance(found, bytes):
            raise found
        if len(found) > cap:  # read before under a larger cap
            raise readable.Unfit(readable.describe_size(len(found), cap), too_large=True)
        return found

    def wrote(self, path: Path, data: bytes) -> None:
        """The command wrote `data` to `path`: what a later read of it gets."""
        self._read[os.fspath(path)] = data
