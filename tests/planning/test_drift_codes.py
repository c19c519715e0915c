"""The one list of rules that hold a change back or mark drift (planning/drift_codes.py),
against the rules the planner has, the drift kinds, and the fleet job's account of each."""

from __future__ import annotations

import pytest

from reconciler.diagnostics import Severity
from reconciler.planning import p_codes
from reconciler.planning.drift import KINDS, DriftKind
from reconciler.planning.drift_codes import DRIFT_RULES, NAMES, NOT_IN_DRIFT
from reconciler.render import drift_report as render_drift
from reconciler.spec import r_codes as spec_rules


def _errors_by_default() -> set[str]:
    """Every rule the plan raises as an error unless policy.severity says otherwise: each is a
    `blocked` drift item (planning/drift.py turns every error of the plan into one)."""
    found = {
        r.name
        for r in p_codes.RULES
        if p_codes.CONFIGURABLE.get(r.name, "error" if r.severity is Severity.ERROR else "warning")
        == "error"
    }
    # validate's rule the plan raises too (planning/insync.py); less those drift never sees
    return (found | {spec_rules.MIN_INSYNC_REPLICAS.name}) - set(NOT_IN_DRIFT)


def test_what_drift_never_sees_is_a_plan_error_not_listed_for_drift_and_says_why() -> None:
    errors = {r.name for r in p_codes.RULES if r.severity is Severity.ERROR}
    assert set(NOT_IN_DRIFT) <= errors and not set(NOT_IN_DRIFT) & NAMES
    assert all(len(why) > 20 for why in NOT_IN_DRIFT.values())


def test_every_rule_the_plan_raises_as_an_error_is_listed_as_blocked() -> None:
    blocked = {r.rule.name for r in DRIFT_RULES if r.shows == "blocked"}
    assert _errors_by_default() <= blocked, _errors_by_default() - blocked
    assert blocked <= _errors_by_default(), "a warning by default never blocks"


def test_each_rule_is_listed_once_and_shows_as_a_drift_kind_or_not_at_all() -> None:
    assert len(NAMES) == len(DRIFT_RULES)
    for entry in DRIFT_RULES:
        assert entry.shows is None or entry.shows in KINDS, entry
        assert entry.where


def test_the_drift_kinds_come_from_the_type_and_each_has_words() -> None:
    assert KINDS[0] == "missing" and "blocked" in KINDS
    assert set(render_drift._WHAT) == set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_a_rendered_item_of_each_kind_says_what_it_is(kind: DriftKind) -> None:
    assert render_drift._WHAT[kind]
