"""The one table of ACLs (reconciler/cluster/acls.py): the security page shows it, init prints
it, and it grants what apply's pre-flight checks and the in-use gate ask of Kafka. (That the
plan principal's grants suffice against a real authorizer: tests/security/test_sasl_acls.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.apply.execute.operations import KINDS, KindRow
from reconciler.cluster import acls
from reconciler.init_repo import next_steps

SECURITY = Path(__file__).resolve().parents[2] / "docs" / "security.md"


def test_the_security_page_shows_the_table_itself() -> None:
    assert acls.markdown_table() in SECURITY.read_text()


def _granted(role: acls.Role) -> set[tuple[str, str]]:
    return {(op, r) for ops, resources in acls.grants(role) for op in ops for r in resources}


@pytest.mark.parametrize(("kind", "row"), list(KINDS.items()))
def test_every_operation_apply_checks_before_a_change_is_granted(kind: type, row: KindRow) -> None:
    resource = acls.CLUSTER if row.acl_on_cluster else acls.EVERY_TOPIC
    granted = _granted("apply") | _granted("delete")
    assert (row.acl, resource) in granted, kind


def test_both_principals_may_read_the_in_use_evidence() -> None:
    roles: tuple[acls.Role, ...] = ("plan", "apply")
    for role in roles:
        granted = _granted(role)
        assert ("Describe", acls.EVERY_GROUP) in granted  # DescribeGroups, OffsetFetch
        assert ("Describe", acls.CLUSTER) in granted  # ListGroups


def test_init_prints_the_tables_commands() -> None:
    printed = "\n".join(next_steps("prod", "kafka:9092", "main", "--branch"))
    cases: tuple[tuple[acls.Role, str], ...] = (
        ("plan", "plan"), ("apply", "apply"), ("delete", "apply"),
    )  # fmt: skip
    for role, who in cases:
        for line in acls.commands("kafka:9092", f"User:reconciler-{who}", role):
            assert line in printed
    assert "--allow-principal User:reconciler-plan --operation Describe --group '*'" in printed


def test_init_suggests_code_owners_for_what_decides_what_applies() -> None:
    """reconciler.yaml (the policy and its gates) and .github/ (the workflows holding the
    cluster's credentials) deserve a code owner's review: init says how."""
    printed = next_steps("prod", "kafka:9092", "release", "--branch")
    assert "  /reconciler.yaml  @your-org/kafka-platform" in printed
    assert "  /.github/         @your-org/kafka-platform" in printed
    assert any("branch protection on 'release'" in line for line in printed)
