"""A spec file's YAML as nodes with their exact spans, for editing it in place.

The loader's reader (spec/yaml_reader.py) gives data and where each value starts; editing a
value needs where it ends, how it was quoted and whether it was written there at all (an alias
`*x` shows the anchor's value, a merge key `<<:` a whole mapping of them). This keeps PyYAML's
events as a small tree: nothing is resolved, so an alias stays an alias.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

Kind = Literal["scalar", "map", "seq", "alias"]

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(slots=True)
class Node:
    kind: Kind
    start: int  # character offsets into the text: text[start:end] is the node as written
    end: int
    line: int  # 1-based, of `start`
    column: int  # 1-based
    value: str = ""  # a scalar's text (unquoted), an alias's anchor name
    style: str | None = None  # a scalar's quoting: None (plain), "'", '"', "|", ">"
    anchor: str | None = None
    flow: bool = False  # a mapping or sequence written inline ({...} or [...])
    pairs: list[tuple[Node, Node]] = field(default_factory=list)  # a mapping's entries
    items: list[Node] = field(default_factory=list)  # a sequence's

    def get(self, key: str) -> Node | None:
        """The value written under `key` in this mapping (never through a merge key)."""
        for k, v in self.pairs:
            if k.kind == "scalar" and k.value == key:
                return v
        return None

    def key_node(self, key: str) -> Node | None:
        for k, _ in self.pairs:
            if k.kind == "scalar" and k.value == key:
                return k
        return None

    def merged(self) -> list[Node]:
        """What this mapping's merge keys (`<<: *x`, `<<: [*x, *y]`) bring in, as written."""
        found: list[Node] = []
        value = self.get("<<")
        if value is not None:
            found.extend(value.items if value.kind == "seq" else [value])
        return found


def parse(text: str) -> Node | None:
    """The first document's root node, or None for an empty or unparsable text (the loader
    reports those; an edit is never attempted on them)."""
    try:
        events: list[Any] = list(yaml.parse(text, Loader=_Loader))
    except yaml.YAMLError:
        return None
    position = 0

    def build() -> Node:
        nonlocal position
        event = events[position]
        position += 1
        start, end = event.start_mark, event.end_mark
        node = Node(
            "scalar", start.index, end.index, start.line + 1, start.column + 1,
            anchor=getattr(event, "anchor", None),
        )  # fmt: skip
        if isinstance(event, yaml.ScalarEvent):
            node.value, node.style = event.value, event.style or None  # libyaml: '' for plain
            return node
        if isinstance(event, yaml.AliasEvent):
            node.kind, node.value, node.anchor = "alias", event.anchor or "", None
            return node
        node.flow = bool(event.flow_style)
        if isinstance(event, yaml.MappingStartEvent):
            node.kind = "map"
            while not isinstance(events[position], yaml.MappingEndEvent):
                key = build()
                node.pairs.append((key, build()))
        else:
            node.kind = "seq"
            while not isinstance(events[position], yaml.SequenceEndEvent):
                node.items.append(build())
        node.end = events[position].end_mark.index if node.flow else _last_end(node)
        position += 1
        return node

    while position < len(events) and not isinstance(
        events[position], (yaml.MappingStartEvent, yaml.SequenceStartEvent, yaml.ScalarEvent)
    ):
        position += 1
    if position >= len(events):
        return None
    return build()


def _last_end(node: Node) -> int:
    """Where a block collection's content ends: its last value's end, not the next token
    (which would take in the comments and blank lines after it)."""
    if node.pairs:
        return node.pairs[-1][1].end
    if node.items:
        return node.items[-1].end
    return node.end


def anchor_of(root: Node, alias: Node) -> Node | None:
    """The node `alias` (`*x`) stands for: the last `&x` written before it, as YAML reads it."""
    found: Node | None = None
    stack = [root]
    while stack:
        node = stack.pop()
        earlier = node.anchor == alias.value and node.start < alias.start
        if earlier and (found is None or node.start > found.start):
            found = node
        stack.extend(v for pair in node.pairs for v in pair)
        stack.extend(node.items)
    return found
