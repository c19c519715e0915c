"""Plain topic files read in two processes give what one process gives: the same topics, the same
diagnostics, in the same order; a child that dies costs nothing but time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reconciler.spec import plain_files, render_limits
from reconciler.spec.loader import LoadResult, load_repo
from reconciler.spec.source import Source

REPO_CONFIG = "clusters:\n  dev: {bootstrap: 127.0.0.1:9092}\n  prod: {bootstrap: 127.0.0.1:9093}\n"

# One file in four holds a mistake of some kind: syntax, schema, a Kafka rule, a config value,
# a cross-file one (a duplicate name, a dependency on nothing), a YAML 1.1 warning.
_MISTAKES = [
    "  - name: bad name here\n",
    "  - name: {n}.extra\n    partitions: 0\n",
    "  - name: {n}.cfg\n    config: {{retention.ms: soon}}\n",
    "  - name: {n}.dup\n  - name: {n}.dup\n",
    "  - name: {n}.dep\n    depends_on: [nowhere.at.all]\n",
    "  - name: {n}.yes\n    keyed: yes\n",
    "  - name: {n}.unknown\n    partitons: 3\n",
    "  - name: [unclosed\n",
    "  - name: shared.everywhere\n",
]


def _repo(root: Path, files: int) -> Path:
    (root / "topics").mkdir(parents=True)
    (root / "reconciler.yaml").write_text(REPO_CONFIG)
    for index in range(files):
        body = "topics:\n" + "".join(
            f"  - name: team{index}.t{i}\n    partitions: {1 + i % 4}\n"
            f"    config: {{retention.ms: {1 + i % 9}d, cleanup.policy: delete}}\n"
            for i in range(12)
        )
        if index % 4 == 1:
            body += _MISTAKES[(index // 4) % len(_MISTAKES)].format(n=f"team{index}")
        (root / "topics" / f"f{index:03d}.yaml").write_text(body)
    return root


def _load(root: Path, split: bool, monkeypatch: pytest.MonkeyPatch) -> LoadResult:
    monkeypatch.setattr(plain_files, "SPLIT_MIN_FILES", 2 if split else 10**9)
    return load_repo(root, env={})


def test_two_processes_read_what_one_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path, files=40)
    alone = _load(root, split=False, monkeypatch=monkeypatch)
    shared = _load(root, split=True, monkeypatch=monkeypatch)
    assert alone.errors > 5 and alone.warnings > 0  # the mistakes are there to be found
    assert shared.diagnostics == alone.diagnostics
    assert shared.desired == alone.desired
    assert [list(s.topics) for s in shared.desired.values()] == [
        list(s.topics) for s in alone.desired.values()
    ]  # the same order too: "the first one wins" for a repeated name


def test_a_child_that_dies_costs_only_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path, files=24)
    alone = _load(root, split=False, monkeypatch=monkeypatch)
    real = plain_files.read_file
    children: list[int] = []

    def dying(source: Source, known: object) -> plain_files.FileResult:
        if render_limits._IN_CHILD:  # the forked reader: die on its third file
            children.append(1)
            if len(children) == 3:
                os._exit(70)
        return real(source, known)  # type: ignore[arg-type]

    monkeypatch.setattr(plain_files, "read_file", dying)
    shared = _load(root, split=True, monkeypatch=monkeypatch)
    assert shared.diagnostics == alone.diagnostics
    assert shared.desired == alone.desired
