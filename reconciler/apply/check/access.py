"""Pre-flight: does the principal hold every ACL the plan's operations need? Before any change.

Kafka tells a client what it may do (KIP-430 authorized operations) in one DescribeCluster and
one Metadata request: the cluster's and each touched topic's operations, with Kafka's own
implications (Alter implies Describe, ...). A topic to be created does not exist yet, so Create
is known only from the cluster (Create on Cluster covers every topic); otherwise Kafka's
validate_only CreateTopics answers per topic (prefixed ACLs). The operation each request needs
is listed in reconciler/cluster/protocol/authorized.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from reconciler.apply.execute.operations import KINDS, Operation
from reconciler.cluster.ports import AccessProbe
from reconciler.cluster.protocol.authorized import lacks
from reconciler.cluster.protocol.requests import NewTopicRequest
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.cluster.state import ClusterState
from reconciler.errors import ApplyRefused
from reconciler.planning.changes import CreateTopic

DENIED = {"TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED"}

# (operation, topic or None for the cluster, what it is needed for)
Need = tuple[str, str | None, str]


def needs(ops: Sequence[Operation]) -> list[Need]:
    """The ACL each operation needs, its change kind's row of KINDS."""
    found: list[Need] = []
    for op in ops:
        kind = KINDS[type(op.change)]
        resource = None if kind.acl_on_cluster else op.topic
        found.append((kind.acl, resource, kind.needed_to.format(topic=op.topic)))
    return found


def access_needs(acl_changes: int, quota_changes: int, user_changes: int = 0) -> list[Need]:
    """The cluster ACLs the plan's ACL, client quota and SCRAM user changes need
    (protocol/authorized.py): checked with the topics' so that a principal lacking them is told
    before any change, not after the topic levels ran."""
    found: list[Need] = []
    # CreateAcls and DeleteAcls, AlterUserScramCredentials: Alter on the cluster
    whys = [w for n, w in ((acl_changes, "grant and revoke ACLs"), (user_changes,
            "change SCRAM users")) if n]  # fmt: skip
    if whys:
        found.append(("Alter", None, " and ".join(whys)))
    if quota_changes:
        found.append(("AlterConfigs", None, "change client quotas"))
    return found


def check(
    cluster: AccessProbe,
    state: ClusterState,
    ops: Sequence[Operation],
    besides: Sequence[Need] = (),
) -> None:
    """Raise ApplyRefused naming each missing permission; changes nothing. `besides`: what
    the plan's other changes need (access_needs)."""
    wanted = needs(ops) + list(besides)
    if not wanted:
        return
    # The lock is released by deleting its topic: without Delete it would outlive this apply.
    wanted.append(("Delete", LOCK_TOPIC, "release the apply lock (topic deletion)"))
    topics = {topic for _, topic, _ in wanted if topic is not None}
    authorized = cluster.authorized(topics)
    conn = cluster.connection
    missing: list[str] = []
    for operation, topic, why in dict.fromkeys(wanted):
        if not authorized.allows(operation, topic):
            resource = "the cluster" if topic is None else f"topic {topic}"
            missing.append(lacks(conn, operation, resource, why))
    creates = [op.topic for op in ops if isinstance(op.change, CreateTopic)]
    if creates and not authorized.allows("Create", None):
        answers = cluster.create_topics(
            [NewTopicRequest(t, None, None) for t in creates], validate_only=True
        )
        for topic, failure in sorted(answers.items()):
            if failure is not None and failure.code in DENIED:
                missing.append(lacks(conn, "Create", f"topic {topic}", f"create {topic}"))
    if missing:
        raise ApplyRefused("\n".join(missing[:10]) + _more(len(missing)))


def _more(count: int) -> str:
    return f"\n... and {count - 10} more missing permission(s)" if count > 10 else ""
