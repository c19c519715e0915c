"""Hazards: consequences of a change that a reviewer must see before it is applied.

Two steps. While diffing, each function here looks at one planned change and returns the
hazards it carries, its message naming the numbers, and what binds an approval to it
(`Hazard.approval`: the partition count, the new retention or cleanup.policy, the topic id).
`in_use` judges a delete's evidence (cluster/evidence.py): a consumer group's committed offsets
or live assignment, records appended while its log end offsets were watched, a record newer
than `policy.idle_before_delete`, or evidence that could not be read (the gate fails closed).
Then `review` (a pure step of make_plan) settles each hazard against the reviewed specs and
the cluster's policy:

- acknowledged: an item of the topic's `acknowledge:` names this very change, `{code:
  approval}` (the JSON plan's `approve_with`), so the approval is part of the reviewed pull
  request and cannot cover a later, different change; an item naming another change of that
  kind does not approve it, and the tail says which item would. The old bare code approves
  every change of its kind: accepted for this release with a warning (`acknowledge_unbound`)
  giving the item to write. A `--prune` delete (no spec names the topic) is acknowledged by
  the flag itself;
- severity, from `policy.severity` (rules.HAZARD_LEVELS): error (apply refuses the change
  unless acknowledged), warning (shown, never blocks) or off (dropped from the plan);
- the message gains a tail saying which of these holds and what to do;
- an item that approves nothing the plan does is a warning (`acknowledge_stale`): approvals
  are cleaned up in review, not left armed.

Refusing is apply's business: `Plan.unacknowledged_hazards` lists what it must refuse.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Sequence

from reconciler.cluster.evidence import TopicEvidence
from reconciler.diagnostics import Diagnostic, Severity
from reconciler.planning import rules
from reconciler.planning.changes import (
    ConfigChange,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    TopicChange,
)
from reconciler.spec.model import HAZARD_CODES, Acknowledgment, DesiredState, Policy
from reconciler.spec.units import format_duration_ms, format_size_bytes

# The one list of hazards is spec/model.py's HAZARD_CODES (what `acknowledge:` accepts); each
# gets its detector here, and a hazard added there without one fails this unpacking at import.
KEY_REORDER, RETENTION_DECREASE, CLEANUP_POLICY_CHANGE, DELETE, IN_USE, SYSTEM_TOPIC = HAZARD_CODES

_RETENTION_KEYS = ("retention.ms", "retention.bytes")
# A value YAML reads back as the same string unquoted (a topic name, an id starting with a
# letter or digit, a policy); anything else is written quoted
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


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
            approval=change.desired,
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
                    approval=_number(after),
                )
            )
        if entry.key == "cleanup.policy" and before != after:
            hazards.append(
                Hazard(
                    CLEANUP_POLICY_CHANGE,
                    f"cleanup.policy changes from '{before}' to '{after}': compaction keeps only "
                    "the latest record per key and delete drops old segments, so consumers "
                    "relying on either behaviour break",
                    approval=after,
                )
            )
    return tuple(hazards)


def delete(change: DeleteTopic, topic_id: str | None) -> tuple[Hazard, ...]:
    """A delete's approval binds to the topic's id, so a topic re-created under the same name
    needs a new one; brokers before Kafka 2.8 give no topic ids, and there it binds to the name
    (said in the message)."""
    unmanaged = " (unmanaged, --prune)" if change.reason == "prune" else ""
    unbound = (
        " (this broker gives no topic ids, Kafka before 2.8: an approval binds to the name, "
        "so it would also cover a topic re-created under it)"
        if topic_id is None and change.reason != "prune"
        else ""
    )
    return (
        Hazard(
            DELETE,
            f"deleting {change.topic}{unmanaged} destroys its {change.partitions} partition(s) "
            f"and every record in them{unbound}",
            acknowledged=change.reason == "prune",
            approval=topic_id if topic_id is not None else change.topic,
        ),
    )


def system_topic(
    change: DeleteTopic, topic_id: str | None, whose: str | None
) -> tuple[Hazard, ...]:
    """A tombstone deleting a well-known system topic (planning/system_topics.py; --prune never
    plans one): bound to the topic's id like `delete`."""
    if whose is None:
        return ()
    return (
        Hazard(
            SYSTEM_TOPIC,
            f"{change.topic} is a well-known system topic ({whose}): the software that owns it "
            "keeps its state there and reads it without a consumer group, so no evidence can "
            "show its use; deleting it loses that state",
            approval=topic_id if topic_id is not None else change.topic,
        ),
    )


def in_use(change: DeleteTopic, topic_id: str | None, idle_before_ms: int) -> tuple[Hazard, ...]:
    """A delete of a topic with evidence of use (`usage`): bound to the topic's id like
    `delete`, and never acknowledged by --prune (a tombstone must say it). No hazard when the
    evidence was not read (a plan from a snapshot: apply reads it live)."""
    if change.evidence is None:
        return ()
    found = usage(change.evidence, idle_before_ms)
    if not found:
        return ()
    return (
        Hazard(
            IN_USE,
            f"{change.topic} is in use: {'; '.join(found)}; deleting it breaks whoever still "
            "reads or writes it",
            approval=topic_id if topic_id is not None else change.topic,
        ),
    )


def usage(evidence: TopicEvidence, idle_before_ms: int) -> tuple[str, ...]:
    """Why the evidence says the topic is in use, one phrase per kind; () when idle. The one
    judgement: plan, apply's verification and its re-check before deleting all read it."""
    found = []
    committed = [g.group for g in evidence.groups if g.committed]
    assigned = [g.group for g in evidence.groups if g.assigned]
    if committed:
        found.append(f"consumer group(s) {_names(committed)} committed offsets on it")
    if assigned:
        found.append(f"live member(s) of group(s) {_names(assigned)} are assigned it")
    if evidence.written > 0:  # Kafka's own offsets: no producer stamp can hide it
        found.append(
            f"{evidence.written:,} record(s) were appended to it in the "
            f"{format_duration_ms(max(evidence.window_ms, 1))} its log end offsets were watched"
        )
    newest = evidence.newest_record
    if newest is not None and evidence.read_at - newest < idle_before_ms:
        age = _age(max(0, evidence.read_at - newest))
        found.append(
            f"its newest record is {age}, newer than policy.idle_before_delete "
            f"({format_duration_ms(idle_before_ms)})"
        )
    if evidence.unreadable:
        found.append(
            f"its evidence could not be read, so it counts as in use: {evidence.unreadable[0]}"
            + (
                f" (and {len(evidence.unreadable) - 1} more)"
                if len(evidence.unreadable) > 1
                else ""
            )
        )
    return tuple(found)


def _age(millis: int) -> str:
    """An age in its largest whole unit, rounded down: `6d old`, `3h old`, `12m old`."""
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000)):
        if millis >= size:
            return f"{millis // size}{unit} old"
    return "under a minute old"


def _names(groups: Sequence[str], shown: int = 3) -> str:
    listed = ", ".join(groups[:shown])
    return listed + (f" and {len(groups) - shown} more" if len(groups) > shown else "")


def review(
    changes: tuple[TopicChange, ...], desired: DesiredState, policy: Policy
) -> tuple[tuple[TopicChange, ...], tuple[Diagnostic, ...]]:
    """The changes with each hazard approved or not, at its configured severity; and the
    warnings about the approvals themselves (unbound items, items approving nothing)."""
    reviewed = []
    used: set[tuple[str, Acknowledgment]] = set()
    warnings: list[Diagnostic] = []
    for topic_change in changes:
        spec = desired.topics.get(topic_change.topic)
        items = spec.acknowledge if spec is not None else ()
        settled = []
        for hazard in topic_change.hazards:
            bound = [a for a in items if a.code == hazard.code and a.value is not None]
            exact = [a for a in bound if a.value == str(hazard.approval)]
            bare = [a for a in items if a.code == hazard.code and a.value is None]
            used.update((topic_change.topic, a) for a in (*exact, *bare))
            severity = rules.severity(policy, hazard.code)
            if severity is None:
                continue
            if bare and not exact:
                warnings.extend(_unbound(topic_change.topic, a, hazard) for a in bare)
            tail = _tail(
                hazard,
                exact,
                bare,
                bound,
                severity,
                desired.elsewhere.get(topic_change.topic),
                spec is not None,
            )
            settled.append(
                dataclasses.replace(
                    hazard,
                    message=f"{hazard.message}; {tail}",
                    acknowledged=hazard.acknowledged or bool(exact or bare),
                    severity=severity,
                )
            )
        reviewed.append(dataclasses.replace(topic_change, hazards=tuple(settled)))
    for name, spec in desired.topics.items():
        warnings.extend(_stale(name, a) for a in spec.acknowledge if (name, a) not in used)
    return tuple(reviewed), tuple(warnings)


def entry(code: str, value: int | str | None) -> str:
    """An `acknowledge:` item as written in YAML: `{key_reorder: 16}`, or the bare code."""
    if value is None:
        return code
    text = str(value)  # digits read back as a number, which compares as the same text
    plain = text.lstrip("-").isdigit() or (
        _PLAIN.fullmatch(text) is not None and text.lower() not in _WORDS
    )
    return f"{{{code}: {text if plain else json.dumps(text)}}}"


def _tail(
    hazard: Hazard,
    exact: list[Acknowledgment],
    bare: list[Acknowledgment],
    bound: list[Acknowledgment],
    severity: Severity,
    elsewhere: Sequence[str] | None,
    declared: bool = True,
) -> str:
    code, wanted = hazard.code, entry(hazard.code, hazard.approval)
    if exact:
        return f"approved by `{wanted}` in the topic's acknowledge:"
    if bare:
        return (
            f"acknowledged by the bare `{code}` in the topic's acknowledge:, which approves "
            f"every {code} of the topic: write `{wanted}` instead, to approve this change only"
        )
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
    if not declared:  # an unmanaged topic under --prune: only a tombstone can approve it
        return (
            "apply refuses it: a --prune delete cannot approve this; write a tombstone for the "
            f"topic (`state: absent`) with `acknowledge: [{wanted}]` in the reviewed change"
        )
    others = ", ".join(f"`{entry(a.code, a.value)}`" for a in bound)
    approves = f"{others} approves another change, not this one: " if bound else ""
    return (
        f"{approves}apply refuses it until the topic's spec approves it with `- {wanted}` "
        "under `acknowledge:` in the reviewed change"
    )


def _unbound(topic: str, item: Acknowledgment, hazard: Hazard) -> Diagnostic:
    wanted = entry(hazard.code, hazard.approval)
    return rules.ACKNOWLEDGE_UNBOUND(
        f"{topic}: `acknowledge: [{item.code}]` approves every {item.code} of the topic, now "
        f"and later, not only the change reviewed here: write `- {wanted}` (the plan's "
        "approve_with); the bare form is refused from the next release",
        item.location,
        topic=topic,
    )


def _stale(topic: str, item: Acknowledgment) -> Diagnostic:
    shown = entry(item.code, item.value)
    risk = (
        f"left in place it would approve a future {item.code} nobody reviewed"
        if item.value is None
        else "it approves nothing now; clean it up in review rather than leave it armed"
    )
    return rules.ACKNOWLEDGE_STALE(
        f"{topic}: `{shown}` in acknowledge: matches no change of this plan: remove it ({risk})",
        item.location,
        topic=topic,
    )


def _number(value: str) -> int | str:
    """A config value as the approval a reviewer writes: a number where it is one."""
    return int(value) if value.lstrip("-").isdigit() else value


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
