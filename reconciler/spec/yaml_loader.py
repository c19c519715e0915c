"""Safe YAML: spec files read in bounded time and memory, every value with its file:line:col.

Two steps, both returning diagnostics instead of raising:

1. `read_source` refuses what is not a spec file before any parsing: a symlink resolving
   outside the repository, anything but a regular file, more than `MAX_FILE_BYTES`, NUL bytes
   (binary or UTF-16) and bytes that are not UTF-8.
2. `parse_yaml` builds plain JSON-like data (dict, list, str, int, float, bool, None) straight
   from the parser's event stream, with a table of source locations per path. Building from
   events rather than composing nodes is what bounds it: the nesting depth is checked as the
   parser goes (libyaml's composer recurses in C and crashes on deep nesting; its scanner slows
   quadratically with it), every alias is counted and its expansion charged against a budget
   (the "billion laughs" bomb stops after `MAX_ALIAS_NODES` values), and no Python object is
   ever constructed from a tag: only the YAML 1.1 core scalars are, through SafeConstructor.

A key repeated in one mapping is an error naming both lines (PyYAML silently keeps the last);
merge keys (`<<: *defaults`) work as in PyYAML, explicit keys winning. Mapping keys are kept as
the text written, so `on:` stays the key "on" rather than YAML 1.1's boolean True.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import rules

MAX_FILE_BYTES = 5 * 1024 * 1024  # a spec file larger than this is refused unread
MAX_DEPTH = 64  # nesting of mappings and sequences; spec files need about 6
MAX_ALIASES = 100  # alias uses per document
MAX_ALIAS_NODES = 10_000  # values reached through aliases, counted as if expanded

JsonPath = tuple[str | int, ...]

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_TAG = "tag:yaml.org,2002:"
_SCALARS: Mapping[str, Any] = {
    _TAG + "str": None,  # kept as written
    _TAG + "int": yaml.constructor.SafeConstructor.construct_yaml_int,
    _TAG + "float": yaml.constructor.SafeConstructor.construct_yaml_float,
    _TAG + "bool": yaml.constructor.SafeConstructor.construct_yaml_bool,
    _TAG + "null": yaml.constructor.SafeConstructor.construct_yaml_null,
    _TAG + "timestamp": None,  # a date is text in JSON; kept as written
}
_RESOLVER = yaml.resolver.Resolver()  # SafeLoader's implicit tags: 3 is an int, yes a bool
_MAP_TAGS = frozenset({None, "!", _TAG + "map"})
_SEQ_TAGS = frozenset({None, "!", _TAG + "seq"})


# ---------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class Source:
    """A spec file's text, accepted by `read_source`."""

    path: Path  # as found under the repository (not resolved)
    rel: str  # relative to the repository root, '/' separators: what diagnostics show
    text: str


def real_path(path: Path) -> Path:
    """The path with symlinks resolved; unlike Path.resolve, a symlink loop does not raise
    (the loop's file then fails to open, with ELOOP, and is reported as unreadable)."""
    return Path(os.path.realpath(path))


def relative(path: Path, root: Path) -> str:
    """`path` relative to `root` with '/' separators, as diagnostics show it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def read_source(path: Path, root: Path) -> tuple[Source | None, list[Diagnostic]]:
    """The file's text, or the reason it is not a spec file; never reads more than the cap."""
    rel = relative(path, root)
    start = Location(rel, 1, 1)
    try:
        resolved = real_path(path)
        if not resolved.is_relative_to(real_path(root)):
            return None, [
                rules.SYMLINK_ESCAPE(
                    f"{rel} is a symlink to {resolved}, outside the repository: spec files must "
                    "live in the repository; copy the file in instead",
                    start,
                )
            ]
        info = os.stat(resolved)
        if not stat.S_ISREG(info.st_mode):
            return None, [
                rules.UNREADABLE_FILE(
                    f"{rel} is not a regular file (a directory, device or pipe); rename or remove "
                    "it",
                    start,
                )
            ]
        if info.st_size > MAX_FILE_BYTES:
            return None, [_too_large(rel, info.st_size, start)]
        with open(resolved, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return None, [rules.UNREADABLE_FILE(f"{rel} cannot be read: {reason}", start)]
    if len(data) > MAX_FILE_BYTES:  # it grew since stat()
        return None, [_too_large(rel, len(data), start)]
    nul = data.find(b"\x00")
    if nul >= 0:
        return None, [
            rules.BINARY_FILE(
                f"{rel} contains NUL bytes, so it is binary or UTF-16, not a YAML spec file; "
                "save it as UTF-8 text or move it out of the topics directory",
                _byte_location(rel, data, nul),
            )
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [
            rules.NOT_UTF8(
                f"{rel} is not valid UTF-8 (byte 0x{data[exc.start]:02x} cannot start or "
                "continue a character; Latin-1 or Windows-1252 text?): save the file as UTF-8",
                _byte_location(rel, data, exc.start),
            )
        ]
    return Source(path, rel, text.removeprefix("\ufeff")), []


def _too_large(rel: str, size: int, at: Location) -> Diagnostic:
    return rules.FILE_TOO_LARGE(
        f"{rel} is {size / 2**20:.1f} MiB; spec files are limited to "
        f"{MAX_FILE_BYTES // 2**20} MiB: split it into several files",
        at,
    )


def _byte_location(rel: str, data: bytes, offset: int) -> Location:
    """Line and column of a byte offset; the column counts bytes, honest for undecodable text."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Location(rel, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)


# ---------------------------------------------------------------------------- the document


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


class _Abort(Exception):
    """Stops parsing a document after a problem that makes the rest meaningless or unsafe."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(slots=True)
class _Anchored:
    value: Any
    root: JsonPath
    span: tuple[int, int, int, int]  # [start, end) in the value and key entry lists


@dataclass(slots=True)
class _Frame:
    """A mapping or sequence being built."""

    path: JsonPath
    container: Any  # dict[str, Any] or list[Any]
    mark: tuple[int, int]
    anchor: str | None
    start: tuple[int, int]  # entry counts when it began: the start of its span
    key: str | None = None  # a mapping's key awaiting its value
    merging: bool = False  # the awaited value is the merge key's (`<<`)
    seen: dict[str, int] = field(default_factory=dict)  # key -> line of first occurrence
    merges: list[_Anchored] = field(default_factory=list)


def parse_yaml(
    text: str, file: str, line_map: Sequence[int] | None = None
) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Parse one YAML document safely; `line_map[i]` is the source line of output line i.

    Returns (None, diagnostics) when the text cannot be read as one YAML document; an empty
    document gives data None. Non-fatal problems (duplicate keys, unsupported tags) come with
    a document.
    """
    builder = _Builder(file, line_map)
    loader = _Loader(text) if _encodable(text) else None
    if loader is None:
        return None, [
            rules.YAML_SYNTAX(
                f"{file} holds characters that cannot be encoded (lone surrogates)",
                Location(file, 1, 1),
            )
        ]
    try:
        document = builder.run(loader)
    except _Abort as stop:
        return None, [*builder.found, stop.diagnostic]
    except yaml.MarkedYAMLError as exc:
        return None, [*builder.found, _syntax_error(exc, builder)]
    except yaml.YAMLError as exc:
        return None, [*builder.found, _reader_error(exc, text, builder)]
    finally:
        loader.dispose()
    return document, builder.found


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _syntax_error(exc: yaml.MarkedYAMLError, builder: _Builder) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    at = builder.location((mark.line, mark.column) if mark is not None else (0, 0))
    problem = exc.problem or "not valid YAML"
    if "nesting depth" in problem:
        # PyYAML >= 6.0.4's scanner has its own depth limit, which can trip while it looks ahead
        # before our MAX_DEPTH check sees the events: the same problem, so the same code.
        return rules.NESTING_TOO_DEEP(
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
    return rules.YAML_SYNTAX(f"YAML syntax error: {problem}{context}", at)


def _reader_error(exc: yaml.YAMLError, text: str, builder: _Builder) -> Diagnostic:
    position = getattr(exc, "position", 0)
    if not isinstance(position, int) or position < 0:
        position = 0
    if _Loader is not yaml.SafeLoader:  # libyaml reports a byte offset, PyYAML a character one
        position = len(text.encode("utf-8")[:position].decode("utf-8", errors="ignore"))
    position = min(position, len(text))
    line = text.count("\n", 0, position)
    column = position - (text.rfind("\n", 0, position) + 1)
    reason = getattr(exc, "reason", None) or "unreadable characters"
    return rules.YAML_SYNTAX(
        f"YAML cannot read this file: {reason}; remove the control character",
        builder.location((line, column)),
    )


class _Builder:
    """Turns parser events into data and location tables; charges aliases against budgets."""

    def __init__(self, file: str, line_map: Sequence[int] | None) -> None:
        self.file = file
        self.line_map = line_map
        self.found: list[Diagnostic] = []
        self.value_entries: list[tuple[JsonPath, tuple[int, int]]] = []
        self.key_entries: list[tuple[JsonPath, tuple[int, int]]] = []
        self.anchors: dict[str, _Anchored] = {}
        self.stack: list[_Frame] = []
        self.aliases = 0
        self.alias_nodes = 0

    def location(self, mark: tuple[int, int]) -> Location:
        return Location(self.file, *self._position(mark))

    def _position(self, mark: tuple[int, int]) -> tuple[int, int]:
        """1-based (line, column) in the source of a 0-based parser mark."""
        line, column = mark
        if self.line_map is not None and line < len(self.line_map):
            return self.line_map[line], column + 1
        return line + 1, column + 1

    def run(self, loader: Any) -> YamlDocument:
        documents = 0
        root: Any = None
        while loader.check_event():
            event = loader.get_event()
            mark = (event.start_mark.line, event.start_mark.column)
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise _Abort(
                        rules.MULTIPLE_DOCUMENTS(
                            "a spec file holds one YAML document; this is a second one (after "
                            "'---'): move it to its own file",
                            self.location(mark),
                        )
                    )
            elif isinstance(event, yaml.ScalarEvent):
                if self._is_key():
                    self._key(event, mark)
                else:
                    root = self._complete(self._scalar(event, mark), mark, event.anchor)
            elif isinstance(event, yaml.AliasEvent):
                if self._is_key():
                    raise _Abort(self._complex_key(mark))
                root = self._alias(event.anchor or "", mark)
            elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                self._start(event, mark)
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                root = self._end()
        return YamlDocument(
            self.file,
            root,
            {path: self._position(mark) for path, mark in self.value_entries},
            {path: self._position(mark) for path, mark in self.key_entries},
        )

    # -- structure

    def _is_key(self) -> bool:
        return (
            bool(self.stack)
            and isinstance(self.stack[-1].container, dict)
            and (self.stack[-1].key is None and not self.stack[-1].merging)
        )

    def _child_path(self) -> JsonPath:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if isinstance(top.container, list):
            return (*top.path, len(top.container))
        if top.merging:
            return (*top.path, "<<", len(top.merges))
        assert top.key is not None
        return (*top.path, top.key)

    def _start(self, event: Any, mark: tuple[int, int]) -> None:
        if self._is_key():
            raise _Abort(self._complex_key(mark))
        if len(self.stack) >= MAX_DEPTH:
            raise _Abort(
                rules.NESTING_TOO_DEEP(
                    f"mappings and sequences are nested more than {MAX_DEPTH} deep here; spec "
                    "files need a handful of levels: flatten it",
                    self.location(mark),
                )
            )
        is_map = isinstance(event, yaml.MappingStartEvent)
        if event.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
            self.found.append(self._unsupported_tag(event.tag, mark))
        path = self._child_path()
        self.value_entries.append((path, mark))
        start = (len(self.value_entries), len(self.key_entries))
        container: Any = {} if is_map else []
        self.stack.append(_Frame(path, container, mark, event.anchor, start))

    def _end(self) -> Any:
        frame = self.stack.pop()
        if isinstance(frame.container, dict):
            self._apply_merges(frame)
        span = (
            frame.start[0] - 1,  # the container's own entry
            len(self.value_entries),
            frame.start[1],
            len(self.key_entries),
        )
        if frame.anchor is not None:
            self.anchors[frame.anchor] = _Anchored(frame.container, frame.path, span)
        return self._attach(frame.container, _Anchored(frame.container, frame.path, span))

    def _complete(self, value: Any, mark: tuple[int, int], anchor: str | None) -> Any:
        path = self._child_path()
        self.value_entries.append((path, mark))
        end, keys = len(self.value_entries), len(self.key_entries)
        anchored = _Anchored(value, path, (end - 1, end, keys, keys))
        if anchor is not None:
            self.anchors[anchor] = anchored
        return self._attach(value, anchored)

    def _attach(self, value: Any, anchored: _Anchored) -> Any:
        """Put a finished value into its parent; returns it (the root, when there is none)."""
        if not self.stack:
            return value
        top = self.stack[-1]
        if isinstance(top.container, list):
            top.container.append(value)
        elif top.merging:
            self._merge_value(top, anchored)
        else:
            assert top.key is not None
            top.container[top.key] = value
            top.key = None
        return value

    # -- keys

    def _key(self, event: Any, mark: tuple[int, int]) -> None:
        top = self.stack[-1]
        text: str = event.value
        if event.tag is None and event.implicit[0] and text == "<<":
            top.merging = True  # the next value is merged into this mapping
            self.key_entries.append(((*top.path, "<<", len(top.merges)), mark))
            return
        if event.tag not in (None, "!", _TAG + "str"):
            # Keys are names here; `!!int 1:` or `!foo x:` mean nothing in a spec file.
            self.found.append(self._unsupported_tag(event.tag, mark))
        line = self.location(mark).line
        first = top.seen.get(text)
        if first is not None:
            self.found.append(
                rules.DUPLICATE_KEY(
                    f"key '{text}' appears twice in this mapping (first at line {first}); YAML "
                    "keeps only one of them, so remove or rename one",
                    self.location(mark),
                )
            )
        else:
            top.seen[text] = line
        top.key = text
        self.key_entries.append(((*top.path, text), mark))

    def _complex_key(self, mark: tuple[int, int]) -> Diagnostic:
        return rules.COMPLEX_KEY(
            "a mapping key here is itself a mapping, sequence or alias; spec files use plain "
            "names as keys",
            self.location(mark),
        )

    # -- scalars and tags

    def _scalar(self, event: Any, mark: tuple[int, int]) -> Any:
        tag = event.tag
        if tag == "!":
            return event.value  # the non-specific tag: a string
        if tag is None:
            tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)  # type: ignore[no-untyped-call]
        if tag not in _SCALARS:
            self.found.append(self._unsupported_tag(tag, mark))
            return event.value
        construct = _SCALARS[tag]
        if construct is None:
            return event.value
        node = yaml.ScalarNode(tag, event.value)
        try:
            return construct(_CONSTRUCTOR, node)
        except (ValueError, TypeError, yaml.YAMLError):
            # An explicit `!!int abc`, or an integer longer than Python converts: keep the
            # text; the schema then says what was expected.
            return event.value

    def _unsupported_tag(self, tag: str, mark: tuple[int, int]) -> Diagnostic:
        shown = tag.replace(_TAG, "!!")
        return rules.UNSUPPORTED_TAG(
            f"YAML tag '{shown}' is not supported in spec files (only plain strings, numbers, "
            "booleans, null, mappings and sequences are); remove the tag",
            self.location(mark),
        )

    # -- aliases and merge keys

    def _alias(self, anchor: str, mark: tuple[int, int]) -> Any:
        target = self.anchors.get(anchor)
        if target is None:
            raise _Abort(
                rules.YAML_SYNTAX(
                    f"alias '*{anchor}' names no anchor defined before it: define '&{anchor}' "
                    "first",
                    self.location(mark),
                )
            )
        self.aliases += 1
        self.alias_nodes += target.span[1] - target.span[0]
        if self.aliases > MAX_ALIASES or self.alias_nodes > MAX_ALIAS_NODES:
            raise _Abort(
                rules.ALIAS_LIMIT(
                    f"too many aliases: more than {MAX_ALIASES} uses or {MAX_ALIAS_NODES} values "
                    "reached through them (an alias bomb expands exponentially); write the "
                    "values out or use the file's defaults",
                    self.location(mark),
                )
            )
        path = self._child_path()
        span = self._copy_entries(target, path)
        self.value_entries.append((path, mark))  # the alias itself is where its value stands
        return self._attach(target.value, _Anchored(target.value, path, span))

    def _copy_entries(
        self, target: _Anchored, path: JsonPath, only: str | None = None
    ) -> tuple[int, int, int, int]:
        """Give a copy the locations of the anchored original, re-rooted at `path`.

        Returns the span of the copied entries, so a merge can find them again.
        """
        cut = len(target.root)
        start, end, key_start, key_end = target.span
        span: list[int] = []
        for entries, lo, hi in (
            (self.value_entries, start, end),
            (self.key_entries, key_start, key_end),
        ):
            moved = [
                ((*path, *p[cut:]), m)
                for p, m in entries[lo:hi]
                if p[:cut] == target.root and (only is None or p[cut : cut + 1] == (only,))
            ]
            span.append(len(entries))
            entries.extend(moved)
            span.append(len(entries))
        return span[0], span[1], span[2], span[3]

    def _merge_value(self, top: _Frame, anchored: _Anchored) -> None:
        value = anchored.value
        sources: list[_Anchored] = []
        if isinstance(value, dict):
            sources = [anchored]
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            # A list of mappings: the entries of each are under root + (index,).
            sources = [
                _Anchored(v, (*anchored.root, i), anchored.span) for i, v in enumerate(value)
            ]
        else:
            at = self.value_entries[-1][1] if self.value_entries else (0, 0)
            self.found.append(
                rules.YAML_SYNTAX(
                    "a merge key '<<' takes a mapping or a list of mappings (usually an alias "
                    "like *defaults)",
                    self.location(at),
                )
            )
        top.merges.extend(sources)
        top.merging = False

    def _apply_merges(self, frame: _Frame) -> None:
        """Merge keys: explicit keys win, then earlier merge sources win over later ones."""
        mapping: dict[str, Any] = frame.container
        for source in frame.merges:
            for key, value in source.value.items():
                if key in mapping:
                    continue
                mapping[key] = value
                self._copy_entries(source, frame.path, only=key)
