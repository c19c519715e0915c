"""What a removed override falls back to (planning.configs.inherited), on constructed states:
Kafka's synonym chain first, then the broker's own settings, whatever their unit."""

from __future__ import annotations

import pytest

from reconciler.cluster.state import TOPIC_OVERRIDE, ConfigEntry, Synonym, TopicState
from reconciler.planning.configs import inherited


def _overridden(key: str, value: str, *synonyms: tuple[str, str | None, str]) -> TopicState:
    entry = ConfigEntry(value, TOPIC_OVERRIDE, synonyms=tuple(Synonym(*s) for s in synonyms))
    return TopicState("t", False, (), ((key, entry),))


STATIC, DEFAULT = "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG"


@pytest.mark.parametrize(
    ("topic", "key", "brokers", "expected"),
    [
        pytest.param(
            _overridden("retention.ms", "604800000"),
            "retention.ms",
            {"log.retention.hours": "24"},
            "86400000",
            id="hours in the broker's answer (Kafka lists no synonym then)",
        ),
        pytest.param(
            _overridden("retention.ms", "604800000"),
            "retention.ms",
            {"log.retention.minutes": "90", "log.retention.hours": "24"},
            "5400000",
            id="minutes win over hours",
        ),
        pytest.param(
            _overridden("retention.ms", "604800000"),
            "retention.ms",
            {"log.retention.hours": "-1"},
            "-1",
            id="negative hours mean unlimited",
        ),
        pytest.param(
            _overridden("segment.ms", "3600000"),
            "segment.ms",
            {"log.roll.hours": "2"},
            "7200000",
            id="log.roll.hours for segment.ms",
        ),
        pytest.param(
            _overridden("retention.ms", "1000", ("log.retention.ms", "5000", STATIC)),
            "retention.ms",
            {},
            "5000",
            id="the next synonym Kafka listed",
        ),
        pytest.param(
            _overridden("cleanup.policy", "delete", ("log.cleanup.policy", "delete", DEFAULT)),
            "cleanup.policy",
            {"log.cleanup.policy": "compact,delete"},
            "compact,delete",
            id="a name's value from the broker's answer, not the client's last-listed one",
        ),
        pytest.param(
            _overridden("min.compaction.lag.ms", "1000"),
            "min.compaction.lag.ms",
            {},
            "0",
            id="Kafka's default only when neither chain nor broker answer is known",
        ),
        pytest.param(
            TopicState("t", False, (), (("retention.ms", ConfigEntry("86400000", DEFAULT)),)),
            "retention.ms",
            {"log.retention.hours": "48"},
            "86400000",
            id="not overridden: the topic's own entry is Kafka's answer",
        ),
    ],
)
def test_inherited(topic: TopicState, key: str, brokers: dict[str, str], expected: str) -> None:
    assert inherited(topic, key, brokers) == expected
