"""The changes a plan is made of: one frozen dataclass per kind, in a closed union.

Code that handles a `Change` dispatches with `match` and ends with `assert_never`, so adding a
kind is a type error everywhere it is not yet handled. `TopicChange` groups the changes of one
topic, because a reviewer (and the JSON plan) reads one entry per topic.

Naming: `current` is what the cluster has now, `desired` what the specs ask for; `None` on a
create's partitions/replication factor means "the broker default" (KIP-464).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

from reconciler.cluster.evidence import TopicEvidence
from reconciler.cluster.protocol.acls import AclBinding
from reconciler.diagnostics import Severity
from reconciler.spec.model import partitions_of, replication_factor_of

Assignments = tuple[tuple[int, ...], ...]  # replica broker ids per partition, leader first


@dataclass(frozen=True, slots=True)
class CreateTopic:
    topic: str
    partitions: int | None  # None: the broker's num.partitions (KIP-464)
    replication_factor: int | None  # None: the broker's default.replication.factor (KIP-464)
    config: tuple[tuple[str, str], ...] = ()  # sorted (key, canonical value) overrides
    assignments: Assignments | None = None  # manual placement; None lets Kafka place replicas
    depends_on: tuple[str, ...] = ()
    # What the broker default resolves to when partitions/replication_factor is None, for display
    # only: the create request still leaves the choice to the broker. None when given or unknown.
    default_partitions: int | None = None
    default_replication_factor: int | None = None

    @property
    def effective_partitions(self) -> int | None:
        """The count the create makes: the spec's (spec.model.partitions_of), else what the
        broker's num.partitions resolved to when planned; None: not known."""
        return partitions_of(self.partitions, self.assignments) or self.default_partitions

    @property
    def effective_replication_factor(self) -> int | None:
        """The factor the create makes: the spec's (spec.model.replication_factor_of), else
        what the broker's default.replication.factor resolved to; None: not known."""
        rf = replication_factor_of(self.replication_factor, self.assignments)
        return rf or self.default_replication_factor


@dataclass(frozen=True, slots=True)
class ConfigChange:
    """One topic config key. set: current is None; remove: desired is None; else an update."""

    key: str
    current: str | None  # the topic's override now (canonical form), None if it has none
    desired: str | None  # the override the spec asks for, None to remove it
    inherited: str | None = None  # the value in effect without an override (set and remove)

    @property
    def is_set(self) -> bool:
        return self.current is None


@dataclass(frozen=True, slots=True)
class AlterTopicConfig:
    topic: str
    entries: tuple[ConfigChange, ...]  # sorted by key, never empty


@dataclass(frozen=True, slots=True)
class IncreasePartitions:
    topic: str
    current: int
    desired: int  # absolute count (KIP-195): retrying is idempotent
    assignments: Assignments | None = None  # for the new partitions only (the tail), or None


@dataclass(frozen=True, slots=True)
class ReassignReplicas:
    """A replication-factor change, executed as a KIP-455 partition reassignment.

    `current` and `target` hold one replica list per partition, indexed by partition id; they
    cover partitions an IncreasePartitions of the same topic creates first.
    """

    topic: str
    current_rf: int
    desired_rf: int
    current: Assignments
    target: Assignments


DeleteReason = Literal["tombstone", "prune"]


@dataclass(frozen=True, slots=True)
class DeleteTopic:
    topic: str
    partitions: int  # what is destroyed, for the reviewer
    reason: DeleteReason  # tombstone: `state: absent` in a spec; prune: unmanaged with --prune
    # Whether it is still read or written (cluster/evidence.py): None when not read (a plan
    # from a snapshot); shown to reviewers, judged by hazards.in_use
    evidence: TopicEvidence | None = None


Change = CreateTopic | AlterTopicConfig | IncreasePartitions | ReassignReplicas | DeleteTopic


class Action(Enum):
    """What happens to a topic; the value is the symbol the text plan shows."""

    CREATE = "+"
    UPDATE = "~"
    DELETE = "-"

    @property
    def word(self) -> str:
        """The JSON plan's spelling: create, update, delete."""
        return self.name.lower()


# What binds an approval to one change: the topic id (or name) of a delete; for every other
# kind the transition, (field, value) pairs in APPROVAL_FIELDS order: key, from, to, topic_id
Transition = tuple[tuple[str, int | str], ...]
Approval = int | str | Transition
ApproveWith = dict[str, int | str | dict[str, int | str]]


@dataclass(frozen=True, slots=True)
class Hazard:
    """A consequence a reviewer must see (and, at apply, acknowledge): a stable code and why.

    `severity` ERROR: apply refuses the change unless `acknowledged` (an item of the topic's
    `acknowledge:` names this very transition, or for a --prune delete the flag itself);
    WARNING: shown only. The kinds are planning/hazards.py `KINDS`.
    """

    code: str
    message: str
    acknowledged: bool = False
    severity: Severity = Severity.ERROR
    # What binds an approval to this change (the topic id of a delete; the values before and
    # after, the config key and the topic id of any other): `{code: approval}` in the topic's
    # `acknowledge:` approves exactly this change (the JSON plan's `approve_with`)
    approval: Approval | None = None

    @property
    def approve_with(self) -> ApproveWith | None:
        """The `acknowledge:` item that approves exactly this change."""
        if self.approval is None:
            return None
        if isinstance(self.approval, tuple):
            return {self.code: dict(self.approval)}
        return {self.code: self.approval}

    @property
    def blocks_apply(self) -> bool:
        """Apply must refuse the plan while this hazard stands."""
        return self.severity is Severity.ERROR and not self.acknowledged


def transition(
    before: int | str, after: int | str, topic_id: str | None, key: str | None = None
) -> Transition:
    """The approval of a change from `before` to `after` (of config `key`) on the topic with
    `topic_id` (None: a broker without topic ids, Kafka before 2.8)."""
    pairs: list[tuple[str, int | str]] = [] if key is None else [("key", key)]
    pairs += [("from", before), ("to", after)]
    if topic_id is not None:
        pairs.append(("topic_id", topic_id))
    return tuple(pairs)


AclAction = Literal["grant", "revoke"]


@dataclass(frozen=True, slots=True)
class AclChange:
    """One ACL binding granted or revoked (`reconciler help access`): part of the topic entry whose
    `access:` derives it (a grant) or owns it (a revoke). Apply grants after the topic changes
    and revokes before any delete."""

    action: AclAction
    binding: AclBinding
    # A revoke only: the kept bindings that still grant what it takes away, by their text
    # (planning/acl_shadowing.py)
    still_granted_by: tuple[str, ...] = ()

    @property
    def kept_note(self) -> str:
        """` (still granted by BINDING; ...)` after a shadowed revoke's line; "" otherwise."""
        if not self.still_granted_by:
            return ""
        return f" (still granted by {'; '.join(self.still_granted_by)})"


# Why a topic changes, relative to a git ref (`plan --changed-since REF`): "change", the spec
# repository changed it since REF (the pull request under review); "drift", the cluster already
# differed from specs that REF holds unchanged.
Cause = Literal["change", "drift"]
CAUSES: tuple[Cause, ...] = ("change", "drift")


@dataclass(frozen=True, slots=True)
class TopicChange:
    """Everything the plan does to one topic.

    `changes` is in execution order: a create alone; a delete alone; for an update the config
    change, then the partition increase, then the reassignment (the order apply runs them).
    """

    topic: str
    action: Action
    changes: tuple[Change, ...]
    hazards: tuple[Hazard, ...] = ()
    depends_on: tuple[str, ...] = ()  # the spec's depends_on; orders creates and deletes
    # Only in a plan made with --changed-since; for the reviewer, never read by apply
    cause: Cause | None = None
    # The topic's ACL grants then revokes (`reconciler help access`); () without `access:`
    access: tuple[AclChange, ...] = ()
