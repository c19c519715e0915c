"""The output layer (reconciler/cli/output.py): a closed stdout, a full disk, a reader gone and
an ASCII-only locale never end in a traceback or "internal error", the diagnostics on stderr are
still shown (escaped where the encoding cannot show a character), and the exit code follows the
rule of docs/commands.md ("Broken output"). No cluster is needed: validate and plan of an invalid
repository stop before any."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path
from typing import IO, Any

import pytest

from reconciler import redaction
from reconciler.cli.output import Channel
from tests.spec_repo import RECONCILER

NAME = "caf\u00e9.orders"  # not a legal topic name: R201 quotes it


def _repo(root: Path, name: str = NAME) -> Path:
    (root / "topics").mkdir(parents=True)
    (root / "reconciler.yaml").write_text(
        "topics: topics/\nclusters:\n  test: {bootstrap: '127.0.0.1:1'}\n"
    )
    (root / "topics" / "a.yaml").write_text(
        f"topics:\n  - name: {name}\n    partitions: 1\n", encoding="utf-8"
    )
    return root


def _run(repo: Path, stdout: str, *args: str) -> tuple[int, str, bytes]:
    """Run the CLI with standard output `stdout`; exit code, stderr, what stdout received."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("PYTHONIOENCODING", None)
    target: int | IO[Any] = subprocess.PIPE
    if stdout == "ascii":
        env.update(LC_ALL="C", PYTHONUTF8="0")
    elif stdout == "full":
        target = open("/dev/full", "w")  # noqa: SIM115 - closed below
    elif stdout == "reader-gone":
        reader, writer = os.pipe()
        os.close(reader)  # every write gets EPIPE
        target = writer
    try:
        proc = subprocess.run(
            [*RECONCILER, "--repo", str(repo), *args],
            stdout=target, stderr=subprocess.PIPE, env=env, timeout=120, check=False,
            preexec_fn=(lambda: os.close(1)) if stdout == "closed" else None,
        )  # fmt: skip
    finally:
        if isinstance(target, int) and target != subprocess.PIPE:
            os.close(target)
        elif not isinstance(target, int):
            target.close()
    err = proc.stderr.decode("utf-8")
    assert "Traceback" not in err and "internal error" not in err, err
    return proc.returncode, err, proc.stdout or b""


@pytest.mark.parametrize("stdout", ["closed", "full", "reader-gone", "ascii"])
def test_a_broken_or_ascii_stdout_still_shows_the_diagnostics(tmp_path: Path, stdout: str) -> None:
    """A failed plan with --format markdown writes its comment (with the diagnostic) to stdout
    first, then the diagnostics to stderr: both writes must survive stdout's fate."""
    repo = _repo(tmp_path)
    code, err, _ = _run(repo, stdout, "plan", "--cluster", "test", "--format", "markdown")
    assert code == 1
    shown = "caf\\xe9.orders' contains '\\xe9'" if stdout == "ascii" else f"{NAME}' contains"
    assert f"topics/a.yaml:2:11: error[R201]: topic name '{shown}" in err
    assert err.isascii() or stdout != "ascii"


@pytest.mark.parametrize("stdout", ["closed", "full", "reader-gone"])
def test_a_report_that_never_reached_its_reader_exits_1_with_one_warning(
    tmp_path: Path, stdout: str
) -> None:
    repo = _repo(tmp_path, "a.b")
    code, err, _ = _run(repo, stdout, "validate")
    assert code == 1
    why = {
        "closed": "it was closed when reconciler started",
        "full": "no space was left on its device",
        "reader-gone": "its reader closed it (broken pipe)",
    }[stdout]
    assert err.splitlines() == [
        f"warning: standard output could not be written: {why}; exit 1: the report did not "
        "reach its reader"
    ]


def test_ascii_stdout_escapes_what_it_cannot_show(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    code, err, out = _run(repo, "ascii", "validate")
    assert code == 1
    assert err == ""
    assert b"error[R201]: topic name 'caf\\xe9.orders' contains '\\xe9'" in out


def test_a_channel_redacts_escapes_and_remembers_why_it_stopped() -> None:
    redaction.remember(["s3cr3t-value"])
    sink = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    channel = Channel(sink)
    channel.write("password s3cr3t-value for caf\u00e9\n")
    assert sink.buffer.getvalue() == b"password *** for caf\\xe9\n"
    assert channel.lost is None
    sink.close()
    assert channel.write("more\n") == 5  # never raises
    assert channel.lost == "it was closed"
    assert Channel(None).write("x") == 1
