"""Which failures a read retries, and that it stops within the request timeout (Finding 9)."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException
from kafka import errors as kafka_errors

from reconciler.cluster.adapter import Connection
from reconciler.cluster.adapter.failures import NoAnswer
from reconciler.cluster.adapter.retry import retriable, within_timeout
from reconciler.errors import ClusterError

# kafka-python's classes by name: its type stubs (typings/kafka) declare only what reconciler uses.
KafkaConnectionError: type[Exception] = getattr(kafka_errors, "KafkaConnectionError")  # noqa: B009
TopicAuthorizationFailedError: type[Exception] = getattr(  # noqa: B009
    kafka_errors, "TopicAuthorizationFailedError"
)

CONNECTION = Connection("test", "127.0.0.1:1", (("request.timeout.ms", "2000"),))


def _failure(cause: BaseException) -> ClusterError:
    error = CONNECTION.error("describe", cause)
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("cause", "expected"),
    [
        (KafkaException(KafkaError(KafkaError._TRANSPORT)), True),
        (KafkaException(KafkaError(KafkaError._TIMED_OUT)), True),
        (KafkaException(KafkaError(KafkaError.NOT_CONTROLLER)), True),
        (KafkaException(KafkaError(KafkaError.LEADER_NOT_AVAILABLE)), True),
        (KafkaConnectionError("111 ECONNREFUSED"), True),
        (NoAnswer("no answer within 1 s"), True),
        (KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)), False),
        (KafkaException(KafkaError(KafkaError._INVALID_ARG)), False),
        (TopicAuthorizationFailedError(), False),
    ],
)
def test_retriable_failures(cause: BaseException, expected: bool) -> None:
    """Finding 9: refused connections, timeouts, NOT_CONTROLLER... are retried; a refusal or
    bad settings are not."""
    assert retriable(_failure(cause)) is expected


def test_a_passing_failure_is_retried_with_fresh_clients_until_it_succeeds() -> None:
    """Finding 9: the ECONNREFUSED of a broker killed a moment ago does not fail the read."""
    calls: list[tuple[int, float]] = []
    fresh: list[int] = []

    def attempt(number: int, timeout: float) -> str:
        calls.append((number, timeout))
        if number < 2:
            raise _failure(KafkaConnectionError("111 ECONNREFUSED"))
        return "state"

    assert within_timeout(CONNECTION, attempt, lambda: fresh.append(1), lambda: None) == "state"
    assert [n for n, _ in calls] == [0, 1, 2] and len(fresh) == 2
    assert all(0 < t <= CONNECTION.seconds / 2 for _, t in calls)  # time left for another try


def test_a_lasting_failure_stops_within_the_timeout_and_a_refusal_at_once() -> None:
    """Finding 9: retries end with the request timeout, each attempt bounded by half of what
    is left; a non-retriable failure is raised on the first attempt."""
    timeouts: list[float] = []

    def failing(_: int, timeout: float) -> None:
        timeouts.append(timeout)
        raise _failure(KafkaException(KafkaError(KafkaError._TRANSPORT)))

    with pytest.raises(ClusterError):
        within_timeout(CONNECTION, failing, lambda: None, lambda: None)
    assert len(timeouts) > 1 and max(timeouts) <= CONNECTION.seconds / 2

    refused: list[int] = []

    def refusing(number: int, _: float) -> None:
        refused.append(number)
        raise _failure(KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)))

    with pytest.raises(ClusterError):
        within_timeout(CONNECTION, refusing, lambda: None, lambda: None)
    assert refused == [0]


def test_a_retry_reads_the_broker_values_of_a_broker_that_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding 9: a DescribeConfigs of a BROKER goes to that very broker, so once the probe has
    found one silent (killed, still listed until fenced), no retry asks it for its values: each
    retry's choice is among the others. CI, 2026-11-30: the third attempt asked the dead one."""
    from reconciler.cluster.adapter import cluster as cluster_module
    from reconciler.cluster.adapter import probe, read, retry
    from reconciler.cluster.adapter.probe import Address

    dead = Address(3, "127.0.0.1", 3)
    known = [Address(1, "127.0.0.1", 1), Address(2, "127.0.0.1", 2), dead]
    monkeypatch.setattr(probe, "unanswered", lambda *_: [(dead, "refused")])
    monkeypatch.setattr(cluster_module, "steer_controller", lambda *_: None)
    asked: list[str] = []

    def attempt(number: int, _timeout: float) -> str:
        asked.append(read.defaults_broker(ids(), number))
        if number < 4:
            raise _failure(KafkaConnectionError("111 ECONNREFUSED"))
        return "state"

    connection = Connection("test", "127.0.0.1:1", (("request.timeout.ms", "30000"),))
    under_test = cluster_module.Cluster(connection)
    under_test._known = known

    def ids() -> list[int]:
        return under_test._answering_ids([1, 2, 3])

    monkeypatch.setattr(retry, "FIRST_PAUSE", 0.0)
    assert under_test._read_once(attempt) == "state"
    assert asked[0] == "1" and "3" not in asked[1:], asked
