"""What a plan says where the cluster cannot show a broker that is down.

A stopped broker drops out of what DescribeCluster and Metadata list. Kafka 4.0 lists it again
as fenced when asked (KIP-1073); before that, and in ZooKeeper mode, nothing shows it unless
replicas name it (ClusterState.down_unseen). Advice that counts the brokers (a replication
factor or min.insync.replicas the cluster cannot hold, a broker the cluster does not list)
then says so, rather than count the brokers up as all the cluster has.
"""

from __future__ import annotations

UNSEEN = (
    "this cluster cannot show whether a broker is down (DescribeCluster lists fenced brokers "
    "from Kafka 4.0, KIP-1073; older and ZooKeeper-mode clusters list only the brokers up)"
)
