"""Pausing Python's cyclic garbage collector while a large, acyclic structure is built.

Loading 10,000 topics allocates millions of dicts, lists and tuples that all stay alive; the
collector's generational passes over them find nothing to free and took a quarter of
`load_repo`'s CPU time (measured: 1.33 s with, 1.0 s without). Reference counting still frees
everything that is not part of a cycle, and the collector runs again as soon as the load ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block (nesting and an already disabled GC respected)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
