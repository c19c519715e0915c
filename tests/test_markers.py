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
