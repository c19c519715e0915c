"""Hazards: consequences of a change that a reviewer must see before it is applied.

Two steps. While diffing, each function here looks at one planned change and returns the
hazards it carries, its message naming the numbers. Then `review` (a pure step of make_plan)
settles each hazard against the reviewed specs and the cluster's policy:

- acknowledged: the topic's spec lists the code under `acknowledge:`, so the acknowledgment is
  part of the reviewed pull request; a `--prune` delete (no spec names the topic) is
  acknowledged by the flag itself;
- severity, from `policy.severity` (rules.HAZARD_LEVELS): error (apply refuses the change
  unless acknowledged), warning (shown, never blocks) or off (dropped from the plan);
- the message gains a tail saying which of these holds and what to do.

Refusing is apply's business: `Plan.unacknowledged_hazards` lists what it must refuse.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from reconciler.diagnostics import Severity
from reconciler.planning import rules
from reconciler.planning.changes import (
    ConfigChange,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    TopicChange,
)
from reconciler.spec.model import HAZARD_CODES, DesiredState, Policy
from reconciler.spec.units import format_duration_ms, format_size_bytes

# The one list of hazards is spec/model.py's HAZARD_CODES (what `acknowledge:` accepts); each
# gets its detector here, and a hazard added there without one fails this unpacking at import.
KEY_REORDER, RETENTION_DECREASE, CLEANUP_POLICY_CHANGE, DELETE = HAZARD_CODES

_RETENTION_KEYS = ("retention.ms", "retention.bytes")


def key_reorder(change: IncreasePartitions, keyed: bool, compacted: bool) -> tuple[Hazard, ...]:
    """A partition increase on a keyed topic: `keyed: true`, or compacted (cleanup.policy with
    `compact`), since compaction keeps the latest record per key, keyed by definition, and once
    a key moves partition its stale value in the old one is never compacted away."""
    if not keyed and not compacted:
        return ()
    why = "is keyed" if keyed else "is compacted (cleanup.policy includes compact), so keyed"
    stale = (
        "" if keyed else "; the old partition's last value of a moved key is never compacted away"
    )
    return (
        Hazard(
            KEY_REORDER,
            f"{change.topic} {why}: going from {change.current} to {change.desired} "
            "partitions maps keys to different partitions, so records of one key written before "
            f"and after the change can be consumed out of order{stale}",
        ),
    )


def config_hazards(entries: tuple[ConfigChange, ...]) -> tuple[Hazard, ...]:
    """Retention decreases and cleanup.policy changes among one topic's config entries.

    Compares the values in effect before and after: an override being set is compared with the
    inherited value it replaces, a removal with the inherited value it falls back to.
    """
    hazards: list[Hazard] = []
    for entry in entries:
        before = entry.current if entry.current is not None else entry.inherited
        after = entry.desired if entry.desired is not None else entry.inherited
        if before is None or after is None:
            continue  # the value in effect is unknown: nothing can be claimed
        if entry.key in _RETENTION_KEYS and _retention(after) < _retention(before):
            hazards.append(
                Hazard(
                    RETENTION_DECREASE,
                    f"{entry.key} drops from {_shown(entry.key, before)} to "
                    f"{_shown(entry.key, after)}: data older or larger than the new limit "
                    "becomes eligible for deletion at once",
                )
            )
        if entry.key == "cleanup.policy" and before != after:
            hazards.append(
                Hazard(
                    CLEANUP_POLICY_CHANGE,
                    f"cleanup.policy changes from '{before}' to '{after}': compaction keeps only "
                    "the latest record per key and delete drops old segments, so consumers "
                    "relying on either behaviour break",
                )
            )
    return tuple(hazards)


def delete(change: DeleteTopic) -> tuple[Hazard, ...]:
    unmanaged = " (unmanaged, --prune)" if change.reason == "prune" else ""
    return (
        Hazard(
            DELETE,
            f"deleting {change.topic}{unmanaged} destroys its {change.partitions} partition(s) "
            "and every record in them",
            acknowledged=change.reason == "prune",
        ),
    )


def review(
    changes: tuple[TopicChange, ...], desired: DesiredState, policy: Policy
) -> tuple[TopicChange, ...]:
    """The changes with each hazard acknowledged or not, at its configured severity."""
    reviewed = []
    for topic_change in changes:
        spec = desired.topics.get(topic_change.topic)
        acknowledged = set(spec.acknowledge) if spec is not None else set()
        settled = []
        for hazard in topic_change.hazards:
            severity = rules.severity(policy, hazard.code)
            if severity is None:
                continue
            by_spec = hazard.code in acknowledged
            tail = _tail(hazard, by_spec, severity, desired.elsewhere.get(topic_change.topic))
            settled.append(
                dataclasses.replace(
                    hazard,
                    message=f"{hazard.message}; {tail}",
                    acknowledged=hazard.acknowledged or by_spec,
                    severity=severity,
                )
            )
        reviewed.append(dataclasses.replace(topic_change, hazards=tuple(settled)))
    return tuple(reviewed)


def _tail(
    hazard: Hazard, by_spec: bool, severity: Severity, elsewhere: Sequence[str] | None
) -> str:
    code = hazard.code
    if by_spec:
        return f"acknowledged by `acknowledge: [{code}]` in the topic's spec"
    if hazard.acknowledged and elsewhere:
        label = "cluster" if len(elsewhere) == 1 else "clusters"
        return (
            f"acknowledged by --prune (the topic is declared only for {label} "
            f"{', '.join(elsewhere)}, not for this one)"
        )
    if hazard.acknowledged:
        return "acknowledged by --prune (no spec names the topic)"
    if severity is Severity.WARNING:
        return f"not blocking: policy.severity makes {code} a warning on this cluster"
    return (
        f"apply refuses it until the topic's spec acknowledges it with `acknowledge: [{code}]` "
        "in the reviewed change"
    )


def _retention(value: str) -> float:
    """A retention limit as a number; negative (Kafka: -1) means no limit, i.e. infinite."""
    try:
        number = int(value)
    except ValueError:
        return math.inf  # not a number Kafka would hold; never claim a decrease from it
    return math.inf if number < 0 else number


def _shown(key: str, value: str) -> str:
    number = _retention(value)
    if number == math.inf:
        return "unlimited (-1)" if value.lstrip("-").isdigit() else value
    human = format_duration_ms(int(number)) if key == "retention.ms" else None
    if key == "retention.bytes":
        human = format_size_bytes(int(number))
    return f"{value} ({human})" if human and human != value else value
