# KafkaAdminClient as reconciler calls it (see ../__init__.pyi).

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, TypedDict

from kafka import OffsetAndMetadata, TopicPartition
from kafka.errors import BrokerResponseError
from kafka.net.sasl.oauth import AbstractTokenProvider

class _Reassignment(TypedDict):
    # One partition's entry of list_partition_reassignments (broker ids).
    replicas: list[int]
    adding_replicas: list[int]
    removing_replicas: list[int]

class _BrokerVersionData:
    api_versions: dict[int, tuple[int, int]]

class _Manager:
    broker_version_data: _BrokerVersionData | None
    # A request on the least loaded broker (cluster/adapter/quotas.py: KIP-546's requests)
    def send(
        self, request: Any, node_id: int | None = ..., request_timeout_ms: int | None = ...
    ) -> Any: ...
    def run(self, coro: Any, *args: Any) -> Any: ...

class KafkaAdminClient:
    def __init__(
        self,
        *,
        bootstrap_servers: str | list[str] = ...,
        client_id: str = ...,
        request_timeout_ms: int = ...,
        bootstrap_timeout_ms: int = ...,
        security_protocol: str = ...,
        sasl_mechanism: str | None = ...,
        sasl_plain_username: str | None = ...,
        sasl_plain_password: str | None = ...,
        ssl_cafile: str | None = ...,
        ssl_certfile: str | None = ...,
        ssl_keyfile: str | None = ...,
        ssl_password: str | None = ...,
        sasl_oauth_token_provider: AbstractTokenProvider | None = ...,
    ) -> None: ...
    def __enter__(self) -> KafkaAdminClient: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None: ...
    def close(self) -> None: ...
    def list_partition_reassignments(
        self,
        topic_partitions: Mapping[str, Sequence[int]] | Sequence[TopicPartition] | None = None,
        timeout_ms: int | None = None,
    ) -> dict[TopicPartition, _Reassignment]: ...
    # Per partition the broker answered for: None (accepted) or the error class; a replica
    # list of None cancels that partition's reassignment.
    def alter_partition_reassignments(
        self,
        reassignments: Mapping[TopicPartition, Sequence[int] | None],
        timeout_ms: int | None = None,
    ) -> dict[TopicPartition, type[BrokerResponseError] | None]: ...
    # The in-use evidence of a delete (reconciler/cluster/adapter/evidence.py): group dicts
    # (group_id, protocol_type, ...); per group its description (group_state, members with
    # decoded member_assignment, error); per group {partition: OffsetAndMetadata}
    def list_groups(self, broker_ids: Sequence[int] | None = None) -> list[dict[str, Any]]: ...
    def describe_groups(self, group_ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...
    def list_group_offsets(
        self, group_specs: Mapping[str, Sequence[TopicPartition] | None]
    ) -> dict[str, dict[TopicPartition, OffsetAndMetadata]]: ...
    # The bootstrap broker's ApiVersions answer, {api key: (min, max)}: whether DescribeCluster
    # can show fenced brokers (reconciler/cluster/adapter/fenced_brokers.py)
    _manager: _Manager
    # The fenced brokers (read.read_fenced_brokers); the tests' reader independent of librdkafka
    def describe_cluster(self) -> dict[str, Any]: ...
    # Used only by the tests, as a reader independent of librdkafka.
    def describe_topics(self, topics: Sequence[str] | None = None) -> list[dict[str, Any]]: ...
    # Used only by the tests: Kafka 4.1's share groups turned on (share.version, KIP-584),
    # and a test's share group deleted afterwards ({group: "OK" or the error's name})
    def describe_features(self) -> dict[str, dict[str, Any]]: ...
    def update_features(self, feature_updates: Mapping[str, int]) -> Any: ...
    def delete_groups(self, group_ids: Sequence[str]) -> dict[str, Any]: ...
