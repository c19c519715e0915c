"""A topic's config changes: the keys its spec sets against the topic's own overrides, both
in Kafka's canonical form (spec.catalog), each entry with the value it falls back to when an
override is removed.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.cluster.overrides import comparable_overrides
from reconciler.cluster.state import TOPIC_OVERRIDE, Synonym, TopicState
from reconciler.planning.changes import ConfigChange
from reconciler.spec import catalog
from reconciler.spec.model import TopicSpec

CLEANUP_POLICY = "cleanup.policy"


def config_changes(
    spec: TopicSpec, current: TopicState, broker_defaults: Mapping[str, str]
) -> tuple[ConfigChange, ...]:
    """Keys whose override differs, is missing, or exists without the spec naming it, sorted."""
    desired = spec.config_map  # already canonical (validated specs)
    overrides = comparable_overrides(current, named=desired)
    entries = []
    for key in sorted(overrides.keys() | desired.keys()):
        now, wanted = overrides.get(key), desired.get(key)
        if now == wanted:
            continue
        fallback = None
        if now is None or wanted is None:
            fallback = inherited(current, key, broker_defaults)
        entries.append(ConfigChange(key, now, wanted, fallback))
    return tuple(entries)


def compacted(
    current: TopicState, entries: tuple[ConfigChange, ...], broker_defaults: Mapping[str, str]
) -> bool:
    """cleanup.policy includes `compact` before or after this plan's config changes: the value
    in effect now as Kafka reports it (the topic's override, or what it inherits, a broker's
    log.cleanup.policy included), and the spec's value or what a removal falls back to."""
    now = current.entry(CLEANUP_POLICY)
    policies = [
        now.value if now is not None else inherited(current, CLEANUP_POLICY, broker_defaults)
    ]
    policies += [
        e.desired if e.desired is not None else e.inherited
        for e in entries
        if e.key == CLEANUP_POLICY
    ]
    return any(p is not None and "compact" in p.split(",") for p in policies)


def inherited(topic: TopicState, key: str, broker_defaults: Mapping[str, str]) -> str | None:
    """The value `key` has without a topic override, as Kafka answers it.

    A key the topic does not override: its entry, Kafka's own value (units resolved). An
    override: the first synonym Kafka listed after it (the next source), its value taken from
    the broker's own answer for that name (the Kafka client keeps one value per name, the last
    listed) and converted from the synonym's unit (log.retention.hours=24 -> 86400000). Kafka
    lists none when the key's first broker name is set nowhere (its DescribeConfigs then drops
    log.retention.hours and log.roll.hours too): then the first of the key's broker settings,
    in Kafka's order, that the broker's answer sets. Kafka's built-in default from the catalog
    only when neither is known (a snapshot that lacks both).
    """
    entry = topic.entry(key)
    if entry is not None and entry.source != TOPIC_OVERRIDE:
        value = entry.value
    else:
        value = _from_brokers(key, entry.synonyms if entry is not None else (), broker_defaults)
    return catalog.canonical(key, value) if value is not None else None


def _from_brokers(
    key: str, synonyms: tuple[Synonym, ...], broker_defaults: Mapping[str, str]
) -> str | None:
    listed = [(s.name, broker_defaults.get(s.name, s.value)) for s in synonyms]
    named = [(name, broker_defaults.get(name)) for name in catalog.broker_synonyms(key)]
    for name, value in [*listed, *named]:
        if value is not None:
            return in_key_unit(name, value)
    defn = catalog.lookup(key)
    return defn.default if defn is not None else None


# Kafka's synonym converters (ServerTopicConfigSynonyms): a broker setting counted in hours or
# minutes feeds a topic key counted in milliseconds.
_TO_MS = {".hours": 3_600_000, ".minutes": 60_000}


def in_key_unit(name: str, value: str) -> str:
    """A broker setting's value in its topic key's unit: log.retention.hours=24 -> 86400000;
    negative means unlimited, -1 (KafkaConfig.logRetentionTimeMillis)."""
    factor = next((f for suffix, f in _TO_MS.items() if name.endswith(suffix)), None)
    if factor is None:
        return value
    try:
        number = int(value)
    except ValueError:
        return value  # not a number Kafka would hold: shown as it is
    return "-1" if number < 0 else str(number * factor)
