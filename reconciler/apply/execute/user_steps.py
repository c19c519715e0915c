"""The plan's SCRAM user changes, as apply runs them (`help access`): every one in one
AlterUserScramCredentials, after the topic levels, the ACL grants and the quotas (a user
belongs to no topic). The secret is read from the change's variable now, never from the plan
(a saved plan holds none), salted by the adapter, and its digest recorded once Kafka accepted
it, so the next plan compares against it. What the cluster already shows (the credential with
its iterations and the same secret on record; a deleted one gone) is not sent again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reconciler.cluster.ports import ScramStore
from reconciler.cluster.protocol.scram import ClusterScram, ScramAlteration, SecretDigest
from reconciler.cluster.secret_digest import digest_of, matches
from reconciler.planning.scram_secrets import secret_from
from reconciler.planning.user_changes import UserChange


def remaining(changes: Sequence[UserChange], scram: ClusterScram | None) -> list[UserChange]:
    """The plan's user changes the cluster does not show done yet (`scram` None: not read,
    so all of them)."""
    if scram is None:
        return list(changes)
    have = {c.key: c.iterations for c in scram.credentials}
    digests = {d.key: d for d in scram.digests}
    left = []
    for change in changes:
        if change.action == "delete":
            done = change.key not in have
        else:
            record = digests.get(change.key)
            done = (
                have.get(change.key) == change.iterations_after
                and record is not None
                and change.variable is not None
                and matches(record, secret_from(change.variable))
            )
        if not done:
            left.append(change)
    return left


def run(
    cluster: ScramStore, changes: Sequence[UserChange], progress: Callable[[str], None]
) -> list[str]:
    """Send `changes` in one request and record the digests of the secrets Kafka accepted;
    the refusals, one sentence per credential."""
    if not changes:
        return []
    refused: list[str] = []
    alterations: list[ScramAlteration] = []
    for change in changes:
        secret = None if change.variable is None else secret_from(change.variable)
        if secret == b"":  # emptied since the spec was loaded
            refused.append(f"did not set user {change.name} {change.mechanism}: "
                           f"${{{change.variable}}} is empty")  # fmt: skip
            continue
        iterations = change.iterations_after or change.iterations_before or 0
        alterations.append(ScramAlteration(change.name, change.mechanism, iterations, secret))
    answers = cluster.alter_scram(alterations)
    records: list[tuple[str, str, SecretDigest | None]] = []
    for alteration in alterations:
        failure = answers.get(alteration.key)
        if failure is not None:
            refused.append(
                f"could not change user {alteration.user} {alteration.mechanism}: {failure}"
            )
            continue
        secret = alteration.secret
        digest = (
            None if secret is None else digest_of(alteration.user, alteration.mechanism, secret)
        )
        records.append((alteration.user, alteration.mechanism, digest))
    cluster.record_digests(records)
    done = len(records)
    progress(f"changed {done} SCRAM credential{'' if done == 1 else 's'}")
    for line in refused:
        progress(line)
    return refused
