"""The layer contracts of pyproject.toml ([tool.importlinter], docs/architecture.md) hold on the
package, and each one fails on a copy of the package given the import it forbids: the copy and
the configuration go to a temporary folder, each case's line is added, and `lint-imports`, run
once, must name each case's import (its module and line) under the contract it breaks."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _contracts() -> dict[str, str]:
    """Each contract's id -> its name, as pyproject.toml declares them."""
    config: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {c["id"]: c["name"] for c in config["tool"]["importlinter"]["contracts"]}


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports on the package under `root` (its own copy found first on the path)."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(root / "pyproject.toml")],
        cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


def _broken(output: str) -> set[str]:
    """The names of the contracts lint-imports reports as broken (its report wraps long names
    over lines: joined again before matching)."""
    joined = re.sub(r"\s*\n\s*", " ", output)
    return {name for name in _contracts().values() if f"{name} BROKEN" in joined}


def test_the_package_keeps_every_contract() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    joined = re.sub(r"\s*\n\s*", " ", done.stdout)
    for name in _contracts().values():
        assert f"{name} KEPT" in joined, (name, done.stdout)


# name -> (module to edit, the line added to it, the contract that must then break)
UPWARD = {
    "planning imports the command line (a cycle through workflow)":
        ("reconciler/planning/diff.py", "import reconciler.cli.main", "layers"),
    "the job imports the command line (what fleet/job.py once did)":
        ("reconciler/fleet/job.py", "from reconciler.cli import main", "layers"),
    "local imports the command line (what local/commands.py once did)":
        ("reconciler/local/state.py", "from reconciler.cli import heartbeat", "layers"),
    "spec imports the cluster":
        ("reconciler/spec/model.py", "import reconciler.cluster.state", "layers"),
    "render imports apply":
        ("reconciler/render/text.py", "import reconciler.apply.run", "pure"),
    "planning imports the Kafka adapter":
        ("reconciler/planning/plan.py", "import reconciler.cluster.adapter", "pure"),
    "workflow imports a Kafka client":
        ("reconciler/workflow/connection.py", "import confluent_kafka", "kafka-clients"),
    "a use case imports the adapter (not through the connection)":
        ("reconciler/workflow/drift.py", "import reconciler.cluster.adapter", "adapter"),
    "apply imports kafka-python":
        ("reconciler/apply/run.py", "import kafka", "kafka-clients"),
    "apply imports the adapter (not a port)":
        ("reconciler/apply/run.py", "from reconciler.cluster.adapter import Cluster", "adapter"),
    "the ports import an adapter module":
        ("reconciler/cluster/ports.py", "import reconciler.cluster.adapter.connect", "adapter"),
    "the command line imports the adapter's failures":
        ("reconciler/cli/main.py", "from reconciler.cluster.adapter import failures", "adapter"),
    "a protocol value imports a Kafka client":
        ("reconciler/cluster/protocol/requests.py", "import confluent_kafka", "kafka-clients"),
    "the cluster model imports Spark":
        ("reconciler/cluster/state.py", "import pyspark", "spark"),
    "a new top-level module no layer names":
        ("reconciler/newcomer.py", "import reconciler.errors", "layers"),
}  # fmt: skip


def _sections(output: str) -> dict[str, str]:
    """Each broken contract's id -> its part of lint-imports' report (the lines after its
    name, up to the next contract's), long lines joined again."""
    joined = re.sub(r"\s*\n\s*", " ", output)
    report = joined.split("Broken contracts", 1)[-1]
    found = sorted(
        (at, cid) for cid, name in _contracts().items() if (at := report.find(name)) >= 0
    )  # fmt: skip
    ends = [at for at, _ in found[1:]] + [len(report)]
    return {cid: report[at:end] for (at, cid), end in zip(found, ends, strict=True)}


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], dict[str, int]]:
    """One copy of the package with every case's line added, and one lint-imports run over it
    (a copy and a run per case were 6 of make check's ~100 CPU s): each broken contract's part
    of the report, and the line number each case's import got. Each case is then told apart
    by its own module and line in its own contract's part, never by another case's edit."""
    root = tmp_path_factory.mktemp("layers")
    shutil.copytree(
        ROOT / "reconciler", root / "reconciler", symlinks=True,
        ignore=shutil.ignore_patterns("__pycache__"),
    )  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", root)
    line_of: dict[str, int] = {}
    for name, (module, line, _) in UPWARD.items():
        edited = root / module
        before = edited.read_text() if edited.exists() else ""
        edited.write_text(f"{before}\n{line}  # noqa\n")
        line_of[name] = len(f"{before}\n".splitlines()) + 1
    done = _lint(root)
    assert done.returncode != 0, done.stdout
    return _sections(done.stdout), line_of


@pytest.mark.parametrize("name", UPWARD)
def test_a_forbidden_import_breaks_its_contract(
    name: str, broken: tuple[dict[str, str], dict[str, int]]
) -> None:
    module, _, contract = UPWARD[name]
    sections, line_of = broken
    new = not (ROOT / module).exists()
    assert contract in sections, (name, sorted(sections))
    dotted = module.removesuffix(".py").replace("/", ".")
    section = sections[contract]
    if new:  # a module no layer names, whatever it imports
        assert f"- {dotted}" in section, section
    else:  # this case's own import, at the line it was added on
        assert re.search(rf"{re.escape(dotted)} -> \S+ \(l\.{line_of[name]}\)", section), section
