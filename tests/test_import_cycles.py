"""No import cycle in the package, function-level and TYPE_CHECKING imports included: a cycle
hidden in a function still makes two modules one (neither can be read, tested or moved alone),
and turns into an ImportError the day someone hoists the import. Every module is parsed (ast),
every `import`/`from ... import` collected wherever it is, relative imports resolved, and the
graph's strongly connected components named, each by one cycle through it."""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Container, Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules(top: Path) -> dict[str, Path]:
    """Every module of the package at `top`, by dotted name (a package by its __init__)."""
    found = {}
    for path in sorted(top.rglob("*.py")):
        parts = list(path.relative_to(top.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imported(
    node: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: Container[str]
) -> Iterator[str]:
    """The dotted names one import statement of module `name` reaches: `from X import Y` the
    module X.Y where there is one, else X (Y is then a name X defines)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:  # relative: from the importing module's package, up level - 1 more
        package = name.split(".") if is_package else name.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, *([base] if base else [])])
    for alias in node.names:
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base


def graph(found: Mapping[str, Path]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, from every import statement in it."""
    edges: dict[str, set[str]] = {}
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets = edges.setdefault(name, set())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                is_package = path.name == "__init__.py"
                for target in _imported(node, name, is_package, found):
                    if target in found and target != name:
                        targets.add(target)
    return edges


def _components(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _cycle(edges: Mapping[str, set[str]], component: list[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first within it)."""
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(edges[node] & members):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    raise AssertionError(f"no cycle through {start} in {component}")  # Tarjan said there is


def cycles(top: Path) -> list[str]:
    """One line per group of modules importing each other, named by one cycle through it:
    'a -> b -> a' (and the group's size when the cycle does not cover it)."""
    edges = graph(modules(top))
    found = []
    for component in _components(edges):
        cycle = _cycle(edges, component)
        rest = sorted(set(component) - set(cycle))
        found.append(" -> ".join(cycle) + (f" (with {', '.join(rest)})" if rest else ""))
    return found


def test_the_package_has_no_import_cycle() -> None:
    found = cycles(ROOT / "reconciler")
    advice = "import cycles (break each: move what both sides need to a module of its own)"
    assert not found, advice + ":\n" + "\n".join(found)


def test_a_cycle_through_a_function_level_relative_import_is_named(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("def late():\n    from .. import a\n    return a\n")
    (package / "c.py").write_text("import pkg.a\n")  # imports into the cycle, not part of it
    assert cycles(package) == ["pkg.a -> pkg.sub.b -> pkg.a"]


def test_an_acyclic_package_has_none(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from . import a\n")
    (package / "a.py").write_text("from .b import thing\n")
    (package / "b.py").write_text("thing = 1\n")
    assert cycles(package) == []
