"""One Rule type for validate's and plan's codes, one JSON shape for their diagnostics."""

from __future__ import annotations

import pytest

from reconciler import diagnostics
from reconciler.diagnostics import Diagnostic, Location, Rule, Severity, did_you_mean
from reconciler.planning import p_codes as plan_rules
from reconciler.spec import r_codes as spec_rules


def test_validate_and_plan_codes_are_one_rule_type_with_distinct_codes_and_names() -> None:
    every = [*spec_rules.RULES, *plan_rules.RULES]
    assert all(type(rule) is Rule for rule in every)
    assert len({rule.code for rule in every}) == len(every)
    assert len({rule.name for rule in every}) == len(every)


def test_a_rule_builds_its_diagnostic_positionally_or_by_keyword() -> None:
    at = Location("t.yaml", 2, 5)
    spec_style = spec_rules.UNKNOWN_CONFIG("m", at, "a.b")
    assert spec_style == Diagnostic(Severity.ERROR, "R105", "unknown_config", "m", at, "a.b")
    configured = plan_rules.MAX_BROKER_PARTITIONS(
        "m", topic="a.b", broker=2, severity=Severity.WARNING
    )
    assert (configured.severity, configured.broker, configured.location) == (
        Severity.WARNING,
        2,
        None,
    )


@pytest.mark.parametrize(
    "diagnostic",
    [
        Diagnostic(Severity.ERROR, "R105", "unknown_config", "m", Location("t.yaml", 3, 14), "a"),
        Diagnostic(Severity.WARNING, "P109", "ignored_topic", "m", None, "a"),
        Diagnostic(Severity.ERROR, "P111", "max_broker_partitions", "m", None, None, broker=2),
    ],
)
def test_json_round_trip(diagnostic: Diagnostic) -> None:
    data = diagnostics.to_json(diagnostic)
    assert diagnostics.from_json(data) == diagnostic
    assert ("file" in data) is (diagnostic.location is not None)
    assert ("broker" in data) is (diagnostic.broker is not None)
    assert list(data)[:5] == ["severity", "rule", "code", "topic", "message"]


def test_did_you_mean() -> None:
    assert did_you_mean("prd", ["local", "prod"]) == " (did you mean 'prod'?)"
    assert did_you_mean("staging", ["local", "prod"]) == ""
    assert did_you_mean("order.v1", ["orders.v2"], cutoff=0.95) == ""
