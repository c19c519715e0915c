"""The in-use gate's pure parts: judging a delete's evidence (planning/hazards.py), approving
it, its JSON and text forms, and apply's comparison of saved and fresh evidence
(apply/check/in_use.py).
What Kafka shows is tested in tests/apply/test_in_use_kafka.py."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from reconciler.apply.check.in_use import diverged
from reconciler.cluster.evidence import Evidence, GroupUse, TopicEvidence, since
from reconciler.diagnostics import Severity
from reconciler.planning.changes import DeleteTopic, Hazard, TopicChange
from reconciler.planning.hazards import usage
from reconciler.planning.json_plan import from_json
from reconciler.planning.plan import Plan, make_plan
from reconciler.render.text import render_text
from reconciler.spec.model import ClusterConfig, Policy
from reconciler.spec.model import Presence as SpecState
from reconciler.spec.repo_config import load_repo_config
from tests.planning.factories import checked_json, cluster, desired, spec, topic

NOW = 1_800_000_000_000
DAY = 24 * 3600 * 1000
WEEK = 7 * DAY
ID = "Q7+YlvWkTQu30eQzXEjoXQ"


def _empty(name: str) -> GroupUse:
    return GroupUse(name, "Empty", 0, committed=True, assigned=False, lag=4)


def _live(name: str) -> GroupUse:
    return GroupUse(name, "Stable", 2, committed=False, assigned=True)


CASES = {
    "never written, no group": (TopicEvidence("t", NOW), []),
    "written 30 days ago": (TopicEvidence("t", NOW, newest_record=NOW - 30 * DAY), []),
    "written just inside the window": (
        TopicEvidence("t", NOW, newest_record=NOW - WEEK + 1),
        ["its newest record is 6d old, newer than policy.idle_before_delete (7d)"],
    ),
    "written exactly the window ago": (TopicEvidence("t", NOW, newest_record=NOW - WEEK), []),
    "written seconds ago": (
        TopicEvidence("t", NOW, newest_record=NOW - 5000),
        ["its newest record is under a minute old, newer than policy.idle_before_delete (7d)"],
    ),
    "a group that committed and left": (
        TopicEvidence("t", NOW, (_empty("billing"),), NOW - 30 * DAY),
        ["consumer group(s) billing committed offsets on it"],
    ),
    "a live member not yet committed": (
        TopicEvidence("t", NOW, (_live("stream"),)),
        ["live member(s) of group(s) stream are assigned it"],
    ),
    "unreadable": (
        TopicEvidence("t", NOW, unreadable=("a broker is down", "and another")),
        ["its evidence could not be read, so it counts as in use: a broker is down (and 1 more)"],
    ),
    "written while sampled, stamped a month ago": (
        TopicEvidence("t", NOW, newest_record=NOW - 30 * DAY, written=5, window_ms=5000),
        ["5 record(s) were appended to it in the 5s its log end offsets were watched"],
    ),
    "many groups": (
        TopicEvidence("t", NOW, tuple(_empty(f"g{i}") for i in range(5))),
        ["consumer group(s) g0, g1, g2 and 2 more committed offsets on it"],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_usage_judges_the_evidence(case: str) -> None:
    evidence, expected = CASES[case]
    assert list(usage(evidence, WEEK)) == expected


def _plan(
    evidence: Evidence | None, acknowledge: list[object] | None = None, prune: bool = False
) -> Plan:
    state = cluster(topic("orders.old", [[1], [1]]))
    state = dataclasses.replace(
        state, topics={"orders.old": dataclasses.replace(state.topics["orders.old"], topic_id=ID)}
    )
    specs = (
        desired()
        if prune
        else desired(
            spec("orders.old", state=SpecState.ABSENT, acknowledge=acknowledge or [{"delete": ID}])
        )
    )
    config = ClusterConfig("test", "k:9092", policy=Policy(allow_delete=True))
    return make_plan(specs, state, config, "sha256:x", prune=prune, evidence=evidence)


def _in_use(plan: Plan) -> list[Hazard]:
    return [h for c in plan.changes for h in c.hazards if h.code == "in_use"]


def test_a_delete_in_use_needs_its_bound_approval() -> None:
    evidence = Evidence(NOW, {"orders.old": TopicEvidence("orders.old", NOW, (_empty("bill"),))})
    plan = _plan(evidence)
    [hazard] = _in_use(plan)
    assert hazard.approve_with == {"in_use": ID} and hazard.blocks_apply
    assert not plan.applyable
    assert f'`- {{in_use: "{ID}"}}`' in hazard.message
    approved = _plan(evidence, [{"delete": ID}, {"in_use": ID}])
    assert approved.applyable, approved.diagnostics
    other = _plan(evidence, [{"delete": ID}, {"in_use": "AAAAAAAAAAAAAAAAAAAAAA"}])
    assert not other.applyable  # an approval of another topic id approves nothing here


def test_no_evidence_no_hazard_and_idle_topics_delete() -> None:
    assert _plan(None).applyable and not _in_use(_plan(None))  # a plan from a snapshot
    idle = Evidence(NOW, {"orders.old": TopicEvidence("orders.old", NOW, newest_record=0)})
    assert _plan(idle).applyable


def test_a_topic_whose_evidence_was_not_read_counts_as_in_use() -> None:
    [hazard] = _in_use(_plan(Evidence(NOW, {})))
    assert "its evidence was not read" in hazard.message


def test_prune_never_acknowledges_in_use() -> None:
    evidence = Evidence(NOW, {"orders.old": TopicEvidence("orders.old", NOW, (_live("s"),))})
    plan = _plan(evidence, prune=True)
    [hazard] = _in_use(plan)
    assert hazard.blocks_apply and not plan.applyable
    assert "write a tombstone for the topic (`state: absent`)" in hazard.message
    # ... while the delete itself stays acknowledged by --prune
    assert not [h for h in plan.changes[0].hazards if h.code == "delete" and h.blocks_apply]


def test_the_evidence_round_trips_through_the_json_plan_and_shows_capped() -> None:
    groups = tuple(_empty(f"group{i}") for i in range(7))
    evidence = Evidence(
        NOW, {"orders.old": TopicEvidence("orders.old", NOW, groups, NOW - DAY, ("why",))}
    )
    plan = _plan(evidence)
    data = checked_json(plan)
    assert data["changes"][0]["evidence"]["groups"][0] == {
        "group": "group0",
        "state": "Empty",
        "members": 0,
        "committed": True,
        "assigned": False,
        "lag": 4,
    }
    assert from_json(data) == plan
    text = render_text(plan)
    assert "group group4 (Empty, 0 member(s), lag 4): committed offsets" in text
    assert "group group5" not in text and "... and 2 more group(s)" in text
    assert "not readable: why" in text


def _change(*groups: GroupUse, in_use: bool) -> TopicChange:
    evidence = Evidence(NOW, {"orders.old": TopicEvidence("orders.old", NOW, groups)})
    plan = _plan(evidence, [{"delete": ID}, {"in_use": ID}])
    [change] = plan.changes
    assert isinstance(change.changes[0], DeleteTopic)
    assert bool(_in_use(plan)) == in_use
    return change


def test_apply_refuses_a_delete_that_gained_readers_since_the_plan() -> None:
    idle, busy = _change(in_use=False), _change(_empty("bill"), in_use=True)
    more = _change(_empty("bill"), _live("stream"), in_use=True)
    assert diverged(idle, idle) is None
    assert diverged(busy, idle) is None  # readers left: nothing more is destroyed
    assert diverged(busy, busy) is None
    assert "but the plan showed no use Kafka could see" in (diverged(idle, busy) or "")
    assert "gained consumer group(s) stream" in (diverged(busy, more) or "")
    # Lag, member counts and timestamps move all the time: never a divergence by themselves
    moved = _change(dataclasses.replace(_empty("bill"), lag=900, members=3), in_use=True)
    assert diverged(busy, moved) is None


@pytest.mark.parametrize(
    ("written", "millis"), [("36h", 36 * 3600 * 1000), ("90m", 90 * 60 * 1000), (None, WEEK)]
)
def test_idle_before_delete_is_a_duration(tmp_path: Path, written: str | None, millis: int) -> None:
    (tmp_path / "topics").mkdir()
    policy = f"    policy: {{idle_before_delete: {written}}}\n" if written else ""
    (tmp_path / "reconciler.yaml").write_text(
        f"clusters:\n  prod:\n    bootstrap: k:9092\n{policy}"
    )
    config, found = load_repo_config(tmp_path, {})
    assert config is not None and not found, found
    assert config.clusters["prod"].policy.idle_before_delete_ms == millis


@pytest.mark.parametrize("written", ["soon", "0s", "-5m"])
def test_an_idle_before_delete_that_is_not_a_duration_is_one_error(
    tmp_path: Path, written: str
) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(
        "clusters:\n  prod:\n    bootstrap: k:9092\n    policy:\n"
        f"      idle_before_delete: {written}\n"
    )
    _, found = load_repo_config(tmp_path, {})
    [error] = [d for d in found if d.is_error]
    assert error.location is not None and error.location.line == 5, error
    assert f"policy.idle_before_delete {written!r} is not a duration" in error.message


def test_an_in_use_made_a_warning_never_blocks_at_apply_either() -> None:
    evidence = Evidence(NOW, {"orders.old": TopicEvidence("orders.old", NOW, (_live("s"),))})
    state = _plan(None)
    warned = _plan(evidence)
    [saved] = state.changes
    [derived] = warned.changes
    softened = dataclasses.replace(
        derived,
        hazards=tuple(
            dataclasses.replace(h, severity=Severity.WARNING) if h.code == "in_use" else h
            for h in derived.hazards
        ),
    )
    assert diverged(saved, derived) is not None
    assert diverged(saved, softened) is None


def test_writes_since_the_plan_are_counted_by_the_log_end_offsets() -> None:
    """Apply's window: the records between the saved plan's end offsets and those read now."""
    before = TopicEvidence("t", NOW, end_offsets=(10, 4))
    now = TopicEvidence("t", NOW + 60_000, end_offsets=(12, 5))
    assert (since(now, before).written, since(now, before).window_ms) == (3, 60_000)
    assert since(now, dataclasses.replace(before, end_offsets=())).written == 0  # not recorded
    assert since(now, dataclasses.replace(before, end_offsets=(10,))).written == 0  # re-created
    assert since(dataclasses.replace(now, end_offsets=(12, -1)), before).written == 0


def _written_change(written: int, groups: tuple[GroupUse, ...] = ()) -> TopicChange:
    found = TopicEvidence("orders.old", NOW, groups, end_offsets=(3, 3), written=written)
    plan = _plan(Evidence(NOW, {"orders.old": found}), [{"delete": ID}, {"in_use": ID}])
    [change] = plan.changes
    return change


def test_apply_refuses_a_delete_written_since_the_plan_even_with_in_use_approved() -> None:
    idle, written = _written_change(0), _written_change(7)
    assert "but the plan showed no use Kafka could see" in (diverged(idle, written) or "")
    read = _written_change(0, (_empty("bill"),))  # in_use approved for its reader only
    said = diverged(read, _written_change(7, (_empty("bill"),))) or ""
    assert "was written since the plan was made (7 record(s)" in said
    # The reviewer saw writes and approved them: more writes are what they approved
    assert diverged(_written_change(2), _written_change(9)) is None


def test_the_evidence_never_reads_as_nobody_uses_it() -> None:
    quiet = TopicEvidence("orders.old", NOW, newest_record=NOW - 30 * DAY, window_ms=5000)
    stamped = dataclasses.replace(quiet, producer_stamped=True)
    text = render_text(_plan(Evidence(NOW, {"orders.old": stamped})))
    assert "no consumer group reads it" not in text
    assert "none of the groups Kafka tracks reads it" in text
    assert "readers without a group (assign(): Connect, Schema Registry" in text
    assert "are invisible to Kafka" in text
    assert "log end offsets: unchanged over the 5s watched" in text
    assert "(CreateTime: stamped by its producer, not by Kafka" in text
    grouped = dataclasses.replace(quiet, groups=(_empty("bill"),))
    text = render_text(_plan(Evidence(NOW, {"orders.old": grouped})))
    assert "group bill" in text and "are invisible to Kafka" in text  # said with groups too
