"""diff: one table row per planning rule, over constructed (current state, desired specs)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from reconciler.cluster.state import ClusterState, Reassignment, TopicState
from reconciler.diagnostics import Severity
from reconciler.planning import p_codes
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    Change,
    ConfigChange,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.diff import diff
from reconciler.planning.plan import make_plan
from reconciler.spec.model import ClusterConfig, DesiredState, Policy, Presence, TopicSpec
from tests.planning.factories import brokers, checked_json, cluster, desired, spec, spread, topic

ALLOW = Policy(allow_delete=True, max_deletes=5, ignore=("^_", "^connect-"))


@dataclass(frozen=True)
class Case:
    current: ClusterState
    specs: tuple[TopicSpec, ...]
    changes: tuple[Change, ...] = ()  # every planned change, topics in name order
    diagnostics: tuple[tuple[str, str | None], ...] = ()  # (rule, topic)
    hazards: tuple[tuple[str, str], ...] = ()  # (topic, hazard code)
    unmanaged: tuple[str, ...] = ()
    policy: Policy = field(default=ALLOW)
    prune: bool = False


def t3(
    name: str,
    overrides: dict[str, str] | None = None,
    inherited: dict[str, str] | None = None,
) -> TopicState:
    """A 3-partition, RF 2 topic spread over brokers 1..3."""
    return topic(name, spread(3, 2), overrides=overrides, inherited=inherited)


CASES: dict[str, Case] = {
    # --- create -----------------------------------------------------------------------------
    "create with explicit counts and config": Case(
        cluster(),
        (spec("a.new", partitions=6, replication_factor=3, config={"retention.ms": "86400000"}),),
        (CreateTopic("a.new", 6, 3, (("retention.ms", "86400000"),)),),
    ),
    "create with omitted counts shows the broker defaults (KIP-464)": Case(
        cluster(defaults={"num.partitions": "3", "default.replication.factor": "2"}),
        (spec("a.new", depends_on=["b.dep"]),),
        (
            CreateTopic(
                "a.new",
                None,
                None,
                depends_on=("b.dep",),
                default_partitions=3,
                default_replication_factor=2,
            ),
        ),
    ),
    "create with omitted counts and unknown broker defaults": Case(
        cluster(defaults={}),
        (spec("a.new"),),
        (CreateTopic("a.new", None, None),),
    ),
    "create with manual assignments takes the counts from them": Case(
        cluster(),
        (spec("a.new", assignments=[[1, 2], [2, 3], [3, 1]]),),
        (CreateTopic("a.new", 3, 2, assignments=((1, 2), (2, 3), (3, 1))),),
    ),
    "create with assignments on a broker the cluster lacks": Case(
        cluster(),
        (spec("a.new", partitions=2, replication_factor=2, assignments=[[1, 2], [2, 7]]),),
        diagnostics=(("unknown_broker", "a.new"),),
    ),
    "create colliding by '.' versus '_' with an existing topic": Case(
        cluster(topic("orders_v1")),
        (spec("orders.v1", partitions=1), spec("orders_v1")),
        diagnostics=(("topic_collision", "orders.v1"),),
    ),
    "create with a replication factor above the broker count": Case(
        cluster(),
        (spec("a.new", partitions=1, replication_factor=4),),
        diagnostics=(("replication_factor_unreachable", "a.new"),),
    ),
    "create whose broker default replication factor is unreachable": Case(
        cluster(broker_list=brokers("a"), defaults={"default.replication.factor": "3"}),
        (spec("a.new", partitions=1),),
        diagnostics=(("replication_factor_unreachable", "a.new"),),
    ),
    # --- no drift -----------------------------------------------------------------------------
    "existing topic matching its spec": Case(
        cluster(t3("a.same", overrides={"retention.ms": "86400000"})),
        (spec("a.same", partitions=3, replication_factor=2, config={"retention.ms": "86400000"}),),
    ),
    "omitted partitions and replication factor are never drift": Case(
        cluster(topic("a.old", spread(7, 1)), defaults={"num.partitions": "3"}),
        (spec("a.old"),),
    ),
    "cluster values compare after normalising": Case(
        cluster(t3("a.norm", overrides={"cleanup.policy": "delete,compact"})),
        (spec("a.norm", config={"cleanup.policy": "compact,delete"}),),
    ),
    # --- partitions -------------------------------------------------------------------------
    "partition increase is absolute": Case(
        cluster(t3("a.grow")),
        (spec("a.grow", partitions=6),),
        (IncreasePartitions("a.grow", 3, 6),),
    ),
    "partition increase on a keyed topic is a key_reorder hazard": Case(
        cluster(t3("a.keyed")),
        (spec("a.keyed", partitions=4, keyed=True),),
        (IncreasePartitions("a.keyed", 3, 4),),
        hazards=(("a.keyed", "key_reorder"),),
    ),
    "partition increase on a compacted topic is a key_reorder hazard": Case(
        cluster(t3("a.compacted", overrides={"cleanup.policy": "compact"})),
        (spec("a.compacted", partitions=4, config={"cleanup.policy": "compact"}),),
        (IncreasePartitions("a.compacted", 3, 4),),
        hazards=(("a.compacted", "key_reorder"),),
    ),
    "partition increase on a topic inheriting compact,delete is a key_reorder hazard": Case(
        cluster(t3("a.inherits", inherited={"cleanup.policy": "compact,delete"})),
        (spec("a.inherits", partitions=4),),
        (IncreasePartitions("a.inherits", 3, 4),),
        hazards=(("a.inherits", "key_reorder"),),
    ),
    "partition decrease is an error, never a recreate": Case(
        cluster(t3("a.shrink")),
        (spec("a.shrink", partitions=2),),
        diagnostics=(("partition_decrease", "a.shrink"),),
    ),
    "new partitions take the tail of the manual assignments": Case(
        cluster(topic("a.manual", [[1, 2], [2, 3]])),
        (spec("a.manual", assignments=[[1, 2], [2, 3], [3, 1], [1, 3]]),),
        (IncreasePartitions("a.manual", 2, 4, ((3, 1), (1, 3))),),
    ),
    "manual assignments for new partitions on an unknown broker": Case(
        cluster(topic("a.manual", [[1, 2], [2, 3]])),
        (spec("a.manual", assignments=[[1, 2], [2, 3], [3, 9]]),),
        diagnostics=(("unknown_broker", "a.manual"),),
    ),
    # --- replication factor -------------------------------------------------------------------
    "replication factor increase adds a replica on another rack": Case(
        cluster(topic("a.rf", [[1], [2], [3]])),
        (spec("a.rf", replication_factor=2),),
        (ReassignReplicas("a.rf", 1, 2, ((1,), (2,), (3,)), ((1, 2), (2, 1), (3, 1))),),
    ),
    "replication factor decrease keeps leaders and spreads the drops": Case(
        cluster(topic("a.rf", spread(3, 3))),
        (spec("a.rf", replication_factor=2),),
        (
            ReassignReplicas(
                "a.rf", 3, 2, ((1, 2, 3), (2, 3, 1), (3, 1, 2)), ((1, 2), (2, 3), (3, 1))
            ),
        ),
        hazards=(("a.rf", "replication_factor_decrease"),),
    ),
    "replication factor change with a partition increase": Case(
        cluster(topic("a.both", [[1], [2]])),
        (spec("a.both", partitions=3, replication_factor=2),),
        (
            IncreasePartitions("a.both", 2, 3, ((3,),)),
            ReassignReplicas("a.both", 1, 2, ((1,), (2,), (3,)), ((1, 2), (2, 1), (3, 1))),
        ),
    ),
    "replication factor change follows manual assignments": Case(
        cluster(topic("a.manual", [[1], [2]])),
        (spec("a.manual", assignments=[[1, 3], [2, 3]]),),
        (ReassignReplicas("a.manual", 1, 2, ((1,), (2,)), ((1, 3), (2, 3))),),
    ),
    "replication factor above the broker count": Case(
        cluster(t3("a.rf")),
        (spec("a.rf", replication_factor=5),),
        diagnostics=(("replication_factor_unreachable", "a.rf"),),
    ),
    "reassignment in progress blocks a replication factor change": Case(
        cluster(
            t3("a.moving"),
            reassignments=[Reassignment("a.moving", 0, (1, 2, 3), adding=(3,), removing=(2,))],
        ),
        (spec("a.moving", replication_factor=3),),
        diagnostics=(("reassignment_in_progress", "a.moving"),),
    ),
    "reassignment in progress blocks a partition increase but not config": Case(
        cluster(
            t3("a.moving"),
            reassignments=[Reassignment("a.moving", 1, (2, 3, 1), adding=(1,), removing=(3,))],
        ),
        (spec("a.moving", partitions=4, config={"retention.ms": "86400000"}),),
        (
            AlterTopicConfig(
                "a.moving", (ConfigChange("retention.ms", None, "86400000", "604800000"),)
            ),
        ),
        diagnostics=(("reassignment_in_progress", "a.moving"),),
        # The state read no inherited value: Kafka's default (7d) is what 1d replaces.
        hazards=(("a.moving", "retention_decrease"),),
    ),
    "a reassignment already heading to the desired factor is not re-planned": Case(
        cluster(
            topic("a.moving", [[1, 2, 3], [2, 3]]),
            reassignments=[Reassignment("a.moving", 0, (1, 2, 3), adding=(), removing=(3,))],
        ),
        (spec("a.moving", replication_factor=2),),
    ),
    # --- config -------------------------------------------------------------------------------
    "config set, update and removals with their fallbacks": Case(
        cluster(
            t3(
                "a.cfg",
                overrides={
                    "retention.ms": "604800000",
                    "segment.bytes": "1048576",
                    "x.vendor.setting": "on",
                },
                inherited={"min.insync.replicas": "1"},
            ),
            defaults={"log.segment.bytes": "536870912"},
        ),
        (spec("a.cfg", config={"retention.ms": "86400000", "min.insync.replicas": "2"}),),
        (
            AlterTopicConfig(
                "a.cfg",
                (
                    ConfigChange("min.insync.replicas", None, "2", "1"),
                    ConfigChange("retention.ms", "604800000", "86400000"),
                    ConfigChange("segment.bytes", "1048576", None, "536870912"),
                    ConfigChange("x.vendor.setting", "on", None, None),
                ),
            ),
        ),
        hazards=(("a.cfg", "retention_decrease"),),
    ),
    "removal falls back to Kafka's default when the broker's value is unknown": Case(
        cluster(t3("a.cfg", overrides={"segment.ms": "3600000"}), defaults={}),
        (spec("a.cfg"),),
        (AlterTopicConfig("a.cfg", (ConfigChange("segment.ms", "3600000", None, "604800000"),)),),
    ),
    "removing an unlimited retention lowers it": Case(
        cluster(t3("a.ret", overrides={"retention.ms": "-1"})),
        (spec("a.ret"),),
        (AlterTopicConfig("a.ret", (ConfigChange("retention.ms", "-1", None, "604800000"),)),),
        hazards=(("a.ret", "retention_decrease"),),
    ),
    "a size limit below the inherited unlimited retention.bytes": Case(
        cluster(t3("a.ret", inherited={"retention.bytes": "-1"})),
        (spec("a.ret", config={"retention.bytes": "1073741824"}),),
        (AlterTopicConfig("a.ret", (ConfigChange("retention.bytes", None, "1073741824", "-1"),)),),
        hazards=(("a.ret", "retention_decrease"),),
    ),
    "raising retention to unlimited is no hazard": Case(
        cluster(t3("a.ret", overrides={"retention.ms": "86400000"})),
        (spec("a.ret", config={"retention.ms": "-1"}),),
        (AlterTopicConfig("a.ret", (ConfigChange("retention.ms", "86400000", "-1"),)),),
    ),
    "cleanup.policy change is a hazard": Case(
        cluster(t3("a.cp", inherited={"cleanup.policy": "delete"})),
        (spec("a.cp", config={"cleanup.policy": "compact"}),),
        (AlterTopicConfig("a.cp", (ConfigChange("cleanup.policy", None, "compact", "delete"),)),),
        hazards=(("a.cp", "cleanup_policy_change"),),
    ),
    "pinning the inherited cleanup.policy as an override is no hazard": Case(
        cluster(t3("a.cp", inherited={"cleanup.policy": "delete"})),
        (spec("a.cp", config={"cleanup.policy": "delete"}),),
        (AlterTopicConfig("a.cp", (ConfigChange("cleanup.policy", None, "delete", "delete"),)),),
    ),
    # --- delete -------------------------------------------------------------------------------
    "tombstone deletes when the policy allows": Case(
        cluster(t3("a.gone")),
        (spec("a.gone", state=Presence.ABSENT),),
        (DeleteTopic("a.gone", 3, "tombstone"),),
        hazards=(("a.gone", "delete"),),
    ),
    "tombstone without allow_delete is an error": Case(
        cluster(t3("a.gone")),
        (spec("a.gone", state=Presence.ABSENT),),
        diagnostics=(("delete_not_allowed", "a.gone"),),
        policy=Policy(allow_delete=False),
    ),
    "protect blocks a tombstone even when deletes are allowed": Case(
        cluster(t3("a.kept")),
        (spec("a.kept", state=Presence.ABSENT, protect=True),),
        diagnostics=(("delete_protected", "a.kept"),),
    ),
    "tombstone of a topic that does not exist is no change": Case(
        cluster(),
        (spec("a.never", state=Presence.ABSENT),),
    ),
    "unmanaged topics are listed, internal and ignored ones are not": Case(
        cluster(
            t3("z.stray"),
            t3("b.stray"),
            topic("__consumer_offsets", internal=True),
            t3("_schemas"),
            t3("connect-offsets"),
        ),
        (),
        unmanaged=("b.stray", "z.stray"),
    ),
    "prune deletes unmanaged topics only": Case(
        cluster(t3("a.kept"), t3("b.stray"), topic("__consumer_offsets", internal=True)),
        (spec("a.kept"),),
        (DeleteTopic("b.stray", 3, "prune"),),
        hazards=(("b.stray", "delete"),),
        unmanaged=("b.stray",),
        prune=True,
    ),
    "prune without allow_delete is one error": Case(
        cluster(t3("b.stray"), t3("c.stray")),
        (),
        diagnostics=(("delete_not_allowed", None),),
        unmanaged=("b.stray", "c.stray"),
        policy=Policy(allow_delete=False),
        prune=True,
    ),
    # --- out of reach -------------------------------------------------------------------------
    "a spec for an ignored topic has no effect and says so": Case(
        cluster(t3("_schemas")),
        (spec("_schemas", partitions=9), spec("__consumer_offsets", partitions=9)),
        diagnostics=(("ignored_topic", "__consumer_offsets"), ("ignored_topic", "_schemas")),
    ),
    "a spec for an internal topic has no effect and says so": Case(
        cluster(topic("internal.topic", internal=True)),
        (spec("internal.topic", state=Presence.ABSENT),),
        diagnostics=(("ignored_topic", "internal.topic"),),
    ),
    "an invalid ignore pattern is reported": Case(
        cluster(t3("b.stray")),
        (),
        diagnostics=(("invalid_ignore_pattern", None),),
        unmanaged=("b.stray",),
        policy=Policy(ignore=("([",)),
    ),
}


def _flat(result_changes: tuple[TopicChange, ...]) -> tuple[Change, ...]:
    return tuple(c for tc in result_changes for c in tc.changes)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_diff(case: Case) -> None:
    changes, diagnostics, unmanaged = diff(
        desired(*case.specs), case.current, case.policy, prune=case.prune
    )
    assert _flat(changes) == case.changes
    assert [(d.rule, d.topic) for d in diagnostics] == list(case.diagnostics)
    found = [(tc.topic, h.code) for tc in changes for h in tc.hazards]
    assert found == list(case.hazards)
    assert unmanaged == case.unmanaged


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_every_case_makes_a_valid_json_plan(case: Case) -> None:
    config = ClusterConfig("test", "127.0.0.1:9092", policy=case.policy)
    plan = make_plan(desired(*case.specs), case.current, config, "sha256:0", prune=case.prune)
    data = checked_json(plan)
    errors = any(rule for rule, _ in case.diagnostics if _is_error(rule))
    # Apply refuses an error-severity hazard the spec does not acknowledge: not applyable either
    blocking = any(
        h["severity"] == "error" and not h["acknowledged"]
        for c in data["changes"]
        for h in c["hazards"]
    )
    assert data["applyable"] == (not errors and not blocking)


def _is_error(rule: str) -> bool:
    return next(r for r in p_codes.RULES if r.name == rule).severity is Severity.ERROR


def test_diagnostics_carry_code_topic_location_and_advice() -> None:
    _, diagnostics, _ = diff(
        desired(spec("a.shrink", line=12, partitions=12 - 10)),
        cluster(topic("a.shrink", spread(12, 1))),
        ALLOW,
    )
    [d] = diagnostics
    assert (d.code, d.rule, d.topic, d.severity) == (
        "P101",
        "partition_decrease",
        "a.shrink",
        Severity.ERROR,
    )
    assert str(d.location) == "topics/test.yaml:12:5"
    assert "create a new topic and migrate, or set partitions: 12" in d.message


def test_delete_not_allowed_says_how_to_allow_it() -> None:
    _, [d], _ = diff(
        desired(spec("a.gone", state=Presence.ABSENT)), cluster(t3("a.gone")), Policy()
    )
    assert "allow_delete: true" in d.message


def test_rule_codes_and_names_are_unique_and_stable() -> None:
    assert (
        len({r.code for r in p_codes.RULES})
        == len({r.name for r in p_codes.RULES})
        == len(p_codes.RULES)
    )
    named = {r.name for r in p_codes.RULES}
    assert {
        "partition_decrease",
        "reassignment_in_progress",
        "delete_protected",
        "max_deletes",
        "max_broker_partitions",
        "max_partitions",
        "unknown_broker",
        "topic_collision",
        "delete_not_allowed",
        "replication_factor_unreachable",
    } <= named
    assert all(r.code.startswith("P1") for r in p_codes.RULES)


def test_placements_in_one_plan_share_the_load() -> None:
    """Two topics growing in one plan do not both pile onto the same least-loaded broker."""
    state = cluster(
        topic("a.one", [[1]]), topic("b.two", [[1]]), broker_list=brokers(None, None, None)
    )
    changes, _, _ = diff(
        desired(spec("a.one", replication_factor=2), spec("b.two", replication_factor=2)),
        state,
        ALLOW,
    )
    targets = [c.target for tc in changes for c in tc.changes if isinstance(c, ReassignReplicas)]
    assert targets == [((1, 2),), ((1, 3),)]


def test_diff_is_deterministic_and_sorted_by_name() -> None:
    specs = [spec(n, partitions=1) for n in ("c.x", "a.x", "b.x")]
    first = diff(desired(*specs), cluster(), ALLOW)
    second = diff(desired(*reversed(specs)), cluster(), ALLOW)
    assert first == second
    assert [tc.topic for tc in first[0]] == ["a.x", "b.x", "c.x"]
    assert all(tc.action is Action.CREATE for tc in first[0])


def test_reconcilers_own_topics_are_never_planned_even_with_prune_and_no_ignore() -> None:
    state = cluster(topic("_reconciler_lock"), topic("_reconciler_audit"), topic("stray"))
    policy = Policy(allow_delete=True, max_deletes=5, ignore=())

    changes, _, unmanaged = diff(desired(), state, policy, prune=True)

    assert unmanaged == ("stray",)
    assert [c.topic for c in changes] == ["stray"]


def test_replication_throttles_of_a_running_reassignment_are_left_alone() -> None:
    throttled = {"leader.replication.throttled.replicas": "0:1", "retention.ms": "1000"}
    state = cluster(topic("a", overrides=throttled), topic("b", overrides=throttled))
    wanted = desired(
        spec("a", config={"retention.ms": "1000"}),
        spec("b", config={"retention.ms": "1000", "leader.replication.throttled.replicas": "*"}),
    )

    changes, _, _ = diff(wanted, state, Policy())

    assert [c.topic for c in changes] == ["b"]  # a: only the throttle differs, and is not named
    (alter,) = changes[0].changes
    assert isinstance(alter, AlterTopicConfig)
    assert [(e.key, e.current, e.desired) for e in alter.entries] == [
        ("leader.replication.throttled.replicas", "0:1", "*")
    ]


UNREAD = (("topics/UP.YAML", "its extension is not in lower case"),)


@pytest.mark.parametrize("prune", [False, True])
def test_no_delete_is_planned_while_a_file_that_could_hold_topics_is_not_read(
    prune: bool,
) -> None:
    """An unread `UP.YAML` may declare the topic a tombstone or --prune would delete."""
    state = cluster(topic("old.gone", spread(1, 1)), topic("stray", spread(1, 1)))
    specs = desired(spec("old.gone", line=3, state=Presence.ABSENT))
    policy = Policy(allow_delete=True, ignore=())
    read_all = diff(specs, state, policy, prune=prune)
    assert {c.topic for c in read_all[0] if c.action is Action.DELETE} == (
        {"old.gone", "stray"} if prune else {"old.gone"}
    )

    changes, diagnostics, unmanaged = diff(
        DesiredState(specs.cluster, specs.topics, UNREAD), state, policy, prune=prune
    )
    assert not [c for c in changes if c.action is Action.DELETE]
    assert unmanaged == ("stray",)
    refused = [d for d in diagnostics if d.code == "P117"]
    assert [d.topic for d in refused] == (["old.gone", None] if prune else ["old.gone"])
    assert all(d.is_error and "topics/UP.YAML is not read" in d.message for d in refused)
    assert refused[0].location is not None and refused[0].location.line == 3
    if prune:
        assert "--prune would delete 1 unmanaged topic(s) (stray)" in refused[1].message
    plan = make_plan(
        DesiredState(specs.cluster, specs.topics, UNREAD),
        state,
        ClusterConfig("test", "k:9092", policy=policy),
        "sha256:x",
        prune=prune,
    )
    assert not plan.applyable


def test_unread_files_do_not_stop_creates_and_updates() -> None:
    state = cluster(topic("kept", spread(1, 1)))
    specs = DesiredState("test", {s.name: s for s in (spec("new", partitions=1),)}, UNREAD)
    changes, diagnostics, _ = diff(specs, state, Policy(allow_delete=True, ignore=()))
    assert [c.action for c in changes] == [Action.CREATE]
    assert not diagnostics
