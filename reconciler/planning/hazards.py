"""Hazards: consequences of a change that a reviewer must see before it is applied.

Shown in every plan format; refusing them at apply unless acknowledged (`acknowledge:` in the
spec) is the apply step's business. Each function looks at one planned change and returns the
hazards it carries; messages name the numbers and how to acknowledge.
"""

from __future__ import annotations

import math

from reconciler.planning.changes import ConfigChange, DeleteTopic, Hazard, IncreasePartitions
from reconciler.spec.units import format_duration_ms, format_size_bytes

KEY_REORDER = "key_reorder"
RETENTION_DECREASE = "retention_decrease"
CLEANUP_POLICY_CHANGE = "cleanup_policy_change"
DELETE = "delete"

HAZARD_CODES = (KEY_REORDER, RETENTION_DECREASE, CLEANUP_POLICY_CHANGE, DELETE)

_RETENTION_KEYS = ("retention.ms", "retention.bytes")


def _acknowledge(code: str) -> str:
    return f"acknowledge it with `acknowledge: [{code}]` in the topic's spec"


def key_reorder(change: IncreasePartitions, keyed: bool) -> tuple[Hazard, ...]:
    if not keyed:
        return ()
    return (
        Hazard(
            KEY_REORDER,
            f"{change.topic} is keyed: going from {change.current} to {change.desired} "
            "partitions maps keys to different partitions, so records of one key written before "
            "and after the change can be consumed out of order; "
            f"{_acknowledge(KEY_REORDER)} once consumers tolerate it",
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
                    f"becomes eligible for deletion at once; {_acknowledge(RETENTION_DECREASE)}",
                )
            )
        if entry.key == "cleanup.policy" and before != after:
            hazards.append(
                Hazard(
                    CLEANUP_POLICY_CHANGE,
                    f"cleanup.policy changes from '{before}' to '{after}': compaction keeps only "
                    "the latest record per key and delete drops old segments, so consumers "
                    "relying on either behaviour break; "
                    f"{_acknowledge(CLEANUP_POLICY_CHANGE)}",
                )
            )
    return tuple(hazards)


def delete(change: DeleteTopic) -> tuple[Hazard, ...]:
    return (
        Hazard(
            DELETE,
            f"deleting {change.topic} destroys its {change.partitions} partition(s) and every "
            f"record in them; {_acknowledge(DELETE)}"
            if change.reason == "tombstone"
            else f"deleting {change.topic} (unmanaged, --prune) destroys its "
            f"{change.partitions} partition(s) and every record in them",
        ),
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
