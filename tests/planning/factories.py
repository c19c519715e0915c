"""Constructed cluster states and specs for the planner's pure-logic tests.

Planning is a pure function of these values, so building them directly is the honest test;
what the adapter reads from a real Kafka is tested against real brokers elsewhere.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, cast

import jsonschema

from reconciler.cluster.state import (
    TOPIC_OVERRIDE,
    BrokerState,
    ClusterState,
    ConfigEntry,
    PartitionState,
    Reassignment,
    TopicState,
)
from reconciler.diagnostics import Location
from reconciler.planning.json_plan import from_json, to_json
from reconciler.planning.plan import Plan
from reconciler.spec.model import Acknowledgment, DesiredState, Policy, TopicSpec

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schemas" / "plan.schema.json"


def brokers(*racks: str | None) -> tuple[BrokerState, ...]:
    """Brokers 1..n with the given racks."""
    return tuple(BrokerState(i, "127.0.0.1", 9091 + i, rack) for i, rack in enumerate(racks, 1))


def topic(
    name: str,
    replicas: Sequence[Sequence[int]] = ((1,),),
    *,
    overrides: Mapping[str, str] | None = None,
    inherited: Mapping[str, str] | None = None,
    internal: bool = False,
    leaders: Sequence[int | None] | None = None,
    isr: Sequence[Sequence[int]] | None = None,
) -> TopicState:
    """A topic whose partition i has replicas[i] (leader: the first, unless `leaders` says)."""
    partitions = tuple(
        PartitionState(
            partition=i,
            leader=leaders[i] if leaders is not None else r[0],
            replicas=tuple(r),
            isr=tuple(isr[i]) if isr is not None else tuple(r),
        )
        for i, r in enumerate(replicas)
    )
    configs = {k: ConfigEntry(v, "DEFAULT_CONFIG") for k, v in (inherited or {}).items()}
    configs |= {k: ConfigEntry(v, TOPIC_OVERRIDE) for k, v in (overrides or {}).items()}
    return TopicState(name, internal, partitions, tuple(sorted(configs.items())))


def spread(partitions: int, rf: int, broker_count: int = 3) -> list[list[int]]:
    """Round-robin replicas, as Kafka's rack-unaware placement would make them."""
    return [[(p + r) % broker_count + 1 for r in range(rf)] for p in range(partitions)]


def cluster(
    *topics: TopicState,
    broker_list: tuple[BrokerState, ...] | None = None,
    defaults: Mapping[str, str] | None = None,
    reassignments: Iterable[Reassignment] = (),
) -> ClusterState:
    return ClusterState(
        cluster_id="test-cluster",
        controller_id=1,
        brokers=broker_list if broker_list is not None else brokers("rack-a", "rack-b", "rack-c"),
        topics={t.name: t for t in topics},
        broker_defaults=dict(
            defaults
            if defaults is not None
            else {"num.partitions": "3", "default.replication.factor": "2"}
        ),
        reassignments=tuple(reassignments),
    )


def spec(name: str, line: int = 1, **fields: Any) -> TopicSpec:
    if "config" in fields:
        fields["config"] = tuple(sorted(fields["config"].items()))
    if "depends_on" in fields:
        fields["depends_on"] = tuple(fields["depends_on"])
    if "acknowledge" in fields:  # bare codes and {code: value} items, as a spec writes them
        fields["acknowledge"] = tuple(Acknowledgment.of(a) for a in fields["acknowledge"])
    if fields.get("assignments") is not None:
        fields["assignments"] = tuple(tuple(a) for a in fields["assignments"])
    return TopicSpec(name=name, location=Location("topics/test.yaml", line, 5), **fields)


def approving_gates(policy: Policy) -> Policy:
    """`policy` with a `policy.acknowledge:` item for each severity it lowers below the
    default, as a cluster that reviewed those gates has (planning/policy_changes.py)."""
    from reconciler.planning.policy_changes import policy_changes

    items = tuple(
        Acknowledgment.of({h.code: dict(cast(Any, h.approval))})
        for change in policy_changes(policy, None)
        for h in change.hazards
    )
    return dataclasses.replace(policy, acknowledge=items)


def desired(*specs: TopicSpec, name: str = "test") -> DesiredState:
    return DesiredState(cluster=name, topics={s.name: s for s in specs})


@cache
def plan_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


def checked_json(plan: Plan) -> dict[str, Any]:
    """to_json(plan), validated against schemas/plan.schema.json and round-tripped exactly.

    Every JSON plan a test produces goes through here, so the schema and from_json are
    exercised by every planning case, not only by the JSON tests.
    """
    data = to_json(plan)
    # Through text, as a saved PLAN.json goes: tuples become lists, nothing else may change.
    data = cast(dict[str, Any], json.loads(json.dumps(data)))
    errors = sorted(plan_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    assert from_json(data) == plan
    return data
