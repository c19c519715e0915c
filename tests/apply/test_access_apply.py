"""A plan's client quota and ACL changes in apply, on the fake: the pre-flight asks for the
cluster ACLs they need with the topics' (apply/check/access.py), so a principal lacking them is
told before any change, not after the topic levels ran (the same refusal from real brokers:
tests/security/test_sasl_acls.py); and the audit record holds them: the started record the
quota changes, the finished one how many were sent and Kafka's refusals."""

from __future__ import annotations

import dataclasses

import pytest

from reconciler.apply import apply_plan
from reconciler.apply.check.access import access_needs
from reconciler.apply.record import journal
from reconciler.apply.record.results import ApplyResult
from reconciler.cluster.protocol.acls import ClusterAcls
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.quotas import ClusterQuotas
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.cluster.protocol.scram import ClusterScram
from reconciler.errors import ApplyRefused
from reconciler.planning.json_plan import to_json as plan_to_json
from reconciler.planning.plan import make_plan
from reconciler.spec.model import ClusterConfig
from reconciler.spec.quotas import ClientQuota, QuotaEntity
from reconciler.spec.raw_acls import RawAcl
from reconciler.spec.scram_users import ScramUser
from tests.fakes.cluster import CLUSTER_RIGHTS, TOPIC_RIGHTS, FakeKafka
from tests.planning.factories import desired, spec

BILLING = QuotaEntity(user="billing")
QUOTA = ClientQuota(BILLING, (("producer_byte_rate", 1e6),))


def test_access_needs_name_the_cluster_operation_of_each_kind() -> None:
    assert access_needs(0, 0) == []
    assert access_needs(2, 0) == [("Alter", None, "grant and revoke ACLs")]
    assert access_needs(0, 1) == [("AlterConfigs", None, "change client quotas")]
    assert access_needs(0, 0, 1) == [("Alter", None, "change SCRAM users")]
    assert access_needs(1, 0, 1) == [
        ("Alter", None, "grant and revoke ACLs and change SCRAM users")
    ]


def _apply(
    rights: frozenset[str], kafka: FakeKafka | None = None
) -> tuple[FakeKafka, ApplyResult | ApplyRefused]:
    """Apply a plan creating a topic and setting a quota, as a principal holding `rights` on
    the cluster: its result, or the refusal."""
    kafka = kafka or FakeKafka()
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


def _journal(kafka: FakeKafka, result: ApplyResult) -> dict[str, object]:
    assert result.audit is not None
    return journal.applies(kafka.client().read_audit())[result.audit["apply_id"]]


def test_the_audit_record_holds_the_quota_changes_and_what_was_sent() -> None:
    kafka, result = _apply(CLUSTER_RIGHTS)
    assert isinstance(result, ApplyResult) and result.ok, result
    entry = _journal(kafka, result)
    started = entry["started"]
    assert isinstance(started, dict)
    assert started["quota_changes"] == [
        {"entity": {"user": "billing"}, "key": "producer_byte_rate", "before": None,
         "after": 1e6, "hazards": []}
    ]  # fmt: skip
    assert entry["record"]["access"] == {"sent": 1, "refused": []}  # type: ignore[index]
    assert result.audit is not None and result.audit["access"] == {"sent": 1, "refused": []}


def test_a_refused_quota_is_in_the_finished_record_in_its_sentence() -> None:
    kafka = FakeKafka()
    kafka.refused["user=billing"] = Failure("POLICY_VIOLATION", "not today")
    kafka, result = _apply(CLUSTER_RIGHTS, kafka)
    assert isinstance(result, ApplyResult) and not result.ok, result
    record = _journal(kafka, result)["record"]
    assert isinstance(record, dict) and record["outcome"] == "failed"
    assert record["access"] == {
        "sent": 1,
        "refused": ["could not change the quotas of user=billing: POLICY_VIOLATION: not today"],
    }


def test_a_plan_without_access_changes_writes_no_access_keys() -> None:
    """Additive: a topics-only apply's records are as before."""
    kafka = FakeKafka()
    specs = desired(spec("a.new", partitions=1, replication_factor=1))
    plan = make_plan(specs, kafka.client().read_state(), ClusterConfig("fake", "fake-kafka:9092"))
    result = apply_plan(plan, kafka.client())
    assert result.ok and result.audit is not None and "access" not in result.audit
    entry = _journal(kafka, result)
    assert "quota_changes" not in entry["started"]  # type: ignore[operator]
    assert "access" not in entry["record"]  # type: ignore[operator]


def test_the_audit_record_holds_raw_acl_changes_and_what_was_sent() -> None:
    """A plan's raw `acls:` grant (no topic change): the started record's acl_changes are the
    plan JSON's `acls`, and the finished record counts the grant sent."""
    kafka = FakeKafka()
    ops = RawAcl("User:ops", "group", "ops", "literal", ("Read",))
    state = dataclasses.replace(kafka.client().read_state(), acls=ClusterAcls(()))
    specs = dataclasses.replace(desired(), acls=(ops,))
    plan = make_plan(specs, state, ClusterConfig("fake", "fake-kafka:9092"))
    assert plan.acls and plan.applyable
    result = apply_plan(plan, kafka.client())
    assert result.ok and result.audit is not None, result
    entry = _journal(kafka, result)
    started = entry["started"]
    assert isinstance(started, dict)
    assert started["acl_changes"] == plan_to_json(plan)["acls"]
    assert [c["action"] for c in started["acl_changes"]] == ["grant"]
    assert "quota_changes" not in started
    assert result.audit["access"] == {"sent": 1, "refused": []}
    assert len(kafka.acls) == 1


def test_the_audit_record_holds_user_changes_without_any_secret_or_digest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A SCRAM user created: the started record's user_changes are the JSON plan's, less the
    secret_digest (the record is kept forever); the secret is in no record."""
    secret = "audit-s3cr3t-Xy"
    monkeypatch.setenv("BILLING_PW", secret)
    kafka = FakeKafka()
    state = dataclasses.replace(kafka.client().read_state(), scram=ClusterScram((), ()))
    users = (ScramUser("billing", "SCRAM-SHA-512", 4096, "BILLING_PW"),)
    plan = make_plan(desired(), state, ClusterConfig("fake", "fake-kafka:9092", users=users))
    assert plan.users and plan_to_json(plan)["users"][0].get("secret_digest")
    result = apply_plan(plan, kafka.client())
    assert result.ok and result.audit is not None, result
    started = _journal(kafka, result)["started"]
    assert isinstance(started, dict)
    (user,) = started["user_changes"]
    assert (user["name"], user["action"], user["password_from"]) == (
        "billing",
        "create",
        "BILLING_PW",
    )
    assert "secret_digest" not in user
    assert result.audit["access"] == {"sent": 1, "refused": []}
    written = b"".join(kafka.client().read_audit())
    assert secret.encode() not in written
    assert plan_to_json(plan)["users"][0]["secret_digest"].encode() not in written
