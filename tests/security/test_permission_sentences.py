"""The translation of Kafka's authorization answers into one sentence, without a broker (the
real-broker cases are in test_sasl_acls.py)."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException
from kafka.errors import (  # type: ignore[attr-defined]  # not in typings/kafka
    ClusterAuthorizationFailedError,
    SaslAuthenticationFailedError,
)

from reconciler.cluster.adapter import Connection
from reconciler.cluster.protocol.authorized import Authorized, refused

CONN = Connection("prod", "kafka:9092", (("sasl.username", "ci"), ("sasl.password", "pw-123")))


def explain(connection: Connection, action: str, exc: BaseException) -> str | None:
    """The sentence Connection.error gives a refusal (failures.py's typed value), else None."""
    failed = connection.failure(action, exc)
    return failed.sentence() if failed is not None else None


def principal(connection: Connection) -> str:
    return connection.principal


def _denied(code: int) -> KafkaException:
    return KafkaException(KafkaError(code, "Authorization failed."))


@pytest.mark.parametrize(
    ("action", "code", "expected"),
    [
        ("describe the configs of orders on", KafkaError.TOPIC_AUTHORIZATION_FAILED,
         "lacks DescribeConfigs on topic orders of cluster 'prod' (needed to describe the "
         "configs of orders)"),
        ("describe the configs of 1 on", KafkaError.CLUSTER_AUTHORIZATION_FAILED,
         "lacks DescribeConfigs on cluster 'prod' (needed to describe the configs of 1)"),
        ("describe topic 'orders' of", KafkaError.TOPIC_AUTHORIZATION_FAILED,
         "lacks Describe on topic orders of cluster 'prod'"),
        ("list the partition reassignments of", KafkaError.CLUSTER_AUTHORIZATION_FAILED,
         "lacks Describe on cluster 'prod' (needed to list the partition reassignments)"),
        ("set the throttle rate of broker 2 of", KafkaError.CLUSTER_AUTHORIZATION_FAILED,
         "lacks AlterConfigs on cluster 'prod' (needed to set the throttle rate of broker 2)"),
        ("describe the client quotas of", KafkaError.CLUSTER_AUTHORIZATION_FAILED,
         "lacks DescribeConfigs on cluster 'prod' (needed to describe the client quotas)"),
        ("alter the client quotas of", KafkaError.CLUSTER_AUTHORIZATION_FAILED,
         "lacks AlterConfigs on cluster 'prod' (needed to alter the client quotas)"),
    ],
)  # fmt: skip
def test_each_read_names_the_operation_it_needed(action: str, code: int, expected: str) -> None:
    sentence = explain(CONN, action, _denied(code))
    assert sentence is not None
    assert sentence.startswith(f"principal User:ci {expected}")
    assert "kafka-acls --bootstrap-server kafka:9092 --add --allow-principal User:ci" in sentence
    assert "pw-123" not in sentence


def test_kafka_python_message_names_the_operation() -> None:
    exc = ClusterAuthorizationFailedError("... needs DESCRIBE permission.")
    sentence = explain(CONN, "list the partition reassignments of", exc)
    assert sentence is not None and "lacks Describe on cluster 'prod'" in sentence


def test_other_failures_are_left_to_the_generic_message() -> None:
    assert explain(CONN, "describe", KafkaException(KafkaError(KafkaError.UNKNOWN))) is None
    assert refused(CONN, "TOPIC_ALREADY_EXISTS", "Create", "topic t", "create t") is None
    assert "lacks Create on topic t of" in (
        refused(CONN, "TOPIC_AUTHORIZATION_FAILED", "Create", "topic t", "create t") or ""
    )


def test_kafka_python_authentication_failure_is_a_refusal_sentence() -> None:
    sentence = explain(CONN, "connect to", SaslAuthenticationFailedError("invalid credentials"))
    assert sentence is not None
    assert "refused the credentials of User:ci" in sentence and "pw-123" not in sentence


def test_principal_from_client_settings() -> None:
    assert principal(CONN) == "User:ci"
    assert principal(Connection("x", "h:1")) == "User:ANONYMOUS"


def test_authorized_operations_follow_kafkas_implications() -> None:
    auth = Authorized(
        cluster=frozenset({"Describe"}),
        topics={"a": frozenset({"Alter", "AlterConfigs"}), "hidden": None},
    )
    assert auth.allows("Describe", "a")  # Alter implies Describe
    assert auth.allows("DescribeConfigs", "a")  # AlterConfigs implies DescribeConfigs
    assert not auth.allows("Delete", "a")
    assert not auth.allows("Describe", "hidden")
    assert auth.allows("Describe", "absent")  # Kafka said "unknown topic": it may Describe
    assert not auth.allows("Create", "absent")
    assert auth.allows("Describe", None) and not auth.allows("Alter", None)
    unknown = Authorized(cluster=frozenset({"All"}), topics={"old": frozenset({"All"})})
    assert unknown.allows("Delete", "old") and unknown.allows("Create", None)  # pre-KIP-430
