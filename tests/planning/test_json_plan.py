"""The JSON plan: DESIGN.md's shape, schemas/plan.schema.json, and an exact round trip."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from reconciler.diagnostics import Diagnostic, Location, Severity
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    ConfigChange,
    CreateTopic,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.json_plan import from_json, to_json
from reconciler.planning.plan import Plan, PlanSource
from tests.planning import samples
from tests.planning.factories import checked_json, plan_validator


def test_kitchen_sink_round_trips_and_validates() -> None:
    data = checked_json(samples.kitchen_sink())
    assert data["format_version"] == 1
    assert data["applyable"] is False
    assert data["summary"] == {"create": 3, "update": 4, "delete": 3, "errors": 7, "warnings": 2}
    assert data["unmanaged"] == ["legacy.stray", "orders_archive"]
    rules = {d["rule"] for d in data["diagnostics"]}
    assert {"partition_decrease", "reassignment_in_progress", "delete_protected"} <= rules


def test_the_source_a_plan_was_made_from_round_trips() -> None:
    source = PlanSource("0123456789abcdef0123456789abcdef01234567", "sha256:" + "ab" * 32)
    plan = dataclasses.replace(samples.kitchen_sink(), source=source)
    data = checked_json(plan)
    assert data["source"] == {"commit": source.commit, "specs": source.specs}
    assert from_json(data) == plan
    outside_git = dataclasses.replace(plan, source=PlanSource(None, source.specs))
    assert checked_json(outside_git)["source"]["commit"] is None
    assert "source" not in to_json(samples.kitchen_sink())  # a Plan built in memory


def test_entry_shapes() -> None:
    create = TopicChange(
        "a.b",
        Action.CREATE,
        (CreateTopic("a.b", 6, 3, (("retention.ms", "604800000"),)),),
    )
    update = TopicChange(
        "c.d",
        Action.UPDATE,
        (IncreasePartitions("c.d", 3, 6),),
        (Hazard("key_reorder", "keys move"),),
    )
    delete = TopicChange("e.f", Action.DELETE, (DeleteTopic("e.f", 3, "prune"),))
    diagnostic = Diagnostic(
        Severity.WARNING, "P109", "ignored_topic", "m", Location("topics/x.yaml", 2, 5), "_x"
    )
    plan = Plan("local", "sha256:0", (create, update, delete), (diagnostic,), ("legacy.topic",))
    data = checked_json(plan)
    assert data["changes"] == [
        {
            "topic": "a.b",
            "action": "create",
            "partitions": {"current": None, "desired": 6},
            "replication_factor": {"current": None, "desired": 3},
            "config": [{"key": "retention.ms", "current": None, "desired": "604800000"}],
            "hazards": [],
            "depends_on": [],
        },
        {
            "topic": "c.d",
            "action": "update",
            "partitions": {"current": 3, "desired": 6},
            "hazards": [
                {
                    "code": "key_reorder",
                    "message": "keys move",
                    "acknowledged": False,
                    "severity": "error",
                }
            ],
            "depends_on": [],
        },
        {
            "topic": "e.f",
            "action": "delete",
            "partitions": {"current": 3, "desired": None},
            "reason": "prune",
            "hazards": [],
            "depends_on": [],
        },
    ]
    assert data["diagnostics"] == [
        {
            "severity": "warning",
            "rule": "ignored_topic",
            "code": "P109",
            "topic": "_x",
            "message": "m",
            "file": "topics/x.yaml",
            "line": 2,
            "column": 5,
        }
    ]
    assert data["summary"] == {"create": 1, "update": 1, "delete": 1, "errors": 0, "warnings": 1}
    # No error, but c.d's key_reorder is not acknowledged: apply would refuse it
    assert data["applyable"] is False
    acknowledged = Hazard("key_reorder", "keys move", acknowledged=True)
    settled = (create, dataclasses.replace(update, hazards=(acknowledged,)), delete)
    assert checked_json(dataclasses.replace(plan, changes=settled))["applyable"] is True


def test_every_update_field_round_trips() -> None:
    update = TopicChange(
        "c.d",
        Action.UPDATE,
        (
            AlterTopicConfig(
                "c.d",
                (
                    ConfigChange("a.key", None, "1", "0"),
                    ConfigChange("b.key", "1", "2"),
                    ConfigChange("c.key", "1", None, "0"),
                    ConfigChange("d.key", "1", None, None),
                ),
            ),
            IncreasePartitions("c.d", 2, 3, ((3,),)),
            ReassignReplicas("c.d", 1, 2, ((1,), (2,), (3,)), ((1, 2), (2, 3), (3, 1))),
        ),
        depends_on=("a.b",),
    )
    create = TopicChange(
        "a.b",
        Action.CREATE,
        (CreateTopic("a.b", None, None, default_partitions=3, default_replication_factor=2),),
    )
    placed = TopicChange(
        "a.c", Action.CREATE, (CreateTopic("a.c", 2, 1, assignments=((1,), (2,))),)
    )
    plan = Plan("local", "sha256:0", (create, placed, update))
    data = checked_json(plan)
    assert data["changes"][0]["partitions"] == {
        "current": None,
        "desired": None,
        "broker_default": 3,
    }
    assert data["changes"][2]["reassignment"]["target"] == [[1, 2], [2, 3], [3, 1]]
    assert "inherited" not in data["changes"][2]["config"][1]


BAD: dict[str, tuple[str, Any]] = {
    "unknown top-level field": ("", {"extra": 1}),
    "unknown change field": ("changes.0", {"kind": "x"}),
    "unknown action": ("changes.0", {"action": "recreate"}),
    "delete without a reason": ("changes.-1", {"reason": None}),
    "delete with a config": ("changes.-1", {"config": []}),
    "update with nothing to do": ("changes.3", {"replication_factor": None, "reassignment": None}),
    "bad topic name": ("changes.0", {"topic": "no spaces allowed"}),
    "unknown hazard": ("changes.0", {"hazards": [{"code": "oops", "message": "m"}]}),
    "format version 2": ("", {"format_version": 2}),
    "source without its digest": ("", {"source": {"commit": None}}),
    "source digest not sha256": ("", {"source": {"commit": None, "specs": "md5:00"}}),
}


@pytest.mark.parametrize(("where", "patch"), BAD.values(), ids=BAD.keys())
def test_schema_refuses(where: str, patch: dict[str, Any]) -> None:
    data = copy.deepcopy(to_json(samples.kitchen_sink()))
    target = data
    for part in filter(None, where.split(".")):
        target = target[int(part)] if isinstance(target, list) else target[part]
    for key, value in patch.items():
        if value is None:
            del target[key]
        else:
            target[key] = value
    assert list(plan_validator().iter_errors(data))


def test_from_json_refuses_other_versions_and_broken_plans() -> None:
    data = to_json(samples.no_changes())
    with pytest.raises(ValueError, match="format_version 2"):
        from_json(data | {"format_version": 2})
    broken = {k: v for k, v in data.items() if k != "changes"}
    with pytest.raises(ValueError, match="changes"):
        from_json(broken)


def test_derived_fields_are_recomputed_not_trusted() -> None:
    data = to_json(samples.refused())
    data["applyable"] = True
    assert from_json(data).applyable is False
