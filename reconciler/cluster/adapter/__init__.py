"""The one package that imports Kafka client libraries; everything else sees frozen values.

confluent-kafka (librdkafka) serves everything it can; kafka-python >= 3 is used only for
KIP-455 partition reassignments (list and alter), which librdkafka does not implement.

    connect.py    clients built from a cluster's bootstrap and `client:` properties; errors
    describe.py   DescribeCluster: brokers, racks, controller (also behind `local status`)
    read.py       the whole ClusterState in a fixed number of round trips
    write.py      mutations for apply, one request per call; what the brokers show now
    throttle.py   replication throttles around a reassignment (apply --throttle)
    lock.py       the per-cluster apply lock, a topic on the cluster itself
    audit.py      the audit record, written to a topic on the cluster
"""

from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.describe import Broker, ClusterDescription, describe_cluster
from reconciler.cluster.adapter.read import read_state

__all__ = ["Broker", "ClusterDescription", "Connection", "describe_cluster", "read_state"]

# Apply: mutations (one request per call), the cluster-wide lock and the audit topic.
from reconciler.cluster.adapter.audit import AUDIT_TOPIC, read_audit, write_audit
from reconciler.cluster.adapter.lock import (
    LOCK_TOPIC,
    lock_holder,
    release_lock,
    try_lock,
)
from reconciler.cluster.adapter.throttle import Moves, Throttle, clear_throttle, set_throttle
from reconciler.cluster.adapter.write import (
    ConfigUpdate,
    Failure,
    NewTopicRequest,
    Observed,
    PartitionsRequest,
    alter_reassignments,
    alter_topic_configs,
    create_partitions,
    create_topics,
    delete_topics,
    observe,
    reassigning,
)

__all__ += [
    "AUDIT_TOPIC",
    "LOCK_TOPIC",
    "ConfigUpdate",
    "Failure",
    "Moves",
    "NewTopicRequest",
    "Observed",
    "PartitionsRequest",
    "Throttle",
    "alter_reassignments",
    "alter_topic_configs",
    "clear_throttle",
    "create_partitions",
    "create_topics",
    "delete_topics",
    "lock_holder",
    "observe",
    "read_audit",
    "reassigning",
    "release_lock",
    "set_throttle",
    "try_lock",
    "write_audit",
]
