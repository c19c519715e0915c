"""The drift report is the planner's findings re-read as drift: one item per difference."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.state import ClusterState, Reassignment
from reconciler.planning.drift import DriftItem, drift, to_json
from reconciler.planning.plan import make_plan
from reconciler.render.drift_report import render_drift_markdown, render_drift_text
from reconciler.spec.model import ClusterConfig, DesiredState, Policy
from reconciler.spec.model import Presence as SpecState
from tests.planning.factories import cluster, desired, spec, spread, topic

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "drift.schema.json").read_text()
)


def report_of(wanted: DesiredState, state: ClusterState) -> list[DriftItem]:
    config = ClusterConfig("test", "127.0.0.1:9092", policy=Policy(ignore=("^_",)))
    plan = make_plan(wanted, state, config, fingerprint(state, state.topics))
    report = drift(plan, wanted, state)
    jsonschema.validate(to_json(report), SCHEMA)
    return list(report.items)


CASES = {
    "in sync": (
        desired(spec("a.b", partitions=3, config={"retention.ms": "1000"})),
        cluster(topic("a.b", spread(3, 1), overrides={"retention.ms": "1000"})),
        [],
    ),
    "config changed out of band": (
        desired(spec("a.b", partitions=3, config={"retention.ms": "1000"})),
        cluster(topic("a.b", spread(3, 1), overrides={"retention.ms": "2000"})),
        [("a.b", "config", "config.retention.ms", "1000", "2000")],
    ),
    "override added out of band": (
        desired(spec("a.b", partitions=3)),
        cluster(topic("a.b", spread(3, 1), overrides={"cleanup.policy": "compact"})),
        [("a.b", "config", "config.cleanup.policy", None, "compact")],
    ),
    "topic missing": (
        desired(spec("a.b", partitions=3)),
        cluster(),
        [("a.b", "missing", "topic", "present", None)],
    ),
    "partitions grown out of band: the plan's partition_decrease error": (
        desired(spec("a.b", partitions=3)),
        cluster(topic("a.b", spread(6, 1))),
        [("a.b", "blocked", "partition_decrease", None, None)],
    ),
    "partitions short of the spec": (
        desired(spec("a.b", partitions=6)),
        cluster(topic("a.b", spread(3, 1))),
        [("a.b", "partitions", "partitions", "6", "3")],
    ),
    "replication factor changed": (
        desired(spec("a.b", partitions=3, replication_factor=3)),
        cluster(topic("a.b", spread(3, 2))),
        [("a.b", "replication_factor", "replication_factor", "3", "2")],
    ),
    "replicas moved off the spec's assignments": (
        desired(spec("a.b", assignments=[[1, 2], [2, 3]])),
        cluster(topic("a.b", [[2, 1], [2, 3]])),
        [("a.b", "placement", "assignments", "[[1, 2], [2, 3]]", "[[2, 1], [2, 3]]")],
    ),
    "tombstoned topic still there, its delete held back by the policy": (
        desired(spec("a.b", state=SpecState.ABSENT)),
        cluster(topic("a.b", spread(3, 1))),
        [("a.b", "blocked", "delete_not_allowed", None, None)],
    ),
    "tombstoned topic still there, protected": (
        desired(spec("a.b", state=SpecState.ABSENT, protect=True)),
        cluster(topic("a.b", spread(3, 1))),
        [("a.b", "blocked", "delete_protected", None, None)],
    ),
    "replication factor change held back by a reassignment in progress": (
        desired(spec("a.b", partitions=1, replication_factor=3)),
        cluster(
            topic("a.b", [[1, 2]]),
            reassignments=[Reassignment("a.b", 0, (1, 2), adding=(2,), removing=())],
        ),
        [("a.b", "blocked", "reassignment_in_progress", None, None)],
    ),
    "a create the plan refuses: the topic is still missing": (
        desired(spec("a.b", partitions=1, replication_factor=4)),
        cluster(),
        [("a.b", "blocked", "replication_factor_unreachable", None, None)],
    ),
    "a create colliding with an existing name": (
        desired(spec("a.b", partitions=1)),
        cluster(topic("a_b")),
        [
            ("a.b", "blocked", "topic_collision", None, None),
            ("a_b", "unmanaged", "topic", None, "present"),
        ],
    ),
    "unmanaged topic, ignored and internal ones left out": (
        desired(),
        cluster(topic("x.y"), topic("_private"), topic("__consumer_offsets", internal=True)),
        [("x.y", "unmanaged", "topic", None, "present")],
    ),
    "omitted counts never drift (KIP-464 defaults at creation)": (
        desired(spec("a.b")),
        cluster(topic("a.b", spread(5, 3))),
        [],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_drift_items(name: str) -> None:
    wanted, state, expected = CASES[name]
    found = [(i.topic, i.kind, i.field, i.desired, i.current) for i in report_of(wanted, state)]
    assert found == expected


def test_items_of_specd_topics_carry_their_spec_location() -> None:
    wanted = desired(spec("a.b", line=7, partitions=3, config={"retention.ms": "1000"}))
    items = report_of(wanted, cluster(topic("a.b", spread(3, 1)), topic("c.d")))
    where = {i.topic: i.location for i in items}
    assert str(where["a.b"]) == "topics/test.yaml:7:5"
    assert where["c.d"] is None


def test_renderers_name_topic_key_values_and_place() -> None:
    wanted = desired(spec("a.b", line=7, partitions=3, config={"retention.ms": "604800000"}))
    state = cluster(topic("a.b", spread(3, 1), overrides={"retention.ms": "86400000"}))
    config = ClusterConfig("prod", "127.0.0.1:9092")
    report = drift(make_plan(wanted, state, config, "sha256:" + "0" * 64), wanted, state)
    text = render_drift_text(report)
    assert (
        "topics/test.yaml:7:5  a.b  retention.ms: spec 604800000 (7d), cluster 86400000 (1d)"
        in (text)
    )
    markdown = render_drift_markdown(report)
    assert markdown.startswith("## reconciler drift for `prod`")
    assert (
        "| `a.b` | `retention.ms` | 604800000 (7d) | 86400000 (1d) | `topics/test.yaml:7:5` |"
        in (markdown)
    )


def test_markdown_stays_under_its_budget_and_counts_the_rest() -> None:
    wanted = desired(*(spec(f"t.{i:04d}", partitions=1) for i in range(3000)))
    state = cluster()
    config = ClusterConfig("big", "127.0.0.1:9092")
    report = drift(make_plan(wanted, state, config, "sha256:" + "0" * 64), wanted, state)
    markdown = render_drift_markdown(report, max_chars=5000)
    assert len(markdown) <= 5000
    shown = markdown.count("missing from the cluster")
    assert 10 < shown < 3000
    assert f"| … | {3000 - shown} more difference(s)" in markdown


def test_every_error_of_the_plan_is_drift_and_no_warning_is() -> None:
    """The mechanism, not a list: whatever error diagnostic the plan holds is an item carrying
    the plan's own code and sentence; a warning (here: a spec for an ignored topic) is not."""
    wanted = desired(
        spec("a.b", partitions=3),
        spec("c.d", partitions=1, replication_factor=5),
        spec("_hidden", partitions=1),
    )
    state = cluster(topic("a.b", spread(6, 1)), topic("_hidden"))
    config = ClusterConfig("test", "127.0.0.1:9092", policy=Policy(ignore=("^_",)))
    plan = make_plan(wanted, state, config, "sha256:" + "0" * 64)
    report = drift(plan, wanted, state)
    assert plan.errors and any(not d.is_error for d in plan.diagnostics)
    assert [i.diagnostic for i in report.items if i.kind == "blocked"] == sorted(
        plan.errors, key=lambda d: (d.topic or "", d.rule)
    )
    entries = to_json(report)["drift"]
    jsonschema.validate(to_json(report), SCHEMA)
    assert {(e["topic"], e["code"]) for e in entries} == {("a.b", "P101"), ("c.d", "P102")}
    text = render_drift_text(report)
    assert "topics/test.yaml:1:5  a.b  error[P101]: a.b: partitions cannot shrink" in text
    assert "| `c.d` | error[P102]: " in render_drift_markdown(report)
