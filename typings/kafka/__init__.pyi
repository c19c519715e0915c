# Type stubs for the part of kafka-python (>= 3.0) that reconciler uses. kafka-python ships no
# type information; reconciler/cluster/adapter/ uses it only for KIP-455 partition
# reassignments (librdkafka has none), and the tests use it as an independent reader. Only
# what those call is declared, so a call outside it is a mypy error rather than an `Any`.

from typing import NamedTuple

from kafka.admin import KafkaAdminClient as KafkaAdminClient

class TopicPartition(NamedTuple):
    topic: str
    partition: int

class OffsetAndMetadata(NamedTuple):
    offset: int
    metadata: str
    leader_epoch: int
