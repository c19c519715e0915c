"""The cluster decides a spec's topic config keys (planning/cluster_configs.py).

No Apache broker has a vendor's topic configs, so the path where the cluster HAS one runs on
the in-memory fake, configured to list `confluent.placement.constraints` in DescribeConfigs
and accept it in writes as Confluent Server's brokers do: what is tested there is the
planner's and apply's use of the cluster's answer, not Kafka's behaviour. The refusal runs on
a real Apache broker too (tests/plan/test_cluster_configs_real.py).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from reconciler.apply import apply_plan
from reconciler.cluster import jsonl, snapshot
from reconciler.cluster.state import ClusterState
from reconciler.errors import ApplyRefused
from reconciler.planning import p_codes
from reconciler.planning.changes import AlterTopicConfig, CreateTopic
from reconciler.planning.drift import drift
from reconciler.planning.plan import Plan, make_plan
from reconciler.spec.catalog import CATALOG
from reconciler.spec.model import ClusterConfig, DesiredState
from tests.fakes.cluster import FakeKafka
from tests.planning.factories import desired, spec, topic

CONFIG = ClusterConfig("prod", "fake-kafka:9092")
KEY = "confluent.placement.constraints"
VALUE = '{"version":1,"replicas":[{"count":1,"constraints":{"rack":"east"}}]}'


def _confluent() -> FakeKafka:
    """A cluster whose brokers know Confluent Server's key, with one topic already there."""
    return FakeKafka(vendor_configs={KEY: ""}).add(topic("orders.old", [[1]]))


def _specs(value: str = VALUE) -> DesiredState:
    return desired(
        spec("orders.old", partitions=1, replication_factor=1, config={KEY: value}),
        spec("orders.new", partitions=1, replication_factor=1, config={KEY: value}),
        name="prod",
    )


def _entries(plan: Plan, name: str) -> list[tuple[str, str | None, str | None]]:
    (change,) = [c for c in plan.changes if c.topic == name]
    step = change.changes[0]
    assert isinstance(step, AlterTopicConfig)
    return [(e.key, e.current, e.desired) for e in step.entries]


def test_a_vendor_key_the_cluster_lists_is_set_compared_and_converges() -> None:
    kafka = _confluent()
    state = kafka.client("prod").read_state()
    assert state.topic_config_keys is not None and KEY in state.topic_config_keys

    plan = make_plan(_specs(), state, CONFIG)

    assert plan.applyable and not plan.errors
    (create,) = [c.changes[0] for c in plan.changes if c.topic == "orders.new"]
    assert isinstance(create, CreateTopic) and dict(create.config)[KEY] == VALUE
    assert _entries(plan, "orders.old") == [(KEY, None, VALUE)]
    assert apply_plan(plan, kafka.client("prod")).ok
    assert kafka.topics["orders.new"].overrides[KEY] == VALUE
    # compared as Kafka returns the string: the same value is no change, another one is
    again = kafka.client("prod").read_state()
    assert make_plan(_specs(), again, CONFIG).changes == ()
    edited = make_plan(_specs(VALUE.replace("east", "west")), again, CONFIG)
    assert {c.topic for c in edited.changes} == {"orders.old", "orders.new"}


def test_a_key_the_cluster_does_not_list_is_an_error_naming_its_answer() -> None:
    kafka = FakeKafka().add(topic("orders.old", [[1]]))  # Apache Kafka's keys only
    state = kafka.client("prod").read_state()

    plan = make_plan(_specs(), state, CONFIG)

    assert not plan.applyable
    errors = [d for d in plan.errors if d.rule == p_codes.UNKNOWN_TOPIC_CONFIG.name]
    assert {d.topic for d in errors} == {"orders.old", "orders.new"}
    count = len(CATALOG)
    for d in errors:
        assert f"the cluster 'prod' does not know topic config '{KEY}'" in d.message
        assert f"its brokers list {count} topic configs, none of them this one" in d.message
        assert "'confluent.' prefixes the topic configs of Confluent Server" in d.message
    assert plan.changes == ()  # no create, and no change of the key on the existing topic
    # drift reads the planner's decision: each refusal is a blocked item, no config item
    items = drift(plan, _specs(), state).items
    assert sorted((i.topic, i.kind, i.field) for i in items) == [
        ("orders.new", "blocked", "unknown_topic_config"),
        ("orders.old", "blocked", "unknown_topic_config"),
    ]


def test_an_apache_key_an_older_cluster_does_not_list_is_refused_the_same_way() -> None:
    kafka = FakeKafka().add(topic("orders.old", [[1]]))
    state = kafka.client("prod").read_state()
    assert state.topic_config_keys is not None
    older = replace(state, topic_config_keys=state.topic_config_keys - {"compression.zstd.level"})
    wanted = spec("orders.old", partitions=1, replication_factor=1,
                  config={"compression.zstd.level": "3", "retention.ms": "3600000"})  # fmt: skip

    plan = make_plan(desired(wanted, name="prod"), older, CONFIG)

    (error,) = plan.errors
    assert error.rule == "unknown_topic_config" and "'compression.zstd.level'" in error.message
    assert "prefixes" not in error.message  # an Apache key: no vendor named
    # the key it knows is still changed
    assert _entries(plan, "orders.old") == [("retention.ms", None, "3600000")]


def test_a_close_key_the_cluster_has_is_suggested() -> None:
    kafka = FakeKafka(vendor_configs={KEY: ""})
    kafka.add(topic("orders.old", [[1]]))
    typo = spec("orders.new", partitions=1, config={"confluent.placement.constraint": VALUE})
    plan = make_plan(desired(typo), kafka.client("prod").read_state(), CONFIG)
    (error,) = plan.errors
    assert f"(did you mean '{KEY}'?)" in error.message


def test_without_any_answer_a_vendor_key_is_a_warning_and_apply_asks_kafka() -> None:
    kafka = FakeKafka()  # no topic at all: nothing lists the cluster's topic configs
    state = kafka.client("prod").read_state()
    assert state.topic_config_keys is None

    plan = make_plan(desired(_specs().topics["orders.new"], name="prod"), state, CONFIG)

    (warning,) = plan.diagnostics
    assert warning.rule == p_codes.TOPIC_CONFIG_UNCHECKED.name and not warning.is_error
    assert plan.applyable
    # the validate-only CreateTopics asks the cluster before any change: nothing is created
    with pytest.raises(ApplyRefused, match=f"Unknown topic config name: {KEY}"):
        apply_plan(plan, kafka.client("prod"))
    assert "orders.new" not in kafka.topics and kafka.created == []


def test_the_snapshot_forms_keep_the_clusters_answer() -> None:
    state = _confluent().client().read_state()
    assert state.topic_config_keys is not None
    _, back = snapshot.from_json(snapshot.to_json("prod", state))
    assert back.topic_config_keys == state.topic_config_keys
    # a snapshot written before the field: the same answer, from its topics' configs
    document = snapshot.to_json("prod", state)
    del document["topic_config_keys"]
    assert snapshot.from_json(document)[1].topic_config_keys == state.topic_config_keys
    # the fleet's lines keep overrides only: the cluster line states the keys
    header = next(iter(jsonl.lines("prod", state)))
    assert KEY in header and "topic_config_keys" in header
    empty = ClusterState(None, None, ())
    assert snapshot.from_json(snapshot.to_json("prod", empty))[1].topic_config_keys is None
