"""The wheel built from this checkout (`python -m pip wheel --no-deps`), installed in a fresh
virtualenv outside it, once per run.

tests/adopt/test_installed_wheel.py runs the CLI from it as a new user would;
tests/adopt/test_workflows.py installs that wheel in the GitHub workflows' install step.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "reconciler" / "scaffold" / "reconciler-requirements.txt"


@dataclass
class Installed:
    bin: Path  # the fresh venv's bin directory: python, pip, reconciler
    wheel: Path  # the wheel it was installed from

    def run(
        self, cwd: Path, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        clean["PATH"] = f"{self.bin}{os.pathsep}{clean.get('PATH', '')}"
        clean["NO_COLOR"] = "1"
        done = subprocess.run(
            [str(self.bin / "reconciler"), *args],
            cwd=cwd, env={**clean, **(env or {})}, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        assert "Traceback" not in done.stderr, done.stderr
        return done


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """The wheel built from this checkout, installed in a fresh venv outside it."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(work / "d"), str(ROOT)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    (wheel,) = (work / "d").glob("kafka_topic_reconciler-*.whl")
    venv.EnvBuilder(with_pip=True).create(work / "venv")
    bin_dir = work / "venv" / "bin"
    # as a release is installed (docs/workflows.md): the dependencies from the lock with their
    # hashes, then the wheel
    for args in (("--require-hashes", "-r", str(LOCK)), ("--no-deps", str(wheel))):
        subprocess.run(
            [str(bin_dir / "pip"), "install", "-q", *args],
            check=True, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    yield Installed(bin_dir, wheel)
