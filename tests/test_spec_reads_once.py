"""Each command opens reconciler.yaml and each topic file once (reconciler/workflow/context.py),
and the digest a saved plan records is of the bytes it planned, even when a file changes on
disk during the command.

The commands run in-process through the CLI; where one needs a cluster it gets the in-memory
fake (through the one module that connects: workflow/connection.py) or a --state snapshot. The
opens are counted twice: where the loader reads (`readable.read_bytes`, under the command's
SpecFiles) and at the OS level (`os.open`, `builtins.open`, `io.open`: Path.read_bytes and
Path.open go through `io.open`).
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler import readable
from reconciler.cluster.snapshot import write_snapshot
from reconciler.workflow.context import Context
from tests.fakes.cluster import FakeKafka, connect_commands_to
from tests.planning.factories import topic
from tests.spec.helpers import run_cli

CONFIG = 'topics: topics/\nclusters:\n  prod:\n    bootstrap: "${KAFKA_BOOTSTRAP:-k:9092}"\n'
FILES = {
    "topics/team/a.yaml": "topics:\n  - name: a.b\n    partitions: 3\n    replication_factor: 1\n",
    "topics/c.yaml": "topics:\n  - name: c.d\n    partitions: 1\n    replication_factor: 1\n",
    "topics/b.yaml.j2": "topics:\n  - name: b.{{ cluster }}\n    partitions: 1\n"
    "    replication_factor: 1\n",
}
SPEC_FILES = ("reconciler.yaml", *FILES)


def repository(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "reconciler.yaml").write_text(CONFIG)
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.fixture
def kafka(monkeypatch: pytest.MonkeyPatch) -> FakeKafka:
    """The cluster every connection of the command reaches: a.b as specified, one topic no
    spec names (import's), c.d and b.prod absent (the plans create them)."""
    fake = FakeKafka().add(topic("a.b", [[1], [1], [1]]), topic("x.unmanaged", [[1]]))
    connect_commands_to(fake, monkeypatch.setattr)
    return fake


class Opens:
    """Opens of the repository's files, by path relative to it: by the loader and by the OS."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.loader: Counter[str] = Counter()
        self.os: Counter[str] = Counter()
        self.after_first: dict[str, Callable[[Path], object]] = {}

    def name(self, path: object) -> str | None:
        if isinstance(path, int):  # a descriptor: not a path
            return None
        full = Path(os.fsdecode(path))  # type: ignore[arg-type]
        full = full if full.is_absolute() else Path.cwd() / full
        try:
            return Path(os.path.realpath(full)).relative_to(self.root).as_posix()
        except ValueError:
            return None

    def reset(self) -> None:
        self.loader.clear()
        self.os.clear()


@pytest.fixture
def opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Opens]:
    counted = Opens(repository(tmp_path / "repo"))
    real_read, real_os_open, real_open = readable.read_bytes, os.open, builtins.open

    def read_bytes(path: Path, cap: int) -> bytes:
        data = real_read(path, cap)
        name = counted.name(path)
        if name is not None:
            counted.loader[name] += 1
            if counted.loader[name] == 1 and name in counted.after_first:
                counted.after_first.pop(name)(counted.root / name)  # the file changes now
        return data

    def os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        name = counted.name(path)
        if name is not None and not name.startswith("."):  # not a temporary of ours
            counted.os[name] += 1
        return real_os_open(path, *args, **kwargs)

    def py_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        name = counted.name(file)
        if name is not None:
            counted.os[name] += 1
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(readable, "read_bytes", read_bytes)
    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", py_open)
    monkeypatch.setattr(io, "open", py_open)
    monkeypatch.chdir(counted.root)
    yield counted


def reconciler(*args: str) -> str:
    code, output = run_cli(["--repo", ".", *args])
    assert code in (0, 2), output  # 2: plan's --detailed-exitcode / drift found
    return output


def assert_once(opens: Opens, files: tuple[str, ...] = SPEC_FILES) -> None:
    expected = dict.fromkeys(files, 1)
    assert dict(opens.loader) == expected, "loader reads"
    assert {n: c for n, c in opens.os.items() if n in SPEC_FILES or n in files} == expected, (
        "OS-level opens"
    )


def snapshot_of(kafka: FakeKafka, opens: Opens) -> None:
    write_snapshot(opens.root.parent / "state.json", "prod", kafka.client().read_state())
    opens.reset()


# Commands that read the whole repository, and where the cluster comes from
COMMANDS: dict[str, tuple[str, ...]] = {
    "validate": ("validate",),
    "validate --cluster": ("validate", "--cluster", "prod"),
    "plan --cluster --state": ("plan", "--cluster", "prod", "--state", "../state.json"),
    "plan --state (the only cluster)": ("plan", "--state", "../state.json"),
    "plan --cluster (live)": ("plan", "--cluster", "prod"),
    "plan (live, the only cluster)": ("plan",),
    "plan -o": ("plan", "--state", "../state.json", "-o", "../plan.json"),
    "apply without a saved plan": ("apply", "--auto-approve"),
    "drift": ("drift", "--cluster", "prod"),
    "compile": ("compile", "--out", "../compiled"),
}


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_each_command_opens_reconciler_yaml_and_each_topic_file_once(
    opens: Opens, kafka: FakeKafka, args: tuple[str, ...]
) -> None:
    snapshot_of(kafka, opens)
    reconciler(*args)
    assert_once(opens)


def test_apply_of_a_saved_plan_opens_each_file_once(opens: Opens, kafka: FakeKafka) -> None:
    snapshot_of(kafka, opens)
    reconciler("plan", "--state", "../state.json", "-o", "../plan.json")
    opens.reset()
    output = reconciler("apply", "../plan.json")
    assert "c.d" in output and "b.prod" in output, output  # applied: the check passed
    assert_once(opens)
    assert {"c.d", "b.prod"} <= set(kafka.topics)


def test_snapshot_opens_reconciler_yaml_once_and_no_topic_file(
    opens: Opens, kafka: FakeKafka
) -> None:
    reconciler("snapshot", "-o", "../out.json")
    assert_once(opens, ("reconciler.yaml",))
    assert not {n for n in opens.os if n.startswith("topics/")}


def test_import_opens_each_file_once_the_ones_it_writes_included(
    opens: Opens, kafka: FakeKafka
) -> None:
    """Import loads, pins the cluster id in reconciler.yaml, writes the new files and loads
    again to plan over them: the second load reads the bytes the command already holds."""
    reconciler("import", "--cluster", "prod")
    ours = {n for n in opens.os if Path(n).name.startswith(".")}  # write checks, temporaries
    written = [n for n in opens.os if n not in SPEC_FILES and n not in ours]
    assert len(written) == 1 and opens.os[written[0]] == 1, opens.os  # opened to write it
    assert dict(opens.loader) == dict.fromkeys(SPEC_FILES, 1)
    assert {n: c for n, c in opens.os.items() if n in SPEC_FILES} == dict.fromkeys(SPEC_FILES, 1)
    assert kafka.cluster_id in (opens.root / "reconciler.yaml").read_text()  # pinned


@pytest.mark.parametrize("changed", ["topics/team/a.yaml", "reconciler.yaml", "topics/b.yaml.j2"])
def test_the_saved_plans_digest_is_of_the_bytes_planned_when_a_file_changes_meanwhile(
    opens: Opens, kafka: FakeKafka, tmp_path: Path, changed: str
) -> None:
    """The file is edited right after the command's first (and only) read of it: the plan's
    digest is still that of the bytes read, i.e. of an untouched copy of the repository; and
    apply, seeing the edited file, refuses the plan."""
    from reconciler.planning.json_plan import from_json

    untouched = shutil.copytree(opens.root, tmp_path / "copy")
    snapshot_of(kafka, opens)
    opens.after_first[changed] = lambda path: path.write_text(path.read_text() + "# edited\n")
    reconciler("plan", "--state", "../state.json", "-o", "../plan.json")
    assert not opens.after_first, "the hook ran"
    import json

    saved = from_json(json.loads((opens.root.parent / "plan.json").read_text()))
    assert saved.source is not None
    assert saved.source.specs == Context(untouched).digest("prod")
    assert saved.source.specs != Context(opens.root).digest("prod")  # the edit is a change
    code, output = run_cli(["--repo", ".", "apply", "../plan.json"])
    assert code == 1 and "made from other spec files" in output, output


def test_plan_changed_since_opens_the_work_trees_files_once(opens: Opens, kafka: FakeKafka) -> None:
    """The base's files come from git (a scratch copy); the work tree's are read once."""
    import subprocess

    git = ["git", "-C", str(opens.root), "-c", "user.name=A", "-c", "user.email=a@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "specs"], check=True)
    snapshot_of(kafka, opens)
    reconciler("plan", "--state", "../state.json", "--changed-since", "HEAD")
    assert_once(opens)
