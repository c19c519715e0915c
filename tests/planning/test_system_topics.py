"""Well-known system topics (planning/system_topics.py): never --prune'd, a tombstone of one
carries its own hazard, and policy.system_topics adds to the list."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from reconciler.patterns import UserPattern
from reconciler.planning.plan import make_plan
from reconciler.planning.system_topics import system_topic
from reconciler.spec.model import ClusterConfig, Policy
from reconciler.spec.model import Presence as SpecState
from reconciler.spec.repo_config import load_repo_config
from tests.planning.factories import cluster, desired, spec, topic

SYSTEM = [
    "_schemas",
    "__consumer_offsets",
    "__CruiseControlMetrics",
    "_confluent-ksql-default__command_topic",
    "connect-configs",
    "connect-offsets",
    "connect-status",
    "connect-cluster-offsets",
    "docker-connect-status",
    "mm2-configs.us-east.internal",
    "mm2-offset-syncs.us-west.internal",
    "us-east.checkpoints.internal",
    "heartbeats",
    "us-east.heartbeats",
    "shop-orders-store-changelog",
    "shop-KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition",
    "shop-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-subscription-registration-topic",
]
ORDINARY = ["orders", "payments.ledger.v1", "changelog", "schemas", "heartbeat", "mm2"]


@pytest.mark.parametrize("name", SYSTEM)
def test_well_known_system_topics_match(name: str) -> None:
    assert system_topic(name) is not None


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_topics_do_not(name: str) -> None:
    assert system_topic(name) is None


def _plan(names: list[str], policy: Policy, tombstone: str | None = None) -> list[str]:
    state = cluster(*(topic(n, [[1]]) for n in names))
    specs = desired(spec(tombstone, state=SpecState.ABSENT)) if tombstone else desired()
    config = ClusterConfig("test", "k:9092", policy=policy)
    plan = make_plan(specs, state, config, "sha256:x", prune=tombstone is None)
    return [f"{c.topic}:{','.join(h.code for h in c.hazards)}" for c in plan.changes]


def test_prune_leaves_system_topics_and_a_tombstone_needs_its_hazard() -> None:
    policy = Policy(allow_delete=True, ignore=(), max_deletes=50)
    names = ["orders.old", "_schemas", "app-store-changelog", "connect-configs", "ksql-x-cmd"]
    assert _plan(names, policy) == ["ksql-x-cmd:delete", "orders.old:delete"]
    extended = dataclasses.replace(policy, system_topics=("^ksql-",))
    assert _plan(names, extended) == ["orders.old:delete"]
    assert _plan(names, policy, "app-store-changelog") == [
        "app-store-changelog:delete,system_topic"
    ]


def test_a_policy_pattern_names_its_place() -> None:
    said = system_topic("ksql-x", [UserPattern("^ksql-", "policy.system_topics (r.yaml:3:5)")])
    assert said == "matched by policy.system_topics (r.yaml:3:5)"


def test_policy_system_topics_are_read_and_each_must_compile(tmp_path: Path) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(
        "topics: topics/\nclusters:\n  prod:\n    bootstrap: k:9092\n"
        "    policy: {system_topics: ['^ksql-', '(']}\n"
    )
    config, found = load_repo_config(tmp_path, {})
    assert config is not None
    assert config.clusters["prod"].policy.system_topics == ("^ksql-",)
    [error] = [d for d in found if d.is_error]
    assert "'('" in error.message and error.location is not None
