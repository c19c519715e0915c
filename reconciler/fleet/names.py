"""Which topic names the planner never touches, decided by the planner's own function.

policy.ignore holds Python regular expressions (`re.search` syntax, matched under a bound by
reconciler/patterns.py). The job evaluates them in the
JVM when every pattern translates to Java's dialect without a change of meaning
(java_regex.py, ignore.py); otherwise it calls `reconciler.planning.diff.ignored` (the
reserved `_reconciler_` prefix included) from a Python UDF through this module. It imports
nothing beyond the standard library and the planner, so a Spark worker needs only the
reconciler package.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from reconciler.patterns import UserPattern, problem
from reconciler.planning.diff import ignored


@lru_cache(maxsize=1024)
def _compiled(patterns: tuple[str, ...]) -> tuple[UserPattern, ...]:
    # Bounded as the planner's are (reconciler/patterns.py): a pattern that exceeds its bound
    # stops the job with its message rather than stall an executor. The planner skips a
    # pattern it cannot compile too (and reports it as invalid_ignore_pattern); compile only
    # writes validated specs anyway.
    return tuple(UserPattern(p, "policy.ignore") for p in patterns if problem(p) is None)


def ignored_name(name: str | None, patterns: Sequence[str] | None) -> bool | None:
    """True when the planner never plans nor reports `name` on a cluster with these
    policy.ignore `patterns`; None for a missing name (a bad input line)."""
    if name is None:
        return None
    return ignored(name, _compiled(tuple(patterns or ())))
