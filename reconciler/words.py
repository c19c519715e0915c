"""Small phrases messages share, so every message lists things the same way."""

from __future__ import annotations

from collections.abc import Sequence


def listing(items: Sequence[str], limit: int = 5, sep: str = ", ") -> str:
    """ "a, b, c, d, e and 3 more": the first `limit` items, then how many were left out."""
    shown = sep.join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def counted(count: int, noun: str) -> str:
    """`1 file`, `2 files`: a count with its noun, plural by an `s`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
