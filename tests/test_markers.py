"""A test module's marks are one `pytestmark`: a second assignment replaces the first, and its
tests silently lose a mark (`slow` lost, `make check` runs them; `kafka` lost, no broker)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_module_assigns_pytestmark_twice() -> None:
    twice = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        lines = [
            node.lineno
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name) and target.id == "pytestmark"
        ]
        if len(lines) > 1:
            twice.append(f"{path.relative_to(TESTS.parent)}: lines {lines}")
    assert not twice, twice


def recipe(makefile: str, target: str) -> str:
    """The commands of `target:` in the Makefile, joined (continuation lines included)."""
    lines = makefile.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    body = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        body.append(line.strip().rstrip("\\"))
    return " ".join(body)


def test_make_test_leaves_the_matrix_to_make_compat() -> None:
    """`matrix` tests (a Spark version or a way to deploy the fleet job) run in `make compat`,
    beside the journey on every Kafka line, and never in `make test`; both on the scheduler of
    tests/worker_groups.py (`--dist loadfile`), so the fleet's shared session and the adopt
    tests' installed wheel start once per run there too."""
    makefile = (TESTS.parent / "Makefile").read_text(encoding="utf-8")
    test, compat = recipe(makefile, "test"), recipe(makefile, "compat")
    assert '-m "not matrix"' in test and "--dist loadfile" in test, test
    assert '-m "journey or matrix"' in compat and "--dist loadfile" in compat, compat
    assert "spark35" in makefile.split("\ncompat:", 1)[1].splitlines()[0]
    assert "spark35" not in makefile.split("\ntest:", 1)[1].splitlines()[0]
