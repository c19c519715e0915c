"""A cluster's `users:` (spec/scram_users.py): the model keeps a variable's name, never a
secret; a password written in the file is refused without being shown; an unset variable stops
the commands for that cluster before any connection (exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reconciler.spec.loader import load_repo
from reconciler.spec.scram_users import users_block
from tests.spec.helpers import run_cli

SECRET = "Zq7-literal-pw-0x5EED"


def _repo(tmp_path: Path, users: str) -> Path:
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics" / "t.yaml").write_text("topics:\n  - name: a.b\n    partitions: 1\n")
    (tmp_path / "reconciler.yaml").write_text(
        "clusters:\n  local:\n    bootstrap: 127.0.0.1:9\n    users:\n" + users
    )
    return tmp_path


def test_a_user_keeps_its_variable_and_defaults(tmp_path: Path) -> None:
    root = _repo(tmp_path, "      - name: billing\n        password: ${BILLING_PW}\n"
                 "      - {name: billing, mechanism: SCRAM-SHA-256, iterations: 8192,"
                 " password: '${OTHER}'}\n")  # fmt: skip
    result = load_repo(root, env={"BILLING_PW": SECRET, "OTHER": SECRET + "2"})
    assert result.valid, result.diagnostics
    users = result.config.clusters["local"].users  # type: ignore[union-attr]
    assert users is not None
    assert [(u.name, u.mechanism, u.iterations, u.variable) for u in users] == [
        ("billing", "SCRAM-SHA-512", 4096, "BILLING_PW"),
        ("billing", "SCRAM-SHA-256", 8192, "OTHER"),
    ]
    assert SECRET not in repr(result)


@pytest.mark.parametrize(
    "password",
    [SECRET, f"${{PW:-{SECRET}}}", f"{SECRET}${{PW}}", f"'${{PW}} {SECRET}'", f"'{SECRET}}}'"],
)
def test_a_password_not_one_reference_is_refused_unshown(tmp_path: Path, password: str) -> None:
    root = _repo(tmp_path, f"      - name: billing\n        password: {password}\n")
    code, output = run_cli(["--repo", str(root), "validate"], env={"PW": "x"})
    assert code == 1, output
    assert "reconciler.yaml:6:19: error[R812]" in output, output
    assert SECRET not in output
    code, output = run_cli(["--repo", str(root), "plan", "--cluster", "local"], env={"PW": "x"})
    assert code == 1 and SECRET not in output and "Traceback" not in output, output


def test_an_unset_variable_stops_the_cluster_commands_naming_it(tmp_path: Path) -> None:
    root = _repo(tmp_path, "      - name: billing\n        password: ${RECONCILER_T_UNSET_PW}\n")
    for command in ("plan", "apply", "drift"):
        code, output = run_cli(["--repo", str(root), command, "--cluster", "local"], env={})
        assert code == 1, output
        assert (
            "error[R502]: environment variable RECONCILER_T_UNSET_PW (the password of user "
            "billing) is not set" in output
        ), output
        assert "Traceback" not in output
        assert "connect" not in output.lower(), output  # stopped before any connection


def test_import_writes_each_credential_with_a_placeholder_variable() -> None:
    block = users_block([("orders.api", "SCRAM-SHA-256", 8192), ("billing", "SCRAM-SHA-512", 4096),
                         ("orders-api", "SCRAM-SHA-512", 4096),
                         ("billing", "SCRAM-SHA-256", 4096)])  # fmt: skip
    assert yaml.safe_load(block)["users"] == [
        {"name": "billing", "mechanism": "SCRAM-SHA-256", "password": "${RECONCILER_USER_BILLING}"},
        {"name": "billing", "password": "${RECONCILER_USER_BILLING}"},
        {"name": "orders-api", "password": "${RECONCILER_USER_ORDERS_API}"},
        {"name": "orders.api", "mechanism": "SCRAM-SHA-256", "iterations": 8192,
         "password": "${RECONCILER_USER_ORDERS_API_2}"},
    ]  # fmt: skip
