"""Pre-flight on constructed states: freshness (stale, resumed or current) and the refusal of a
plan that is not applyable. No broker."""

from __future__ import annotations

import pytest

from reconciler.apply.check.preflight import Freshness, check_plan, freshness
from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.state import ClusterState
from reconciler.errors import ApplyRefused, ReconcilerError, StalePlan
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    ConfigChange,
    CreateTopic,
    TopicChange,
)
from reconciler.planning.plan import Plan
from reconciler.render.text import render_text
from tests.planning import samples
from tests.planning.factories import cluster, topic

CREATE = TopicChange("new", Action.CREATE, (CreateTopic("new", 1, 1, (("retention.ms", "1000"),)),))
UPDATE = TopicChange(
    "old",
    Action.UPDATE,
    (AlterTopicConfig("old", (ConfigChange("retention.ms", None, "1000"),)),),
)
BEFORE = cluster(topic("old"))


def plan() -> Plan:
    return Plan("test", fingerprint(BEFORE, ["new", "old"]), (CREATE, UPDATE))


def test_a_plan_made_from_this_state_is_current() -> None:
    assert freshness(plan(), BEFORE) == Freshness(True)


def test_the_plans_own_work_half_done_is_resumed() -> None:
    after_first_level = cluster(topic("old"), topic("new", overrides={"retention.ms": "1000"}))
    assert freshness(plan(), after_first_level) == Freshness(False, ("new",))


@pytest.mark.parametrize(
    ("state", "says"),
    [
        pytest.param(
            cluster(topic("old"), topic("new")),
            "new was created with other settings (retention.ms is None, the plan has '1000')",
            id="a create someone else made without the planned config",
        ),
        pytest.param(
            cluster(topic("old", overrides={"retention.ms": "5"})),
            "old: retention.ms is now '5' (the plan saw None)",
            id="a config someone else set",
        ),
        pytest.param(
            cluster(topic("old", [[1, 2]])),
            "a topic setting the plan does not mention changed",
            id="a change the plan does not explain",
        ),
    ],
)
def test_anything_else_makes_it_stale(state: ClusterState, says: str) -> None:
    with pytest.raises(StalePlan, match="the plan is stale") as refused:
        freshness(plan(), state)
    assert says in str(refused.value)
    # Apply's refusals are in errors.py's hierarchy, so the CLI prints them and exits 1
    assert isinstance(refused.value, ApplyRefused)
    assert isinstance(refused.value, ReconcilerError)
    assert refused.value.exit_code == 1


@pytest.mark.parametrize("name", ["kitchen_sink", "refused", "representative"])
def test_apply_refuses_in_the_plans_own_words(name: str) -> None:
    """A refusal is one sentence: the plan's verdict clause (what to fix, the approval items to
    add), word for word, once; never a second list of its own."""
    refused_plan: Plan = getattr(samples, name)()
    with pytest.raises(ApplyRefused) as refused:
        check_plan(refused_plan, refused_plan.cluster)
    message = str(refused.value)
    verdict = render_text(refused_plan).splitlines()[-1]
    clause = verdict.removeprefix("Not applyable: ").removesuffix(".")
    assert message == f"apply refuses this plan: {clause}. Nothing was changed."
    assert "\n" not in message
    check_plan(samples.no_changes(), "local")  # an applyable plan passes
