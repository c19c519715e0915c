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

Bounds (a template is code from a pull request; `reconciler help spec`, *Limits*): rendered
output stops at `MAX_OUTPUT_CHARS` (R605). The sandbox refuses, with the template line,
arithmetic whose result would be too large to hold (R607): strings and lists from `*` or `+` over
`MAX_OUTPUT_CHARS` items, integers from `*`, `**`, `+`, `-` over `MAX_INT_BITS` bits; `range`
is capped by Jinja2's sandbox. Everything else (filters that expand, nested loops, recursion
via macros) is bounded by rendering in a child process with hard CPU, memory and wall-clock
limits (render_limits.py): R606 for time, R607 for memory. `start_all` compiles and renders
a batch in one child.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, UndefinedError, nodes
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import r_codes, render_limits
from reconciler.spec.source import MAX_FILE_BYTES, Source

MAX_OUTPUT_CHARS = MAX_FILE_BYTES  # a rendered file is held to the same cap as a plain one
# Far beyond any setting (a Java long is 64 bits), and printable: 4096 bits are 1,234 decimal
# digits, under Python's 4,300-digit limit for int-to-str.
MAX_INT_BITS = 4096
MAX_TOTAL_OUTPUT_CHARS = 64 * 2**20  # all templates of one load, every cluster
_LIMIT_CODES = frozenset({"R605", "R606", "R607"})
_MARK = "\x00"
_MARKER = re.compile(r"\x00(\d{1,9})\x00")  # a NUL the template printed itself is not one
# Bodies whose text is a value, not output: markers there would change what the template means.
_OPAQUE = (nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.AssignBlock)


class ValueTooLarge(Exception):
    """An operation whose result the sandbox refuses to build (R607)."""


class _Environment(ImmutableSandboxedEnvironment):
    """The sandbox, plus refusing arithmetic whose result is too large to hold, before it is
    computed (the child's memory limit would stop it too, but without a line to show).

    Immutable: a template cannot change `vars` (`vars.list.append(...)`), so what one file
    renders never depends on another file rendered before it.
    """

    intercepted_binops = frozenset({"*", "**", "+", "-"})

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        _check_size(operator, left, right)
        return super().call_binop(context, operator, left, right)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_size(operator: str, left: Any, right: Any) -> None:
    """ValueTooLarge if `left OPERATOR right` would be a sequence or an integer too large."""
    if operator == "*":
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, str | list | tuple) and _int(count):
                if len(seq) * count > MAX_OUTPUT_CHARS:
                    raise ValueTooLarge(
                        f"repeating a value {count} times makes more than {MAX_OUTPUT_CHARS} items"
                    )
                return
    if operator == "+" and isinstance(left, str | list | tuple) and type(left) is type(right):
        if len(left) + len(right) > MAX_OUTPUT_CHARS:
            raise ValueTooLarge(f"joining two values makes more than {MAX_OUTPUT_CHARS} items")
        return
    if operator == "**" and _int(left) and _int(right):
        bits = abs(left).bit_length()
        if right > 0 and bits > 1 and (bits - 1) * right > MAX_INT_BITS:
            raise ValueTooLarge(f"a number to the power {right} has more than {MAX_INT_BITS} bits")
        return
    if _int(left) and _int(right):
        size = {"*": left.bit_length() + right.bit_length()}.get(
            operator, max(left.bit_length(), right.bit_length()) + 1
        )
        if size > MAX_INT_BITS:
            raise ValueTooLarge(f"the result of '{operator}' has more than {MAX_INT_BITS} bits")


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
            r_codes.TEMPLATE_SYNTAX(
                f"template syntax error: {exc.message}", Location(source.rel, line, 1)
            )
        ]
    except Exception as exc:
        # Compile-time constant folding runs template expressions; any failure is the input's.
        diagnostic = _runtime_diagnostic(exc, source.rel)
        if diagnostic.code == r_codes.TEMPLATE_ERROR.code:
            diagnostic = r_codes.TEMPLATE_ERROR(
                f"template cannot be compiled: {exc}", Location(source.rel, 1, 1)
            )
        return None, [diagnostic]
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
                    r_codes.TEMPLATE_OUTPUT_TOO_LARGE(
                        f"{rel} renders to more than {MAX_OUTPUT_CHARS // 2**20} MiB; a topic "
                        "file that large should be split",
                        Location(rel, 1, 1),
                    )
                ]
            chunks.append(chunk)
        text, line_map = _strip_markers("".join(chunks))
    except Exception as exc:  # a template is user input: any failure is the template's
        return None, [_runtime_diagnostic(exc, rel)]
    return Rendered(text, line_map), []


@dataclass(frozen=True, slots=True)
class TemplateJob:
    """One template file to compile, and render for each of these clusters with their vars."""

    source: Source
    clusters: tuple[tuple[str, Mapping[str, Any]], ...]


@dataclass(frozen=True, slots=True)
class TemplateOutcome:
    problems: list[Diagnostic]  # the file's own: syntax, compiling, a limit the batch hit
    rendered: dict[str, tuple[Rendered | None, list[Diagnostic]]]  # per cluster


def start_all(
    jobs: Sequence[TemplateJob],
) -> render_limits.Pending[TemplateJob, TemplateOutcome]:
    """Each template compiled and rendered under the hard limits of render_limits.py, all in
    one child process, begun in the background: `.results()` collects the outcomes. Compiling
    runs in the child too: Jinja2 folds constant expressions (filters included) while
    compiling, so `{{ "x"|center(10**9) }}` runs then."""
    _batch_output[0] = 0  # the child starts counting from here
    return render_limits.start(jobs, _process, _stopped)


# Characters rendered so far in this batch (counted in the child, which holds its own copy).
_batch_output = [0]


def _process(job: TemplateJob) -> TemplateOutcome:
    compiled, problems = compile_template(job.source)
    rendered: dict[str, tuple[Rendered | None, list[Diagnostic]]] = {}
    if compiled is None:
        return TemplateOutcome(problems, rendered)
    for name, variables in job.clusters:
        render_limits.rearm()  # each render has its own CPU budget
        rendered[name] = outcome = _within_batch_budget(job, render(compiled, name, variables))
        if any(d.code in _LIMIT_CODES for d in outcome[1]):
            break  # over a limit for one cluster is enough to say so; the rest would cost too
    return TemplateOutcome(problems, rendered)


def _within_batch_budget(
    job: TemplateJob, outcome: tuple[Rendered | None, list[Diagnostic]]
) -> tuple[Rendered | None, list[Diagnostic]]:
    """The outcome, unless it takes the batch over MAX_TOTAL_OUTPUT_CHARS: a few bytes of
    template can render 5 MiB, so many small templates for many clusters could fill the
    parent's memory with text that each file's own cap allows."""
    rendered = outcome[0]
    if rendered is None:
        return outcome
    _batch_output[0] += len(rendered.text)
    if _batch_output[0] <= MAX_TOTAL_OUTPUT_CHARS:
        return outcome
    rel = job.source.rel
    return None, [
        r_codes.TEMPLATE_OUTPUT_TOO_LARGE(
            f"with {rel}, the templates together render more than "
            f"{MAX_TOTAL_OUTPUT_CHARS / 2**20:g} MiB (every cluster counted); render fewer or "
            "smaller topic files",
            Location(rel, 1, 1),
        )
    ]


def _stopped(job: TemplateJob, why: render_limits.Stopped) -> TemplateOutcome:
    rel = job.source.rel
    at = Location(rel, 1, 1)
    if why.timeout:
        slow = r_codes.TEMPLATE_TIMEOUT(
            f"{rel} takes too long to render (the renderer {why}; limits: "
            f"{render_limits.CPU_LIMIT_SECONDS} s of CPU, {render_limits.WALL_LIMIT_SECONDS:g} s "
            "of wall-clock time; line not known); make its loops smaller (nested loops multiply)",
            at,
        )
        return TemplateOutcome([slow], {})
    return TemplateOutcome([_memory(rel, f"line not known: the renderer {why}", at)], {})


def _timeout(rel: str, at: Location) -> Diagnostic:
    return r_codes.TEMPLATE_TIMEOUT(
        f"{rel} takes more than {render_limits.CPU_LIMIT_SECONDS} s of CPU time to render; "
        "templates are bounded: make its loops smaller (nested loops multiply)",
        at,
    )


def _memory(rel: str, detail: str, at: Location) -> Diagnostic:
    limit = render_limits.MEMORY_LIMIT_BYTES // 2**20
    return r_codes.TEMPLATE_MEMORY(
        f"{rel} needs more than {limit} MiB of memory to render ({detail}); templates are "
        "bounded: build smaller values (a string, list or number that grows in a loop?)",
        at,
    )


def _generate(template: Template, context: dict[str, Any]) -> Iterator[str]:
    # Template.generate would rewrite tracebacks into template frames; that is what we want.
    yield from template.generate(context)


def _runtime_diagnostic(exc: BaseException, rel: str) -> Diagnostic:
    """The diagnostic for a failed render; the caller says for which cluster, if it matters."""
    at = Location(rel, _template_line(exc.__traceback__, rel), 1)
    message = (str(exc) or type(exc).__name__).rstrip(".")
    if isinstance(exc, render_limits.RenderTimeout):
        return _timeout(rel, at)
    if isinstance(exc, MemoryError):
        return _memory(rel, "out of memory", at)
    if isinstance(exc, ValueTooLarge):
        return r_codes.TEMPLATE_MEMORY(
            f"template value too large: {message}; templates are bounded: build smaller values",
            at,
        )
    if isinstance(exc, SecurityError):
        return r_codes.TEMPLATE_SECURITY(
            f"template security error: {message}; templates may use variables, filters and "
            f"tests, not Python internals",
            at,
        )
    if isinstance(exc, UndefinedError):
        return r_codes.TEMPLATE_UNDEFINED(
            f"template variable error: {message}; templates see `vars` (the cluster's vars in "
            f"reconciler.yaml) and `cluster` (its name)",
            at,
        )
    if isinstance(exc, RecursionError):
        message = "recursion too deep"
    return r_codes.TEMPLATE_ERROR(f"template error: {message}", at)


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
