"""`plan --topic REGEX` / `apply --topic REGEX`: a partial plan, as terraform's `-target`.

The specs planned are those whose name matches a pattern (`re.search`), with every topic they
depend on (`depends_on`, transitively: a create must not wait for a topic the plan leaves out);
unmanaged topics are listed only when they match. Everything else is neither planned nor
reported, so one topic's error (say P101 on another topic) no longer blocks the others. The
patterns travel in the saved plan (`targets`), and apply derives the plan again with them.

`plan --changed-since REF` scopes its plan the same way (`scoped`): its targets are the exact
names of the topics the pull request changes (`scope_targets`), generated rather than typed, so
an empty list means "no topic" (not "every topic") and a name no longer found is not a typo.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence

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


def scope_targets(names: Iterable[str]) -> tuple[str, ...]:
    """The targets of a scoped plan: one anchored, escaped pattern per topic name, sorted."""
    return tuple(f"^{re.escape(name)}$" for name in sorted(set(names)))


def scope_names(patterns: Sequence[str]) -> frozenset[str]:
    """The topic names of a scoped plan's targets (`scope_targets`); ValueError naming the
    first that is not one (a saved plan is untrusted input)."""
    names = set()
    for pattern in patterns:
        name = re.sub(r"\\(.)", r"\1", pattern[1:-1], flags=re.DOTALL)
        if f"^{re.escape(name)}$" != pattern:
            raise ValueError(
                f"targets: {pattern!r} is not the exact name of a topic, as a scoped plan's "
                "targets are"
            )
        names.add(name)
    return frozenset(names)


def selector(patterns: Sequence[str], scoped: bool) -> Callable[[str], bool]:
    """Whether a topic name is targeted: by name for a scoped plan (a set, however many topics
    a pull request changes), else by the --topic patterns."""
    if scoped:
        return scope_names(patterns).__contains__
    regexes = compiled(patterns)
    return lambda name: matches(name, regexes)


def targeted(desired: DesiredState, patterns: Sequence[str], scoped: bool = False) -> DesiredState:
    """The specs a partial (or scoped) plan covers: the matching ones and what they depend on."""
    chosen = selector(patterns, scoped)
    keep = {name for name in desired.topics if chosen(name)}
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
