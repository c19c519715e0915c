"""Safe YAML with locations: one spec file's text parsed into plain data and the file:line:col
of every value and mapping key.

`parse_yaml` runs PyYAML's parser (libyaml's when installed) and hands its events to
yaml_builder.py, which builds JSON-like data (dict, list, str, int, float, bool, None) in bounded
time and memory: nesting depth and aliases are budgeted, and no tag ever constructs an object.
Parser errors become diagnostics with their place; nothing is raised. Whether a file may be read
at all (size, encoding, symlinks) is source.py's business.

What it reads, as a user sees it:

- YAML 1.2's core schema (yaml_scalars.py): `010` is 10, `1:30` and `yes` are strings. A plain
  scalar YAML 1.1 would read differently gets a warning (R015): a YAML 1.1 tool reading the
  same file would see another value.
- One document per file (R014); a key repeated in one mapping is an error naming both lines
  (R002), where PyYAML silently keeps the last.
- Merge keys (`<<: *defaults`) work as in PyYAML, explicit keys winning. Mapping keys are kept
  as the text written, so `on:` is the key "on".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import r_codes
from reconciler.spec.yaml_builder import (
    MAX_ALIAS_NODES,
    MAX_ALIASES,
    MAX_DEPTH,
    Abort,
    EventBuilder,
    JsonPath,
)

__all__ = [
    "MAX_ALIASES",
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "JsonPath",
    "YamlDocument",
    "parse_yaml",
]

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True, eq=False)
class YamlDocument:
    """Parsed data plus where each value (and each mapping key) stands in the source.

    Paths are JSON paths as tuples: ("topics", 0, "config", "retention.ms"). A path without an
    entry of its own (inside an alias that could not be traced) resolves to its nearest parent.
    """

    file: str
    data: Any
    values: Mapping[JsonPath, tuple[int, int]] = field(default_factory=dict)
    keys: Mapping[JsonPath, tuple[int, int]] = field(default_factory=dict)

    def value_at(self, path: JsonPath) -> Location:
        """Where the value at `path` starts."""
        for end in range(len(path), -1, -1):
            found = self.values.get(path[:end])
            if found is not None:
                return Location(self.file, *found)
        return Location(self.file, 1, 1)

    def key_at(self, path: JsonPath) -> Location:
        """Where the key naming the value at `path` stands (the value's place for list items)."""
        found = self.keys.get(path)
        return Location(self.file, *found) if found is not None else self.value_at(path)


def parse_yaml(
    text: str, file: str, line_map: Sequence[int] | None = None
) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Parse one YAML document safely; `line_map[i]` is the source line of output line i.

    Returns (None, diagnostics) when the text cannot be read as one YAML document; an empty
    document gives data None. Non-fatal problems (duplicate keys, unsupported tags) come with
    a document.
    """
    builder = EventBuilder(file, line_map)
    loader = _Loader(text) if _encodable(text) else None
    if loader is None:
        return None, [
            r_codes.YAML_SYNTAX(
                f"{file} holds characters that cannot be encoded (lone surrogates)",
                Location(file, 1, 1),
            )
        ]
    try:
        data, values, keys = builder.run(loader)
    except Abort as stop:
        return None, [*builder.found, stop.diagnostic]
    except yaml.MarkedYAMLError as exc:
        return None, [*builder.found, _syntax_error(exc, builder)]
    except yaml.YAMLError as exc:
        return None, [*builder.found, _reader_error(exc, text, builder)]
    finally:
        loader.dispose()
    return YamlDocument(file, data, values, keys), builder.found


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _syntax_error(exc: yaml.MarkedYAMLError, builder: EventBuilder) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    at = builder.location((mark.line, mark.column) if mark is not None else (0, 0))
    problem = exc.problem or "not valid YAML"
    if "nesting depth" in problem:
        # PyYAML >= 6.0.4's scanner has its own depth limit, which can trip while it looks ahead
        # before our MAX_DEPTH check sees the events: the same problem, so the same code.
        return r_codes.NESTING_TOO_DEEP(
            f"mappings and sequences are nested too deep here ({problem}); spec files need a "
            "handful of levels: flatten it",
            at,
        )
    context = ""
    if exc.context and exc.context_mark is not None and exc.context_mark is not mark:
        started = builder.location((exc.context_mark.line, exc.context_mark.column))
        context = f" ({exc.context} started at line {started.line})"
    elif exc.context:
        context = f" ({exc.context})"
    return r_codes.YAML_SYNTAX(f"YAML syntax error: {problem}{context}", at)


def _reader_error(exc: yaml.YAMLError, text: str, builder: EventBuilder) -> Diagnostic:
    position = getattr(exc, "position", 0)
    if not isinstance(position, int) or position < 0:
        position = 0
    if _Loader is not yaml.SafeLoader:  # libyaml reports a byte offset, PyYAML a character one
        position = len(text.encode("utf-8")[:position].decode("utf-8", errors="ignore"))
    position = min(position, len(text))
    line = text.count("\n", 0, position)
    column = position - (text.rfind("\n", 0, position) + 1)
    reason = getattr(exc, "reason", None) or "unreadable characters"
    return r_codes.YAML_SYNTAX(
        f"YAML cannot read this file: {reason}; remove the control character",
        builder.location((line, column)),
    )
