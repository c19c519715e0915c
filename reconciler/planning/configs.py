"""A topic's config changes: the keys its spec sets against the topic's own overrides, both
in Kafka's canonical form (spec.catalog), each entry with the value it falls back to when an
override is removed.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.cluster.state import TopicState
from reconciler.planning.changes import ConfigChange
from reconciler.spec import catalog
from reconciler.spec.model import TopicSpec

# Replication throttles that a reassignment (apply --throttle, kafka-reassign-partitions) sets
# on a topic while replicas move and removes afterwards: operational state, not a spec's concern,
# so an override of these keys is left alone unless the spec names the key.
OPERATIONAL_KEYS = frozenset(
    {"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
)


def config_changes(
    spec: TopicSpec, current: TopicState, broker_defaults: Mapping[str, str]
) -> tuple[ConfigChange, ...]:
    """Keys whose override differs, is missing, or exists without the spec naming it, sorted."""
    desired = spec.config_map  # already canonical (validated specs)
    overrides = {
        k: catalog.canonical(k, v)
        for k, v in current.overrides.items()
        if k in desired or k not in OPERATIONAL_KEYS
    }
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


def inherited(topic: TopicState, key: str, broker_defaults: Mapping[str, str]) -> str | None:
    """The value `key` has without a topic override.

    DescribeConfigs reports an overridden key's own value only, so for a removal the fallback
    comes from the broker's setting (ConfigDef.server_default) if the state read it, else
    Kafka's built-in default from the catalog.
    """
    value = topic.inherited(key)
    defn = catalog.lookup(key)
    if value is None and defn is not None:
        value = broker_defaults.get(defn.server_default or key)
        if value is None:
            value = defn.default
    return catalog.canonical(key, value) if value is not None else None
