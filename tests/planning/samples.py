"""Plans built through make_plan from constructed states, shared by the JSON and render tests.

KITCHEN_SINK exercises every change kind, every hazard and every plan diagnostic but the two
a plan refusing deletes shows (REFUSED has those).
"""

from __future__ import annotations

from typing import Any

from reconciler.cluster.state import Reassignment
from reconciler.planning.plan import Plan, make_plan
from reconciler.spec.model import ClusterConfig, Limits, Policy
from reconciler.spec.model import Presence as SpecState
from tests.planning.factories import cluster, desired, spec, spread, topic

FINGERPRINT = "sha256:9f2c4e0b7d1a3f5e8c6b4a2d0e9f7c5b3a1d8e6f4c2b0a9e7d5c3b1a0f8e6d4c"


def kitchen_sink() -> Plan:
    state = cluster(
        topic(
            "payments.ledger.v1",
            spread(3, 2),
            overrides={
                "retention.ms": "604800000",
                "segment.bytes": "536870912",
                "cleanup.policy": "delete",
            },
            inherited={"min.insync.replicas": "1"},
        ),
        topic("payments.audit.v1", [[1], [2], [3], [1]]),
        topic("payments.events.v1", spread(3, 3)),
        topic("payments.cache.v1", spread(2, 2), inherited={"cleanup.policy": "delete"}),
        topic("payments.moving.v1", spread(2, 2)),
        topic("payments.legacy", spread(6, 2)),
        topic("payments.protected", spread(1, 2)),
        topic("orders_archive", spread(1, 2)),
        topic("legacy.stray", spread(2, 2)),
        topic("_schemas", spread(1, 3)),
        topic("__consumer_offsets", spread(1, 3), internal=True),
        defaults={
            "num.partitions": "3",
            "default.replication.factor": "2",
            "log.segment.bytes": "1073741824",
        },
        reassignments=[
            Reassignment("payments.moving.v1", 0, (1, 2, 3), adding=(3,), removing=(2,))
        ],
    )
    specs = desired(
        spec(
            "payments.orders.v1",
            line=3,
            partitions=12,
            replication_factor=3,
            config={"retention.ms": "604800000", "min.insync.replicas": "2"},
            depends_on=["payments.orders.dlq.v1"],
        ),
        spec("payments.orders.dlq.v1", line=12),
        spec("payments.placed.v1", line=15, assignments=[[1, 2], [2, 3], [3, 1]]),
        spec(
            "payments.ledger.v1",
            line=20,
            partitions=6,
            keyed=True,
            config={
                "retention.ms": "86400000",
                "min.insync.replicas": "2",
                "cleanup.policy": "delete",
            },
        ),
        spec("payments.events.v1", line=30, partitions=4, replication_factor=2),
        spec("payments.audit.v1", line=34, replication_factor=2),
        spec("payments.cache.v1", line=38, config={"cleanup.policy": "compact"}),
        spec("payments.moving.v1", line=42, replication_factor=3),
        spec("payments.shrinking", line=46, partitions=1),
        spec(
            "payments.legacy",
            line=50,
            state=SpecState.ABSENT,
            acknowledge=[{"delete": "payments.legacy"}],
        ),
        spec("payments.protected", line=53, state=SpecState.ABSENT, protect=True),
        spec("orders.archive", line=57, partitions=1),
        spec("payments.misplaced.v1", line=60, assignments=[[1, 7]]),
        spec("payments.huge.v1", line=63, partitions=1, replication_factor=5),
        spec("_schemas", line=66, partitions=3),
    )
    state = cluster(
        *state.topics.values(),
        topic("payments.shrinking", spread(3, 2)),
        defaults=state.broker_defaults,
        reassignments=state.reassignments,
    )
    policy = Policy(allow_delete=True, max_deletes=1, ignore=("^_",))
    config = ClusterConfig("prod", "kafka-1:9092", policy=policy)
    return make_plan(specs, state, config, FINGERPRINT, prune=True)


# A name as long as teams really write them: longer than a line of 80 columns with its verb
LONG_NAME = (
    "payments.settlement.reconciliation.cross-border.eu-west-1.ledger-entries"
    ".compacted-snapshots.v12"
)


def representative() -> Plan:
    """The text goldens at 80 and 120 columns: one of each thing a reader scans (creates, a
    partition increase with its hazard, a config set and removal, a replication-factor
    change, a delete, long diagnostics, a long topic name, an unmanaged topic)."""
    state = cluster(
        topic(
            "payments.ledger.v1",
            spread(3, 2),
            overrides={"retention.ms": "604800000", "segment.bytes": "536870912"},
            inherited={"min.insync.replicas": "1"},
        ),
        topic("payments.audit.v1", [[1], [2], [3], [1]]),
        topic(LONG_NAME, spread(3, 2), overrides={"cleanup.policy": "compact"}),
        topic("payments.legacy", spread(6, 2)),
        topic("payments.shrinking", spread(3, 2)),
        topic("legacy.stray", spread(2, 2)),
        defaults={
            "num.partitions": "3",
            "default.replication.factor": "2",
            "log.segment.bytes": "1073741824",
        },
    )
    specs = desired(
        spec(
            "payments.orders.v1",
            line=3,
            partitions=12,
            replication_factor=3,
            config={"retention.ms": "604800000", "min.insync.replicas": "2"},
            depends_on=["payments.orders.dlq.v1"],
        ),
        spec("payments.orders.dlq.v1", line=10),
        spec(LONG_NAME, line=12, partitions=6, config={"cleanup.policy": "compact"}),
        spec(
            "payments.ledger.v1",
            line=20,
            partitions=6,
            keyed=True,
            config={"retention.ms": "86400000", "min.insync.replicas": "2"},
        ),
        spec("payments.audit.v1", line=30, replication_factor=2),
        spec("payments.shrinking", line=34, partitions=1),
        spec(
            "payments.legacy",
            line=38,
            state=SpecState.ABSENT,
            acknowledge=[{"delete": "payments.legacy"}],
        ),
    )
    config = ClusterConfig("prod", "kafka-1:9092", policy=Policy(allow_delete=True))
    return make_plan(specs, state, config, FINGERPRINT)


def refused() -> Plan:
    state = cluster(topic("payments.legacy", spread(3, 2)), topic("legacy.stray", spread(1, 1)))
    specs = desired(spec("payments.legacy", line=4, state=SpecState.ABSENT))
    policy = Policy(allow_delete=False, ignore=("^_", "(unclosed"))
    config = ClusterConfig("prod", "kafka-1:9092", policy=policy)
    return make_plan(specs, state, config, FINGERPRINT, prune=True)


def no_changes() -> Plan:
    state = cluster(
        topic("payments.orders.v1", spread(3, 2), overrides={"retention.ms": "86400000"})
    )
    specs = desired(spec("payments.orders.v1", partitions=3, config={"retention.ms": "86400000"}))
    return make_plan(specs, state, ClusterConfig("local", "127.0.0.1:9092"), FINGERPRINT)


def many_creates(count: int) -> Plan:
    specs = desired(*(spec(f"bulk.topic-{i:02d}", partitions=1) for i in range(count)))
    return make_plan(specs, cluster(), ClusterConfig("local", "127.0.0.1:9092"), FINGERPRINT)


def over_limits() -> Plan:
    """Brokers 1..3 host 8, 6 and 4 replicas against max_broker_partitions 10: a manual
    assignment pushes broker 1 over, a create at replication factor 3 cannot fit, and the new
    partitions take the cluster past max_partitions."""
    state = cluster(
        topic("team.a", [[1, 2], [1, 2], [1, 3], [1, 3], [1], [1], [2], [2]]),
        topic("__consumer_offsets", [[2], [2], [3], [3]], internal=True),
    )
    specs = desired(
        spec("team.placed", line=3, assignments=[[1, 2], [1, 3], [1, 2], [1, 3], [1, 2]]),
        spec("team.wide", line=8, partitions=4, replication_factor=3),
    )
    limits = Limits(max_broker_partitions=10, max_partitions=18)
    config = ClusterConfig("prod", "kafka-1:9092", limits=limits)
    return make_plan(specs, state, config, FINGERPRINT)


def large(count: int = 2000) -> Plan:
    """`count` topics in five kinds (creates, config updates, partition increases, updates on
    topics that would shrink, tombstones), with errors, warnings and hazards scattered among
    them and some at the very end of the execution order (the last deletes, the last topics):
    the Markdown budget must keep every error and every hazard of it."""
    existing = []
    specs = []
    for i in range(count):
        name = f"bulk.topic-{i:05d}"
        late = i >= count - 10  # the last topics by name: their updates and deletes run last
        hazardous = i % 30 == i % 5 or late  # a hazard on one topic of each kind in six
        match i % 5:
            case 0:
                specs.append(
                    spec(
                        name,
                        line=i + 1,
                        partitions=6,
                        # min.insync.replicas 2 of 2 replicas: a headroom warning now and then
                        replication_factor=2 if i % 50 == 0 else 3,
                        config={"retention.ms": "604800000", "min.insync.replicas": "2"},
                    )
                )
            case 1:
                existing.append(topic(name, spread(3, 2), overrides={"retention.ms": "604800000"}))
                retention = "86400000" if hazardous else "1209600000"  # 1d: a decrease; 14d
                specs.append(
                    spec(
                        name,
                        line=i + 1,
                        partitions=3,
                        config={"retention.ms": retention},
                        acknowledge=[
                            {
                                "retention_decrease": {
                                    "key": "retention.ms",
                                    "from": 604800000,
                                    "to": 86400000,
                                }
                            }
                        ]
                        if hazardous and i % 7 and not late
                        else [],
                    )
                )
            case 2:
                existing.append(topic(name, spread(3, 2)))
                approve = hazardous and i % 11 and not late
                acknowledged: list[Any] = [{"key_reorder": {"from": 3, "to": 6}}] if approve else []
                specs.append(
                    spec(name, line=i + 1, partitions=6, keyed=hazardous, acknowledge=acknowledged)
                )
            case 3:
                existing.append(topic(name, spread(4, 2)))
                shrink = i % 97 == 3 or late  # a partition decrease: an error
                specs.append(spec(name, line=i + 1, partitions=2 if shrink else 8))
            case _:
                existing.append(topic(name, spread(2, 2)))
                protect = i % 89 == 4 or i == count - 1  # tombstone on a protected topic: error
                approved = i % 13 and not late and not protect
                acknowledged = [{"delete": name}] if approved else []
                if hazardous:
                    specs.append(
                        spec(
                            name,
                            line=i + 1,
                            state=SpecState.ABSENT,
                            protect=protect,
                            acknowledge=acknowledged,
                        )
                    )
                else:
                    specs.append(spec(name, line=i + 1, config={"max.message.bytes": "2097152"}))
    policy = Policy(allow_delete=True, max_deletes=count)
    config = ClusterConfig("prod", "kafka-1:9092", policy=policy)
    return make_plan(desired(*specs), cluster(*existing), config, FINGERPRINT)
