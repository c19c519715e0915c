"""Saved plans are verified, not trusted (no broker): the plan file's shape and numbers
(planning.plan_input, workflow.load_plan) and the comparison with the plan derived again at
apply (apply.verify), on constructed states."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reconciler.apply.check.verify import made_with_prune, verify
from reconciler.cluster.protocol.acls import ClusterAcls
from reconciler.cluster.state import ClusterState, Reassignment
from reconciler.errors import ApplyRefused, ConfigError, PlanMismatch, StalePlan
from reconciler.planning.changes import Hazard
from reconciler.planning.json_plan import from_json, to_json
from reconciler.planning.plan import Plan, make_plan, mark_causes
from reconciler.planning.plan_input import check_document
from reconciler.spec.model import ClusterConfig, DesiredState, Policy
from reconciler.spec.model import Presence as SpecState
from reconciler.spec.raw_acls import RawAcl
from reconciler.workflow.saved_plan import load_plan
from tests.planning.factories import cluster, desired, spec, spread, topic
from tests.planning.test_render import golden_document

GOLDEN = Path(__file__).resolve().parents[1] / "planning" / "golden"

# --- the plan file: shape and numbers ----------------------------------------------------------


def _golden() -> dict[str, Any]:
    return golden_document("kitchen_sink.json")


def _at(document: dict[str, Any], topic_name: str) -> dict[str, Any]:
    entry: dict[str, Any] = next(c for c in document["changes"] if c["topic"] == topic_name)
    return entry


def test_every_golden_plan_passes_the_checks() -> None:
    for path in sorted(GOLDEN.glob("*.json")):
        check_document(json.loads(path.read_text()))


def _set(path: tuple[str | int, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        node: Any = document
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (_set(("changes", 1, "partitions", "desired"), -5),
         "changes[1].partitions.desired: -5 is less than the minimum of 1"),
        (_set(("changes", 1, "partitions", "desired"), 2**31),
         "changes[1].partitions.desired: 2147483648 is greater than the maximum of 2147483647"),
        (_set(("changes", 1, "replication_factor", "desired"), -1),
         "changes[1].replication_factor.desired: -1 is less than the minimum of 1"),
        (_set(("changes", 1, "replication_factor", "desired"), 32768),
         "changes[1].replication_factor.desired: 32768 is greater than the maximum of 32767"),
        (_set(("changes", 2, "assignments", 0, 0), -3),
         "changes[2].assignments[0][0]: -3 is less than the minimum of 0"),
        (_set(("changes", 2, "assignments", 0, 0), 2**31),
         "changes[2].assignments[0][0]: 2147483648 is greater than the maximum"),
        (_set(("changes", 1, "partitions", "desired"), 12.0),
         "changes[1].partitions.desired: 12.0 is not a whole number"),
        (_set(("changes", 1, "partitions", "desired"), True),
         "changes[1].partitions.desired: True is not of type 'integer', 'null'"),
        (_set(("changes", 1, "partitions", "desired"), "12"),
         "changes[1].partitions.desired: '12' is not of type 'integer', 'null'"),
        (_set(("summary", "create"), 2**63),
         "summary.create: 9223372036854775808 is outside Kafka's int64 range"),
        (_set(("changes", 1, "config", 1, "desired"), "-7"),
         "changes[1].config[1].desired: retention.ms"),
        (_set(("changes", 1, "config", 1, "desired"), "99999999999999999999"),
         "changes[1].config[1].desired: retention.ms"),
        (_set(("changes", 1, "action"), "explode"), "changes[1].action: 'explode' is not one of"),
        (_set(("changes",), {"a": 1}), "changes: this entry is not of type 'array'"),
        (_set(("changes", 0), 5), "changes[0]: 5 is not of type 'object'"),
        (_set(("changes", 0, "topic"), "../etc"), "changes[0].topic: '../etc' does not match"),
        (_set(("cluster",), ["prod"]), "cluster: this entry is not of type 'string'"),
        (_set(("changes", 0, "reason"), "prune"),
         "changes[0].reason: not allowed here (this action does not take it)"),
        (_set(("changes", 0, "evil"), 1),
         "changes[0]: Additional properties are not allowed ('evil' was unexpected)"),
    ],
    ids=["negative", "over-int32", "negative-rf", "rf-over-int16", "negative-broker",
         "broker-over-int32", "fraction", "bool", "string", "over-int64", "config-negative",
         "config-over-long", "action", "changes-object", "change-int", "topic-name",
         "cluster-list", "field-of-another-action", "unknown-field"],
)  # fmt: skip
def test_a_value_out_of_range_or_shape_is_named_by_its_place(
    edit: Callable[[dict[str, Any]], None], says: str
) -> None:
    """Finding 8: numbers and shapes of a plan file are checked with a clear message naming
    the field, never left to crash later."""
    document = _golden()
    edit(document)
    with pytest.raises(ValueError) as refused:
        check_document(document)
    assert says in str(refused.value)


def test_a_document_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValueError, match=r"the document: .* is not of type 'object'"):
        check_document([1, 2])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"format_version": 1, "cluster": "x", "n": ' + "9" * 5000 + "}", "more than"),
        ("{not json", "not JSON"),
        ("[]", "the document"),
        (json.dumps({**_golden(), "changes": [{"topic": "a", "action": 5}]}), "changes[0]"),
    ],
    ids=["digits", "not-json", "array", "wrong-shape"],
)
def test_load_plan_turns_every_bad_file_into_one_sentence(
    tmp_path: Path, text: str, says: str
) -> None:
    """Finding 8: the digit limit, non-JSON and valid JSON of the wrong shape are a ConfigError
    (exit 1) naming the file, not an internal error."""
    path = tmp_path / "PLAN.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_plan(path)
    message = str(refused.value)
    assert message.startswith(str(path)) and says in message
    assert "reconciler plan" in message


def test_load_plan_reads_a_good_plan(tmp_path: Path) -> None:
    path = tmp_path / "PLAN.json"
    path.write_text(json.dumps(_golden()))
    assert load_plan(path) == from_json(_golden())


# --- apply.verify: the plan derived again ------------------------------------------------------

CONFIG = ClusterConfig("test", "127.0.0.1:9092")


def _specs(retention: str = "86400000") -> DesiredState:
    return desired(
        spec("a.base", partitions=2, replication_factor=2),
        spec("a.dep", partitions=1, replication_factor=2, depends_on=["a.base"],
             config={"retention.ms": retention, "cleanup.policy": "compact"}),
        spec("b.old", partitions=3, config={"retention.ms": "7200000"}),
    )  # fmt: skip


def _state(*extra: Any) -> ClusterState:
    return cluster(topic("b.old", spread(2, 2), overrides={"retention.ms": "3600000"}), *extra)


def _deriver(
    specs: DesiredState, config: ClusterConfig = CONFIG
) -> Callable[[ClusterState, bool], Plan]:
    return lambda state, prune: make_plan(specs, state, config, prune=prune)


def _saved(specs: DesiredState, state: ClusterState, **kw: Any) -> Plan:
    """The plan as it goes through a file: to_json, text, from_json."""
    made = make_plan(specs, state, CONFIG, **kw)
    return from_json(json.loads(json.dumps(to_json(made))))


def _edited(plan: Plan, edit: Callable[[dict[str, Any]], None]) -> Plan:
    document = copy.deepcopy(to_json(plan))
    edit(document)
    check_document(json.loads(json.dumps(document)))  # still a well-formed plan file
    return from_json(document)


def test_the_plan_the_specs_give_is_accepted() -> None:
    saved = _saved(_specs(), _state())
    verify(saved, _state(), _deriver(_specs()))


def test_causes_are_for_reviewers_and_not_compared() -> None:
    saved = mark_causes(_saved(_specs(), _state()), "main", frozenset({"a.base"}))
    verify(saved, _state(), _deriver(_specs()))


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (_set(("changes", 1, "config", 1, "desired"), "1"),
         "changes[1] (create a.dep): changes[1].config[1].desired (retention.ms) is '1' in the "
         "saved plan, planning again gives '86400000'"),
        (_set(("changes", 0, "partitions", "desired"), 5000),
         "changes[0] (create a.base): changes[0].partitions.desired is 5000 in the saved plan, "
         "planning again gives 2"),
        (_set(("changes", 0, "replication_factor", "desired"), 1),
         "changes[0].replication_factor.desired is 1"),
        (_set(("changes", 2, "partitions", "desired"), 30),
         "changes[2] (update b.old): changes[2].partitions.desired is 30"),
        (_set(("changes", 1, "depends_on"), []), "changes[1].depends_on is []"),
        (lambda d: d["changes"].reverse(), "changes[0] (update b.old) is out of order"),
        (lambda d: d["changes"].insert(0, d["changes"].pop(1)),
         "changes[0] (create a.dep) is out of order"),
        (lambda d: d["changes"].append(copy.deepcopy(d["changes"][2])),
         "changes[3] repeats b.old (changes[2])"),
        (lambda d: d["changes"].pop(2),
         "planning again also gives update b.old (its changes[2]), which the saved plan does "
         "not have"),
        (lambda d: d["changes"].insert(2, {**copy.deepcopy(d["changes"][0]), "topic": "a.more"}),
         "changes[2] (create a.more) is not in the plan the specs give"),
        (lambda d: d["changes"].append({**copy.deepcopy(d["changes"][0]), "topic": "a.more"}),
         "changes[2] (update b.old) is out of order: a plan runs creates, updates, then "
         "deletes, each in dependency and then name order, which puts a.more there"),
        (_set(("changes", 1, "topic"), "a.evil"),
         "changes[1] (create a.evil) is not in the plan the specs give"),
        (lambda d: d["changes"][2].pop("config"), "changes[2].config is absent in the saved plan"),
    ],
    ids=["config-value", "partitions", "replication-factor", "increase", "depends-on",
         "reordered", "dependent-first", "repeated", "removed", "added", "added-last", "renamed",
         "step-removed"],
)  # fmt: skip
def test_a_plan_edited_after_review_is_refused_naming_the_first_difference(
    edit: Callable[[dict[str, Any]], None], says: str
) -> None:
    """Finding 2: values changed, changes added, removed, reordered or renamed: refused, the
    first difference named."""
    saved = _edited(_saved(_specs(), _state()), edit)
    with pytest.raises(PlanMismatch) as refused:
        verify(saved, _state(), _deriver(_specs()))
    assert says in str(refused.value)
    assert "Nothing was changed" in str(refused.value)


def test_errors_deleted_from_the_file_are_judged_again() -> None:
    """Finding 2: limits and policies are judged on the derived plan, not on the file's
    diagnostics (here: max_partitions_per_topic, with the errors removed from the file)."""
    strict = dataclasses.replace(CONFIG, policy=Policy(max_partitions_per_topic=2))
    specs = desired(spec("a.wide", partitions=5, replication_factor=1))
    made = make_plan(specs, _state(), strict)
    assert made.errors
    saved = dataclasses.replace(made, diagnostics=())  # the file with its errors deleted
    with pytest.raises(ApplyRefused, match="max_partitions_per_topic"):
        verify(saved, _state(), _deriver(specs, strict))


def test_a_hazard_acknowledged_in_the_file_but_not_in_the_specs_is_refused() -> None:
    """Finding 2: `acknowledged` written into the plan file is not an acknowledgement."""
    state = _state(topic("a.base", spread(2, 2)))
    specs = desired(spec("a.base", partitions=2, replication_factor=2),
                    spec("b.old", partitions=2, config={"retention.ms": "60000"}))  # fmt: skip
    made = _saved(specs, state)
    assert made.unacknowledged_hazards
    saved = dataclasses.replace(
        made,
        changes=tuple(
            dataclasses.replace(
                c, hazards=tuple(dataclasses.replace(h, acknowledged=True) for h in c.hazards)
            )
            for c in made.changes
        ),
    )
    with pytest.raises(PlanMismatch, match=r"hazards\[0\].acknowledged \(retention_decrease\)"):
        verify(saved, state, _deriver(specs))


def test_another_clusters_plan_is_refused() -> None:
    saved = dataclasses.replace(_saved(_specs(), _state()), cluster="other")
    with pytest.raises(PlanMismatch, match="it is for cluster 'other', the specs are for 'test'"):
        verify(saved, _state(), _deriver(_specs()))


def test_the_remaining_work_of_an_interrupted_apply_is_accepted() -> None:
    """Resumption: creates done and a config change half done drop out of the comparison."""
    specs = desired(
        spec("a.base", partitions=2, replication_factor=2),
        spec("b.old", partitions=2, config={"retention.ms": "7200000", "segment.bytes":
                                             "1048576"}),
        spec("c.new", partitions=1, replication_factor=1),
    )  # fmt: skip
    saved = _saved(specs, _state())
    later = _state(topic("a.base", spread(2, 2)))
    later = cluster(
        topic("a.base", spread(2, 2)),
        topic("b.old", spread(2, 2), overrides={"retention.ms": "7200000"}),
    )
    verify(saved, later, _deriver(specs))


def test_a_reassignment_under_way_is_resumed() -> None:
    """Mid-reassignment the planner sees the target settled: the step drops out."""
    specs = desired(spec("r.grow", replication_factor=3))
    before = cluster(topic("r.grow", spread(1, 2)))
    saved = _saved(specs, before)
    moving = cluster(
        topic("r.grow", [[1, 2, 3]]),
        reassignments=[Reassignment("r.grow", 0, (1, 2, 3), adding=(3,), removing=())],
    )
    verify(saved, moving, _deriver(specs))


def test_someone_elses_create_without_the_configs_is_stale_naming_the_keys() -> None:
    """Finding 3: a create someone else made with the planned counts but without the planned
    configs is Diverged (stale, the keys named), never done."""
    saved = _saved(_specs(), _state())
    behind = _state(topic("a.base", spread(2, 2)), topic("a.dep", spread(1, 2)))
    with pytest.raises(StalePlan) as refused:
        verify(saved, behind, _deriver(_specs()))
    assert "cleanup.policy is None, the plan has 'compact'" in str(refused.value)
    assert "retention.ms is None, the plan has '86400000'" in str(refused.value)


def test_a_missing_dependency_refuses_its_dependents() -> None:
    """Finding 3: a depends_on target deleted after planning refuses the dependent."""
    specs = _specs()
    state = _state(topic("a.base", spread(2, 2)))
    saved = _saved(specs, state)
    assert [c.topic for c in saved.changes] == ["a.dep", "b.old"]
    with pytest.raises(PlanMismatch, match=r"changes\[0\] \(a.dep\) depends on a.base"):
        verify(saved, _state(), _deriver(specs))


def test_a_pruning_plan_is_derived_with_prune() -> None:
    specs = desired(spec("a.base", partitions=2, replication_factor=2))
    config = dataclasses.replace(CONFIG, policy=Policy(allow_delete=True))
    state = cluster(topic("a.base", spread(2, 2)), topic("z.stray", spread(1, 1)))
    made = make_plan(specs, state, config, prune=True)
    assert made_with_prune(made) and made.applyable
    verify(made, state, _deriver(specs, config))
    # Without --prune nothing deletes the stray: a prune delete added by hand is refused
    plain = make_plan(specs, state, config)
    assert not made_with_prune(plain)
    tombstone = desired(
        spec("a.base", partitions=2, replication_factor=2),
        spec("z.stray", state=SpecState.ABSENT, acknowledge=["delete"]),
    )
    deleting = make_plan(tombstone, state, config)
    forged = _edited(deleting, _set(("changes", 0, "reason"), "prune"))
    with pytest.raises(PlanMismatch, match=r"changes\[0\].reason is 'prune'"):
        verify(forged, state, _deriver(tombstone, config))


def test_a_hazard_added_to_the_file_is_refused() -> None:
    """Hazards are part of what is compared (on topics no earlier apply has touched)."""
    saved = _saved(_specs(), _state())
    hazard = Hazard("retention_decrease", "x", acknowledged=True)
    added = dataclasses.replace(
        saved, changes=(*saved.changes[:2], dataclasses.replace(saved.changes[2],
                                                                 hazards=(hazard,)))
    )  # fmt: skip
    with pytest.raises(PlanMismatch, match="hazards"):
        verify(added, _state(), _deriver(_specs()))


def test_what_is_left_is_compared_in_the_planners_order() -> None:
    """Resumption: with a dependency created, its dependent moves ahead of a topic named
    before it in the derived plan; the saved plan's remaining work is still accepted."""
    specs = desired(
        spec("c.base", partitions=1, replication_factor=1),
        spec("a.dep", partitions=1, replication_factor=1, depends_on=["c.base"]),
        spec("b.free", partitions=1, replication_factor=1),
    )
    saved = _saved(specs, cluster())
    assert [c.topic for c in saved.changes] == ["b.free", "c.base", "a.dep"]
    later = cluster(topic("c.base"))
    assert [c.topic for c in make_plan(specs, later, CONFIG).changes] == ["a.dep", "b.free"]
    verify(saved, later, _deriver(specs))


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_a_plan_file_nested_too_deeply_is_one_sentence(tmp_path: Path, depth: int) -> None:
    """Finding 8's class: input that would exhaust Python's recursion is a ConfigError too."""
    path = tmp_path / "{deep}.json"
    path.write_text('{"format_version": 1, "x": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_plan(path)


def test_a_saved_plan_s_raw_acl_changes_must_be_what_the_specs_give_now() -> None:
    """The `acls:` section is compared like the topic entries: one the specs no longer give
    (or a new one) is a mismatch; one the cluster already shows done is not."""
    ops = RawAcl("User:ops", "group", "ops", "literal", ("Read",))
    tx = RawAcl("User:tx", "transactional_id", "tx-1", "literal", ("Write",))
    state = dataclasses.replace(_state(), acls=ClusterAcls(()))
    given = dataclasses.replace(_specs(), acls=(ops, tx))
    saved = _saved(given, state)
    assert len(saved.acls) == 2
    verify(saved, state, _deriver(given))
    (granted,) = (a.binding for a in saved.acls if a.binding.principal == "User:ops")
    done = dataclasses.replace(state, acls=ClusterAcls((granted,)))
    verify(saved, done, _deriver(given))  # the grant done: the rest still matches
    with pytest.raises(PlanMismatch, match="the saved plan has the ACL change `grant User:tx"):
        verify(saved, state, _deriver(dataclasses.replace(given, acls=(ops,))))
