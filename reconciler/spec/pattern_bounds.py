"""A cluster's policy patterns tried on every topic name declared for it, under their bound.

`plan` matches policy.name_pattern against new topics and policy.ignore against every name;
a pattern that backtracks without end on a name a pull request adds would stall it. Trying
each pattern on the declared names here, under the same bound (reconciler/patterns.py), makes
that an error of `validate` (R508) at the pattern's place in reconciler.yaml, naming the topic
and where it is declared, before any cluster is read. Whether a name matches is the planner's
business; only the bound is judged here. Names only the cluster has are judged by `plan`.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.diagnostics import Diagnostic, Location
from reconciler.patterns import PatternTooSlow, UserPattern, problem
from reconciler.spec import r_codes
from reconciler.spec.model import ClusterConfig, TopicSpec


def check_pattern_bounds(cluster: ClusterConfig, topics: Iterable[TopicSpec]) -> list[Diagnostic]:
    """R508 for each pattern of `cluster`'s policy that exceeds its bound on a declared name."""
    policy = cluster.policy
    fields = [("ignore", p) for p in policy.ignore]
    if policy.name_pattern is not None:
        fields.append(("name_pattern", policy.name_pattern))
    specs = list(topics)
    found: list[Diagnostic] = []
    for field, text in fields:
        if problem(text) is not None:
            continue  # R503 says so
        pattern = UserPattern(text, f"policy.{field}")
        for spec in specs:
            try:
                pattern.search(spec.name)
            except PatternTooSlow as exc:
                at = dict(policy.pattern_at).get(text, Location("reconciler.yaml", 1, 1))
                found.append(
                    r_codes.PATTERN_TOO_SLOW(
                        f"{exc} (topic {spec.name} is declared at {spec.location})",
                        at,
                        spec.name,
                    )
                )
                break  # one name is proof enough; the others would each cost the bound
    return found
