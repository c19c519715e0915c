"""Grants a plan's ACL changes leave in place (`reconciler help access`, "A revoke that does
not revoke"): once the plan's grants and revokes are decided, the bindings the cluster keeps
after them are one set, and acl_coverage.py says which of them still grant what a revoke
takes away, or grant someone a topic's `access:` does not list.

- A revoke of an ALLOW binding some kept binding still grants (a prefixed or `*` pattern,
  `User:*`, a binding outside `policy.manage`): the change names them (`still_granted_by`),
  its `acl_revoke` hazard says so, and a warning (P141) says the principal keeps the access.
- A topic whose `access:` lists its producers and consumers, while a wide kept binding (a
  prefixed or `*` pattern, `User:*`) grants someone else Write or Read on it: a warning
  (P142) naming the binding; the topic's list is not the whole truth.

Pure; runs after acl_changes.py and raw_acl_changes.py decided the changes (drift and apply
read the result from the plan).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from reconciler.cluster.protocol.acls import WILDCARD, AclBinding
from reconciler.diagnostics import Diagnostic
from reconciler.planning import hazards, p_codes
from reconciler.planning.acl_coverage import WILDCARD_PRINCIPAL, covers_pattern, granting
from reconciler.planning.changes import AclChange, Hazard, TopicChange
from reconciler.planning.raw_acl_changes import RawAclChange
from reconciler.spec.model import DesiredState, Presence, TopicSpec

_CLIENT_OPERATIONS = {"Write": "produce to", "Read": "consume"}


def kept(have: Iterable[AclBinding], changes: Iterable[AclChange]) -> frozenset[AclBinding]:
    """The bindings on the cluster once the plan's grants and revokes are made."""
    found = set(have)
    for change in changes:
        if change.action == "grant":
            found.add(change.binding)
        else:
            found.discard(change.binding)
    return frozenset(found)


class Kept:
    """The bindings kept after the plan, indexed by resource type and principal: a question
    about one principal reads only its bindings and `User:*`'s, whatever the cluster holds."""

    def __init__(self, bindings: Iterable[AclBinding]) -> None:
        self.bindings = frozenset(bindings)
        self._by: dict[tuple[str, str], list[AclBinding]] = {}
        for b in sorted(self.bindings):
            self._by.setdefault((b.resource_type, b.principal), []).append(b)

    def granting(self, request: AclBinding) -> tuple[AclBinding, ...]:
        """acl_coverage.granting over the bindings that could match `request`."""
        found = self._by.get((request.resource_type, request.principal), [])
        if request.principal != WILDCARD_PRINCIPAL:
            found = found + self._by.get((request.resource_type, WILDCARD_PRINCIPAL), [])
        return granting(request, found)


def still_granted(change: AclChange, after: Kept) -> tuple[AclBinding, ...]:
    """The bindings kept that still grant what the revoke of an ALLOW takes away."""
    if change.action != "revoke" or change.binding.permission != "allow":
        return ()
    return after.granting(change.binding)


def shadowing(
    topic_changes: Sequence[TopicChange],
    raw: Sequence[RawAclChange],
    have: Iterable[AclBinding],
    desired: DesiredState,
) -> tuple[tuple[TopicChange, ...], tuple[RawAclChange, ...], list[Diagnostic]]:
    """The plan's topic entries and raw changes with each shadowed revoke marked, and the
    warnings (P141 for each such revoke, P142 for each topic `access:` a wide binding
    bypasses)."""
    every = [a for c in topic_changes for a in c.access] + [r.change for r in raw]
    after = Kept(kept(have, every))
    warnings: list[Diagnostic] = []
    entries = []
    for entry in topic_changes:
        access = tuple(_marked(a, after) for a in entry.access)
        warnings += [_kept_warning(a, entry.topic) for a in access if a.still_granted_by]
        entries.append(
            dataclasses.replace(entry, access=access, hazards=_noted(entry.hazards, access))
            if access != entry.access
            else entry
        )
    raws = []
    for r in raw:
        change = _marked(r.change, after)
        if change.still_granted_by:
            warnings.append(_kept_warning(change, None))
        raws.append(
            dataclasses.replace(
                r,
                still_granted_by=change.still_granted_by,
                hazards=_noted(r.hazards, (change,)),
            )
        )
    # the few wide client grants, picked once: each topic with `access:` is checked against them
    wide = [
        b
        for b in sorted(after.bindings)
        if b.resource_type == "topic"
        and b.permission == "allow"
        and b.operation in ("Write", "Read", "All")
        and _wide(b)
    ]
    for spec in desired.topics.values():
        if wide and spec.access is not None and spec.state is Presence.PRESENT:
            warnings += _bypassed(spec, wide, after)
    return tuple(entries), tuple(raws), warnings


def _marked(change: AclChange, after: Kept) -> AclChange:
    found = still_granted(change, after)
    if not found:
        return change
    return dataclasses.replace(change, still_granted_by=tuple(b.text for b in found))


def _noted(found: tuple[Hazard, ...], access: Sequence[AclChange]) -> tuple[Hazard, ...]:
    """The `acl_revoke` hazards of shadowed revokes, their message saying what still grants."""
    by_text = {a.binding.text: a for a in access if a.still_granted_by}
    noted = []
    for h in found:
        key = dict(h.approval).get("key") if isinstance(h.approval, tuple) else None
        change = by_text.get(str(key)) if h.code == hazards.ACL_REVOKE else None
        message = h.message if change is None else h.message + "; but " + _keeps(change)
        noted.append(dataclasses.replace(h, message=message))
    return tuple(noted)


def _keeps(change: AclChange) -> str:
    b = change.binding
    return (
        f"{b.principal} keeps {b.operation} on {b.resource_type.replace('_', ' ')} "
        f"{b.resource_name}: still granted by {'; '.join(change.still_granted_by)}"
    )


def _kept_warning(change: AclChange, topic: str | None) -> Diagnostic:
    return p_codes.ACL_REVOKE_KEPT(
        f"the revoke of {change.binding.text} does not revoke: {_keeps(change)}; revoke that "
        "binding too (in acls:, or by hand when it is outside policy.manage), or keep this one",
        topic=topic,
    )


def _bypassed(spec: TopicSpec, wide: Sequence[AclBinding], after: Kept) -> list[Diagnostic]:
    """P142 for each of the `wide` client grants that grants Write or Read on `spec`'s topic
    (no DENY of `after` refusing it) to a principal its `access:` does not list for that
    operation."""
    assert spec.access is not None
    listed = {
        "Write": {p.principal for p in spec.access.producers},
        "Read": {c.principal for c in spec.access.consumers},
    }
    found: list[Diagnostic] = []
    for b in wide:
        for operation, verb in _CLIENT_OPERATIONS.items():
            if b.operation not in (operation, "All"):
                continue
            if b.principal in listed[operation] and b.principal != WILDCARD_PRINCIPAL:
                continue
            request = AclBinding(
                "topic", spec.name, "literal", b.principal, operation, "allow", b.host
            )
            if covers_pattern(b, request) and b in after.granting(request):
                found.append(
                    p_codes.ACCESS_BYPASSED(
                        f"{spec.name}'s access: does not list everyone who may {verb} it: "
                        f"{b.text} grants {b.principal} {operation} on it too; list "
                        "the principal in access:, or narrow that binding",
                        location=spec.location,
                        topic=spec.name,
                    )
                )
    return found


def _wide(b: AclBinding) -> bool:
    """A binding reaching more than one named topic or principal (not the topic's own)."""
    return (
        b.pattern_type == "prefixed"
        or b.resource_name == WILDCARD
        or b.principal == WILDCARD_PRINCIPAL
    )
