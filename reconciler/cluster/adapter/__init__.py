"""The one package that imports Kafka client libraries; everything else sees frozen values.

confluent-kafka (librdkafka) serves everything it can; kafka-python >= 3 is used only for
KIP-455 partition reassignments (list and alter), which librdkafka does not implement.

    connect.py    clients built from a cluster's bootstrap and `client:` properties; errors
    describe.py   DescribeCluster: brokers, racks, controller (also behind `local status`)
    read.py       the whole ClusterState in a fixed number of round trips
"""

from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.describe import Broker, ClusterDescription, describe_cluster
from reconciler.cluster.adapter.read import read_state

__all__ = ["Broker", "ClusterDescription", "Connection", "describe_cluster", "read_state"]
