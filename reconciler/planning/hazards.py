"""Hazards: consequences of a change that a reviewer must see before it is applied.

`KINDS` is the one closed table of hazard kinds (spec/model.py HAZARD_CODES holds the names of
those a topic's `acknowledge:` approves, in the same order; `policy_gate_off` is the cluster's,
approved in reconciler.yaml, planning/policy_changes.py): what each protects, the evidence its
message shows, what its approval names and its default severity. A kind added to one list and
not the other fails at import.

Two steps. While diffing, each function here looks at one planned change and returns the
hazards it carries, its message naming the numbers, and what binds an approval to it
(`Hazard.approval`): for a delete (and in_use, system_topic) the topic id; for every other
kind the transition itself, the value before and after (the config key for a config kind) and
the topic id. `in_use` judges a delete's evidence (cluster/evidence.py): a consumer group's
committed offsets or live assignment, records appended while its log end offsets were watched,
a record newer than `policy.idle_before_delete`, or evidence that could not be read (the gate
fails closed).
Then `review` (a pure step of make_plan) settles each hazard against the reviewed specs and
the cluster's policy:

- acknowledged: an item of the topic's `acknowledge:` names this very transition, `{code:
  {key: .., from: .., to: .., topic_id: ..}}` (the JSON plan's `approve_with`), so the approval
  is part of the reviewed pull request and cannot cover a later change, even one to the same
  new value from another value set out of band; an item naming another transition does not
  approve it, and the tail says which item would. The old forms (a bare code, or a scalar
  naming only the new value) approve nothing: a warning (`acknowledge_unbound`) gives the item
  to write. A `--prune` delete (no spec names the topic) is acknowledged by the flag itself;
- severity, from `policy.severity` (p_codes.HAZARD_LEVELS): error (apply refuses the change
  unless acknowledged), warning (shown, never blocks) or off (dropped from the plan);
- the message gains a tail saying which of these holds and what to do;
- an item that approves nothing the plan does is a warning (`acknowledge_stale`): once its
  change is applied, its `from` no longer holds, and the next plan says to remove it.

Refusing is apply's business: `Plan.unacknowledged_hazards` lists what it must refuse.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from reconciler.cluster.evidence import TopicEvidence
from reconciler.diagnostics import Diagnostic, Severity
from reconciler.planning import p_codes
from reconciler.planning.changes import (
    Approval,
    ConfigChange,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
    transition,
)
from reconciler.planning.configs import CLEANUP_POLICY
from reconciler.spec.model import (
    APPROVAL_FIELDS,
    HAZARD_CODES,
    Acknowledgment,
    ApprovalValue,
    DesiredState,
    Policy,
    approval_text,
    topic_id_text,
)
from reconciler.spec.units import format_duration_ms, format_size_bytes


@dataclass(frozen=True, slots=True)
class Kind:
    """One hazard kind: its one definition (`reconciler help plan` shows the table)."""

    code: str
    protects: str  # what a reviewer's approval protects
    evidence: str  # what the hazard's message shows
    binds: str  # what its approval names
    default: p_codes.Level = "error"  # its severity unless policy.severity says otherwise


_TRANSITION = "the values before and after, the config key, the topic id"
_COUNTS = "the counts before and after, the topic id"

KINDS: tuple[Kind, ...] = (
    Kind(
        "key_reorder",
        "per-key order of a keyed or compacted topic when its partitions grow",
        "`keyed: true` or cleanup.policy containing compact; the counts",
        _COUNTS,
    ),
    Kind(
        "retention_decrease",
        "records older or larger than a lowered retention.ms / retention.bytes",
        "the values in effect before and after (an override's or the inherited one)",
        _TRANSITION,
    ),
    Kind(
        "cleanup_policy_change",
        "consumers relying on compaction or on time/size deletion",
        "cleanup.policy in effect before and after",
        _TRANSITION,
    ),
    Kind(
        "delete",
        "every record of a deleted topic",
        "the partitions destroyed",
        "the topic id (its name on brokers without topic ids)",
    ),
    Kind(
        "in_use",
        "readers and writers of a deleted topic",
        "consumer groups' offsets and members, the newest record, evidence not read",
        "the topic id (its name on brokers without topic ids)",
    ),
    Kind(
        "system_topic",
        "a well-known system topic (Schema Registry, Connect, Streams, MirrorMaker 2, "
        "`_confluent-`, `__`, policy.system_topics): its owner reads it without a group",
        "the tombstone naming it; --prune never deletes one",
        "the topic id (its name on brokers without topic ids)",
    ),
    Kind(
        "replication_factor_decrease",
        "records when brokers or disks fail: fewer copies survive fewer failures",
        "the replication factor before and after",
        _COUNTS,
    ),
    Kind(
        "min_insync_replicas_decrease",
        "records acknowledged with acks=all: fewer replicas must hold them",
        "min.insync.replicas in effect before and after",
        _TRANSITION,
    ),
    Kind(
        "unclean_leader_election",
        "acknowledged records an out-of-sync leader would truncate",
        "unclean.leader.election.enable in effect before (false) and after (true)",
        _TRANSITION,
    ),
    Kind(
        "delete_retention_decrease",
        "key deletes (tombstones) of a compacted topic, for consumers that lag",
        "delete.retention.ms in effect before and after, on a topic whose cleanup.policy "
        "contains compact before or after",
        _TRANSITION,
    ),
    Kind(
        "segment_per_record",
        "the brokers' file handles, memory maps and availability",
        "segment.ms below 60000 (1 minute) or segment.bytes below 1048576 (1 MiB), lowered",
        _TRANSITION,
    ),
    Kind(
        "max_message_bytes_decrease",
        "writes of batches larger than the new limit (refused: RECORD_TOO_LARGE)",
        "max.message.bytes before and after; Kafka cannot show the largest batch a topic "
        "holds or its producers send, and the message says so",
        _TRANSITION,
    ),
    Kind(
        "partition_increase_read",
        "records written to new partitions before live groups rebalance onto them "
        "(auto.offset.reset=latest skips them)",
        "the consumer groups the plan's evidence names (committed offsets, live members)",
        _COUNTS,
    ),
    Kind(
        "acl_revoke",
        "the clients of a principal losing a right it holds (`reconciler help access`)",
        "the binding; for a Read on topics, the groups the principal's Group rules cover "
        "that read them (for a Group rule, the groups it covers), with their live members",
        "the binding, `granted` before and `revoked` after (in the cluster's "
        "policy.acknowledge: for a raw `acls:` change)",
    ),
    Kind(
        "acl_widen",
        "who may use a resource: a grant to `User:*`, on the `*` resource or on a prefixed "
        "pattern reaches principals or topics nobody named",
        "the binding",
        "the binding, `revoked` before and `granted` after (in the cluster's "
        "policy.acknowledge: for a raw `acls:` change)",
    ),
    # The one kind of the cluster, not of a topic: approved in reconciler.yaml, never
    # configurable (policy.severity cannot turn off the hazard of turning gates off)
    Kind(
        "policy_gate_off",
        "every gate above: a pull request turning one off is reviewed as such",
        "the policy setting, its value at the base and now, its default "
        "(planning/policy_changes.py)",
        "the setting, its default and its new value, in the cluster's policy.acknowledge:",
    ),
    # The cluster's client quotas (planning/quota_changes.py), approved the same way
    Kind(
        "quota_lower",
        "the clients of a user or client id throttled sooner when its quota goes down",
        "the entity, the quota key, its value before and after",
        "the entity and key, the values before and after, in the cluster's policy.acknowledge:",
    ),
    Kind(
        "quota_remove",
        "the clients of an entity whose quota is removed: they fall back to a less specific "
        "quota (the default entity's, possibly lower) or to none",
        "the entity, the quota key, its value before",
        "the entity and key, the value before and `none`, in the cluster's policy.acknowledge:",
    ),
    # The cluster's SCRAM users (planning/user_changes.py)
    Kind(
        "user_delete",
        "the clients logging in as a SCRAM user whose credential is deleted: refused at once",
        "the user and its mechanism",
        "the user and mechanism, `present` and `absent`, in the cluster's policy.acknowledge:",
    ),
)
CLUSTER_KINDS = frozenset({"policy_gate_off", "quota_lower", "quota_remove", "user_delete"})
if tuple(k.code for k in KINDS if k.code not in CLUSTER_KINDS) != HAZARD_CODES:
    raise AssertionError("planning/hazards.py KINDS and spec/model.py HAZARD_CODES differ")
BY_CODE = {k.code: k for k in KINDS}

(
    KEY_REORDER,
    RETENTION_DECREASE,
    CLEANUP_POLICY_CHANGE,
    DELETE,
    IN_USE,
    SYSTEM_TOPIC,
    REPLICATION_FACTOR_DECREASE,
    MIN_INSYNC_REPLICAS_DECREASE,
    UNCLEAN_LEADER_ELECTION,
    DELETE_RETENTION_DECREASE,
    SEGMENT_PER_RECORD,
    MAX_MESSAGE_BYTES_DECREASE,
    PARTITION_INCREASE_READ,
) = HAZARD_CODES[:13]
ACL_REVOKE, ACL_WIDEN = HAZARD_CODES[13:15]

_RETENTION_KEYS = ("retention.ms", "retention.bytes")
# Below these a segment holds a handful of records: Kafka rolls one per record or so, each a
# log, an index and a time index on disk and in memory maps. One minute and 1 MiB are far
# below any deliberate setting (Kafka's defaults: 7 days, 1 GiB) and above every test value.
SEGMENT_FLOORS = {"segment.ms": 60_000, "segment.bytes": 1_048_576}
# A value YAML reads back as the same string unquoted (a topic name, an id starting with a
# letter or digit, a policy); anything else is written quoted
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


def key_reorder(
    change: IncreasePartitions, keyed: bool, compacted: bool, topic_id: str | None = None
) -> tuple[Hazard, ...]:
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
            approval=transition(change.current, change.desired, topic_id),
        ),
    )


def partition_increase_read(
    change: IncreasePartitions, evidence: TopicEvidence | None, topic_id: str | None = None
) -> tuple[Hazard, ...]:
    """A partition increase on a topic live consumer groups read, named from the evidence the
    plan read for it; none when no evidence was read (a plan from a snapshot) or it names no
    group. Evidence that could not be read counts as read by someone (fails closed)."""
    if evidence is None:
        return ()
    groups = [g.group for g in evidence.groups]
    if groups:
        who = f"consumer group(s) {_names(groups)} read {change.topic}"
    elif evidence.unreadable:
        who = (
            f"who reads {change.topic} could not be read, so it counts as read: "
            f"{evidence.unreadable[0]}"
        )
    else:
        return ()
    new = (
        f"partition {change.current}"
        if change.desired - change.current == 1
        else f"partitions {change.current}..{change.desired - 1}"
    )
    return (
        Hazard(
            PARTITION_INCREASE_READ,
            f"{who}: producers write to the new {new} at once, but a group's members see "
            "them only after a metadata refresh (metadata.max.age.ms, 5 minutes by default) "
            "and a rebalance, then start where auto.offset.reset says, since nothing is "
            "committed there: with `latest` every record written to a new partition before "
            "then is never consumed; readers using assign() without a group are invisible to "
            "Kafka and not named here",
            approval=transition(change.current, change.desired, topic_id),
        ),
    )


def replication_factor_decrease(
    change: ReassignReplicas, topic_id: str | None = None
) -> tuple[Hazard, ...]:
    """Fewer copies of each partition: fewer broker or disk failures are survived."""
    before, after = change.current_rf, change.desired_rf
    if after >= before:
        return ()
    alone = (
        "; with one copy, losing its broker's disk loses the partition's records and any "
        "broker restart makes it unavailable"
        if after == 1
        else ""
    )
    return (
        Hazard(
            REPLICATION_FACTOR_DECREASE,
            f"{change.topic}: replication factor drops from {before} to {after}: each "
            f"partition keeps {after} cop{'y' if after == 1 else 'ies'}, so it survives "
            f"{before - after} fewer broker or disk failure(s) before records are lost{alone}",
            approval=transition(before, after, topic_id),
        ),
    )


def config_hazards(
    entries: tuple[ConfigChange, ...], compacted: bool = False, topic_id: str | None = None
) -> tuple[Hazard, ...]:
    """The hazards among one topic's config entries. `compacted`: cleanup.policy contains
    compact before or after the change (planning.configs.compacted).

    Compares the values in effect before and after: an override being set is compared with the
    inherited value it replaces, a removal with the inherited value it falls back to.
    """
    hazards: list[Hazard] = []
    for entry in entries:
        before = entry.current if entry.current is not None else entry.inherited
        after = entry.desired if entry.desired is not None else entry.inherited
        if before is None or after is None or before == after:
            continue  # the value in effect is unknown (nothing can be claimed) or unchanged
        bound = transition(_number(before), _number(after), topic_id, entry.key)
        found = _config_hazard(entry.key, before, after, compacted)
        if found is not None:
            code, message = found
            hazards.append(Hazard(code, message, approval=bound))
    return tuple(hazards)


def _config_hazard(key: str, before: str, after: str, compacted: bool) -> tuple[str, str] | None:
    """(code, message) of one config key's change from `before` to `after`, if a hazard."""
    lowered = _limit(after) < _limit(before)
    if key in _RETENTION_KEYS and lowered:
        return RETENTION_DECREASE, (
            f"{key} drops from {_shown(key, before)} to {_shown(key, after)}: data older or "
            "larger than the new limit becomes eligible for deletion at once"
        )
    if key == CLEANUP_POLICY:
        return CLEANUP_POLICY_CHANGE, (
            f"cleanup.policy changes from '{before}' to '{after}': compaction keeps only "
            "the latest record per key and delete drops old segments, so consumers "
            "relying on either behaviour break"
        )
    if key == "min.insync.replicas" and lowered:
        return MIN_INSYNC_REPLICAS_DECREASE, (
            f"min.insync.replicas drops from {before} to {after}: a write with acks=all is "
            f"acknowledged once {after} replica(s) hold it, so losing {after} broker(s) can "
            "lose records producers were told were written"
        )
    if key == "unclean.leader.election.enable" and after == "true":
        return UNCLEAN_LEADER_ELECTION, (
            f"unclean.leader.election.enable turns on (from {before}): when no in-sync "
            "replica is left, one that is behind becomes leader and the records only the old "
            "leader had are lost (truncated), with no error to producers or consumers"
        )
    if key == "delete.retention.ms" and compacted and lowered:
        return DELETE_RETENTION_DECREASE, (
            f"delete.retention.ms drops from {_shown(key, before)} to {_shown(key, after)} on "
            "a compacted topic: compaction removes a key's delete marker (tombstone) that much "
            "sooner, so a consumer further behind than that misses the delete and keeps the "
            "key's old value (a rebuilt cache or state store resurrects deleted keys)"
        )
    floor = SEGMENT_FLOORS.get(key)
    if floor is not None and lowered and _limit(after) < floor:
        return SEGMENT_PER_RECORD, (
            f"{key} drops from {_shown(key, before)} to {_shown(key, after)}, below "
            f"{_shown(key, str(floor))}: the log rolls a new segment every few records, each "
            "its own files and memory maps on every replica, until the brokers run out of "
            "file handles or map count and go down"
        )
    if key == "max.message.bytes" and lowered:
        return MAX_MESSAGE_BYTES_DECREASE, (
            f"max.message.bytes drops from {_shown(key, before)} to {_shown(key, after)}: "
            "a producer sending a larger batch gets RECORD_TOO_LARGE and those records are "
            "not written; Kafka cannot show the largest batch the topic holds or its "
            "producers send (no request reports it), so the plan cannot tell whether any does"
        )
    return None


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
    warnings about the approvals themselves (old forms, items approving nothing)."""
    reviewed = []
    used: set[tuple[str, Acknowledgment]] = set()
    warnings: list[Diagnostic] = []
    for topic_change in changes:
        spec = desired.topics.get(topic_change.topic)
        items = spec.acknowledge if spec is not None else ()
        settled = []
        for hazard in topic_change.hazards:
            mine = [a for a in items if a.code == hazard.code]
            wanted = compared(hazard.approval) if hazard.approval is not None else None
            exact = [a for a in mine if not a.old_form and a.value == wanted]
            old = [a for a in mine if a.old_form]
            bound = [a for a in mine if not a.old_form and a not in exact]
            used.update((topic_change.topic, a) for a in exact)
            severity = p_codes.severity(policy, hazard.code)
            if severity is None:
                continue
            for item in old:
                if (topic_change.topic, item) not in used:
                    warnings.append(_unbound(topic_change.topic, item, hazard))
                used.add((topic_change.topic, item))
            tail = _tail(
                hazard,
                exact,
                old,
                bound,
                severity,
                desired.elsewhere.get(topic_change.topic),
                spec is not None,
            )
            settled.append(
                dataclasses.replace(
                    hazard,
                    message=f"{hazard.message}; {tail}",
                    acknowledged=hazard.acknowledged or bool(exact),
                    severity=severity,
                )
            )
        reviewed.append(dataclasses.replace(topic_change, hazards=tuple(settled)))
    for name, spec in desired.topics.items():
        for item in spec.acknowledge:
            if (name, item) in used:
                continue
            warnings.append(_unbound(name, item, None) if item.old_form else _stale(name, item))
    return tuple(reviewed), tuple(warnings)


def compared(approval: Approval) -> ApprovalValue:
    """A hazard's approval as an `acknowledge:` item's value compares (model.Acknowledgment)."""
    if isinstance(approval, tuple):
        return tuple(
            sorted(
                (k, topic_id_text(v) if k == "topic_id" else approval_text(v)) for k, v in approval
            )
        )
    return topic_id_text(approval)  # a delete's topic id, or its name (unchanged)


def entry(code: str, value: Approval | ApprovalValue | None) -> str:
    """An `acknowledge:` item as written in YAML: `{delete: ID}`, `{retention_decrease: {key:
    retention.ms, from: 2592000000, to: 86400000, topic_id: ID}}`, or the bare code."""
    if value is None:
        return code
    if isinstance(value, tuple):
        fields = dict(value)
        order = [f for f in APPROVAL_FIELDS if f in fields] + sorted(
            f for f in fields if f not in APPROVAL_FIELDS
        )
        inner = ", ".join(f"{f}: {_scalar(fields[f])}" for f in order)
        return f"{{{code}: {{{inner}}}}}"
    return f"{{{code}: {_scalar(value)}}}"


def _scalar(value: int | str) -> str:
    text = str(value)  # digits read back as a number, which compares as the same text
    plain = text.lstrip("-").isdigit() or (
        _PLAIN.fullmatch(text) is not None and text.lower() not in _WORDS
    )
    return text if plain else json.dumps(text)


def _tail(
    hazard: Hazard,
    exact: list[Acknowledgment],
    old: list[Acknowledgment],
    bound: list[Acknowledgment],
    severity: Severity,
    elsewhere: Sequence[str] | None,
    declared: bool = True,
) -> str:
    wanted = entry(hazard.code, hazard.approval)
    if exact:
        return f"approved by `{wanted}` in the topic's acknowledge:"
    if hazard.acknowledged and elsewhere:
        label = "cluster" if len(elsewhere) == 1 else "clusters"
        return (
            f"acknowledged by --prune (the topic is declared only for {label} "
            f"{', '.join(elsewhere)}, not for this one)"
        )
    if hazard.acknowledged:
        return "acknowledged by --prune (no spec names the topic)"
    if severity is Severity.WARNING:
        return f"not blocking: policy.severity makes {hazard.code} a warning on this cluster"
    if not declared:  # an unmanaged topic under --prune: only a tombstone can approve it
        return (
            "apply refuses it: a --prune delete cannot approve this; write a tombstone for the "
            f"topic (`state: absent`) with `acknowledge: [{wanted}]` in the reviewed change"
        )
    others = ", ".join(f"`{entry(a.code, a.value)}`" for a in bound)
    approves = f"{others} approves another change, not this one: " if bound else ""
    olds = ", ".join(f"`{entry(a.code, a.value)}`" for a in old)
    approves += f"{olds} is the old form, which approves nothing: " if old and not bound else ""
    return (
        f"{approves}apply refuses it until the topic's spec approves it with `- {wanted}` "
        "under `acknowledge:` in the reviewed change"
    )


def _unbound(topic: str, item: Acknowledgment, hazard: Hazard | None) -> Diagnostic:
    """An old-form item (a bare code, or one value where a transition is named): it approves
    nothing, and the sentence gives the form to write."""
    shown = entry(item.code, item.value)
    if hazard is not None:
        form = f"write `- {entry(hazard.code, hazard.approval)}` (the plan's approve_with)"
    elif item.code in BY_CODE and BY_CODE[item.code].binds.startswith("the topic id"):
        form = f"write `- {{{item.code}: TOPIC_ID}}` (the plan's approve_with)"
    else:
        form = (
            f"write the plan's approve_with, `- {{{item.code}: {{from: BEFORE, to: AFTER, "
            "...}}`, naming the values before and after"
        )
    return p_codes.ACKNOWLEDGE_UNBOUND(
        f"{topic}: `{shown}` in acknowledge: is the old form, which names no value before "
        f"the change, so it approves nothing: {form}",
        item.location,
        topic=topic,
    )


def _stale(topic: str, item: Acknowledgment) -> Diagnostic:
    shown = entry(item.code, item.value)
    return p_codes.ACKNOWLEDGE_STALE(
        f"{topic}: `{shown}` in acknowledge: matches no change of this plan: remove it (once "
        "its change is applied it approves nothing; it never approves another transition)",
        item.location,
        topic=topic,
    )


def _number(value: str) -> int | str:
    """A config value as the approval a reviewer writes: a number where it is one."""
    return int(value) if value.lstrip("-").isdigit() else value


def _limit(value: str) -> float:
    """A limit as a number; negative (Kafka: -1) means no limit, i.e. infinite."""
    try:
        number = int(value)
    except ValueError:
        return math.inf  # not a number Kafka would hold; never claim a decrease from it
    return math.inf if number < 0 else number


def _shown(key: str, value: str) -> str:
    number = _limit(value)
    if number == math.inf:
        return "unlimited (-1)" if value.lstrip("-").isdigit() else value
    human = None
    if key.endswith(".ms"):
        human = format_duration_ms(int(number))
    elif key.endswith(".bytes"):
        human = format_size_bytes(int(number))
    return f"{value} ({human})" if human and human != value else value
