"""Forgiving options: group options after the subcommand too, and `--cluster` chosen when there
is only one choice (the repository's only cluster, or a saved plan's own)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from reconciler.cli import cli
from reconciler.cli.option_placement import hoist
from reconciler.local.state import LocalCluster
from tests import cli_fork, yaml_text
from tests.spec_repo import Result, SpecRepo


def _paths(group: click.Group, ctx: click.Context, prefix: tuple[str, ...] = ()) -> Iterator[
    tuple[str, ...]
]:  # fmt: skip
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            yield from _paths(command, ctx, (*prefix, name))
        else:
            yield (*prefix, name)


ALL_COMMANDS = sorted(_paths(cli, click.Context(cli)))


def test_the_walk_sees_every_command() -> None:
    assert ("plan",) in ALL_COMMANDS and ("local", "up") in ALL_COMMANDS
    assert ("fleet", "drift") in ALL_COMMANDS and len(ALL_COMMANDS) >= 15


@pytest.mark.parametrize("path", ALL_COMMANDS, ids=" ".join)
def test_global_options_after_every_subcommand(path: tuple[str, ...]) -> None:
    ctx = click.Context(cli)
    given = [*path, "--repo", "R", "--debug", "--repo=S"]
    assert hoist(cli, ctx, given) == ["--repo", "R", "--debug", "--repo=S", *path]


@pytest.mark.parametrize("sub", [p[1] for p in ALL_COMMANDS if p[0] == "local"])
def test_local_state_dir_after_every_local_subcommand(sub: str) -> None:
    ctx = click.Context(cli)
    got = hoist(cli, ctx, ["local", sub, "--state-dir", "D", "--repo", "R"])
    assert got == ["--repo", "R", "local", "--state-dir", "D", sub]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # a subcommand's own option of the same name wins over the group's
        (["local", "up", "--timeout", "5"], ["local", "up", "--timeout", "5"]),
        # an option's value is never taken for an option, nor positionals moved
        (["import", "--include", "--repo"], ["import", "--include", "--repo"]),
        (["apply", "P.json", "--repo", "R"], ["--repo", "R", "apply", "P.json"]),
        # after `--` nothing moves; unknown options stay for click's own error
        (["plan", "--", "--repo", "R"], ["plan", "--", "--repo", "R"]),
        (["plan", "--nope", "--debug"], ["--debug", "plan", "--nope"]),
        (["plan", "-h"], ["plan", "-h"]),
    ],
)
def test_what_moves_and_what_stays(given: list[str], expected: list[str]) -> None:
    assert hoist(cli, click.Context(cli), given) == expected


def _run(*args: str, bootstrap: str = "127.0.0.1:1") -> Result:
    """The CLI as a user types it: no --repo put first by the harness."""
    env = {**os.environ, "KAFKA_BOOTSTRAP": bootstrap, "NO_COLOR": "1"}
    proc = cli_fork.run(args, env=env, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return Result(proc.returncode, proc.stdout, proc.stderr)


def test_local_state_dir_and_repo_after_the_subcommand(tmp_path: Path) -> None:
    done = _run("local", "status", "--state-dir", str(tmp_path / "st"), "--repo", str(tmp_path))
    assert done.code == 1
    assert done.stderr.strip() == (
        f"error: no local cluster is running from {tmp_path / 'st'}; start one with "
        "`reconciler local up`."
    )


def test_every_cluster_command_with_repo_after_it_and_no_cluster(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})

    def run(*args: str) -> Result:
        return _run(*args, "--repo", str(repo.root), bootstrap=kafka1.bootstrap)

    assert run("validate", "--debug").code == 0  # --debug shows tracebacks: only where none
    planned = run("plan", "-o", str(tmp_path / "p.json"), "--detailed-exitcode")
    assert planned.code == 2, planned.stderr
    assert "planning cluster 'test'" in planned.stderr or f"{ns}.a" in planned.stdout
    # a mismatch with the plan's own cluster refuses before anything changes
    wrong = run("apply", str(tmp_path / "p.json"), "--cluster", "other")
    assert wrong.code == 1
    assert wrong.stderr.strip().splitlines()[-1] == (
        f"error: {tmp_path / 'p.json'}: the plan is for cluster 'test', not 'other'; drop "
        "--cluster (the plan names its cluster) or plan cluster 'other' again"
    )
    assert run("plan", "--detailed-exitcode").code == 2  # still to do: nothing was changed
    applied = run("apply", str(tmp_path / "p.json"))
    assert applied.code == 0, applied.stderr
    assert "complete" in applied.stdout
    assert run("plan", "--detailed-exitcode").code == 0
    assert run("drift").code == 0
    assert run("snapshot", "-o", str(tmp_path / "s.json")).code == 0
    assert run("compile", "--out", str(tmp_path / "c")).code == 0
    assert (tmp_path / "c" / "test.jsonl").exists()
    # (under topics/: import writes only where validate and plan read)
    imported = run("import", "--out", str(repo.root / "topics" / "imp"), "--include", f"^{ns}\\.")
    assert imported.code == 0, imported.stderr


def test_several_clusters_need_the_choice_said(tmp_path: Path) -> None:
    (tmp_path / "topics").mkdir()
    clusters = {name: {"bootstrap": "127.0.0.1:1"} for name in ("dev", "prod")}
    (tmp_path / "reconciler.yaml").write_text(yaml_text.safe_dump({"clusters": clusters}))
    for command in ("plan", "drift", "snapshot", "import", "apply"):
        done = _run(command, "--repo", str(tmp_path))
        assert done.code == 1, command
        assert done.stderr.strip() == (
            f"error: reconciler.yaml in {tmp_path} defines 2 clusters (dev, prod); choose one "
            "with --cluster NAME"
        ), command
