"""`policy.manage`: the topics a spec repository owns, for adopting a cluster team by team.

Topics whose name matches no `manage` pattern (`re.search`) are another team's: not planned,
not listed as unmanaged, so not drift either. A spec outside the scope is not planned and gets
the `ignored_topic` warning (P109) saying why, as a spec matching `policy.ignore` does. No
`manage` at all means every topic, as before.
"""

from __future__ import annotations

import dataclasses
import functools

from reconciler.diagnostics import Diagnostic
from reconciler.patterns import UserPattern
from reconciler.planning import p_codes
from reconciler.spec.model import DesiredState, Policy


def owned(name: str, policy: Policy) -> bool:
    """Inside the scope (patterns are checked when reconciler.yaml is loaded, and matched
    under the bound every user pattern has: reconciler/patterns.py)."""
    return not policy.manage or any(p.search(name) for p in _scope(policy.manage))


@functools.lru_cache(maxsize=16)
def _scope(manage: tuple[str, ...]) -> tuple[UserPattern, ...]:
    """One compiled pattern per `manage` entry for the command (their CPU budget is theirs)."""
    return tuple(UserPattern(p, "policy.manage") for p in manage)


def in_scope(desired: DesiredState, policy: Policy) -> tuple[DesiredState, list[Diagnostic]]:
    """The specs inside the scope, and a warning for each one outside it."""
    if not policy.manage:
        return desired, []
    outside = [spec for name, spec in desired.topics.items() if not owned(name, policy)]
    warnings = [
        p_codes.IGNORED_TOPIC(
            f"{spec.name} is outside policy.manage ({', '.join(policy.manage)}), so the planner "
            "never touches it and its spec has no effect; remove the spec, or widen "
            "policy.manage in reconciler.yaml",
            topic=spec.name,
            location=spec.location,
        )
        for spec in outside
    ]
    kept = {n: t for n, t in desired.topics.items() if owned(n, policy)}
    return dataclasses.replace(desired, topics=kept), warnings
