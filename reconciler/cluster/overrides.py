"""A topic's overrides as compared: the one definition the planner's diff, apply's judgement of
a change (apply/execute/verdict.py) and the fleet's snapshot lines (cluster/jsonl.py) share.

Values are in Kafka's canonical form (spec.catalog), the form validated specs hold, so that
comparing a cluster's value with a spec's is a plain string comparison.
"""

from __future__ import annotations

from collections.abc import Container

from reconciler.cluster.state import TopicState
from reconciler.spec import catalog

# Replication throttles that a reassignment (apply --throttle, kafka-reassign-partitions) sets
# on a topic while replicas move and removes afterwards: operational state, not a spec's concern,
# so an override of these keys is left alone unless the spec names the key.
OPERATIONAL_KEYS = frozenset(
    {"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
)


def comparable_overrides(topic: TopicState, named: Container[str] = ()) -> dict[str, str]:
    """`topic`'s own overrides in canonical form, throttles (OPERATIONAL_KEYS) left out unless
    `named` holds them: the keys a spec or a plan sets (OPERATIONAL_KEYS itself keeps all)."""
    return {
        k: catalog.canonical(k, v)
        for k, v in topic.overrides.items()
        if k in named or k not in OPERATIONAL_KEYS
    }
