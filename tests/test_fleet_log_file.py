"""`reconciler fleet drift` sends the JVM's output to a temporary file, kept only where the
job's error names it: a run that fails before Spark starts leaves nothing behind."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.spec.helpers import run_cli


def test_a_run_failing_before_spark_starts_leaves_no_log_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where mkstemp puts the log
    code, output = run_cli(
        ["fleet", "drift", "--desired", str(tmp_path / "nowhere"),
         "--snapshots", str(tmp_path / "nothing"), "--out", str(tmp_path / "out")]
    )  # fmt: skip
    assert code == 1, output
    assert "nowhere" in output and "Traceback" not in output
    assert list(scratch.iterdir()) == []
