from __future__ import annotations

from tests.kafka_fixtures import kafka1, kafka3, kafka_dist, ns

__all__ = ["kafka1", "kafka3", "kafka_dist", "ns"]
