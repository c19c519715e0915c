"""Every call into a Kafka client library in reconciler/cluster/adapter/, found by reading the
source (AST), and whether it runs inside the boundary (adapter/boundary.py).

A call into a library is, inside a function or method (module-level constants run at import):

- a call of a name imported from `confluent_kafka` or `kafka` (a class or function: `AdminClient(
  conf)`, `ConfigResource(...)`, `OffsetSpec.latest()`), other than its error classes (raising
  or reading an error the library already raised is classification, failures.py's business);
- a method call on a value that comes from a library: a parameter, variable or `self` attribute
  annotated with a library type (or `Future`, the type of the libraries' futures), what a call
  into a library returned, what an adapter function annotated as returning a library type
  returned, and whatever is read, indexed or iterated out of those. Methods of the containers
  that hold such values (`dict.get`, `list.append`, ...) are not calls into a library.

A call site is inside the boundary when a `with boundary.X(...)` block encloses it, or its
function (or one enclosing it) is decorated with `@boundary.calls(...)`.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import reconciler.cluster.adapter as adapter_package

ADAPTER = Path(adapter_package.__file__).resolve().parent
LIBRARIES = ("confluent_kafka", "kafka")
# The boundary itself, and the read of the brokers' release it makes while describing a failure
# (every line there is inside `except Exception: unknown`)
EXEMPT = {"boundary.py", "broker_version.py"}
# Functions that call into a library on their caller's behalf, without a connection to name the
# cluster: a call of one is a call site (its caller guards it), their own bodies are not walked
RELAYS = {
    ("failures.py", "Watch.refused"): "watch.refused",  # polls the librdkafka clients it watches
    ("replication_throttle.py", "_entries"): "_entries",  # builds librdkafka ConfigEntry values
}
# Functions that call a callable they are handed: a library method handed over is called there
RUNNERS = frozenset({"bounded", "Aside"})
# Builtins whose result holds what their argument held
PASSING = frozenset({"list", "sorted", "tuple", "set", "dict", "reversed", "iter", "next"})
# Methods of the containers the adapter keeps library values in (and of their answers' dicts)
CONTAINER_METHODS = frozenset(
    {
        "get",
        "items",
        "keys",
        "values",
        "pop",
        "popleft",
        "append",
        "extend",
        "reverse",
        "copy",
        "add",
    }
)
# The stdlib type of the libraries' futures (confluent-kafka's admin API answers with them)
LIBRARY_TYPES_OUTSIDE = frozenset({"Future"})


@dataclass(frozen=True, slots=True)
class Site:
    """One call into a client library."""

    module: str  # e.g. read.py
    unit: str  # the top-level function or Class.method holding it
    line: int
    column: int
    end: tuple[int, int]  # (line, column) where the call ends: two calls may start together
    text: str  # what is called
    guarded: bool  # inside the boundary

    def __str__(self) -> str:
        return f"{self.module}:{self.line}:{self.column} in {self.unit}: {self.text}(...)"


def _is_error_class(module: str, name: str) -> bool:
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return False
    from confluent_kafka import KafkaError

    return isinstance(found, type) and (issubclass(found, BaseException) or found is KafkaError)


def _library_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(callable or type names imported from a library, its error classes' names)."""
    names: set[str] = set()
    errors: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in LIBRARIES
        ):
            for alias in node.names:
                local = alias.asname or alias.name
                (errors if _is_error_class(node.module, alias.name) else names).add(local)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in LIBRARIES:
                    names.add((alias.asname or alias.name).split(".")[0])
    return names, errors


def _mentions(node: ast.AST | None, types: set[str]) -> bool:
    """Whether an annotation (or alias value) names one of `types`."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval")
        except SyntaxError:
            return False
    return any(isinstance(n, ast.Name) and n.id in types for n in ast.walk(node))


class _Module:
    def __init__(self, path: Path, returning: set[str]) -> None:
        self.path = path
        self.source = path.read_text(encoding="utf-8")
        self.tree = ast.parse(self.source, str(path))
        self.names, self.errors = _library_names(self.tree)
        self.types = self.names | LIBRARY_TYPES_OUTSIDE
        # Module-level aliases of library types (Chunk = list[tuple[ConfigResource, ...]])
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and _mentions(node.value, self.types):
                self.types |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        self.returning = returning  # adapter functions annotated to return a library type


def _returning_functions() -> set[str]:
    """Names of adapter functions and methods whose return annotation names a library type."""
    found: set[str] = set()
    for path in sorted(ADAPTER.glob("*.py")):
        module = _Module(path, set())
        for node in ast.walk(module.tree):
            if isinstance(node, ast.FunctionDef) and _mentions(node.returns, module.types):
                found.add(node.name)
    return found


class _Walker:
    """The call sites of one top-level unit (function, or method with its class's attributes)."""

    def __init__(self, module: _Module, unit: str, self_attrs: set[str]) -> None:
        self.module = module
        self.unit = unit
        self.self_attrs = self_attrs
        self.sites: list[Site] = []

    # -- taint --------------------------------------------------------------------------------

    def library_callable(self, func: ast.expr) -> bool:
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in self.module.names

    def valued(self, node: ast.expr, tainted: set[str]) -> bool:
        """Whether the expression's value comes from a client library."""
        if isinstance(node, ast.Name):
            return node.id in tainted
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                return node.attr in self.self_attrs
            return self.valued(node.value, tainted)
        if isinstance(node, ast.Subscript):
            return self.valued(node.value, tainted)
        if isinstance(node, ast.Call):
            if self.is_site(node, tainted) or self.library_callable(node.func):
                return True
            name = (
                node.func.attr
                if isinstance(node.func, ast.Attribute)
                else getattr(node.func, "id", None)
            )
            if name in self.module.returning:
                return True
            if isinstance(node.func, ast.Name) and node.func.id in PASSING:
                return any(self.valued(a, tainted) for a in node.args)
            if isinstance(node.func, ast.Attribute) and node.func.attr in CONTAINER_METHODS:
                return self.valued(node.func.value, tainted)
            return False
        if isinstance(node, ast.Await | ast.Starred):
            return self.valued(node.value, tainted)
        return False

    def is_site(self, call: ast.Call, tainted: set[str]) -> bool:
        func = call.func
        called = ast.unparse(func)
        if any(called == relay or called.endswith(f".{relay}") for relay in RELAYS.values()):
            return True
        if isinstance(func, ast.Name) and func.id in RUNNERS:
            handed = [a for a in call.args if isinstance(a, ast.Attribute)]
            return any(self.valued(a.value, tainted) for a in handed)
        if isinstance(func, ast.Name):
            return func.id in self.module.names
        if isinstance(func, ast.Attribute):
            if self.library_callable(func):
                root: ast.expr = func
                while isinstance(root, ast.Attribute):
                    root = root.value
                return isinstance(root, ast.Name) and root.id not in self.module.errors
            if func.attr in CONTAINER_METHODS:
                return False
            return self.valued(func.value, tainted)
        return False

    # -- the walk -----------------------------------------------------------------------------

    def function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        tainted: set[str],
        guarded: bool,
    ) -> None:
        tainted = set(tainted)
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and _mentions(arg.annotation, self.module.types):
                tainted.add(arg.arg)
        if isinstance(node, ast.Lambda):
            self.expr(node.body, tainted, guarded)
            return
        guarded = guarded or any(_is_boundary(d) for d in node.decorator_list)
        self.block(node.body, tainted, guarded)

    def block(self, body: list[ast.stmt], tainted: set[str], guarded: bool) -> None:
        for statement in body:
            self.statement(statement, tainted, guarded)

    def bind(self, target: ast.expr, tainted: set[str]) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                tainted.add(node.id)

    def statement(self, node: ast.stmt, tainted: set[str], guarded: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function(node, tainted, guarded)
            return
        if isinstance(node, ast.ClassDef):
            self.block(node.body, tainted, guarded)
            return
        if isinstance(node, ast.With | ast.AsyncWith):
            inner = guarded or any(_is_boundary(item.context_expr) for item in node.items)
            for item in node.items:
                self.expr(item.context_expr, tainted, guarded)
                if item.optional_vars is not None and self.valued(item.context_expr, tainted):
                    self.bind(item.optional_vars, tainted)
            self.block(node.body, tainted, inner)
            return
        if isinstance(node, ast.Assign):
            self.expr(node.value, tainted, guarded)
            if self.valued(node.value, tainted):
                for target in node.targets:
                    self.bind(target, tainted)
            return
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.expr(node.value, tainted, guarded)
            if _mentions(node.annotation, self.module.types) or (
                node.value is not None and self.valued(node.value, tainted)
            ):
                self.bind(node.target, tainted)
            return
        if isinstance(node, ast.For | ast.AsyncFor):
            self.expr(node.iter, tainted, guarded)
            if self.valued(node.iter, tainted):
                self.bind(node.target, tainted)
            self.block(node.body, tainted, guarded)
            self.block(node.orelse, tainted, guarded)
            return
        if isinstance(node, ast.Try):
            self.block(node.body, tainted, guarded)
            for handler in node.handlers:  # the caught error is classification's, not a call
                self.block(handler.body, tainted, guarded)
            self.block(node.orelse, tainted, guarded)
            self.block(node.finalbody, tainted, guarded)
            return
        for field in ("test", "value", "exc", "cause", "msg"):
            child = getattr(node, field, None)
            if isinstance(child, ast.expr):
                self.expr(child, tainted, guarded)
        for field in ("body", "orelse", "finalbody"):
            child = getattr(node, field, None)
            if isinstance(child, list):
                self.block(child, tainted, guarded)
        if isinstance(node, ast.Match):
            self.expr(node.subject, tainted, guarded)
            for case in node.cases:
                self.block(case.body, tainted, guarded)

    def expr(self, node: ast.expr, tainted: set[str], guarded: bool) -> None:
        if isinstance(node, ast.Lambda):
            self.function(node, tainted, guarded)
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            inner = set(tainted)
            for generator in node.generators:
                self.expr(generator.iter, inner, guarded)
                if self.valued(generator.iter, inner):
                    self.bind(generator.target, inner)
                for condition in generator.ifs:
                    self.expr(condition, inner, guarded)
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for part in parts:
                self.expr(part, inner, guarded)
            return
        if isinstance(node, ast.NamedExpr):
            self.expr(node.value, tainted, guarded)
            if self.valued(node.value, tainted):
                self.bind(node.target, tainted)
            return
        if isinstance(node, ast.Call) and self.is_site(node, tainted):
            text = ast.unparse(node.func)
            text = text if len(text) <= 60 else text[:57] + "..."
            end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
            self.sites.append(
                Site(
                    self.module.path.name,
                    self.unit,
                    node.lineno,
                    node.col_offset,
                    end,
                    text,
                    guarded,
                )
            )
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, tainted, guarded)
            elif isinstance(child, ast.keyword):
                self.expr(child.value, tainted, guarded)
            elif isinstance(child, ast.comprehension):  # handled above
                pass


def _is_boundary(node: ast.expr) -> bool:
    """`boundary.X(...)`: a boundary block or decorator."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "boundary"
    )


def _self_attributes(cls: ast.ClassDef, types: set[str]) -> set[str]:
    """`self.X` attributes the class annotates with a library type."""
    found = set()
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Attribute)
            and isinstance(node.target.value, ast.Name)
            and node.target.value.id == "self"
            and _mentions(node.annotation, types)
        ):
            found.add(node.target.attr)
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and _mentions(node.annotation, types)
        ):
            found.add(node.target.id)  # dataclass fields
    return found


def sites() -> list[Site]:
    """Every call into a client library in the adapter package, in source order."""
    returning = _returning_functions()
    found: list[Site] = []
    for path in sorted(ADAPTER.glob("*.py")):
        if path.name in EXEMPT:
            continue
        module = _Module(path, returning)
        for node in module.tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if (path.name, node.name) in RELAYS:
                    continue
                walker = _Walker(module, node.name, set())
                walker.function(node, set(), False)
                found += walker.sites
            elif isinstance(node, ast.ClassDef):
                attrs = _self_attributes(node, module.types)
                for member in node.body:
                    if not isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                        continue
                    if (path.name, f"{node.name}.{member.name}") not in RELAYS:
                        walker = _Walker(module, f"{node.name}.{member.name}", attrs)
                        walker.function(member, set(), False)
                        found += walker.sites
    return found


def unguarded() -> Iterator[Site]:
    return (site for site in sites() if not site.guarded)
