"""Specs are read whole or not at all (Finding 1).

We run as root, whom permissions do not stop, so the CLI runs as root without the
capabilities that bypass file permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) on a
repository owned by uid 65534: the kernel then checks the repository's "other" permission bits,
and its permission errors are the kernel's own, not a mock. Staying uid 0 keeps the
interpreter reachable when the checkout lives in a private (0700) directory, as a
`mktemp -d` clone or a private home does, which another uid could not enter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from reconciler.spec.loader import load_repo
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA

# Dropped from the bounding and inheritable sets: an exec'd program of uid 0 gets no others
WITHOUT_DAC = [
    "setpriv",
    "--bounding-set=-dac_override,-dac_read_search",
    "--inh-caps=-dac_override,-dac_read_search",
]
OWNER = 65534  # the repository's owner: not the CLI's uid, so "other" bits are what it gets
CONFIG = """\
topics: topics/
clusters:
  test:
    bootstrap: "${KAFKA_BOOTSTRAP}"
    policy:
      allow_delete: true
      ignore: ["^(?!%s)"]
"""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[Path]:
    """Where the repositories the CLI reads go: pytest's own, private temporary directory
    (uid 0 owns it, so the CLI can enter it without DAC capabilities)."""
    yield tmp_path


def make_repo(root: Path, ns: str) -> Path:
    (root / "topics" / "team").mkdir(parents=True)
    (root / "topics" / "other").mkdir()
    (root / "reconciler.yaml").write_text(CONFIG % ns.replace(".", r"\\."))
    (root / "topics" / "team" / "a.yaml").write_text(
        f"topics:\n  - name: {ns}.hidden\n    partitions: 1\n    replication_factor: 1\n"
    )
    (root / "topics" / "other" / "b.yaml").write_text(
        f"topics:\n  - name: {ns}.seen\n    partitions: 1\n    replication_factor: 1\n"
    )
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
        os.chown(path, OWNER, OWNER)
    return root


def as_nobody(repo: Path, *args: str, bootstrap: str = "127.0.0.1:1") -> tuple[int, str]:
    """`reconciler --repo REPO ARGS` as uid 0 without DAC capabilities, to whom the
    repository (owned by uid 65534) grants its "other" bits only: exit code and output (never
    a traceback)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        "NO_COLOR": "1",
        "COLUMNS": os.environ["COLUMNS"],  # one message a line (tests/conftest.py)
        "KAFKA_BOOTSTRAP": bootstrap,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    proc = subprocess.run(
        [*WITHOUT_DAC, sys.executable, "-m", "reconciler", "--repo", str(repo), *args],
        capture_output=True, text=True, env=env, timeout=120, check=False, cwd="/tmp",
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout + proc.stderr


def test_an_unreadable_directory_is_an_error_naming_it(world: Path) -> None:
    """Finding 1: a subdirectory that cannot be listed fails validate, naming the path."""
    repo = make_repo(world / "r", "t.x")
    assert as_nobody(repo, "validate")[0] == 0
    (repo / "topics" / "team").chmod(0o700)
    code, err = as_nobody(repo, "validate")
    assert code == 1
    assert "topics/team:1:1: error[R008]" in err and "cannot be listed: Permission denied" in err


def test_a_directory_listed_but_not_searchable_is_an_error(world: Path) -> None:
    """Finding 1: names that can be listed but not examined (r without x) are not skipped."""
    repo = make_repo(world / "r", "t.x")
    (repo / "topics" / "team").chmod(0o744)
    code, err = as_nobody(repo, "validate")
    assert code == 1
    assert "topics/team/a.yaml:1:1: error[R008]" in err


def test_an_unreadable_file_is_an_error_naming_it(world: Path) -> None:
    """Finding 1: a topic file without read permission fails validate."""
    repo = make_repo(world / "r", "t.x")
    (repo / "topics" / "team" / "a.yaml").chmod(0o600)
    code, err = as_nobody(repo, "validate")
    assert code == 1
    assert "topics/team/a.yaml:1:1: error[R008]" in err and "read permission" in err


def test_an_unreadable_topics_directory_is_an_error(world: Path) -> None:
    """Finding 1: the topics directory itself, unlistable, is not "no topics"."""
    repo = make_repo(world / "r", "t.x")
    (repo / "topics").chmod(0o700)
    code, err = as_nobody(repo, "validate")
    assert code == 1
    assert "error[R008]" in err or "error[R504]" in err


def test_a_dangling_symlink_of_any_name_is_an_error(tmp_path: Path) -> None:
    """Finding 1: a dangling link may have been a directory of topics: not skipped."""
    repo = make_repo(tmp_path / "r", "t.x")
    (repo / "topics" / "moved").symlink_to(tmp_path / "r" / "topics" / "gone")
    result = load_repo(repo, env={"KAFKA_BOOTSTRAP": "127.0.0.1:1"})
    assert [(d.code, d.location and d.location.file) for d in result.diagnostics] == [
        ("R008", "topics/moved")
    ]


def test_a_file_removed_between_listing_and_reading_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 1: the race is made deterministic by removing the file right after listing."""
    repo = make_repo(tmp_path / "r", "t.x")
    victim = repo / "topics" / "team" / "a.yaml"
    real_scandir = os.scandir

    def scandir_then_remove(path: str | os.PathLike[str]) -> object:
        listing = list(real_scandir(path))
        if Path(path) == victim.parent and victim.exists():
            victim.unlink()
        return _Listing(listing)

    monkeypatch.setattr(os, "scandir", scandir_then_remove)
    result = load_repo(repo, env={"KAFKA_BOOTSTRAP": "127.0.0.1:1"})
    assert not result.valid
    assert [(d.code, d.location and d.location.file) for d in result.diagnostics] == [
        ("R008", "topics/team/a.yaml")
    ]


class _Listing(list[os.DirEntry[str]]):
    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *_: object) -> None:
        return None


# ---------------------------------------------------------------------------- end to end


def test_prune_refuses_when_a_directory_cannot_be_read(
    world: Path, kafka1: LocalCluster, ns: str
) -> None:
    """Finding 1: with allow_delete, an unreadable subdirectory holding an existing topic makes
    `plan --prune` and `apply --prune --auto-approve` exit 1, and the topic survives."""
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    hidden, seen = f"{ns}.hidden", f"{ns}.seen"
    for future in admin.create_topics([NewTopic(hidden, 1, 1), NewTopic(seen, 1, 1)]).values():
        future.result()
    wait_for_topic(admin, hidden)
    wait_for_topic(admin, seen)
    repo = make_repo(world / "r", ns)
    # Readable, the plan is empty: the topic is managed by the file in topics/team.
    code, err = as_nobody(repo, "plan", "--cluster", "test", "--prune", bootstrap=kafka1.bootstrap)
    assert code == 0, err

    (repo / "topics" / "team").chmod(0o700)
    for args in (("plan",), ("apply", "--auto-approve")):
        code, err = as_nobody(
            repo, *args, "--cluster", "test", "--prune", bootstrap=kafka1.bootstrap
        )
        assert code == 1, err
        assert "topics/team" in err and "error[R008]" in err
    topics = admin.list_topics(timeout=10).topics
    assert hidden in topics and seen in topics
