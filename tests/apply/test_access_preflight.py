"""Apply's pre-flight asks for the cluster ACLs a plan's client quota and ACL changes need, with
the topics' (apply/check/access.py): a principal lacking them is told before any change, not
after the topic levels ran. On the fake (its KIP-430 answer); the same refusal from real brokers
is in tests/security/test_sasl_acls.py."""

from __future__ import annotations

import dataclasses

from reconciler.apply import apply_plan
from reconciler.apply.check.access import access_needs
from reconciler.apply.record.results import ApplyResult
from reconciler.cluster.protocol.quotas import ClusterQuotas
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.errors import ApplyRefused
from reconciler.planning.plan import make_plan
from reconciler.spec.model import ClusterConfig
from reconciler.spec.quotas import ClientQuota, QuotaEntity
from tests.fakes.cluster import CLUSTER_RIGHTS, TOPIC_RIGHTS, FakeKafka
from tests.planning.factories import desired, spec

BILLING = QuotaEntity(user="billing")
QUOTA = ClientQuota(BILLING, (("producer_byte_rate", 1e6),))


def test_access_needs_name_the_cluster_operation_of_each_kind() -> None:
    assert access_needs(0, 0) == []
    assert access_needs(2, 0) == [("Alter", None, "grant and revoke ACLs")]
    assert access_needs(0, 1) == [("AlterConfigs", None, "change client quotas")]


def _apply(rights: frozenset[str]) -> tuple[FakeKafka, ApplyResult | ApplyRefused]:
    """Apply a plan creating a topic and setting a quota, as a principal holding `rights` on
    the cluster: its result, or the refusal."""
    kafka = FakeKafka()
    kafka.rights = {None: rights, LOCK_TOPIC: TOPIC_RIGHTS}
    state = dataclasses.replace(kafka.client().read_state(), quotas=ClusterQuotas(()))
    config = ClusterConfig("fake", "fake-kafka:9092", quotas=(QUOTA,))
    plan = make_plan(desired(spec("a.new", partitions=1, replication_factor=1)), state, config)
    assert plan.quotas and plan.changes
    try:
        return kafka, apply_plan(plan, kafka.client())
    except ApplyRefused as exc:
        return kafka, exc


def test_a_quota_change_without_alterconfigs_on_the_cluster_changes_nothing() -> None:
    kafka, refused = _apply(CLUSTER_RIGHTS - {"AlterConfigs"})
    assert isinstance(refused, ApplyRefused), refused
    said = str(refused)
    assert "lacks AlterConfigs on cluster 'fake' (needed to change client quotas)" in said
    assert said.count("lacks ") == 1, said
    assert "a.new" not in kafka.topics
    assert kafka.quotas == {}
    assert "alter_quotas" not in kafka.sent


def test_with_alterconfigs_the_same_plan_applies() -> None:
    """The control: the refusal above is the missing right's."""
    kafka, result = _apply(CLUSTER_RIGHTS)
    assert isinstance(result, ApplyResult) and result.ok, result
    assert "a.new" in kafka.topics
    assert kafka.quotas == {BILLING: {"producer_byte_rate": 1e6}}
