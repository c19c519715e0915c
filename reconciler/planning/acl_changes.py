"""Access changes of the plan: the grants and revokes that bring the cluster's ACLs to what the
topics' `access:` derive (`help access`), attached to the topic entries, with their hazards.

Ownership: a topic with `access:` (in scope, targeted) owns every literal binding on its topic
resource, so one the spec does not derive is revoked; any other binding is granted when a topic
derives it and never revoked here (a group binding no spec names any more is not owned). A
binding several topics derive is attached to the first of them (by name) that the plan covers.
Pure: the cluster's bindings are read by the caller (ClusterState.acls).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from reconciler.cluster.evidence import Evidence, GroupUse
from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.planning import hazards
from reconciler.planning.acl_derivation import derived
from reconciler.planning.changes import AclChange, Action, Hazard, TopicChange, transition
from reconciler.spec.model import DesiredState, Presence

GRANTED, REVOKED = "granted", "revoked"


def with_access(
    changes: tuple[TopicChange, ...],
    desired: DesiredState,
    acls: ClusterAcls | None,
    evidence: Evidence | None = None,
    raw: Collection[AclBinding] = (),
) -> tuple[TopicChange, ...]:
    """`changes` with each topic's grants and revokes and their hazards; a topic whose only
    change is its access gets an `update` entry. `acls` None: not read (no topic declares
    access, or a plan from a snapshot): nothing is added. `raw`: the bindings the files'
    `acls:` give (planning/raw_acl_changes.py plans their grants): never revoked here."""
    if acls is None:
        return changes
    have = set(acls.bindings)
    wanted = derived(desired.topics.values(), acls.idempotent_write)
    by_topic: dict[str, list[AclChange]] = {}
    for binding, topics in wanted.items():
        if binding not in have:
            by_topic.setdefault(topics[0], []).append(AclChange("grant", binding))
    managed = {
        name
        for name, spec in desired.topics.items()
        if spec.access is not None and spec.state is Presence.PRESENT
    }
    for binding in sorted(have):
        if _on_topic(binding) in managed and binding not in wanted and binding not in raw:
            by_topic.setdefault(binding.resource_name, []).append(AclChange("revoke", binding))
    if not by_topic:
        return changes
    entries = {c.topic: c for c in changes}
    for topic, found in by_topic.items():
        access = tuple(sorted(found, key=lambda c: (c.action != "grant", c.binding)))
        found_hazards = tuple(
            h for c in access for h in hazards_of(c, acls.bindings, evidence, (topic,))
        )
        entry = entries.get(topic) or TopicChange(topic, Action.UPDATE, ())
        entries[topic] = dataclasses.replace(
            entry, access=access, hazards=entry.hazards + found_hazards
        )
    return tuple(entries.values())


def _on_topic(binding: AclBinding) -> str | None:
    """The topic a literal topic binding is on; None for any other binding."""
    if binding.resource_type == "topic" and binding.pattern_type == "literal":
        return binding.resource_name
    return None


def hazards_of(
    change: AclChange,
    bindings: Sequence[AclBinding],
    evidence: Evidence | None,
    topics: Sequence[str],
) -> tuple[Hazard, ...]:
    """The hazards of one grant or revoke; `topics`: those whose readers a lost Read stops
    (their groups, from the evidence, are named)."""
    binding = change.binding
    narrows = (change.action == "revoke") == (binding.permission == "allow")
    if narrows:
        message = (
            f"{binding.text} is {'revoked' if change.action == 'revoke' else 'granted'}: "
            f"{binding.principal} loses {binding.operation} on "
            f"{binding.resource_type.replace('_', ' ')} {binding.resource_name}"
        )
        if binding.operation in ("Read", "All") and binding.resource_type in ("topic", "group"):
            message += "; " + _groups(binding, bindings, evidence, topics)
        before, after = (GRANTED, REVOKED) if change.action == "revoke" else (REVOKED, GRANTED)
        return (
            Hazard(hazards.ACL_REVOKE, message, approval=transition(before, after, None,
                                                                    binding.text)),
        )  # fmt: skip
    if (change.action == "grant" and binding.wide) or change.action == "revoke":
        message = f"{binding.text} is {'granted' if change.action == 'grant' else 'revoked'}"
        message += ": it reaches principals or resources nobody named"
        before, after = (REVOKED, GRANTED) if change.action == "grant" else (GRANTED, REVOKED)
        return (
            Hazard(hazards.ACL_WIDEN, message, approval=transition(before, after, None,
                                                                   binding.text)),
        )  # fmt: skip
    return ()


def _groups(
    lost: AclBinding, bindings: Sequence[AclBinding], evidence: Evidence | None,
    topics: Sequence[str],
) -> str:  # fmt: skip
    """The groups `lost.principal`'s Group rules cover (only `lost`'s own pattern when it is a
    Group rule) that read `topics`, from the evidence."""
    principal = lost.principal
    if not topics:
        return f"no topic on the cluster that {principal} reads through it"
    if evidence is None or any(t not in evidence.topics for t in topics):
        return "the groups reading the topic were not read (a plan from a snapshot)"
    rules = [lost] if lost.resource_type == "group" else [
        b
        for b in bindings
        if b.principal == principal
        and b.resource_type == "group"
        and b.permission == "allow"
        and b.operation in ("Read", "All")
    ]  # fmt: skip
    found = [evidence.topics[t] for t in topics]
    unreadable = [why for f in found for why in f.unreadable]
    if unreadable:
        return "its consumer groups could not be read: " + "; ".join(unreadable)
    covered = [g for f in found for g in f.groups if any(_covers(r, g.group) for r in rules)]
    if not covered:
        return f"no consumer group {principal} may read in has offsets on or members reading it"
    return "its consumer groups reading the topic: " + ", ".join(dict.fromkeys(map(_use, covered)))


def _covers(rule: AclBinding, group: str) -> bool:
    if rule.pattern_type == "prefixed":
        return group.startswith(rule.resource_name)
    return rule.resource_name in (group, "*")


def _use(group: GroupUse) -> str:
    members = "members unknown" if group.members is None else f"{group.members} live member(s)"
    return f"{group.group} ({group.state}, {members})"


def revoked_reads(changes: Sequence[TopicChange]) -> tuple[str, ...]:
    """The topics a plan revokes a Read on: their evidence names the groups that lose it."""
    return tuple(
        c.topic
        for c in changes
        if any(a.action == "revoke" and a.binding.operation in ("Read", "All") for a in c.access)
    )
