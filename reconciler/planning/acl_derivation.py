"""The ACL bindings a spec's `access:` derives: `reconciler help access`'s table per client kind.

Pure: from the topics' `access:` to bindings, each with the topics that derive it (a binding
several topics derive, such as a consumer's group or the cluster's IdempotentWrite, is granted
once and revoked only when no topic derives it any more). Kafka implies Describe from Read and
Write, so no Describe binding is derived beside them.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.cluster.protocol.acls import CLUSTER_NAME, AclBinding
from reconciler.spec.access import TopicAccess
from reconciler.spec.model import DesiredState, Presence, TopicSpec

Derived = dict[AclBinding, tuple[str, ...]]  # binding -> the topics deriving it, sorted


def topic_bindings(topic: str, access: TopicAccess, idempotent_write: bool) -> set[AclBinding]:
    """What `access:` of `topic` derives. `idempotent_write`: the cluster's brokers predate
    Kafka 2.8 (KIP-679), so an idempotent producer needs IdempotentWrite on the cluster
    besides Write on a topic."""
    found: set[AclBinding] = set()
    for producer in access.producers:
        who = producer.principal
        found.add(AclBinding("topic", topic, "literal", who, "Write"))
        transactional = producer.transactional_ids or producer.transactional_id_prefixes
        # InitProducerId with a transactional id checks the TransactionalId, not the cluster
        if producer.idempotent and idempotent_write and not transactional:
            found.add(AclBinding("cluster", CLUSTER_NAME, "literal", who, "IdempotentWrite"))
        for tid in producer.transactional_ids:
            found.add(AclBinding("transactional_id", tid, "literal", who, "Write"))
        for prefix in producer.transactional_id_prefixes:
            found.add(AclBinding("transactional_id", prefix, "prefixed", who, "Write"))
    for consumer in access.consumers:
        who = consumer.principal
        found.add(AclBinding("topic", topic, "literal", who, "Read"))
        for group in consumer.groups:
            found.add(AclBinding("group", group, "literal", who, "Read"))
        for prefix in consumer.group_prefixes:
            found.add(AclBinding("group", prefix, "prefixed", who, "Read"))
    return found


def derived(topics: Iterable[TopicSpec], idempotent_write: bool) -> Derived:
    """Every binding the declared topics' `access:` derive, with the topics deriving each."""
    by_binding: dict[AclBinding, list[str]] = {}
    for spec in topics:
        if spec.access is None or spec.state is Presence.ABSENT:
            continue
        for binding in topic_bindings(spec.name, spec.access, idempotent_write):
            by_binding.setdefault(binding, []).append(spec.name)
    return {b: tuple(sorted(names)) for b, names in sorted(by_binding.items())}


def declares_access(topics: Iterable[TopicSpec]) -> bool:
    """Whether any topic has `access:`: without one, the plan reads and plans no ACL."""
    return any(spec.access is not None for spec in topics)


def reads_acls(desired: DesiredState) -> bool:
    """Whether the plan reads the cluster's ACLs: a topic has `access:`, or a file `acls:`."""
    return desired.acls is not None or declares_access(desired.topics.values())
