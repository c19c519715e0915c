"""Whether a cluster can show its fenced brokers, decided from the broker's ApiVersions answer.

DescribeCluster (KIP-700, Kafka 2.8) lists only the brokers that are up. From its version 2
(KIP-1073, Kafka 4.0) a client may ask for the registered but fenced ones too
(IncludeFencedBrokers): the stopped brokers of a KRaft cluster. Before that no request shows a
stopped broker at all: a ZooKeeper-mode broker that stops drops its registration, and a KRaft
cluster before 4.0 answers without fenced brokers. So below version 2 the read is not sent:
the answer could not name one, and kafka-python 3.0 cannot decode version 0 anyway (it pops
EndpointType, a field of version 1). The caller then knows that a down broker no replica
names is invisible, rather than believing none is down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

DESCRIBE_CLUSTER = 60  # the request's api key
INCLUDE_FENCED_SINCE = 2  # DescribeCluster version with IncludeFencedBrokers (KIP-1073)


def shown(admin: KafkaAdminClient) -> bool:
    """True when the broker kafka-python bootstrapped from answers DescribeCluster v2 or
    newer, so its answer lists fenced brokers; False for older brokers (no DescribeCluster
    before 2.8, versions 0 and 1 until 4.0)."""
    # The raw answer, by number: kafka-python's api_versions() maps each key to its ApiKey
    # enum and raises ValueError on a key newer than the library (Kafka 4.4 answers key 93).
    answer = admin._manager.broker_version_data
    versions = answer.api_versions.get(DESCRIBE_CLUSTER) if answer is not None else None
    return versions is not None and versions[1] >= INCLUDE_FENCED_SINCE
