"""`plan --topic REGEX` / `apply --topic REGEX`: a partial plan, as terraform's `-target`.

The specs planned are those whose name matches a pattern (`re.search`), with every topic they
depend on (`depends_on`, transitively: a create must not wait for a topic the plan leaves out);
unmanaged topics are listed only when they match. Everything else is neither planned nor
reported, so one topic's error (say P101 on another topic) no longer blocks the others. The
patterns travel in the saved plan (`targets`), and apply derives the plan again with them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from reconciler.errors import ConfigError
from reconciler.patterns import UserPattern, problem
from reconciler.spec.model import DesiredState


def compiled(patterns: Sequence[str]) -> tuple[UserPattern, ...]:
    """The --topic patterns, bounded like every user pattern (reconciler/patterns.py); a
    ConfigError naming the first that is not a regular expression."""
    found = []
    for pattern in patterns:
        why = problem(pattern)
        if why is not None:
            raise ConfigError(
                f"--topic {pattern!r} is not a regular expression ({why}); give a Python "
                "regular expression matched against topic names, e.g. '^payments\\.'"
            )
        found.append(UserPattern(pattern, "--topic"))
    return tuple(found)


def matches(name: str, patterns: Iterable[UserPattern]) -> bool:
    return any(p.search(name) for p in patterns)


def check_matched(patterns: Sequence[str], names: Iterable[str], cluster: str) -> None:
    """Refuse (ConfigError) when a pattern matches no name: a typo would otherwise plan nothing
    and say "No changes", as if the topics it meant were in sync."""
    regexes = compiled(patterns)
    found = set(names)
    unmatched = [p.text for p in regexes if not any(p.search(n) for n in found)]
    if unmatched:
        shown = " and ".join(f"--topic {p!r}" for p in unmatched)
        raise ConfigError(
            f"{shown} {'matches' if len(unmatched) == 1 else 'match'} no topic in the specs of "
            f"cluster '{cluster}' nor on the cluster, so nothing was planned; check the pattern "
            "(a Python regular expression searched in topic names)"
        )


def targeted(desired: DesiredState, patterns: Sequence[str]) -> DesiredState:
    """The specs a partial plan covers: the matching ones and what they depend on."""
    regexes = compiled(patterns)
    keep = {name for name in desired.topics if matches(name, regexes)}
    pending = list(keep)
    while pending:
        spec = desired.topics.get(pending.pop())
        for needed in spec.depends_on if spec is not None else ():
            if needed not in keep and needed in desired.topics:
                keep.add(needed)
                pending.append(needed)
    return dataclasses.replace(
        desired, topics={n: t for n, t in desired.topics.items() if n in keep}
    )
