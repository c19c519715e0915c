"""`reconciler init` says what to do next (the GitHub environments and their secrets, the ACLs
of the plan and apply principals, the audit topic kept forever) and wires git's default branch
into apply.yml, which also runs on demand (workflow_dispatch), as drift.yml does."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.adopt.workflow_runner import Event, Runner
from tests.spec_repo import RECONCILER
from tests.unreachable import SHORTEST_WAIT

# slow: `make check` leaves it out (init and the generated workflows' scripts, run)
pytestmark = pytest.mark.slow


def _init(
    tmp_path: Path, *args: str, git_config: str = "", repo_branch: str | None = None
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """init of tmp_path/specs with a git configuration of our own (none of the machine's), its
    bootstrap a name that resolves nowhere, asked for no longer than the shortest --timeout."""
    config = tmp_path / "gitconfig"
    config.write_text(git_config)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(config), "GIT_CONFIG_NOSYSTEM": "1"}
    repo = tmp_path / "specs"
    if repo_branch is not None:
        subprocess.run(["git", "init", "-q", "-b", repo_branch, str(repo)], check=True, env=env)
    done = subprocess.run(
        [*RECONCILER, *SHORTEST_WAIT, "init", str(repo), "--bootstrap",
         "kafka-1.example.com:9092", "--cluster", "prod", *args],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done, repo


def _runner(repo: Path, tmp_path: Path) -> Runner:
    return Runner(repo, tmp_path, ())


@pytest.mark.parametrize(
    ("args", "git_config", "repo_branch", "branch", "how"),
    [
        ((), "", "trunk", "trunk", "the current branch of the git repository"),
        ((), "[init]\n\tdefaultBranch = develop\n", None, "develop", "init.defaultBranch"),
        ((), "", None, "main", "git names no default branch here; pass --branch"),
        (("--branch", "release"), "", "trunk", "release", "--branch"),
    ],
)
def test_init_wires_the_default_branch_into_apply(
    tmp_path: Path,
    args: tuple[str, ...],
    git_config: str,
    repo_branch: str | None,
    branch: str,
    how: str,
) -> None:
    done, repo = _init(tmp_path, *args, git_config=git_config, repo_branch=repo_branch)
    said = next(line for line in done.stdout.splitlines() if line.startswith("Push to branch"))
    assert said.startswith(f"Push to branch '{branch}': apply.yml applies what is merged there (")
    assert how in said
    runner = _runner(repo, tmp_path)
    assert runner.triggered("apply.yml", Event.push("a" * 40, "b" * 40, ("topics/x.yaml",), branch))
    other = "main" if branch != "main" else "trunk"
    assert not runner.triggered(
        "apply.yml", Event.push("a" * 40, "b" * 40, ("topics/x.yaml",), other)
    )


def test_apply_and_drift_run_on_demand(tmp_path: Path) -> None:
    _, repo = _init(tmp_path, repo_branch="main")
    runner = _runner(repo, tmp_path)
    dispatch = Event("workflow_dispatch", {"inputs": {}}, "c" * 40, "refs/heads/main")
    assert runner.triggered("apply.yml", dispatch)
    assert runner.triggered("drift.yml", dispatch)


def test_init_names_the_environments_their_secrets_and_the_acls(tmp_path: Path) -> None:
    done, _ = _init(tmp_path, repo_branch="main")
    out = done.stdout
    secrets = "secrets KAFKA_BOOTSTRAP, KAFKA_USERNAME, KAFKA_PASSWORD"
    assert (
        f"  prod-plan  the READ-ONLY principal, for plan on pull requests and drift; {secrets}"
        in out
    )
    assert f"  prod       the principal that may change the cluster, for apply; {secrets}" in out
    acls = [line.strip() for line in out.splitlines() if line.strip().startswith("kafka-acls ")]
    start = "kafka-acls --bootstrap-server kafka-1.example.com:9092 --add --allow-principal"
    assert acls == [
        f"{start} User:reconciler-plan --operation Describe --operation DescribeConfigs "
        "--topic '*' --cluster",
        f"{start} User:reconciler-plan --operation Describe --group '*'",
        # the digests of SCRAM users' secrets (reconciler.yaml `users:`), read by every plan
        f"{start} User:reconciler-plan --operation Read --topic _reconciler_users",
        f"{start} User:reconciler-apply --operation Describe --operation DescribeConfigs "
        "--operation Create --operation Alter --operation AlterConfigs --topic '*' --cluster",
        f"{start} User:reconciler-apply --operation Describe --group '*'",
        f"{start} User:reconciler-apply --operation Create --operation Read --operation Write "
        "--operation Delete --topic _reconciler_lock --topic _reconciler_audit",
        f"{start} User:reconciler-apply --operation Create --operation Read --operation Write "
        "--topic _reconciler_users",
        f"{start} User:reconciler-apply --operation Delete --topic '*'",
    ]
    # the in-use gate reads consumer groups (ListGroups, DescribeGroups, OffsetFetch)
    for who in ("plan", "apply"):
        assert f"{start} User:reconciler-{who} --operation Describe --group '*'" in acls
    assert "once policy.allow_delete is true, for apply also:" in out
    assert (
        "creates the topic _reconciler_audit, whose records (one per apply) are kept forever" in out
    )
