"""The one package that imports Kafka client libraries; everything else sees frozen values.

confluent-kafka (librdkafka) serves everything it can; kafka-python >= 3 is used only for
KIP-455 partition reassignments (list and alter), which librdkafka does not implement. Outside
this package, code holds a `Cluster` (or a `Connection`, the settings it is made from) and gets
back reconciler.cluster.state and reconciler.cluster.protocol values (the requests, the answers,
the failures), never a client object or a client library's dict.

    cluster.py    Cluster: owns the clients, every request reconciler sends, frozen values out
    connect.py    Connection (bootstrap, `client:` properties, timeout); building the clients
    client_security.py  `client:`'s security settings as each client takes them (one SSLContext)
    failures.py   the clients' failures classified by Kafka's codes into protocol/'s Denied,
                  Unauthenticated, Unsupported (the only module that reads a client's message)
    boundary.py   the one boundary around every call into either library: a library's own
                  failure becomes LibraryFailed, one sentence (broker_version.py: the release)
    authorization.py  what the principal may do (KIP-430), asked of the cluster
    describe.py   DescribeCluster: brokers, racks, controller (also behind `local status`)
    read.py       the whole ClusterState in a fixed number of round trips; some topics' state
    retry.py      reads retried with backoff within the request timeout, for failures that pass
    probe.py      which brokers do not answer, named when a read fails for want of them
    write.py      mutations for apply, one request per call
    replication_throttle.py   replication throttles around a reassignment (apply --throttle)
    records.py    records on the cluster's own topics (acks=all), read back with offsets
    lock_topic.py   the per-cluster apply lock, a topic carrying its holder's token
    audit_topic.py  the audit topic: made ready, written, read back
"""

from reconciler.cluster.adapter.cluster import Cluster, describe_cluster, read_state
from reconciler.cluster.adapter.connect import Connection

__all__ = ["Cluster", "Connection", "describe_cluster", "read_state"]
