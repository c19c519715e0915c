"""The boundary around the client libraries (adapter/boundary.py), without a broker: every call
into a library found by walking the adapter's source is inside it, the walk finds a new one
that is not, and what passes the boundary unchanged or becomes one sentence. The same calls
made to fail on a real broker: test_boundary_faults.py."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, KafkaException
from kafka.errors import (  # type: ignore[attr-defined]  # not in typings/kafka
    CorrelationIdError,
    IncompatibleBrokerVersion,
    KafkaProtocolError,
    KafkaTimeoutError,
    TopicAuthorizationFailedError,
    UnsupportedCodecError,
)

from reconciler.cluster.adapter import Connection, boundary
from reconciler.cluster.adapter.failures import NoAnswer
from reconciler.errors import ClusterError
from tests.cluster import boundary_walk

# A port nothing listens on: the brokers' release is unknown there, at once
NOWHERE = Connection("prod", "127.0.0.1:1", timeout=2.0)


def test_every_call_into_a_client_library_is_inside_the_boundary() -> None:
    found = boundary_walk.sites()
    outside = [str(site) for site in found if not site.guarded]
    assert not outside, "calls into a client library outside the boundary:\n" + "\n".join(outside)
    # the walk sees the calls it must: each module that talks to Kafka, both libraries
    modules = {site.module for site in found}
    assert {"read.py", "write.py", "describe.py", "evidence.py", "records.py"} <= modules
    texts = {site.text for site in found}
    assert {"admin.describe_configs", "future.result", "KafkaAdminClient", "Producer"} <= texts


@pytest.mark.parametrize(
    ("module", "added"),
    [
        # a librdkafka request on a parameter annotated with its client
        ("read.py", "def extra(admin: AdminClient) -> None:\n    admin.list_topics(timeout=1)\n"),
        # a future an admin call returned, read in another statement
        (
            "write.py",
            "def extra(admin: AdminClient) -> None:\n"
            "    futures = admin.delete_topics(['x'])\n"
            "    for future in futures.values():\n"
            "        future.result()\n",
        ),
        # a kafka-python method handed to the thread that calls it
        (
            "read.py",
            "def extra(admin: KafkaAdminClient) -> None:\n    bounded(admin.list_groups, 1.0)\n",
        ),
        # a method of a Cluster's own client
        ("cluster.py", "def extra(self: Cluster) -> None:\n    self._client().poll(0)\n"),
        # a library class made outside any block
        ("records.py", "def extra() -> None:\n    Consumer({})\n"),
    ],
)
def test_a_new_call_outside_the_boundary_is_found(
    module: str, added: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "adapter"
    shutil.copytree(boundary_walk.ADAPTER, copy, ignore=shutil.ignore_patterns("__pycache__"))
    if module == "cluster.py":  # as a method of Cluster
        path = copy / module
        text = path.read_text(encoding="utf-8")
        method = "    " + added.replace("self: Cluster", "self").replace("\n", "\n    ").rstrip()
        text = text.replace("    def describe(self)", f"{method}\n\n    def describe(self)", 1)
        path.write_text(text, encoding="utf-8")
    else:
        with (copy / module).open("a", encoding="utf-8") as out:
            out.write("\n\n" + added)
    monkeypatch.setattr(boundary_walk, "ADAPTER", copy)
    outside = [s for s in boundary_walk.sites() if not s.guarded]
    assert {s.unit.rpartition(".")[2] for s in outside} == {"extra"}, outside
    assert all(s.module == module for s in outside)
    last = added.strip().splitlines()[-1].strip()  # the last call written is among those found
    assert any(last.startswith(s.text) for s in outside), (last, outside)


@pytest.mark.parametrize(
    "exc",
    [
        KafkaException(KafkaError(KafkaError._TIMED_OUT, "timed out")),
        KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED, "denied")),
        TopicAuthorizationFailedError("denied"),
        KafkaTimeoutError("timed out"),
        IncompatibleBrokerVersion("no ListPartitionReassignments"),
        NoAnswer("no answer within 1 s"),
        ClusterError("said already"),
        KeyboardInterrupt(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_classified_failures_pass_the_boundary_unchanged(exc: BaseException) -> None:
    with pytest.raises(type(exc)) as raised, boundary.librdkafka(NOWHERE, "DescribeConfigs"):
        raise exc
    assert raised.value is exc


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), SystemExit(143)], ids=repr)
def test_a_signal_raised_inside_the_librarys_c_code_is_the_stop_not_its_failure(
    interrupt: BaseException,
) -> None:
    # a handler raising while librdkafka's C call waits: Python reports the call's result as
    # a SystemError whose cause is what the handler raised (seen from `plan` on SIGINT)
    with pytest.raises(type(interrupt)), boundary.librdkafka(NOWHERE, "DescribeCluster"):
        try:
            raise interrupt
        except BaseException as pending:
            raise SystemError("returned a result with an exception set") from pending


@pytest.mark.parametrize(
    "exc",
    [
        KeyError("endpoint_type"),
        AttributeError("'NoneType' object has no attribute 'id'"),
        TypeError("'NoneType' object is not subscriptable"),
        ValueError("bad frame"),
        IndexError("list index out of range"),
        struct.error("unpack requires a buffer of 4 bytes"),
        KafkaProtocolError("unexpected end of frame"),
        CorrelationIdError("correlation ids do not match"),
        UnsupportedCodecError("zstd"),
        TimeoutError("timed out"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_librarys_own_failure_becomes_one_sentence(exc: BaseException) -> None:
    with (
        pytest.raises(boundary.LibraryFailed) as raised,
        boundary.kafka_python(NOWHERE, "DescribeCluster"),
    ):
        raise exc
    said = str(raised.value)
    assert raised.value.exit_code == 1 and raised.value.__cause__ is exc
    assert "\n" not in said
    assert said.startswith("kafka-python 3.") and " failed on the DescribeCluster request for "
    assert "cluster 'prod' at 127.0.0.1:1" in said
    kind = type(exc)
    named = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    assert f"({named}: " in said  # struct.error, kafka.errors.KafkaProtocolError: whole names
    assert "Kafka release is unknown: they did not answer ApiVersions" in said
    assert "nothing was changed" in said and "--debug" in said and "upgrade kafka-python" in said


def test_the_sentence_of_a_mutation_says_it_may_have_been_made() -> None:
    with (
        pytest.raises(boundary.LibraryFailed) as raised,
        boundary.librdkafka(NOWHERE, "CreateTopics", mutation=True),
    ):
        raise KeyError("x")
    said = str(raised.value)
    assert said.startswith("confluent-kafka 2.") and "(librdkafka 2." in said
    assert "the CreateTopics request" in said
    assert "may have been carried out: run `reconciler plan`" in said
    assert "nothing was changed" not in said


def test_an_operation_that_is_not_a_request_is_named_as_such() -> None:
    with (
        pytest.raises(boundary.LibraryFailed) as raised,
        boundary.kafka_python(NOWHERE, "closing its client"),
    ):
        raise AttributeError("_manager")
    assert "failed on closing its client for cluster 'prod'" in str(raised.value)


def test_no_secret_of_the_connection_reaches_the_sentence() -> None:
    secret = Connection("prod", "127.0.0.1:1", (("sasl.password", "hunter2-secret"),), 2.0)
    with pytest.raises(boundary.LibraryFailed) as raised, boundary.librdkafka(secret, "Metadata"):
        raise ValueError("bad")
    assert "hunter2" not in str(raised.value)


def test_the_decorator_names_the_cluster_of_its_connection_argument() -> None:
    @boundary.calls("Metadata", "confluent-kafka")
    def send(connection: Connection, tries: int) -> int:
        raise IndexError(tries)

    with pytest.raises(boundary.LibraryFailed) as raised:
        send(NOWHERE, tries=3)
    assert "the Metadata request for cluster 'prod' at 127.0.0.1:1 (IndexError: 3;" in str(
        raised.value
    )


def test_a_librarys_own_failure_is_not_retried_even_when_the_library_calls_it_retriable() -> None:
    from reconciler.cluster.adapter import retry

    with pytest.raises(boundary.LibraryFailed) as raised, boundary.kafka_python(NOWHERE, "Fetch"):
        raise CorrelationIdError("correlation ids do not match")
    assert CorrelationIdError.retriable and not retry.retriable(raised.value)
