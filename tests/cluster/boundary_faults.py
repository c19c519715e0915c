"""Making one call into a client library raise, wherever the walk (boundary_walk.py) found it.

Each adapter function holding call sites is compiled again from its source with every call site
`f(args)` turned into `__boundary_fault__(index, f)(args)`, and its `__code__` replaced (undone
when the context ends). `__boundary_fault__` hands back `f` itself, recording that the site ran,
unless that site is the armed one: then it raises the armed exception instead of calling the
library. So the exception comes out of the very call the walk found, with the code around it
(the boundary, the caller's except clauses) as it is.
"""

from __future__ import annotations
import __future__

import ast
import contextlib
import importlib
import inspect
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.cluster.boundary_walk import ADAPTER, Site, sites

HOOK = "__boundary_fault__"


@dataclass
class Faults:
    """The sites, which ran, and which one raises what."""

    sites: list[Site]
    ran: set[int] = field(default_factory=set)
    armed: tuple[int, Callable[[], BaseException]] | None = None
    raised: list[int] = field(default_factory=list)

    def hook(self, index: int, func: Any) -> Any:
        if self.armed is not None and self.armed[0] == index:
            make = self.armed[1]

            def raising(*_: object, **__: object) -> Any:
                self.raised.append(index)
                raise make()

            return raising
        self.ran.add(index)
        return func

    @contextlib.contextmanager
    def arm(self, index: int, make: Callable[[], BaseException]) -> Iterator[None]:
        self.armed, self.raised = (index, make), []
        try:
            yield
        finally:
            self.armed = None


class _Wrap(ast.NodeTransformer):
    def __init__(self, where: dict[tuple[int, int, int, int], int]) -> None:
        self.where = where

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        key = (node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)
        index = self.where.get(key)
        if index is None:
            return node
        hook = ast.Call(ast.Name(HOOK, ast.Load()), [ast.Constant(index), node.func], [])
        return ast.copy_location(ast.Call(hook, node.args, node.keywords), node)


def _code(found: types.CodeType, name: str) -> types.CodeType | None:
    for const in found.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            inner = _code(const, name)
            if inner is not None:
                return inner
    return None


@contextlib.contextmanager
def installed() -> Iterator[Faults]:
    """Every call site of the adapter rewritten to go through the hook, for this block."""
    found = sites()
    faults = Faults(found)
    by_unit: dict[tuple[str, str], dict[tuple[int, int, int, int], int]] = {}
    for index, site in enumerate(found):
        key = (site.line, site.column, *site.end)
        by_unit.setdefault((site.module, site.unit), {})[key] = index
    with pytest.MonkeyPatch.context() as patch:
        for (module_file, unit), where in by_unit.items():
            module = importlib.import_module(f"reconciler.cluster.adapter.{module_file[:-3]}")
            path = ADAPTER / module_file
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            owner, _, name = unit.rpartition(".")
            node = _definition(tree, owner, name)
            node.decorator_list = []
            _Wrap(where).visit(node)
            body: ast.stmt = node
            if owner:
                body = ast.ClassDef(owner, [], [], [node], [])
            compiled = compile(
                ast.fix_missing_locations(ast.Module([body], [])),
                str(path),
                "exec",
                flags=__future__.annotations.compiler_flag,
                dont_inherit=True,
            )
            code = _code(compiled, name)
            assert code is not None, unit
            target = _function(module, owner, name)
            patch.setattr(target, "__code__", code)
            patch.setitem(module.__dict__, HOOK, faults.hook)
        yield faults


def _definition(tree: ast.Module, owner: str, name: str) -> ast.FunctionDef:
    scope: list[ast.stmt] = tree.body
    if owner:
        scope = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner).body
    return next(n for n in scope if isinstance(n, ast.FunctionDef) and n.name == name)


def _function(module: types.ModuleType, owner: str, name: str) -> types.FunctionType:
    found: Any = getattr(module, owner).__dict__[name] if owner else getattr(module, name)
    if isinstance(found, staticmethod | classmethod):
        found = found.__func__
    if isinstance(found, property):
        found = found.fget
    found = inspect.unwrap(found)
    assert isinstance(found, types.FunctionType), (owner, name)
    return found
