"""Parser events to data and locations: the engine of yaml_reader.py, with its budgets.

`EventBuilder.run` consumes one document's events from a PyYAML loader and builds plain data
(dict, list, str, int, float, bool, None) plus the source position of every value and key,
keyed by JSON path. It is where the bounds hold: nesting deeper than `MAX_DEPTH` stops it
before libyaml's recursive composer could crash, every alias is counted and its expansion
charged against `MAX_ALIAS_NODES` (the "billion laughs" bomb), and scalars go through
yaml_scalars.py, which never constructs anything but the YAML 1.2 core scalars. Problems it can
read past are collected in `found`; one that makes the rest meaningless raises `Abort`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import r_codes, yaml_scalars

MAX_DEPTH = 64  # nesting of mappings and sequences; spec files need about 6
MAX_ALIASES = 100  # alias uses per document
MAX_ALIAS_NODES = 10_000  # values reached through aliases, counted as if expanded

JsonPath = tuple[str | int, ...]
Positions = dict[JsonPath, tuple[int, int]]  # 1-based (line, column) per path

_TAG = yaml_scalars.TAG
_MAP_TAGS = frozenset({None, "!", _TAG + "map"})
_SEQ_TAGS = frozenset({None, "!", _TAG + "seq"})


class Abort(Exception):
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
    is_map: bool = False
    seen: dict[str, int] = field(default_factory=dict)  # key -> parser line of its first use
    merges: list[_Anchored] = field(default_factory=list)


class EventBuilder:
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

    def run(self, loader: Any) -> tuple[Any, Positions, Positions]:
        """The document's data, and where each value and each mapping key stands.

        The loop is the hot path of validating a repository (every value and key of every
        file), so the commonest event, a plain or quoted scalar that is a mapping's value or a
        list item, is handled inline; every other case goes through the methods below."""
        documents = 0
        root: Any = None
        stack = self.stack
        entries, keys = self.value_entries, self.key_entries
        check_event, get_event = loader.check_event, loader.get_event
        while check_event():
            event = get_event()
            kind = type(event)
            start = event.start_mark
            mark = (start.line, start.column)
            if kind is yaml.ScalarEvent:
                top = stack[-1] if stack else None
                if top is not None and not top.merging:
                    tag = event.tag
                    if top.is_map and top.key is None:
                        text = event.value
                        if (tag is None or tag == "!") and text != "<<" and text not in top.seen:
                            top.seen[text] = mark[0]  # a new plain key: the common case
                            top.key = text
                            keys.append(((*top.path, text), mark))
                        else:
                            self._key(event, mark)
                        continue
                    if event.anchor is None and (tag is None or tag == "!"):
                        if tag is None and event.implicit[0]:
                            value, plain = _plain(event.value)
                        else:
                            value, plain = event.value, True
                        if plain:  # no warning to give: attach it here
                            container = top.container
                            key = top.key
                            if key is not None:  # a mapping's value (its key is awaited)
                                entries.append(((*top.path, key), mark))
                                container[key] = value
                                top.key = None
                            else:
                                entries.append(((*top.path, len(container)), mark))
                                container.append(value)
                            continue
                root = self._complete(self._scalar(event, mark), mark, event.anchor)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                top = stack[-1] if stack else None
                if (
                    top is None
                    or top.merging
                    or (top.is_map and top.key is None)
                    or event.tag is not None
                    or len(stack) >= MAX_DEPTH
                ):
                    self._start(event, mark)  # the root, a key, a tag, too deep: see there
                    continue
                key = top.key  # None in a list
                path = (*top.path, len(top.container) if key is None else key)
                entries.append((path, mark))
                is_map = kind is yaml.MappingStartEvent
                frame = _Frame(path, {} if is_map else [], mark, event.anchor,
                               (len(entries), len(keys)), is_map=is_map)  # fmt: skip
                stack.append(frame)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                frame = stack[-1]
                if frame.merges or frame.anchor is not None or len(stack) < 2:
                    root = self._end()  # merges to apply, an anchor to record, the root
                    continue
                stack.pop()
                top = stack[-1]
                if top.merging:
                    stack.append(frame)
                    root = self._end()
                elif top.key is not None:  # a mapping's value
                    top.container[top.key] = frame.container
                    top.key = None
                else:
                    top.container.append(frame.container)
            elif kind is yaml.AliasEvent:
                if self._is_key():
                    raise Abort(self._complex_key(mark))
                root = self._alias(event.anchor or "", mark)
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise Abort(
                        r_codes.MULTIPLE_DOCUMENTS(
                            "a spec file holds one YAML document; this is a second one (after "
                            "'---'): move it to its own file",
                            self.location(mark),
                        )
                    )
        return root, self._positions(self.value_entries), self._positions(self.key_entries)

    def _positions(self, entries: list[tuple[JsonPath, tuple[int, int]]]) -> Positions:
        if self.line_map is None:
            return {path: (line + 1, column + 1) for path, (line, column) in entries}
        return {path: self._position(mark) for path, mark in entries}

    # -- structure

    def _is_key(self) -> bool:
        if not self.stack:
            return False
        top = self.stack[-1]
        return top.is_map and top.key is None and not top.merging

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
            raise Abort(self._complex_key(mark))
        if len(self.stack) >= MAX_DEPTH:
            raise Abort(
                r_codes.NESTING_TOO_DEEP(
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
        self.stack.append(_Frame(path, container, mark, event.anchor, start, is_map=is_map))

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
        first = top.seen.get(text)
        if first is not None:
            line = self._position((first, 0))[0]
            self.found.append(
                r_codes.DUPLICATE_KEY(
                    f"key '{text}' appears twice in this mapping (first at line {line}); YAML "
                    "keeps only one of them, so remove or rename one",
                    self.location(mark),
                )
            )
        else:
            top.seen[text] = mark[0]
        top.key = text
        self.key_entries.append(((*top.path, text), mark))

    def _complex_key(self, mark: tuple[int, int]) -> Diagnostic:
        return r_codes.COMPLEX_KEY(
            "a mapping key here is itself a mapping, sequence or alias; spec files use plain "
            "names as keys",
            self.location(mark),
        )

    # -- scalars and tags

    def _scalar(self, event: Any, mark: tuple[int, int]) -> Any:
        tag, text = event.tag, event.value
        if tag == "!" or (tag is None and not event.implicit[0]):
            return text  # quoted and block scalars, and the non-specific tag: strings
        if tag is None:
            value = yaml_scalars.core_value(text)
            then = yaml_scalars.yaml11_value(text)
            if not yaml_scalars.oversized(value) and not yaml_scalars.same(value, then):
                self.found.append(self._yaml11_difference(text, value, then, mark))
        elif tag not in yaml_scalars.SCALAR_TAGS:
            self.found.append(self._unsupported_tag(tag, mark))
            return text
        else:
            value = yaml_scalars.tagged_value(tag, text)
        if isinstance(value, yaml_scalars.OversizedInteger):
            self.found.append(self._number_too_large(value, mark))
        return value

    def _number_too_large(
        self, value: yaml_scalars.OversizedInteger, mark: tuple[int, int]
    ) -> Diagnostic:
        top = self.stack[-1] if self.stack else None
        key = top.key if top is not None and isinstance(top.container, dict) else None
        subject = f"the value of {key}" if key is not None else "this value"
        return r_codes.NUMBER_TOO_LARGE(
            f"{subject} is a {value.digits}-digit integer; no setting accepts more than "
            f"{yaml_scalars.MAX_INTEGER_DIGITS} digits (Kafka's largest, a long, has 19): "
            "write the number you mean",
            self.location(mark),
        )

    def _yaml11_difference(
        self, text: str, now: yaml_scalars.Scalar, then: yaml_scalars.Scalar, mark: tuple[int, int]
    ) -> Diagnostic:
        top = self.stack[-1] if self.stack else None
        key = top.key if top is not None and isinstance(top.container, dict) else None
        subject = f"{key}: {text}" if key is not None else text
        return r_codes.YAML_1_1_DIFFERENCE(
            yaml_scalars.difference_message(subject, now, then), self.location(mark)
        )

    def _unsupported_tag(self, tag: str, mark: tuple[int, int]) -> Diagnostic:
        shown = tag.replace(_TAG, "!!")
        return r_codes.UNSUPPORTED_TAG(
            f"YAML tag '{shown}' is not supported in spec files (only plain strings, numbers, "
            "booleans, null, mappings and sequences are); remove the tag",
            self.location(mark),
        )

    # -- aliases and merge keys

    def _alias(self, anchor: str, mark: tuple[int, int]) -> Any:
        target = self.anchors.get(anchor)
        if target is None:
            raise Abort(
                r_codes.YAML_SYNTAX(
                    f"alias '*{anchor}' names no anchor defined before it: define '&{anchor}' "
                    "first",
                    self.location(mark),
                )
            )
        self.aliases += 1
        self.alias_nodes += target.span[1] - target.span[0]
        if self.aliases > MAX_ALIASES or self.alias_nodes > MAX_ALIAS_NODES:
            raise Abort(
                r_codes.ALIAS_LIMIT(
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
                r_codes.YAML_SYNTAX(
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


# Plain scalars repeat (`true`, `3`, `delete`, `7d`, owners, ...): their reading is a pure
# function of the text, so it is worked out once per distinct text. Bounded: short texts only,
# and the table starts over when full.
_READINGS: dict[str, tuple[Any, bool]] = {}
_READINGS_MAX = 65_536
_READING_MAX_CHARS = 64


def _plain(text: str) -> tuple[Any, bool]:
    """A plain scalar's YAML 1.2 value, and whether it can be attached without a word: True
    unless YAML 1.1 reads it differently (R015) or it is an oversized integer (R016), which
    EventBuilder._scalar reports."""
    found = _READINGS.get(text)
    if found is not None:
        return found
    value = yaml_scalars.core_value(text)
    then = yaml_scalars.yaml11_value(text)
    quiet = not isinstance(value, yaml_scalars.OversizedInteger) and (
        yaml_scalars.oversized(value) or yaml_scalars.same(value, then)
    )
    reading = (value, quiet)
    if len(text) <= _READING_MAX_CHARS:
        if len(_READINGS) >= _READINGS_MAX:
            _READINGS.clear()
        _READINGS[text] = reading
    return reading
