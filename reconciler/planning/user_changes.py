"""SCRAM user changes: a cluster's `users:` compared with what DescribeUserScramCredentials
answered and the digests on record (`reconciler help access`).

One change per credential (user and mechanism):

- `create`: Kafka has no such credential; apply sets it from the user's `${VAR}`;
- `update`: the secret changed (its digest on record differs), the iterations changed, or the
  secret is not known to reconciler (Kafka has the credential, no digest is on record: made by
  hand, imported, or its record lost). Kafka cannot say whether its secret is the `${VAR}`'s,
  so the plan says so in words and apply sets it, which records its digest: the next plan is
  empty;
- `delete`: a credential Kafka has that the list does not name, within `policy.manage` (when
  set: the user's name matches a pattern), never the user reconciler itself logs in as (its
  `client:` sasl.username). Its logins are refused at once: the `user_delete`
  hazard, approved by the transition in the cluster's `policy.acknowledge:`
  (`{user_delete: {key: "billing SCRAM-SHA-512", from: present, to: absent}}`).

No change holds the secret or its digest: the plan names the variable apply reads it from.
Pure once the verdicts are made (scram_secrets.py); drift and apply take the decision from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from reconciler.cluster.protocol.scram import ClusterScram
from reconciler.planning.changes import Hazard, transition
from reconciler.planning.ownership import owned
from reconciler.planning.policy_changes import cluster_hazard
from reconciler.planning.scram_secrets import Verdict, fingerprint, verdicts
from reconciler.spec.model import ClusterConfig, Policy
from reconciler.spec.scram_users import ScramUser

USER_DELETE = "user_delete"
UserAction = Literal["create", "update", "delete"]
SECRET_SET, SECRET_CHANGED = "secret set", "secret changed"
SECRET_UNKNOWN = "secret not known to reconciler (no digest on record): set again"


@dataclass(frozen=True, slots=True)
class UserChange:
    """One SCRAM credential created, updated or deleted. `variable`: where apply reads the
    secret (None for a delete); `reasons`: what changed, in words."""

    name: str
    mechanism: str
    action: UserAction
    reasons: tuple[str, ...]
    iterations_before: int | None
    iterations_after: int | None
    variable: str | None
    hazards: tuple[Hazard, ...] = ()
    # `salt:digest` (scram_secrets.fingerprint) of the secret the plan was made with: a saved
    # plan's apply refuses another secret (apply/check/verify.py). Never shown in text.
    secret_digest: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.mechanism)

    @property
    def text(self) -> str:
        """`user billing SCRAM-SHA-512: secret changed (from ${BILLING_PW})`."""
        source = f" (from ${{{self.variable}}})" if self.variable else ""
        return f"user {self.name} {self.mechanism}: {'; '.join(self.reasons)}{source}"


def user_changes(
    desired: Sequence[ScramUser] | None,
    cluster: ClusterScram | None,
    policy: Policy,
    own: str | None = None,
    secrets: Mapping[tuple[str, str], Verdict] | None = None,
) -> tuple[UserChange, ...]:
    """The changes turning `cluster`'s credentials into `desired`, sorted by user then
    mechanism; () when the cluster declares no `users:` or they were not read (a snapshot).
    `own`: the user reconciler logs in as, never deleted (apply would lock itself out midway);
    `secrets`: each user's verdict (scram_secrets.verdicts, made here when not given)."""
    if desired is None or cluster is None:
        return ()
    if secrets is None:
        secrets = verdicts(desired, cluster.digests)
    want = {u.key: u for u in desired}
    have = {c.key: c for c in cluster.credentials}
    changes: list[UserChange] = []
    for key in sorted(want.keys() | have.keys()):
        user, held = want.get(key), have.get(key)
        if user is None and held is not None:
            if owned(held.user, policy) and held.user != own:
                changes.append(_delete(held.user, held.mechanism, held.iterations, policy))
            continue
        assert user is not None
        if held is None:
            changes.append(_change(user, "create", (SECRET_SET,), None))
            continue
        reasons = []
        if held.iterations != user.iterations:
            reasons.append(f"iterations {held.iterations} -> {user.iterations}")
        verdict = secrets.get(key, "unknown")
        if cluster.digests_read and verdict != "same":  # a snapshot cannot tell (P137 says so)
            reasons.append(SECRET_CHANGED if verdict == "changed" else SECRET_UNKNOWN)
        if reasons:
            changes.append(_change(user, "update", tuple(reasons), held.iterations))
    return tuple(changes)


def _change(
    user: ScramUser, action: UserAction, reasons: tuple[str, ...], before: int | None
) -> UserChange:
    return UserChange(
        user.name, user.mechanism, action, reasons, before, user.iterations, user.variable,
        secret_digest=fingerprint(user.variable),
    )  # fmt: skip


def _delete(name: str, mechanism: str, iterations: int, policy: Policy) -> UserChange:
    key = f"{name} {mechanism}"
    hazard = cluster_hazard(
        USER_DELETE,
        f"user {key} is deleted: its clients' logins with {mechanism} are refused from then on",
        transition("present", "absent", None, key),
        policy.acknowledge,
    )
    reasons = ("deleted: not in users:",)
    return UserChange(name, mechanism, "delete", reasons, iterations, None, None, (hazard,))


def own_user(cluster: ClusterConfig) -> str | None:
    """The SASL user the cluster's `client:` logs in as, if any."""
    return dict(cluster.client).get("sasl.username") or None
