"""The plan's ACL grants and revokes, as apply runs them (`help access`): every revoke in one
DeleteAcls before the topic levels (so before any delete: Kafka keeps a deleted topic's ACLs
for a namesake created later), every grant in one CreateAcls after them (so after the creates).
What the cluster already shows is not sent again: a resumed apply repeats nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reconciler.cluster.ports import AclStore
from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.planning.changes import TopicChange
from reconciler.planning.raw_acl_changes import RawAclChange


@dataclass(frozen=True, slots=True)
class AclWork:
    """What is left to do of a plan's access changes, against the state read under the lock."""

    grants: tuple[AclBinding, ...] = ()
    revokes: tuple[AclBinding, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.grants or self.revokes)


def remaining(
    changes: Sequence[TopicChange],
    acls: ClusterAcls | None,
    raw: Sequence[RawAclChange] = (),
) -> AclWork:
    """The plan's grants the cluster lacks and revokes it still holds, the topics' and the
    `acls:` section's (`raw`). `acls` None: the cluster's ACLs were not read, so all of them
    are left (Kafka's answers settle each)."""
    have = set(acls.bindings) if acls is not None else None
    every = [a for c in changes for a in c.access] + [a.change for a in raw]
    grants = [a.binding for a in every if a.action == "grant"]
    revokes = [a.binding for a in every if a.action == "revoke"]
    if have is not None:
        grants = [b for b in grants if b not in have]
        revokes = [b for b in revokes if b in have]
    return AclWork(tuple(dict.fromkeys(grants)), tuple(dict.fromkeys(revokes)))


def run(
    cluster: AclStore,
    bindings: tuple[AclBinding, ...],
    grant: bool,
    progress: Callable[[str], None],
) -> list[str]:
    """Grant (or revoke) `bindings` in one request; the refusals, one sentence each."""
    if not bindings:
        return []
    verb = "grant" if grant else "revoke"
    answers = cluster.create_acls(bindings) if grant else cluster.delete_acls(bindings)
    refused = [
        f"could not {verb} {binding.text}: {failure}"
        for binding, failure in answers.items()
        if failure is not None
    ]
    done = len(bindings) - len(refused)
    progress(f"{'granted' if grant else 'revoked'} {done} ACL binding(s)")
    for line in refused:
        progress(line)
    return refused
