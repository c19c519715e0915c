"""A snapshot part Kafka refuses to this principal is recorded as not read, never a failed
snapshot: the topics' snapshot needs none of the ACLs, client quotas or SCRAM credentials, and a
cluster with an authorizer of its own (a managed one) may refuse one of them to a principal that
reads everything else. (Apache Kafka's authorizer asks the same Cluster Describe and
DescribeConfigs of the topics' read, so no real broker here can refuse only these: the
refusal's sentence is checked on the secured broker by tests/security/test_sasl_acls.py.)"""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException

from reconciler.cluster.adapter import Connection
from reconciler.cluster.adapter.cluster import _answered
from reconciler.errors import CannotAnswer, ClusterError, Refused

CONNECTION = Connection("prod", "127.0.0.1:1")


def test_a_denied_request_is_a_refusal_naming_the_missing_acl() -> None:
    cause = KafkaException(KafkaError(KafkaError.CLUSTER_AUTHORIZATION_FAILED))
    error = CONNECTION.error("describe the client quotas of", cause)
    assert isinstance(error, Refused)
    assert "lacks DescribeConfigs on cluster 'prod'" in str(error)
    assert error.why.endswith("lacks DescribeConfigs on the cluster")


def test_a_request_the_brokers_do_not_know_is_one_they_cannot_answer() -> None:
    cause = KafkaException(
        KafkaError(
            KafkaError._UNSUPPORTED_FEATURE,
            "Broker does not support 'DescribeUserScramCredentials' Kafka protocol",
        )
    )
    error = CONNECTION.error("describe the SCRAM credentials of", cause)
    assert isinstance(error, CannotAnswer)
    assert error.why == "the brokers do not answer the DescribeUserScramCredentials request"


def test_a_failed_connection_is_no_refusal() -> None:
    error = CONNECTION.error("describe", KafkaException(KafkaError(KafkaError._TRANSPORT)))
    assert not isinstance(error, Refused)


@pytest.mark.parametrize(
    "failure",
    [Refused("refused", "principal User:x lacks Describe on the cluster"),
     CannotAnswer("too old", "the brokers are older than 2.6")],
)  # fmt: skip
def test_a_refused_or_unanswerable_part_is_recorded_unread(failure: ClusterError) -> None:
    def read() -> int:
        raise failure

    unread: list[tuple[str, str]] = []
    assert _answered("quotas", read, unread) is None
    assert unread == [("quotas", getattr(failure, "why"))]  # noqa: B009


def test_any_other_failure_still_fails_the_snapshot() -> None:
    def read() -> int:
        raise ClusterError("could not describe cluster 'prod': timed out")

    with pytest.raises(ClusterError, match="timed out"):
        _answered("acls", read, [])
