"""The CLI's shape: every command is listed with help text, and a usage error exits 1."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from reconciler.cli import cli, main

PLANNED = [
    "init", "validate", "plan", "apply", "drift", "import", "snapshot", "compile", "local", "fleet",
]  # fmt: skip


def invoke(args: list[str]) -> tuple[int, str]:
    """Run the real entry point (with its error handling), returning exit code and all output."""
    runner = CliRunner()
    with runner.isolation() as streams, pytest.raises(SystemExit) as exit_info:
        main(args)
    code = exit_info.value.code
    return (code if isinstance(code, int) else 0), streams[0].getvalue().decode() + streams[
        1
    ].getvalue().decode()


def test_help_lists_every_planned_command() -> None:
    code, output = invoke(["--help"])
    assert code == 0
    for command in PLANNED:
        assert f"\n  {command} " in output, command
    for sub in ("up", "status", "down"):
        assert f"\n  {sub} " in invoke(["local", "--help"])[1]
    assert "\n  drift " in invoke(["fleet", "--help"])[1]


def test_fleet_drift_without_its_options_is_a_usage_error() -> None:
    code, output = invoke(["fleet", "drift"])
    assert code == 1
    assert "Missing option '--desired'" in output
    assert "Traceback" not in output


def test_usage_error_is_exit_1_not_2() -> None:
    # Exit 2 means "changes present"; a usage error must not look like that.
    code, output = invoke(["plan", "--format", "yaml"])
    assert code == 1
    assert "Invalid value for '--format'" in output


def test_every_command_has_help_text() -> None:
    ctx = click.Context(cli)
    names = cli.list_commands(ctx)
    assert "local" in names  # imported on demand, listed all the same
    for name in names:
        command = cli.get_command(ctx, name)
        assert command is not None and command.help, name
