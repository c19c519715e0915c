"""The fleet job accounts for every rule of the planner's one list (planning/drift_codes.py):
a column expression that computes it, or the reason only the planner can. Starts no Spark."""

from __future__ import annotations

from reconciler.fleet import drift_columns as fleet_drift
from reconciler.planning.drift_codes import NAMES


def test_every_listed_rule_is_computed_by_the_job_or_said_to_be_the_planners_alone() -> None:
    computed, only = set(fleet_drift.COMPUTED), set(fleet_drift.PLANNER_ONLY)
    assert not computed & only, computed & only
    assert computed | only == NAMES, (NAMES - computed - only, (computed | only) - NAMES)


def test_each_computed_rule_names_functions_of_the_job() -> None:
    for rule, where in fleet_drift.COMPUTED.items():
        for name in where.split(", "):
            function = name.split(" ")[0]
            module, _, attribute = function.rpartition(".")
            owner = getattr(fleet_drift, module) if module else fleet_drift
            assert callable(getattr(owner, attribute, None)), (rule, name)


def test_each_planner_only_rule_says_why() -> None:
    assert all(len(why) > 20 for why in fleet_drift.PLANNER_ONLY.values())
