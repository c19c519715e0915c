"""SCRAM credentials through librdkafka's admin API, and the digests reconciler keeps of the
secrets it set (`reconciler help access`).

DescribeUserScramCredentials (every user, one request) and AlterUserScramCredentials (every
upsertion and deletion, one request) are KIP-554's, Kafka 2.7 (KRaft keeps SCRAM credentials
from 3.5): an older cluster is one sentence naming the need, raised only when reconciler.yaml
declares `users:` for it. The digests live in the compacted topic `_reconciler_users`, one
record per user and mechanism (the latest wins): read with the credentials, written after an
alteration Kafka accepted. A secret is sent only inside an upsertion, salted by this module
(Kafka's own salt, never reconciler's digest salt), and never logged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import Future

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialAlteration,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from reconciler.cluster.adapter import boundary
from reconciler.cluster.adapter.audit_topic import ensure_topic
from reconciler.cluster.adapter.broker_version import section_too_old
from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.records import all_records, produce_all
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.requests import NewTopicRequest
from reconciler.cluster.protocol.reserved import USERS_TOPIC
from reconciler.cluster.protocol.scram import (
    ClusterScram,
    ScramAlteration,
    ScramCredential,
    SecretDigest,
)
from reconciler.errors import CannotAnswer

_MECHANISMS = {
    "SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256,
    "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512,
}
_NAME_OF = {v: k for k, v in _MECHANISMS.items()}
_USERS_CONFIG = (("cleanup.policy", "compact"), ("min.insync.replicas", "1"))


_NEED = (
    "SCRAM users need Kafka 2.7 or later (DescribeUserScramCredentials and "
    "AlterUserScramCredentials, KIP-554; in KRaft mode Kafka 3.5)"
)


def too_old(connection: Connection) -> CannotAnswer:
    meanwhile = "set its credentials with kafka-configs"
    return section_too_old(connection, _NEED, "users", meanwhile)


def _unsupported(exc: KafkaException) -> bool:
    error = exc.args[0] if exc.args else None
    return isinstance(error, KafkaError) and error.code() in (
        KafkaError.UNSUPPORTED_VERSION,
        KafkaError._UNSUPPORTED_FEATURE,
    )


def describe_scram(
    connection: Connection, admin: AdminClient, timeout: float, digests: bool = True
) -> ClusterScram:
    """Every SCRAM credential of the cluster (one DescribeUserScramCredentials) with the
    digests on record in `_reconciler_users` (`digests` False: a snapshot's, which keeps none,
    so that topic is not read)."""
    try:
        with boundary.librdkafka(connection, "DescribeUserScramCredentials"):
            asked_all = admin.describe_user_scram_credentials(request_timeout=timeout)
            assert isinstance(asked_all, Future)  # no user list: one future for all
            found = asked_all.result()
    except KafkaException as exc:
        if _unsupported(exc):
            raise too_old(connection) from None
        raise connection.error("describe the SCRAM credentials of", exc) from exc
    credentials = sorted(
        ScramCredential(user, _NAME_OF[info.mechanism], int(info.iterations))
        for user, description in found.items()
        for info in description.scram_credential_infos
        if info.mechanism in _NAME_OF
    )
    if not digests:
        return ClusterScram(tuple(credentials), digests_read=False)
    return ClusterScram(tuple(credentials), _digests(connection, timeout))


def _digests(connection: Connection, wait: float) -> tuple[SecretDigest, ...]:
    """The latest digest record of each credential (a deletion's record removes it)."""
    latest: dict[tuple[str, str], SecretDigest | None] = {}
    for raw in all_records(connection, USERS_TOPIC, wait):
        try:
            data = json.loads(raw)
            key = (str(data["user"]), str(data["mechanism"]))
            deleted = bool(data.get("deleted"))
            latest[key] = None if deleted else SecretDigest(*key, data["salt"], data["digest"])
        except (ValueError, KeyError, TypeError):
            continue  # not a record this reconciler wrote: no digest on record
    return tuple(d for _, d in sorted(latest.items()) if d is not None)


def alter_scram(
    connection: Connection,
    admin: AdminClient,
    alterations: Sequence[ScramAlteration],
    timeout: float,
) -> dict[tuple[str, str], Failure | None]:
    """Upsert and delete these credentials in one AlterUserScramCredentials; each one's
    refusal, else None. librdkafka answers per user: a user's refusal is each of its items'."""
    if not alterations:
        return {}
    with boundary.librdkafka(connection, "AlterUserScramCredentials", mutation=True):
        items: list[UserScramCredentialAlteration] = []
        for a in alterations:
            mechanism = _MECHANISMS[a.mechanism]
            if a.secret is None:
                items.append(UserScramCredentialDeletion(a.user, mechanism))
            else:
                info = ScramCredentialInfo(mechanism, a.iterations)
                salt = os.urandom(32)  # Kafka's salt for the credential
                items.append(UserScramCredentialUpsertion(a.user, info, a.secret, salt))
        futures = admin.alter_user_scram_credentials(items, request_timeout=timeout)
    by_user = {user: _outcome(connection, future) for user, future in futures.items()}
    return {a.key: by_user.get(a.user) for a in alterations}


def _outcome(connection: Connection, future: object) -> Failure | None:
    try:
        with boundary.librdkafka(connection, "AlterUserScramCredentials"):
            future.result()  # type: ignore[attr-defined]
    except KafkaException as exc:
        if _unsupported(exc):
            raise too_old(connection) from None
        error = exc.args[0] if exc.args else None
        if isinstance(error, KafkaError):
            refused = connection.failure("change the SCRAM credentials on", exc)
            return Failure(error.name(), refused.sentence() if refused else error.str())
        raise connection.error("change the SCRAM credentials on", exc) from exc
    return None


def record_digests(
    connection: Connection,
    admin: AdminClient,
    records: Sequence[tuple[str, str, SecretDigest | None]],
) -> None:
    """Append (user, mechanism, digest or None for a deleted credential) to `_reconciler_users`,
    creating it (compacted, one partition) on first use."""
    if not records:
        return
    # the brokers' default.replication.factor (KIP-464), as for any topic a cluster makes
    ensure_topic(connection, admin, NewTopicRequest(USERS_TOPIC, 1, None, _USERS_CONFIG))
    for user, mechanism, digest in records:
        value: dict[str, object] = {"user": user, "mechanism": mechanism}
        if digest is None:
            value["deleted"] = True
        else:
            value.update(salt=digest.salt, digest=digest.digest)
        produce_all(connection, USERS_TOPIC, f"{user}\n{mechanism}", [json.dumps(value).encode()])
