"""Client failures classified by Kafka's codes into typed values, without a broker (the sentences
they make are asserted in tests/security; the real refusals in test_sasl_acls.py, test_tls.py)."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException
from kafka.errors import (  # type: ignore[attr-defined]  # not in typings/kafka
    ClusterAuthorizationFailedError,
    GroupAuthorizationFailedError,
    KafkaTimeoutError,
    SaslAuthenticationFailedError,
    TopicAuthorizationFailedError,
)

from reconciler.cluster.adapter import Connection
from reconciler.cluster.adapter.evidence import _group_problem
from reconciler.cluster.adapter.failures import (
    CLUSTER_DENIED,
    GROUP_DENIED,
    TOPIC_DENIED,
    NoAnswer,
    answer_code,
    code_of,
)
from reconciler.cluster.protocol.failures import Denied, Resource, Unauthenticated

CI = (("sasl.username", "ci"), ("sasl.password", "pw-123"))


def _librdkafka(code: int, text: str = "Authorization failed.") -> KafkaException:
    return KafkaException(KafkaError(code, text))


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (_librdkafka(KafkaError.TOPIC_AUTHORIZATION_FAILED), TOPIC_DENIED),
        (KafkaError(KafkaError.CLUSTER_AUTHORIZATION_FAILED), CLUSTER_DENIED),
        (TopicAuthorizationFailedError("no"), TOPIC_DENIED),
        (GroupAuthorizationFailedError("no"), GROUP_DENIED),
        (ClusterAuthorizationFailedError("no"), CLUSTER_DENIED),
        (SaslAuthenticationFailedError("no"), KafkaError.SASL_AUTHENTICATION_FAILED),
        (KafkaTimeoutError("no"), None),  # kafka-python's own, no Kafka code
        (NoAnswer("no answer within 1 s"), None),
        # not a client's: an errno of the operating system is no Kafka code
        (OSError(31, "Too many links"), None),
        (ValueError("TOPIC_AUTHORIZATION_FAILED"), None),
    ],
)  # fmt: skip
def test_the_code_comes_from_either_clients_error_not_its_text(
    exc: BaseException, code: int | None
) -> None:
    assert code_of(exc) == code


def test_an_authorization_failure_is_a_typed_value_with_operation_resource_and_principal() -> None:
    connection = Connection("prod", "kafka:9092", CI)
    found = connection.failure("describe topic 'orders' of", TopicAuthorizationFailedError("no"))
    assert found == Denied(
        "prod",
        "kafka:9092",
        "User:ci",
        "Describe",
        Resource("topic", "orders"),
        "describe topic 'orders'",
    )
    found = connection.failure("describe the configs of 2 on", _librdkafka(CLUSTER_DENIED))
    assert isinstance(found, Denied)
    assert (found.operation, found.resource) == ("DescribeConfigs", Resource("cluster"))


def test_words_in_a_message_do_not_make_a_refusal_only_the_code_does() -> None:
    connection = Connection("prod", "kafka:9092", CI)
    said = _librdkafka(KafkaError.UNKNOWN, "TOPIC_AUTHORIZATION_FAILED: GroupAuthorizationFailed")
    assert connection.failure("describe topic 'orders' of", said) is None
    # kafka-python answers DescribeGroups per group with text: its "[Error N]" is the code
    assert answer_code("[Error 30] GroupAuthorizationFailedError: no") == GROUP_DENIED
    assert answer_code("GroupAuthorizationFailedError: no") is None
    refused = _group_problem(connection, "billing", GROUP_DENIED, "denied")
    assert refused.startswith("principal User:ci lacks Describe on group billing of cluster")
    other = _group_problem(connection, "billing", None, "GroupAuthorizationFailedError")
    assert other == "consumer group 'billing' could not be read (GroupAuthorizationFailedError)"


@pytest.mark.parametrize("text", ["the cluster", "topic orders", "group billing", "the topics"])
def test_a_resource_phrase_reads_back_as_the_same_resource(text: str) -> None:
    assert str(Resource.parse(text)) == text


def _refuse(connection: Connection, code: int, text: str) -> None:
    """What librdkafka's error callback does for a client of this connection."""
    conf: dict[str, object] = {}
    connection.watch.attach(conf)
    callback = conf["error_cb"]
    assert callable(callback)
    callback(KafkaError(code, text))


def test_a_refused_login_is_state_of_its_connection_not_of_equal_ones() -> None:
    first = Connection("prod", "kafka:9092", CI)
    second = Connection("prod", "kafka:9092", CI)
    assert first == second and hash(first) == hash(second)  # the watch is not part of the value
    _refuse(first, KafkaError._AUTHENTICATION, "SASL authentication error: Authentication failed")
    found = first.unauthenticated()
    assert isinstance(found, Unauthenticated) and found.how == "sasl"
    assert found.principal == "User:ci"
    assert second.unauthenticated() is None


def test_a_refused_handshake_is_told_from_refused_credentials_by_its_code() -> None:
    connection = Connection("prod", "kafka:9092", (("ssl.ca.location", "/ca.pem"),))
    _refuse(connection, KafkaError._SSL, "ssl://kafka:9092/bootstrap: SSL handshake failed")
    found = connection.unauthenticated()
    assert isinstance(found, Unauthenticated) and found.how == "tls"
    assert found.sentence().startswith(
        "the TLS handshake with cluster 'prod' at kafka:9092 failed (SSL handshake failed): "
    )
    assert "(/ca.pem)" in found.sentence()


def test_a_timeout_after_a_refused_login_is_the_refusal() -> None:
    connection = Connection("prod", "kafka:9092", CI)
    timed_out = _librdkafka(KafkaError._TIMED_OUT, "Failed while waiting for controller")
    assert connection.failure("describe", timed_out) is None
    _refuse(connection, KafkaError._AUTHENTICATION, "SASL authentication error: bad password")
    assert isinstance(connection.failure("describe", timed_out), Unauthenticated)


def test_a_sasl_state_race_is_not_remembered_as_a_refused_login() -> None:
    """A re-authentication's SaslHandshake the broker refuses as out of state (measured with
    6-second MSK IAM tokens) is followed by a fresh login on a new connection: the watch
    keeps it from ending the next request as refused credentials; a real refusal it keeps."""
    from confluent_kafka import KafkaError

    from reconciler.cluster.adapter.failures import Watch

    watch = Watch()
    conf: dict[str, object] = {}
    watch.attach(conf)
    report = conf["error_cb"]
    assert callable(report)
    report(KafkaError(KafkaError._AUTHENTICATION,
                      "sasl_plaintext://127.0.0.1:1/2: SASL OAUTHBEARER mechanism handshake "
                      "failed: Broker: Request not valid in current SASL state: broker's "
                      "supported mechanisms:  (after 4ms in state AUTH_HANDSHAKE)"))  # fmt: skip
    assert watch.refused() is None
    refused = "sasl_plaintext://127.0.0.1:1/2: SASL authentication error: Authentication failed"
    report(KafkaError(KafkaError._AUTHENTICATION, refused))
    assert watch.refused() == (int(KafkaError._AUTHENTICATION), refused)
