"""Well-known system topics: names other software owns, never deleted by --prune.

A Schema Registry, Kafka Connect, Kafka Streams or MirrorMaker 2 keeps its state in topics it
creates itself and reads without a consumer group (assign()), so the in-use gate cannot see
their readers. A topic whose name matches a pattern here (or one of the cluster's
`policy.system_topics`) is never a --prune candidate: it stays unmanaged, and deleting it
takes a tombstone (`state: absent`) whose delete carries the `system_topic` hazard.

The list is data: each row is a regular expression matched against the whole name, with the
software it belongs to (`reconciler help rules` lists them). A false match only keeps a topic from
--prune; a tombstone still deletes it, knowingly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reconciler.patterns import UserPattern

# (pattern, whose): matched with re.fullmatch
SYSTEM_TOPICS: tuple[tuple[str, str], ...] = (
    (r"__.*", "Kafka itself or a tool (a name starting with `__`)"),
    (r"_confluent-.*", "Confluent Platform (`_confluent-`)"),
    (r"_schemas(_.*)?", "Schema Registry (kafkastore.topic `_schemas`)"),
    (r"kafkasql-journal", "Apicurio Registry (its kafkasql journal)"),
    # Connect's config.storage.topic / offset.storage.topic / status.storage.topic:
    # connect-configs by default, connect-cluster-configs (Strimzi), docker-connect-configs
    # (Confluent's images), mm2-configs.<alias>.internal (MirrorMaker 2)
    (r".+-configs(\..*)?", "Kafka Connect (config.storage.topic, `*-configs`)"),
    (r".+-offsets(\..*)?", "Kafka Connect (offset.storage.topic, `*-offsets`)"),
    (r".+-status(\..*)?", "Kafka Connect (status.storage.topic, `*-status`)"),
    (r".+-changelog", "Kafka Streams (a state store's changelog)"),
    (r".+-repartition", "Kafka Streams (a repartition topic)"),
    (
        r".+-subscription-(registration|response)-topic",
        "Kafka Streams (a foreign-key join's topic)",
    ),
    (r"mm2-.*", "MirrorMaker 2 (its internal topics)"),
    (r".+\.checkpoints\.internal", "MirrorMaker 2 (checkpoints)"),
    (r"(.+\.)?heartbeats", "MirrorMaker 2 (heartbeats, and those replicated from a source)"),
)

_BUILT_IN = tuple((re.compile(p), whose) for p, whose in SYSTEM_TOPICS)


def system_topic(name: str, extra: Sequence[UserPattern] = ()) -> str | None:
    """Whose system topic `name` is (a phrase), or None when it matches no pattern.
    `extra`: the cluster's policy.system_topics, searched like policy.ignore."""
    for pattern, whose in _BUILT_IN:
        if pattern.fullmatch(name):
            return whose
    for user in extra:
        if user.search(name):
            return f"matched by {user.source}"
    return None
