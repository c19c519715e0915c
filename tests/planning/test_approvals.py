"""An approval approves one transition: `acknowledge:` items name the values before and after
(and the topic id) of the change they approve (the plan's `approve_with`); an item naming
another transition approves nothing; the old forms (a bare code, the new value alone) approve
nothing and get one sentence giving the item to write; stale items are warnings;
`acknowledge:` under a file's `defaults:` is an error."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from reconciler.cluster.state import ClusterState, TopicState
from reconciler.planning.changes import Hazard
from reconciler.planning.plan import Plan, make_plan
from reconciler.spec.loader import load_repo
from reconciler.spec.model import Acknowledgment, ClusterConfig, Policy, Presence
from tests.planning.factories import checked_json, cluster, desired, spec, spread, topic


def _plan(current: ClusterState, **fields: Any) -> Plan:
    specs = desired(spec("t.h", line=7, **fields))
    return make_plan(specs, current, ClusterConfig("c", "b:9092", policy=Policy(allow_delete=True)))


def _hazard(plan: Plan) -> Hazard:
    [hazard] = [h for c in plan.changes for h in c.hazards]
    return hazard


def _rules(plan: Plan) -> list[str]:
    return [d.rule for d in plan.diagnostics]


KEYED_12 = cluster(topic("t.h", spread(12, 2)))


def test_an_approval_for_16_partitions_does_not_approve_24() -> None:
    item = {"key_reorder": {"from": 12, "to": 16}}
    approved = _plan(KEYED_12, partitions=16, keyed=True, acknowledge=[item])
    assert _hazard(approved).acknowledged and approved.applyable
    assert _rules(approved) == []

    later = _plan(KEYED_12, partitions=24, keyed=True, acknowledge=[item])

    hazard = _hazard(later)
    assert not hazard.acknowledged and not later.applyable
    assert hazard.approve_with == {"key_reorder": {"from": 12, "to": 24}}
    assert (
        "`{key_reorder: {from: 12, to: 16}}` approves another change, not this one: apply "
        "refuses it until the topic's spec approves it with `- {key_reorder: {from: 12, to: 24}}` "
        "under `acknowledge:`"
    ) in hazard.message
    [stale] = later.diagnostics  # the old approval approves nothing here: a warning at its line
    assert (stale.rule, stale.severity.value, stale.topic) == (
        "acknowledge_stale",
        "warning",
        "t.h",
    )
    assert "`{key_reorder: {from: 12, to: 16}}` in acknowledge: matches no change" in stale.message
    [entry] = [h for c in checked_json(later)["changes"] for h in c["hazards"]]
    assert entry["approve_with"] == {"key_reorder": {"from": 12, "to": 24}}


@pytest.mark.parametrize(
    ("overrides", "config", "approval"),
    [
        ({"retention.ms": "604800000"}, {"retention.ms": "86400000"},
         {"retention_decrease": {"key": "retention.ms", "from": 604800000, "to": 86400000}}),
        ({"retention.bytes": "1073741824"}, {"retention.bytes": "1048576"},
         {"retention_decrease": {"key": "retention.bytes", "from": 1073741824, "to": 1048576}}),
        ({"cleanup.policy": "delete"}, {"cleanup.policy": "compact"},
         {"cleanup_policy_change": {"key": "cleanup.policy", "from": "delete", "to": "compact"}}),
    ],
)  # fmt: skip
def test_config_hazards_bind_to_the_values_in_effect_before_and_after(
    overrides: dict[str, str], config: dict[str, str], approval: dict[str, Any]
) -> None:
    state = cluster(topic("t.h", spread(3, 2), overrides=overrides))
    [(code, fields)] = approval.items()
    assert _hazard(_plan(state, partitions=3, config=config)).approve_with == approval
    assert _plan(state, partitions=3, config=config, acknowledge=[approval]).applyable
    # The YAML spelling of the number or the text: the same item
    texts = {k: str(v) for k, v in fields.items()}
    assert _plan(state, partitions=3, config=config, acknowledge=[{code: texts}]).applyable
    other = _plan(state, partitions=3, config=config, acknowledge=[{code: {**fields, "from": 1}}])
    assert not other.applyable and _rules(other) == ["acknowledge_stale"]


def test_a_left_over_retention_approval_never_approves_a_later_cut_from_another_value() -> None:
    """The issue's case: `{retention_decrease: 86400000}` left in a spec, and a later cut from
    30d (set out of band) to 1d: neither the old form nor a bound item of the first cut
    approves it."""
    out_of_band = cluster(topic("t.h", spread(3, 2), overrides={"retention.ms": "2592000000"}))
    first_cut = {"retention_decrease": {"key": "retention.ms", "from": 604800000, "to": 86400000}}
    for left_over in ({"retention_decrease": 86400000}, first_cut):
        plan = _plan(
            out_of_band, partitions=3, config={"retention.ms": "86400000"}, acknowledge=[left_over]
        )
        hazard = _hazard(plan)
        assert not hazard.acknowledged and not plan.applyable, left_over
        assert hazard.approve_with == {
            "retention_decrease": {"key": "retention.ms", "from": 2592000000, "to": 86400000}
        }


def test_the_approval_names_the_topic_id_so_a_recreated_topic_needs_a_new_one() -> None:
    state = topic("t.h", spread(3, 2), overrides={"retention.ms": "604800000"})
    first = cluster(_with_id(state, "AAAAAAAAAAAAAAAAAAAAAA"))
    again = cluster(_with_id(state, "BBBBBBBBBBBBBBBBBBBBBB"))
    fields = {"key": "retention.ms", "from": 604800000, "to": 86400000}
    item = {"retention_decrease": {**fields, "topic_id": "AAAAAAAAAAAAAAAAAAAAAA"}}
    config = {"retention.ms": "86400000"}
    assert _plan(first, partitions=3, config=config, acknowledge=[item]).applyable
    recreated = _plan(again, partitions=3, config=config, acknowledge=[item])
    assert not recreated.applyable
    assert _hazard(recreated).approve_with == {
        "retention_decrease": {**fields, "topic_id": "BBBBBBBBBBBBBBBBBBBBBB"}
    }


def _with_id(state: TopicState, topic_id: str) -> TopicState:
    return dataclasses.replace(state, topic_id=topic_id)


def test_a_delete_approval_binds_to_the_topic_id_so_a_recreated_topic_needs_a_new_one() -> None:
    first = cluster(_with_id(topic("t.h", spread(3, 2)), "AAAAAAAAAAAAAAAAAAAAAA"))
    again = cluster(_with_id(topic("t.h", spread(3, 2)), "BBBBBBBBBBBBBBBBBBBBBB"))
    tombstone: dict[str, Any] = {
        "state": Presence.ABSENT,
        "acknowledge": [{"delete": "AAAAAAAAAAAAAAAAAAAAAA"}],
    }

    assert _plan(first, **tombstone).applyable

    recreated = _plan(again, **tombstone)
    hazard = _hazard(recreated)
    assert not hazard.acknowledged and not recreated.applyable
    assert hazard.approve_with == {"delete": "BBBBBBBBBBBBBBBBBBBBBB"}
    assert "approves it with `- {delete: BBBBBBBBBBBBBBBBBBBBBB}`" in hazard.message


def test_without_topic_ids_a_delete_approval_binds_to_the_name_and_says_so() -> None:
    plan = _plan(cluster(topic("t.h", spread(1, 1))), state=Presence.ABSENT)
    hazard = _hazard(plan)
    assert hazard.approve_with == {"delete": "t.h"}
    assert "this broker gives no topic ids, Kafka before 2.8" in hazard.message


@pytest.mark.parametrize("old", ["key_reorder", {"key_reorder": 16}])
def test_an_old_form_approves_nothing_and_one_sentence_gives_the_new_form(
    old: str | dict[str, int],
) -> None:
    plan = _plan(KEYED_12, partitions=16, keyed=True, acknowledge=[old])
    hazard = _hazard(plan)
    assert not hazard.acknowledged and not plan.applyable
    [warning] = plan.diagnostics
    assert (warning.rule, warning.code, warning.severity.value) == (
        "acknowledge_unbound",
        "P132",
        "warning",
    )
    assert "is the old form, which names no value before the change, so it approves nothing" in (
        warning.message
    )
    assert "write `- {key_reorder: {from: 12, to: 16}}` (the plan's approve_with)" in (
        warning.message
    )
    assert "is the old form, which approves nothing" in hazard.message


def test_an_approval_of_no_change_is_reported() -> None:
    unchanged = cluster(topic("t.h", spread(3, 2)))
    items = ["key_reorder", {"delete": "x"}, {"key_reorder": {"from": 3, "to": 6}}]
    plan = _plan(unchanged, partitions=3, acknowledge=items)
    assert not plan.changes
    assert _rules(plan) == ["acknowledge_unbound", "acknowledge_stale", "acknowledge_stale"]
    assert "{key_reorder: {from: BEFORE, to: AFTER, ...}}" in plan.diagnostics[0].message


def test_acknowledge_under_defaults_is_an_error_naming_its_line(tmp_path: Path) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text("clusters:\n  c: {bootstrap: 'b:9092'}\n")
    (tmp_path / "topics" / "t.yaml").write_text(
        "defaults:\n"
        "  acknowledge:\n"
        "    - {key_reorder: {from: 3, to: 6}}\n"
        "topics:\n"
        "  - name: t.a\n"
        "  - name: t.b\n"
    )
    loaded = load_repo(tmp_path, "c")
    assert not loaded.valid
    [error] = [d for d in loaded.diagnostics if d.is_error]
    assert (error.code, error.location and error.location.line) == ("R310", 2)
    assert "move each item under `acknowledge:` of the topic" in error.message


def test_the_spec_reader_keeps_each_item_and_its_line(tmp_path: Path) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text("clusters:\n  c: {bootstrap: 'b:9092'}\n")
    (tmp_path / "topics" / "t.yaml").write_text(
        "topics:\n"
        "  - name: t.a\n"
        "    partitions: 16\n"
        "    keyed: true\n"
        "    acknowledge:\n"
        "      - {key_reorder: 16}\n"
        "      - delete\n"
        "      - {delete: 'AAAAAAAAAAAAAAAAAAAAAA'}\n"
        "      - {unclean_leader_election: {key: unclean.leader.election.enable, from: false,"
        " to: true}}\n"
    )
    loaded = load_repo(tmp_path, "c")
    assert loaded.valid, loaded.diagnostics
    items = loaded.desired["c"].topics["t.a"].acknowledge
    assert items == (
        Acknowledgment("key_reorder", "16"),
        Acknowledgment("delete"),
        Acknowledgment("delete", "AAAAAAAAAAAAAAAAAAAAAA"),
        Acknowledgment(
            "unclean_leader_election",
            (("from", "false"), ("key", "unclean.leader.election.enable"), ("to", "true")),
        ),
    )
    assert [a.old_form for a in items] == [True, True, False, False]
    assert [a.location.line for a in items if a.location] == [6, 7, 8, 9]


@pytest.mark.parametrize(
    "item",
    [
        "{key_reorder: 16, delete: x}",
        "{unknown: 1}",
        "{key_reorder: true}",
        "reorder",
        "{key_reorder: {from: 3}}",
        "{key_reorder: {from: 3, to: 6, when: now}}",
    ],
)
def test_an_item_naming_no_hazard_or_two_is_a_schema_error(tmp_path: Path, item: str) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text("clusters:\n  c: {bootstrap: 'b:9092'}\n")
    (tmp_path / "topics" / "t.yaml").write_text(
        f"topics:\n  - name: t.a\n    acknowledge:\n      - {item}\n"
    )
    loaded = load_repo(tmp_path, "c")
    assert not loaded.valid
    assert any(d.location and d.location.line == 4 for d in loaded.diagnostics if d.is_error)


# One topic id in Kafka's form (URL-safe, unpadded) and as reconciler wrote it before
KAFKA_ID = "W39X6ZmjT36-ZeEcGS-CEA"
STANDARD_ID = "W39X6ZmjT36+ZeEcGS+CEA=="


@pytest.mark.parametrize("written", [KAFKA_ID, STANDARD_ID, "W39X6ZmjT36+ZeEcGS+CEA"])
def test_an_approval_names_the_topic_id_in_either_base64_alphabet(written: str) -> None:
    state = _with_id(topic("t.h", spread(3, 2), overrides={"retention.ms": "604800000"}), KAFKA_ID)
    fields = {"key": "retention.ms", "from": 604800000, "to": 86400000}
    item = {"retention_decrease": {**fields, "topic_id": written}}
    plan = _plan(
        cluster(state), partitions=3, config={"retention.ms": "86400000"}, acknowledge=[item]
    )
    assert plan.applyable
    tombstone = {"state": Presence.ABSENT, "acknowledge": [{"delete": written}]}
    deleted = _plan(cluster(_with_id(topic("t.h", spread(3, 2)), KAFKA_ID)), **tombstone)
    assert deleted.applyable
    assert _hazard(deleted).approve_with == {"delete": KAFKA_ID}


def test_an_approval_of_another_id_in_the_old_alphabet_still_approves_nothing() -> None:
    other = "W39X6ZmjT36+ZeEcGS+CEQ=="  # one bit apart
    tombstone = {"state": Presence.ABSENT, "acknowledge": [{"delete": other}]}
    plan = _plan(cluster(_with_id(topic("t.h", spread(3, 2)), KAFKA_ID)), **tombstone)
    assert not plan.applyable


@pytest.mark.parametrize(
    ("key", "before", "after", "human"),
    [
        ("retention.ms", "2592000000", "86400000", {"from": "30d", "to": "24h"}),
        ("retention.bytes", "1073741824", "1048576", {"from": "1GiB", "to": "1MiB"}),
        ("retention.ms", "604800000", "3600000", {"from": "168h", "to": 3600000}),
    ],
)
def test_an_approval_takes_the_units_the_spec_takes(
    key: str, before: str, after: str, human: dict[str, object]
) -> None:
    """`from: 30d` approves the cut from 2592000000: the catalog reads an approval's values
    as it reads the spec's config; another value in units still approves nothing."""
    state = cluster(topic("t.h", spread(3, 2), overrides={key: before}))
    hazard = _hazard(_plan(state, partitions=3, config={key: after}))
    assert hazard.approve_with is not None
    [(code, fields)] = hazard.approve_with.items()
    assert isinstance(fields, dict)
    spelled = {**fields, **human}
    approved = _plan(state, partitions=3, config={key: after}, acknowledge=[{code: spelled}])
    assert approved.applyable, approved.diagnostics
    wrong = _plan(state, partitions=3, config={key: after},
                  acknowledge=[{code: {**spelled, "from": "29d"}}])  # fmt: skip
    assert not wrong.applyable
