"""DescribeClientQuotas and AlterClientQuotas (KIP-546) through kafka-python (`help access`).

Neither client library's admin API has client quotas (librdkafka has none; kafka-python 3 has
the requests in kafka.protocol but no admin method): the requests are kafka-python's own
protocol messages, sent on its admin client's connection manager, inside the boundary. One
DescribeClientQuotas with no filter component and `strict: false` reads every entity, so the
cost does not grow with the quotas; one AlterClientQuotas carries every change. Both need
Kafka 2.6: an older cluster is one sentence naming the need, raised only when a spec declares
`quotas:` (nothing here runs otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reconciler.cluster.adapter import boundary
from reconciler.cluster.adapter.broker_version import section_too_old
from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.quotas import ClusterQuotas, QuotaAlteration
from reconciler.errors import CannotAnswer
from reconciler.spec.quotas import DEFAULT, QUOTA_KEYS, ClientQuota, QuotaEntity

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

_FIELD_OF = {"user": "user", "client-id": "client_id"}  # Kafka's entity type -> QuotaEntity


def too_old(connection: Connection) -> CannotAnswer:
    need = (
        "client quotas need Kafka 2.6 or later (DescribeClientQuotas and AlterClientQuotas, "
        "KIP-546)"
    )
    meanwhile = "set its quotas with kafka-configs"
    return section_too_old(connection, need, "quotas", meanwhile)


def _send(
    connection: Connection,
    admin: KafkaAdminClient,
    name: str,
    request: Any,
    timeout: float,
    mutation: bool = False,
) -> Any:
    """`request` (Kafka's request `name`) on kafka-python's connection manager, its answer;
    a broker that does not know it (UNSUPPORTED_VERSION, or absent from ApiVersions): `too_old`."""
    from kafka import errors

    # The boundary inside the try: kafka-python's own failures (a protocol error, ...) become
    # the boundary's sentence before the handlers below see them; these take only Kafka's
    # answers and the client's classified errors
    try:
        with boundary.kafka_python(connection, name, admin, mutation=mutation):
            manager = admin._manager
            return manager.run(manager.send, request, None, int(timeout * 1000))
    except (errors.IncompatibleBrokerVersion, errors.UnsupportedVersionError):
        raise too_old(connection) from None
    except errors.KafkaError as exc:  # the missing ACL, a timeout (retried), ...: a sentence
        raise connection.error(_ACTIONS[name], exc) from exc


_ACTIONS = {
    "DescribeClientQuotas": "describe the client quotas of",
    "AlterClientQuotas": "alter the client quotas of",
}


def describe_quotas(
    connection: Connection, admin: KafkaAdminClient, timeout: float
) -> ClusterQuotas:
    """Every user and client-id quota of the cluster: one DescribeClientQuotas."""
    with boundary.kafka_python(connection, "DescribeClientQuotas", admin):
        from kafka import errors
        from kafka.protocol.admin import DescribeClientQuotasRequest

        everything = DescribeClientQuotasRequest(components=[], strict=False)
        answer = _send(connection, admin, "DescribeClientQuotas", everything, timeout)
        error = errors.for_code(answer.error_code)
        if error is errors.UnsupportedVersionError:
            raise too_old(connection)
        if error is not errors.NoError:
            raise connection.error(_ACTIONS["DescribeClientQuotas"], error(answer.error_message))
        found = []
        for entry in answer.entries or ():
            names = {e.entity_type: e.entity_name for e in entry.entity}
            if not names or set(names) - set(_FIELD_OF):
                continue  # an IP entity, or one of a type this Kafka added later
            entity = QuotaEntity(**{_FIELD_OF[t]: n or DEFAULT for t, n in names.items()})
            values = tuple(sorted((v.key, float(v.value)) for v in entry.values))
            found.append(ClientQuota(entity, tuple(v for v in values if v[0] in QUOTA_KEYS)))
    return ClusterQuotas(tuple(sorted(found, key=lambda q: q.entity.order)))


def alter_quotas(
    connection: Connection,
    admin: KafkaAdminClient,
    alterations: Sequence[QuotaAlteration],
    timeout: float,
) -> dict[QuotaEntity, Failure | None]:
    """Set and remove `alterations` in one AlterClientQuotas; each entity's refusal, else None."""
    if not alterations:
        return {}
    by_entity: dict[QuotaEntity, list[QuotaAlteration]] = {}
    for alteration in alterations:
        by_entity.setdefault(alteration.entity, []).append(alteration)
    with boundary.kafka_python(connection, "AlterClientQuotas", admin, mutation=True):
        from kafka import errors
        from kafka.protocol.admin import AlterClientQuotasRequest as Request

        entries = [
            Request.EntryData(
                entity=[Request.EntryData.EntityData(entity_type=t, entity_name=n)
                        for t, n in entity.parts],
                ops=[Request.EntryData.OpData(key=a.key, value=a.value or 0.0,
                                              remove=a.value is None) for a in changes],
            )
            for entity, changes in by_entity.items()
        ]  # fmt: skip
        request = Request(entries=entries, validate_only=False)
        answer = _send(connection, admin, "AlterClientQuotas", request, timeout, mutation=True)
        outcome: dict[QuotaEntity, Failure | None] = {}
        for entry in answer.entries:
            names = {e.entity_type: e.entity_name for e in entry.entity}
            entity = QuotaEntity(**{_FIELD_OF[t]: n or DEFAULT for t, n in names.items()})
            error = errors.for_code(entry.error_code)
            outcome[entity] = (
                None
                if error is errors.NoError
                else Failure(error.message or error.__name__, entry.error_message or "")
            )
    return outcome
