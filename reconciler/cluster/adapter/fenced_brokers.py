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

from collections.abc import Mapping

DESCRIBE_CLUSTER = 60  # the request's api key
INCLUDE_FENCED_SINCE = 2  # DescribeCluster version with IncludeFencedBrokers (KIP-1073)


def shown(api_versions: Mapping[int, tuple[int, int]] | None) -> bool:
    """True when the broker's ApiVersions answer (api key number -> (min, max)) has
    DescribeCluster v2 or newer, so its answer lists fenced brokers; False for older brokers
    (no DescribeCluster before 2.8, versions 0 and 1 until 4.0) and for no answer."""
    versions = api_versions.get(DESCRIBE_CLUSTER) if api_versions is not None else None
    return versions is not None and versions[1] >= INCLUDE_FENCED_SINCE
