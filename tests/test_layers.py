"""The layer contracts of pyproject.toml ([tool.importlinter], docs/architecture.md) hold on the
package, and each one fails on a copy of the package given the import it forbids: the copy and
the configuration go to a temporary folder, one line is added, and `lint-imports` must name the
broken contract there."""

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


@pytest.mark.parametrize("case", UPWARD.values(), ids=UPWARD.keys())
def test_a_forbidden_import_breaks_its_contract(case: tuple[str, str, str], tmp_path: Path) -> None:
    module, line, contract = case
    shutil.copytree(
        ROOT / "reconciler", tmp_path / "reconciler", symlinks=True,
        ignore=shutil.ignore_patterns("__pycache__"),
    )  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    edited = tmp_path / module
    before = edited.read_text() if edited.exists() else ""
    edited.write_text(f"{before}\n{line}  # noqa\n")

    done = _lint(tmp_path)
    assert done.returncode != 0, done.stdout
    assert _contracts()[contract] in _broken(done.stdout), done.stdout
