"""No import cycles inside the Kafka adapter: every import counts, at module level, inside a
function or under TYPE_CHECKING (a cycle dodged by a late import is still a cycle)."""

from __future__ import annotations

import ast
from pathlib import Path

import reconciler.cluster.adapter

PACKAGE = "reconciler.cluster.adapter"
ADAPTER = Path(reconciler.cluster.adapter.__file__).parent


def imports(folder: Path) -> dict[str, set[str]]:
    """Module -> the adapter's modules it imports (any import statement, anywhere in it)."""
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for module in modules:
        found: set[str] = set()
        for node in ast.walk(ast.parse((folder / f"{module}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
                found |= {alias.name for alias in node.names if alias.name in modules}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
                found.add(str(node.module).removeprefix(f"{PACKAGE}.").split(".")[0])
            elif isinstance(node, ast.Import):
                found |= {
                    a.name.removeprefix(f"{PACKAGE}.") for a in node.names if a.name != PACKAGE
                } & modules
        graph[module] = found - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One path per cycle found by a depth-first walk from each module."""
    found: list[list[str]] = []

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph.get(path[-1], ())):
            if nxt in path:
                found.append([*path[path.index(nxt) :], nxt])
            elif len(path) < len(graph):
                walk([*path, nxt])

    for start in sorted(graph):
        walk([start])
    return found


def test_the_adapters_modules_import_each_other_without_a_cycle() -> None:
    graph = imports(ADAPTER)
    assert {"connect", "authorization", "failures", "cluster"} <= set(graph)  # it read them
    assert cycles(graph) == []


def test_a_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()})[0] == ["a", "b", "c", "a"]
