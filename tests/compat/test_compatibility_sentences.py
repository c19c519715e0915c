"""The sentences for a broker lacking a request, from kafka-python's own verdict on the
broker's ApiVersions answer (kafka/protocol/broker_version_data.py), for each way it fails."""

from __future__ import annotations

import pytest
from kafka.errors import IncompatibleBrokerVersion, KafkaTimeoutError
from kafka.protocol.admin import AlterPartitionReassignmentsRequest
from kafka.protocol.broker_version_data import BrokerVersionData

from reconciler.cluster.adapter.compatibility import too_old
from reconciler.cluster.adapter.connect import Connection

CONNECTION = Connection("prod", "kafka-1:9092")
KEY = AlterPartitionReassignmentsRequest.API_KEY


def _verdict(api_versions: dict[int, tuple[int, int]]) -> IncompatibleBrokerVersion:
    data = BrokerVersionData(api_versions=api_versions)
    with pytest.raises(IncompatibleBrokerVersion) as raised:
        data.api_version(AlterPartitionReassignmentsRequest)
    return raised.value


def test_a_request_the_broker_does_not_know() -> None:
    sentence = too_old(CONNECTION, _verdict({0: (0, 7)}))
    assert sentence == (
        "cluster 'prod' at kafka-1:9092 runs a Kafka too old for reconciler: its brokers do not "
        "know the AlterPartitionReassignments request (KIP-455, added in Kafka 2.4); upgrade "
        "them to Kafka 2.4 or newer, the oldest reconciler supports."
    )


def test_a_request_known_in_no_version_the_client_speaks() -> None:
    sentence = too_old(CONNECTION, _verdict({KEY: (90, 91)}))
    assert sentence is not None
    assert sentence.startswith(
        "cluster 'prod' at kafka-1:9092 and reconciler's Kafka client share no version of the "
        "AlterPartitionReassignments request (the brokers speak [90-91], the client ["
    )


def test_other_failures_are_not_about_versions() -> None:
    assert too_old(CONNECTION, KafkaTimeoutError("Unable to bootstrap")) is None
