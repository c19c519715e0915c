"""Why apply refuses a plan and what to do next, said once: the plan's verdict ("Not applyable:
...", every format) and apply's refusal are made of this one clause, so they cannot disagree
and neither repeats the other.

The clause names the errors to fix (their rules and topics) and, for each hazard still to
approve, the `acknowledge:` item that approves exactly it (`Hazard.approve_with`), the first
few of each so it stays one readable sentence however large the plan; the diagnostics and the
hazard lines of the plan itself list them all.
"""

from __future__ import annotations

from reconciler.diagnostics import Diagnostic
from reconciler.planning.changes import Hazard
from reconciler.planning.hazards import entry
from reconciler.planning.plan import Plan
from reconciler.words import listing

LISTED = 5  # errors, and hazards, named in the sentence; the rest are counted


def refusal(plan: Plan) -> str | None:
    """ "fix the 2 errors (...) and approve the hazard under its topic's `acknowledge:` (t.a:
    `- {key_reorder: 6}`) or drop the change, then plan again"; None when apply would accept
    the plan."""
    if plan.applyable:
        return None
    steps: list[str] = []
    errors = plan.errors
    if errors:
        named = listing([_named(d) for d in errors], LISTED, "; ")
        steps.append(f"fix {_the(len(errors), 'error')} ({named})")
    pending = plan.unacknowledged_hazards
    topics = [(t, h) for t, h in pending if t not in CLUSTER_ENTRIES]
    if topics:
        whose = "its topic's" if len({t for t, _ in topics}) == 1 else "each topic's"
        steps.append(_approve(topics, f"{whose} `acknowledge:`"))
    ours = [(t, h) for t, h in pending if t in CLUSTER_ENTRIES]
    if ours:  # a gate turned off, a quota lowered: the cluster's own (policy_changes.py)
        steps.append(_approve(ours, "the cluster's `policy.acknowledge:` in reconciler.yaml"))
    return " and ".join(steps) + ", then plan again"


# The entries of Plan.unacknowledged_hazards that are the cluster's rather than a topic's
CLUSTER_ENTRIES = ("policy", "quotas", "acls", "users")  # acls: planning/raw_acl_changes.py


def _approve(pending: list[tuple[str, Hazard]], where: str) -> str:
    by_topic: dict[str, list[str]] = {}
    for topic, hazard in pending[:LISTED]:
        by_topic.setdefault(topic, []).append(f"`- {entry(hazard.code, hazard.approval)}`")
    items = "; ".join(f"{topic}: {', '.join(found)}" for topic, found in by_topic.items())
    if len(pending) > LISTED:
        items += f"; and {len(pending) - LISTED} more, each named by its hazard in the plan"
    return (
        f"approve {_the(len(pending), 'hazard')} under {where} ({items}) "
        f"or drop {'the change' if len(pending) == 1 else 'those changes'}"
    )


def _the(count: int, word: str) -> str:
    """ "the error", "the 3 errors"."""
    return f"the {word}" if count == 1 else f"the {count} {word}s"


def _named(d: Diagnostic) -> str:
    return f"{d.rule} on {d.topic}" if d.topic else d.rule
