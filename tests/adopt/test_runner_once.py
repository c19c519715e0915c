"""The GitHub stand-in's steps run once (workflow_runner.py `Runner.once`): a later job's run of
the same script, with the same inputs and the same files read, replays the first run's result;
a changed file it reads, or a first run that failed, runs it again. tests/adopt/test_workflows.py
runs its install step so: against a virtualenv that already holds the wheel, every later pip
run would find the same requirements satisfied."""

from __future__ import annotations

from pathlib import Path

import yaml

from reconciler.init_repo import scaffold, write_new
from tests.adopt.test_workflows import commit, git
from tests.adopt.workflow_runner import Event, Runner

LOCK = ".github/reconciler-requirements.txt"
# A Python and a reconciler that log each call beside them (`python -m pip ...` is the install
# step's), and fail while a file `fail` is there
FAKE = """#!/bin/sh
here=$(dirname "$0")
echo "$(basename "$0") $*" >> "$here/calls"
if [ -f "$here/fail" ]; then exit 1; fi
"""


def test_a_step_run_once_replays_its_result_until_what_it_reads_changes(tmp_path: Path) -> None:
    repo = tmp_path / "specs"
    write_new(repo, scaffold("test", "kafka-1.example.com:9092"))
    git(repo, "init", "-q", "-b", "main")
    sha = commit(repo, "init")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python", "reconciler"):
        (bin_dir / name).write_text(FAKE)
        (bin_dir / name).chmod(0o755)
    calls = bin_dir / "calls"
    runner = Runner(
        repo, tmp_path / "runner", (bin_dir,), {"test-plan": {}},
        repository_secrets={}, input_overrides={"package": "kafka-topic-reconciler==0.2.0"},
        once={"install reconciler": (LOCK,)},
    )  # fmt: skip
    cron = yaml.safe_load((repo / ".github/workflows/drift.yml").read_text())[True]["schedule"]
    event = Event.schedule(sha, cron[0]["cron"])

    def installs() -> int:
        lines = calls.read_text().splitlines() if calls.exists() else []
        return sum("pip install" in line and "--require-hashes" in line for line in lines)

    (bin_dir / "fail").touch()
    failed = runner.run("drift.yml", event).job()
    assert failed.step("install reconciler").outcome == "failure", failed.log()
    assert installs() == 1
    (bin_dir / "fail").unlink()
    first = runner.run("drift.yml", event).job()  # a failure is not replayed
    assert first.step("install reconciler").outcome == "success", first.log()
    assert not first.step("install reconciler").log.startswith("(replayed")
    assert installs() == 2
    second = runner.run("drift.yml", event).job()
    step = second.step("install reconciler")
    assert step.outcome == "success" and step.log.startswith("(replayed"), step.log
    assert installs() == 2  # pip did not run again
    assert second.step("drift").outcome == "success"  # the steps after it ran

    # the lock it reads changed: it runs again
    (repo / LOCK).write_text((repo / LOCK).read_text() + "# another pin\n")
    third = runner.run(
        "drift.yml", Event.schedule(commit(repo, "Another pin"), cron[0]["cron"])
    ).job()
    assert not third.step("install reconciler").log.startswith("(replayed")
    assert installs() == 3
