"""Signals during apply whatever standard output is, on the real three-broker cluster: a
SIGINT or SIGTERM (test hook, reconciler/stopping.py) while standard output is closed, a full
disk, a reader gone, or ASCII only: no apply ends in a traceback or "internal error", none
leaves the lock, none loses its audit record, and a re-run converges. Each output meets the
signal at another point. Every point with both signals runs on the fake, through the CLI's own
handler (test_signals_fake.py); an ordinary pipe is test_signals.py's."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import IO, Any

import pytest

from reconciler.local.state import LocalCluster
from tests.apply.test_signals import applies, converges, lock_held, spec
from tests.spec_repo import RECONCILER, SpecRepo

# (point, signal, standard output): each output once, at points of each kind (before the
# first change, in flight, between levels, after the last)
CASES = [("in-flight-2", "TERM", "closed"), ("after-level-1", "INT", "full"),
         ("locked", "INT", "reader-gone"), ("finishing", "TERM", "ascii")]  # fmt: skip


def _apply(repo: SpecRepo, record: Path, point: str, sig: str, stdout: str) -> tuple[int, str]:
    env = {**os.environ, "KAFKA_BOOTSTRAP": repo.bootstrap, "NO_COLOR": "1",
           "RECONCILER_TEST_SIGNAL_AT": point, "RECONCILER_TEST_SIGNAL": sig}  # fmt: skip
    target: int | IO[Any] = subprocess.PIPE
    close_stdout = False
    if stdout == "ascii":
        env.update(LC_ALL="C", PYTHONUTF8="0")
        env.pop("PYTHONIOENCODING", None)
    elif stdout == "full":
        target = open("/dev/full", "w")  # noqa: SIM115 - closed below
    elif stdout == "reader-gone":
        reader, writer = os.pipe()
        os.close(reader)
        target = writer
    elif stdout == "closed":
        close_stdout = True
    args = ["--repo", str(repo.root), "apply", "--cluster", "test", "--auto-approve"]
    try:
        proc = subprocess.run(
            [*RECONCILER, *args, "--audit-json", str(record)],
            stdout=target, stderr=subprocess.PIPE, text=True, env=env, timeout=300, check=False,
            preexec_fn=(lambda: os.close(1)) if close_stdout else None,
        )  # fmt: skip
    finally:
        if isinstance(target, int) and target != subprocess.PIPE:
            os.close(target)
        elif not isinstance(target, int):
            target.close()
    return proc.returncode, proc.stderr


@pytest.mark.parametrize(("point", "sig", "stdout"), CASES, ids=[c[2] for c in CASES])
def test_interrupted_applies_never_leave_a_lock_or_lose_the_audit(
    kafka3: LocalCluster,
    ns: str,
    tmp_path_factory: pytest.TempPathFactory,
    point: str,
    sig: str,
    stdout: str,
) -> None:
    prefix = f"{ns}.{uuid.uuid4().hex[:6]}"  # each example's own topics
    root = tmp_path_factory.mktemp("fuzz")
    repo = SpecRepo(root, kafka3.bootstrap, prefix)
    repo.topics(*spec(prefix))
    record = root / "audit.json"
    code, err = _apply(repo, record, point, sig, stdout)
    assert "Traceback" not in err and "internal error" not in err, err
    assert code == ((128 + (2 if sig == "INT" else 15)) if point else 0), err
    assert not lock_held(kafka3.bootstrap)
    if point == "locked":  # stopped before the audit record started: nothing was changed
        assert not record.exists()
    else:  # the record is on the cluster, finished, and in the file
        apply_id = json.loads(record.read_text())["apply_id"]
        assert applies(kafka3.bootstrap)[apply_id]["end"] == "finished"
    converges(repo)
