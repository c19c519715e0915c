"""Jinja2 topic files (`*.yaml.j2`), rendered per cluster in a sandbox.

A template sees two variables: `vars` (the cluster's `vars:` from reconciler.yaml) and
`cluster` (the cluster's name). The environment is Jinja2's `ImmutableSandboxedEnvironment`
(a `SandboxedEnvironment` that also refuses to modify lists and dicts) with `StrictUndefined`:
a misspelt variable is an error, not an empty string, and reaching for Python internals
(`{{ ''.__class__ }}`) or changing `vars` is a security error. Both become diagnostics at the
template's file and line. Without a loader, `include`/`import`/`extends` cannot read files.

Where rendered YAML comes from: every diagnostic about the rendered YAML points into the
template. Before compiling, each piece of literal template text gets an invisible line marker
after each of its newlines (a NUL-delimited number, NUL being a character no accepted source
file contains); rendering carries the markers into the output, and stripping them yields, for
every output line, the template line its text started on. So loops, conditionals and
multi-line tags map exactly. The limits: a line produced by an expression (`{{ ... }}`) maps to
the line of the text before it, and columns are output columns (they match the template when no
expression precedes the value on its line). Text captured by `{% set %}...{% endset %}`,
`{% filter %}`, macros and call blocks gets no markers, so their semantics are untouched; their
output maps to the line where they are used.

Bounds: rendered output stops at `MAX_OUTPUT_CHARS`; `*` and `**` refuse results over that
size (a one-line memory bomb); `range` is capped by the sandbox. A template's CPU time is not
bounded (nested loops can be slow): templates are code, reviewed like code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, UndefinedError, nodes
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import rules
from reconciler.spec.source import MAX_FILE_BYTES, Source

MAX_OUTPUT_CHARS = MAX_FILE_BYTES  # a rendered file is held to the same cap as a plain one
_MARK = "\x00"
_MARKER = re.compile(r"\x00(\d+)\x00")
# Bodies whose text is a value, not output: markers there would change what the template means.
_OPAQUE = (nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.AssignBlock)


class _Environment(ImmutableSandboxedEnvironment):
    """The sandbox, plus refusing `*`/`**` results too large to hold.

    Immutable: a template cannot change `vars` (`vars.list.append(...)`), so what one file
    renders never depends on another file rendered before it.
    """

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, count in ((left, right), (right, left)):
                if (
                    isinstance(seq, str | list | tuple)
                    and isinstance(count, int)
                    and len(seq) * count > MAX_OUTPUT_CHARS
                ):
                    raise SecurityError(
                        f"repeating a value {count} times makes more than {MAX_OUTPUT_CHARS} "
                        "characters"
                    )
        if (
            operator == "**"
            and isinstance(left, int | float)
            and isinstance(right, int)
            and abs(right) > 1024
        ):
            raise SecurityError(f"exponent {right} is too large")
        return super().call_binop(context, operator, left, right)


def _environment() -> _Environment:
    env = _Environment(
        undefined=StrictUndefined,
        keep_trailing_newline=True,  # line N of the output is line N of the template...
        trim_blocks=False,  # ...so no newline or indentation disappears behind our back
        lstrip_blocks=False,
        autoescape=False,
    )
    env.globals.pop("lipsum", None)  # generates text of any size in one call
    return env


_ENV = _environment()


@dataclass(frozen=True, slots=True)
class CompiledTemplate:
    source: Source
    template: Template


@dataclass(frozen=True, slots=True)
class Rendered:
    """A template's output and, per output line (0-based), its template line (1-based)."""

    text: str
    line_map: tuple[int, ...]


def compile_template(source: Source) -> tuple[CompiledTemplate | None, list[Diagnostic]]:
    """Parse and compile once; a syntax error is reported once, not once per cluster."""
    try:
        tree = _ENV.parse(source.text, name=source.rel, filename=source.rel)
        _add_line_markers(tree)
        code = _ENV.compile(tree, name=source.rel, filename=source.rel)
        template = _ENV.template_class.from_code(_ENV, code, _ENV.make_globals(None))
    except TemplateSyntaxError as exc:
        line = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else 1
        return None, [
            rules.TEMPLATE_SYNTAX(
                f"template syntax error: {exc.message}", Location(source.rel, line, 1)
            )
        ]
    except (SecurityError, RecursionError, MemoryError, ValueError, TypeError) as exc:
        # Compile-time constant folding runs template expressions; any failure is the input's.
        return None, [
            rules.TEMPLATE_ERROR(f"template cannot be compiled: {exc}", Location(source.rel, 1, 1))
        ]
    return CompiledTemplate(source, template), []


def render(
    compiled: CompiledTemplate, cluster: str, variables: Mapping[str, Any]
) -> tuple[Rendered | None, list[Diagnostic]]:
    """The template rendered for one cluster, or the diagnostic saying why it cannot be."""
    rel = compiled.source.rel
    chunks: list[str] = []
    size = 0
    try:
        for chunk in _generate(compiled.template, {"vars": dict(variables), "cluster": cluster}):
            size += len(chunk)
            if size > MAX_OUTPUT_CHARS:
                return None, [
                    rules.TEMPLATE_OUTPUT_TOO_LARGE(
                        f"{rel} renders to more than {MAX_OUTPUT_CHARS // 2**20} MiB; a topic "
                        "file that large should be split",
                        Location(rel, 1, 1),
                    )
                ]
            chunks.append(chunk)
    except Exception as exc:  # a template is user input: any failure is the template's
        return None, [_runtime_diagnostic(exc, rel)]
    text, line_map = _strip_markers("".join(chunks))
    return Rendered(text, line_map), []


def _generate(template: Template, context: dict[str, Any]) -> Iterator[str]:
    # Template.generate would rewrite tracebacks into template frames; that is what we want.
    yield from template.generate(context)


def _runtime_diagnostic(exc: BaseException, rel: str) -> Diagnostic:
    """The diagnostic for a failed render; the caller says for which cluster, if it matters."""
    at = Location(rel, _template_line(exc.__traceback__, rel), 1)
    message = (str(exc) or type(exc).__name__).rstrip(".")
    if isinstance(exc, SecurityError):
        return rules.TEMPLATE_SECURITY(
            f"template security error: {message}; templates may use variables, filters and "
            f"tests, not Python internals",
            at,
        )
    if isinstance(exc, UndefinedError):
        return rules.TEMPLATE_UNDEFINED(
            f"template variable error: {message}; templates see `vars` (the cluster's vars in "
            f"reconciler.yaml) and `cluster` (its name)",
            at,
        )
    if isinstance(exc, RecursionError):
        message = "recursion too deep"
    return rules.TEMPLATE_ERROR(f"template error: {message}", at)


def _template_line(tb: TracebackType | None, rel: str) -> int:
    """The template line of the innermost traceback frame that Jinja2 mapped to the template."""
    line = 1
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == rel:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


# ---------------------------------------------------------------------------- line markers


def _add_line_markers(tree: nodes.Template) -> None:
    """Mark literal text with its template line: at its start and after each newline."""
    for data in _output_text(tree):
        line = data.lineno
        pieces = data.data.split("\n")
        marked = [f"{_MARK}{line}{_MARK}{pieces[0]}"]
        for offset, piece in enumerate(pieces[1:], 1):
            marked.append(f"{_MARK}{line + offset}{_MARK}{piece}")
        data.data = "\n".join(marked)


def _output_text(node: nodes.Node) -> Iterator[nodes.TemplateData]:
    """Literal text that goes straight to the output (not into a variable, macro or filter)."""
    for child in node.iter_child_nodes():
        if isinstance(child, _OPAQUE):
            continue
        if isinstance(child, nodes.TemplateData):
            yield child
        else:
            yield from _output_text(child)


def _strip_markers(marked: str) -> tuple[str, tuple[int, ...]]:
    """The output without markers, and the template line of each output line."""
    text: list[str] = []
    line_map: list[int] = [1]
    current = 1
    line_has_text = False
    parts = _MARKER.split(marked)
    for index, part in enumerate(parts):
        if index % 2 == 1:  # a marker: the template line of the text that follows
            current = int(part)
            if not line_has_text:
                line_map[-1] = current
            continue
        lines = part.split("\n")
        for number, piece in enumerate(lines):
            if number > 0:
                line_map.append(current)
                line_has_text = False
            if piece:
                line_has_text = True
        text.append(part)
    return "".join(text), tuple(line_map)
