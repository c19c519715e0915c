"""The release's files: the lock of the runtime dependencies (committed, shipped in the package,
written by `reconciler init`) against pyproject.toml and the environment the suite runs in, and
the build of `make release` (scripts/release.py): wheel, sdist, lock and SHA256SUMS."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

from reconciler import __version__
from reconciler.init_repo import LOCK, scaffold
from reconciler.resources import scaffold_text

ROOT = Path(__file__).resolve().parents[2]
LOCK_FILE = ROOT / "reconciler" / "scaffold" / "reconciler-requirements.txt"


def release_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pyproject() -> str:
    return (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def lock() -> str:
    return LOCK_FILE.read_text(encoding="utf-8")


def test_the_lock_pins_every_dependency_of_pyproject_with_hashes() -> None:
    release = release_script()
    assert release.lock_problems(pyproject(), lock()) == []
    pins = release.locked(lock())
    assert {"confluent-kafka", "kafka-python", "pyyaml", "cryptography", "cffi"} <= set(pins)
    assert all(len(hashes) >= 1 for _, hashes in pins.values())
    # every file of the version: a wheel per platform, so more than one for compiled ones
    assert len(pins["confluent-kafka"][1]) > 5 and len(pins["pyyaml"][1]) > 5


def test_the_lock_check_fails_on_a_missing_an_unhashed_and_a_too_old_pin() -> None:
    release = release_script()
    text = lock()
    without = "\n".join(
        line for line in text.splitlines() if not line.startswith("regex==")
    )  # the hashes left behind attach to the package above, which is fine: regex is gone
    assert any("regex" in p and "not in the lock" in p for p in release.lock_problems(
        pyproject(), without))  # fmt: skip
    unhashed = "click==8.5.1\n" + "\n".join(
        line for line in text.splitlines() if not line.startswith("click==")
    )
    assert "click==8.5.1 has no --hash=sha256" in release.lock_problems(pyproject(), unhashed)
    old = pyproject().replace('"click>=8.1"', '"click>=99"')
    assert any("click is locked at" in p for p in release.lock_problems(old, text))


def test_the_lock_is_closed_and_is_what_the_suite_runs_on() -> None:
    """Every dependency of a locked package (for this interpreter's platform) is locked too,
    and the suite's environment has the locked versions (`make env` installs at the lock's
    pins): the lock is what reconciler was tested with."""
    pins = release_script().locked(lock())
    normalise = release_script().normalise
    for name, (version, _) in pins.items():
        try:
            installed = distribution(name)
        except PackageNotFoundError:
            continue  # a package for another platform or Python (a marker excludes it here)
        assert installed.version == version, f"{name} is {installed.version}: run `make env`"
        for text in installed.requires or ():
            needed = Requirement(text)
            if needed.marker is not None and not needed.marker.evaluate({"extra": ""}):
                continue
            assert normalise(needed.name) in pins, f"{name} needs {needed.name}: `make lock`"


def test_the_package_ships_the_lock_and_init_writes_it() -> None:
    assert scaffold_text("reconciler-requirements.txt") == lock()
    files = {f.path: f.text for f in scaffold("prod", "kafka-1.example.com:9092")}
    assert files[LOCK] == lock()


@pytest.mark.slow
def test_make_release_builds_the_wheel_the_sdist_and_the_lock(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "release.py"), str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    name = f"kafka_topic_reconciler-{__version__}"
    wheel, sdist, locked = (
        out / f"{name}-py3-none-any.whl", out / f"{name}.tar.gz", out / f"{name}-requirements.txt"
    )  # fmt: skip
    assert built.stdout.split() == [str(wheel), str(sdist), str(locked), str(out / "SHA256SUMS")]
    assert locked.read_text(encoding="utf-8") == lock()
    sums = (out / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    assert sums == [
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}" for p in (wheel, sdist, locked)
    ]
    with zipfile.ZipFile(wheel) as archive:
        shipped = archive.read("reconciler/scaffold/reconciler-requirements.txt").decode()
        metadata = archive.read(f"{name}.dist-info/METADATA").decode()
    assert shipped == lock()
    declared = tomllib.loads(pyproject())["project"]["dependencies"]
    for text in declared:
        assert f"Requires-Dist: {Requirement(text)}" in metadata, text
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert f"{name}/reconciler/scaffold/reconciler-requirements.txt" in names
    assert f"{name}/pyproject.toml" in names

    again = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "release.py"), str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert again.returncode == 1 and "already has" in again.stderr  # never overwrites
    assert "Traceback" not in again.stderr
