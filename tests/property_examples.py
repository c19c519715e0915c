"""How many examples a property test draws: its full count in `make test`, a fifth in `make check`.

`make check` loads the `check` Hypothesis profile (tests/conftest.py: 20 examples where
Hypothesis's default is 100). A test's own `@settings(max_examples=N)` would override any
profile, so a test that wants more (or fewer) than the default says `max_examples=examples(N)`:
N under the full profile, N scaled by the loaded profile's share of the default under another.
Every property still runs in both; `make test` draws all of them.
"""

from __future__ import annotations

from hypothesis import settings

DEFAULT = 100  # Hypothesis's own max_examples: the full profile's


def examples(full: int) -> int:
    """`full`, scaled by the loaded profile's max_examples over the default (never below 10,
    or `full` when that is smaller: a fuzz test of a few costly examples keeps them)."""
    scaled = full * settings().max_examples // DEFAULT  # settings(): the loaded profile's
    return max(scaled, min(full, 10))
