"""The workflows' install step, run for real through the GitHub stand-in (workflow_runner.py):
reconciler and its dependencies installed into a fresh virtualenv from a package index served
on 127.0.0.1 (PEP 503, as a private index would be, named by the caller's `index-url`), with
--require-hashes against the lock `reconciler init` wrote and the wheel's `package-sha256`; a
dependency's wheel or reconciler's own wheel whose bytes changed on the index is refused by
pip's hash check, and nothing is installed.

The locked wheels for this interpreter's platform are downloaded from PyPI once (by their lock
hashes) into $RECONCILER_CACHE/locked-wheels/, so later runs work offline."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import time
import urllib.request
import venv
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

from reconciler import __version__
from reconciler.init_repo import scaffold, write_new
from reconciler.local.distribution import cache_dir
from reconciler.local.free_port import free_port
from tests.adopt.conftest import LOCK, Installed
from tests.adopt.workflow_runner import Event, FakeGitHub, JobResult, Runner

pytestmark = pytest.mark.slow  # fresh virtualenvs and a real pip install from a local index

REPOSITORY = "acme/topics"
MISMATCH = "THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE"


def _name(project: str) -> str:
    """A project name, PEP 503 normalised."""
    return re.sub(r"[-_.]+", "-", project).lower()


def _project(wheel: str) -> str:
    """The normalised project name of a wheel file name."""
    return _name(wheel.split("-", maxsplit=1)[0])


def _locked_wheels() -> Path:
    """The wheels of every locked dependency for this interpreter's platform, each checked
    against the lock's hashes as pip downloads it (cached by the lock's digest)."""
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()[:16]
    where = cache_dir() / "locked-wheels" / f"{digest}-py{sys.version_info[0]}{sys.version_info[1]}"
    if not (where / ".complete").is_file():
        where.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
             "--require-hashes", "--only-binary", ":all:", "--no-deps", "-r", str(LOCK),
             "-d", str(where)],
            check=True, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        (where / ".complete").touch()
    return where


@pytest.fixture(scope="module")
def index_files(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PEP 503 simple index in a folder: simple/PROJECT/FILE for each locked wheel and
    reconciler's own (copies: a test may change one)."""
    root = tmp_path_factory.mktemp("index")
    wheels = [*_locked_wheels().glob("*.whl"), installed.wheel]
    for wheel in wheels:
        project = root / "simple" / _project(wheel.name)
        project.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(wheel, project / wheel.name)
    return root


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """`directory` served by `python -m http.server` on 127.0.0.1 (its directory listings are
    the simple API's pages): the index URL, until the block ends and the server is stopped."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
         "--directory", str(directory)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/simple/"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2):
                    break
            except OSError:
                assert server.poll() is None, "http.server exited"
                assert time.monotonic() < deadline, f"http.server did not answer on {url}"
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def index_url(index_files: Path) -> Iterator[str]:
    with serve(index_files) as url:
        yield url


def _spec_repository(tmp_path: Path, index_url: str) -> tuple[Path, str]:
    """A spec repository of init's own files whose drift.yml installs from `index_url` (the
    cluster is unreachable: only the install step matters here)."""
    repo = tmp_path / "specs"
    write_new(repo, scaffold("test", "127.0.0.1:1"))
    config = repo / "reconciler.yaml"
    config.write_text(
        config.read_text().replace("    client: {}\n", "    client: {request.timeout.ms: 3000}\n")
    )
    caller = repo / ".github" / "workflows" / "drift.yml"
    text = caller.read_text()
    line = next(x for x in text.splitlines(keepends=True) if "package-sha256:" in x)
    caller.write_text(text.replace(line, line + f"      index-url: {index_url}\n"))
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-q", "-m", "init")):
        subprocess.run(
            ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args],
            cwd=repo, check=True, capture_output=True,
        )  # fmt: skip
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()
    return repo, head


def _install(tmp_path: Path, index_url: str, wheel_sha256: str) -> tuple[JobResult, Path]:
    """drift.yml run on its schedule with a fresh virtualenv's Python first on PATH: the job,
    and that virtualenv's bin directory."""
    repo, head = _spec_repository(tmp_path, index_url)
    fresh = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(fresh)
    github = FakeGitHub(tmp_path / "github", REPOSITORY, "ghs_token")
    runner = Runner(
        workspace=repo,
        temp=tmp_path / "runner",
        path=(github.bin, fresh / "bin"),
        environment_secrets={"test-plan": {"KAFKA_BOOTSTRAP": "127.0.0.1:1"}},
        input_overrides={"package-sha256": wheel_sha256},
        repository=REPOSITORY,
        github=github,
    )
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "drift.yml").read_text())
    cron = workflow[True]["schedule"][0]["cron"]
    return runner.run("drift.yml", Event.schedule(head, cron)).job(), fresh / "bin"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _installed(bin_dir: Path) -> str:
    shown = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "list", "--format", "freeze"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return shown.stdout


def test_the_install_step_installs_from_an_index_with_hashes(
    installed: Installed, index_url: str, tmp_path: Path
) -> None:
    job, bin_dir = _install(tmp_path, index_url, _sha256(installed.wheel))
    step = job.step("install reconciler")
    assert step.outcome == "success", job.log()
    assert f"Looking in indexes: {index_url}" in step.log, step.log
    assert step.log.rstrip().endswith(f"reconciler, version {__version__}"), step.log
    assert not [a for a in job.annotations() if "package-sha256" in a]  # pinned: no warning
    freeze = _installed(bin_dir)
    assert "kafka-topic-reconciler==" in freeze
    versions = {_name(x.split("==")[0]): x.split("==")[1] for x in freeze.splitlines()}
    pins = re.findall(r"^([A-Za-z0-9._-]+)==(\S+)", LOCK.read_text(), re.M)
    applied = {_name(name): pin for name, pin in pins if _name(name) in versions}
    assert {"confluent-kafka", "kafka-python", "pyyaml", "cryptography"} <= set(applied)
    assert {name: versions[name] for name in applied} == applied  # the locked versions
    # the job went on to drift, which failed on the unreachable cluster, not on the install
    assert job.step("drift").outcome == "failure"


def _tampered(index_files: Path, tmp_path: Path, project: str) -> Path:
    """A copy of the index whose wheel of `project` has one more byte."""
    copy = tmp_path / "tampered"
    shutil.copytree(index_files, copy)
    (wheel,) = (copy / "simple" / project).glob("*.whl")
    with wheel.open("ab") as handle:
        handle.write(b"\0")
    return copy


@pytest.mark.parametrize("project", ["pyyaml", "kafka-topic-reconciler"])
def test_the_install_step_refuses_a_wheel_whose_bytes_changed(
    installed: Installed, index_files: Path, tmp_path: Path, project: str
) -> None:
    tampered = _tampered(index_files, tmp_path, project)
    with serve(tampered) as url:
        job, bin_dir = _install(tmp_path / "run", url, _sha256(installed.wheel))
    step = job.step("install reconciler")
    assert step.outcome == "failure", job.log()
    assert MISMATCH in step.log, step.log
    (changed,) = (tampered / "simple" / project).glob("*.whl")
    assert f"Got        {_sha256(changed)}" in step.log, step.log
    assert job.step("drift").outcome == "skipped"
    assert "kafka-topic-reconciler" not in _installed(bin_dir)
    assert not (bin_dir / "reconciler").exists()
