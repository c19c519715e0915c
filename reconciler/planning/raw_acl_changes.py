"""The changes of the files' raw `acls:` (`reconciler help access`, "Raw bindings"): a section
of the plan of its own, as the cluster's quotas are, since most bindings are on no topic.

One desired set: the bindings the topics' `access:` derive (planning/acl_derivation.py, their
changes attached to the topics: acl_changes.py) and those `acls:` gives. Here: a given binding
the cluster lacks is granted; and, once any file has an `acls:` key for the cluster, a binding
the cluster holds is revoked when nothing in the spec gives it, the topics' `access:` does not
already own it, and it is inside `policy.manage` (when set): both its principal's name and its
resource's name match a pattern, so a scope never revokes another team's binding. An entry
outside the scope is neither granted nor revoked (P140 at it: `outside_scope`).

`--topic`: only bindings on topic resources whose name (a prefix's own text) a pattern selects;
group, cluster and transactional-id bindings belong to no topic and are left out of a
targeted plan (`--changed-since` shows them all: an edit of `acls:` is under review).
Hazards are the ones of acl_changes.py, approved in the cluster's `policy.acknowledge:`
(there is no topic entry to hold them). Pure; drift and apply take these decisions from the
plan.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from reconciler.cluster.evidence import Evidence
from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.diagnostics import Diagnostic
from reconciler.patterns import UserPattern, problem
from reconciler.planning import p_codes
from reconciler.planning.acl_changes import hazards_of
from reconciler.planning.acl_derivation import derived
from reconciler.planning.changes import AclAction, AclChange, Hazard, TopicChange
from reconciler.planning.diff import ignored
from reconciler.planning.ownership import owned
from reconciler.planning.policy_changes import cluster_hazard
from reconciler.spec.model import DesiredState, Policy, Presence
from reconciler.spec.raw_acls import RawAcl

SECTION = "acls"  # the entry name of their hazards (plan.unacknowledged_hazards)


@dataclass(frozen=True, slots=True, order=True)
class RawAclChange:
    """One binding of the `acls:` section granted or revoked, with its hazards."""

    action: AclAction
    binding: AclBinding
    hazards: tuple[Hazard, ...] = ()
    still_granted_by: tuple[str, ...] = ()  # as AclChange's

    @property
    def change(self) -> AclChange:
        return AclChange(self.action, self.binding, self.still_granted_by)


def bindings(acls: Sequence[RawAcl]) -> dict[AclBinding, RawAcl]:
    """One binding per operation of each entry, with the entry giving it."""
    found: dict[AclBinding, RawAcl] = {}
    for acl in acls:
        for operation in acl.operations:
            binding = AclBinding(
                acl.resource_type,  # type: ignore[arg-type]  # the schema's enum
                acl.resource_name,
                acl.pattern,  # type: ignore[arg-type]
                acl.principal,
                operation,
                acl.permission,  # type: ignore[arg-type]
                acl.host,
            )
            found.setdefault(binding, acl)
    return found


def raw_changes(
    desired: DesiredState,
    acls: ClusterAcls | None,
    policy: Policy,
    evidence: Evidence | None = None,
    targeted: Callable[[str], bool] | None = None,
    topic_changes: Sequence[TopicChange] = (),
    cluster_topics: Collection[str] = (),
    whole: DesiredState | None = None,
) -> tuple[RawAclChange, ...]:
    """The section's grants then revokes, each sorted. `acls` None (not read) or no `acls:`
    key in any file: none. `topic_changes`: the plan's topic entries, whose access changes
    are not planned again here; `cluster_topics`: the topics on the cluster (a lost Read
    names the groups reading those it covers); `whole`: the spec before `policy.manage` and
    `--topic` chose its topics (what every topic's `access:` derives is never revoked here)."""
    if acls is None or desired.acls is None:
        return ()
    have = set(acls.bindings)
    written = bindings(desired.acls)
    given = [b for b in written if _in_scope(b, policy)]  # the others: `outside_scope`
    topics = (whole or desired).topics.values()
    wanted = set(written) | set(derived(topics, acls.idempotent_write))
    on_topics = {a.binding for c in topic_changes for a in c.access}
    managed_topics = managed(whole or desired)
    chosen = [
        RawAclChange("grant", b) for b in sorted(given) if b not in have and b not in on_topics
    ]
    chosen += [
        RawAclChange("revoke", b)
        for b in unexplained(have - on_topics, wanted, managed_topics, policy)
    ]
    if targeted is not None:
        chosen = [c for c in chosen if _on_targeted_topic(c.binding, targeted)]
    held = _reading(acls.bindings)
    return tuple(
        RawAclChange(c.action, c.binding, _hazards(c, held, evidence, policy, cluster_topics))
        for c in chosen
    )


def outside_scope(acls: Sequence[RawAcl] | None, policy: Policy) -> list[Diagnostic]:
    """A warning at each `acls:` entry the scope does not own: the planner neither grants nor
    revokes it (a scope granting what it could never revoke would be one-way)."""
    found: dict[RawAcl, AclBinding] = {}
    for binding, acl in bindings(acls or ()).items():
        if not _in_scope(binding, policy):
            found.setdefault(acl, binding)
    return [
        p_codes.ACL_OUTSIDE_SCOPE(
            f"acls: {binding.principal} on {binding.resource_type.replace('_', ' ')} "
            f"{binding.resource_name} ({binding.pattern_type}) is outside the scope "
            f"(policy.manage: {', '.join(policy.manage) or 'every name'}; a topic policy.ignore "
            "matches is never owned), so the planner neither grants nor revokes it; remove the "
            "entry, or widen policy.manage in reconciler.yaml",
            location=acl.location,
        )
        for acl, binding in found.items()
    ]


def unexplained(
    have: Collection[AclBinding],
    wanted: Collection[AclBinding],
    managed_topics: Collection[str],
    policy: Policy,
) -> list[AclBinding]:
    """The bindings of `have` the `acls:` section owns and the spec does not give, sorted:
    what a plan revokes, and what `import --access` writes as `acls:` entries."""
    return sorted(
        b
        for b in have
        if b not in wanted
        # the topics' `access:` owns those (acl_changes.py): revoked with the topic
        and not (
            b.resource_type == "topic"
            and b.pattern_type == "literal"
            and b.resource_name in managed_topics
        )
        and _in_scope(b, policy)
    )


def managed(desired: DesiredState) -> set[str]:
    """The topics whose `access:` owns their literal bindings (acl_changes.py)."""
    return {
        name
        for name, spec in desired.topics.items()
        if spec.access is not None and spec.state is Presence.PRESENT
    }


def _in_scope(binding: AclBinding, policy: Policy) -> bool:
    """Inside `policy.manage`: its principal's name and its resource's name both match; a
    topic resource `policy.ignore` matches is another tool's (so are its topics)."""
    name = binding.principal.partition(":")[2]
    if binding.resource_type == "topic" and ignored(binding.resource_name, _ignore(policy.ignore)):
        return False  # reconciler's own lock and audit topics' too
    return owned(name, policy) and owned(binding.resource_name, policy)


@functools.lru_cache(maxsize=16)
def _ignore(patterns: tuple[str, ...]) -> tuple[UserPattern, ...]:
    """policy.ignore's patterns, compiled once per command (each was checked when
    reconciler.yaml was loaded; planning/diff.py reports one that is not a pattern)."""
    return tuple(UserPattern(p, "policy.ignore") for p in patterns if problem(p) is None)


def _on_targeted_topic(binding: AclBinding, targeted: Callable[[str], bool]) -> bool:
    return binding.resource_type == "topic" and targeted(binding.resource_name)


def _hazards(
    change: RawAclChange,
    held: Mapping[tuple[str, str], Sequence[AclBinding]],
    evidence: Evidence | None,
    policy: Policy,
    cluster_topics: Collection[str],
) -> tuple[Hazard, ...]:
    """acl_changes.py's hazards, approved in the cluster's `policy.acknowledge:`; `held`: the
    cluster's Read rules (`_reading`)."""
    who = change.binding.principal
    topics = read_by(change.binding, held.get((who, "topic"), ()), cluster_topics)
    return tuple(
        cluster_hazard(h.code, h.message, h.approval, policy.acknowledge)
        for h in hazards_of(change.change, held.get((who, "group"), ()), evidence, topics)
        if isinstance(h.approval, tuple)  # a transition: every ACL hazard has one
    )


def read_by(lost: AclBinding, reads: Sequence[AclBinding], topics: Collection[str]) -> list[str]:
    """The topics among `topics` whose readers losing `lost` stops: those it covers for a
    Topic rule; for a Group rule, those `reads` (its principal's Topic Read or All rules:
    `_reading`) cover."""
    if lost.operation not in ("Read", "All"):
        return []  # no reader loses anything: no group to name
    if lost.resource_type == "topic":
        return _covered(lost, topics)
    if lost.resource_type != "group":
        return []
    return sorted({t for r in reads for t in _covered(r, topics)})


def _covered(rule: AclBinding, topics: Collection[str]) -> list[str]:
    """The topics a Topic rule covers: a literal name is looked up, not searched for."""
    if rule.pattern_type == "literal" and rule.resource_name != "*":
        return [rule.resource_name] if rule.resource_name in topics else []
    return sorted(t for t in topics if _covers(rule, t))


def _covers(rule: AclBinding, name: str) -> bool:
    if rule.pattern_type == "prefixed":
        return name.startswith(rule.resource_name)
    return rule.resource_name in (name, "*")


def revoked_reads(
    changes: Sequence[RawAclChange], held: Sequence[AclBinding], topics: Collection[str]
) -> tuple[str, ...]:
    """The cluster's topics whose readers a revoke of the section stops: their evidence names
    the groups that lose access (the workflow reads it, then plans again)."""
    found: dict[str, None] = {}
    reading = _reading(held)
    for c in changes:
        if c.action == "revoke":
            reads = reading.get((c.binding.principal, "topic"), ())
            found.update(dict.fromkeys(read_by(c.binding, reads, topics)))
    return tuple(found)


def _reading(bindings: Iterable[AclBinding]) -> dict[tuple[str, str], list[AclBinding]]:
    """The ALLOW Read (or All) rules by principal and resource type: all a hazard reads (the
    topics a principal reads, the groups it reads in), indexed once per plan."""
    found: dict[tuple[str, str], list[AclBinding]] = {}
    for b in bindings:
        if b.permission == "allow" and b.operation in ("Read", "All"):
            found.setdefault((b.principal, b.resource_type), []).append(b)
    return found
