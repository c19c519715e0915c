"""`import --refresh`: the cluster's values written over the drifted ones in a spec file's text.

Only the value that changes is touched: its characters are replaced in place (a new override is
one line added to the topic's `config:`, a dropped one its line removed), so comments, order,
quoting and every other byte stay as the user wrote them. A value is written in the old one's
style: in the old unit where the new value is a whole number of it (`7d` -> `14d`, `168h` ->
`336h`), else the shortest exact human unit, else as a number; quoted as the old one was.

A value that is not written in the topic's own entry is never rewritten, because the edit
would change other topics too or not stick: from the file's `defaults:`, from a YAML anchor
(`&x`) or alias (`*x`, `<<: *x`), or in a template (the caller's check: `*.yaml.j2` files are
never edited). Each such value, and anything else left, is a `Left` naming file:line and what
to do; nothing here raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from reconciler.diagnostics import Diagnostic
from reconciler.errors import InvalidConfigValue
from reconciler.spec import catalog
from reconciler.spec.spelling import spec_value
from reconciler.spec.units import BYTES_PER_UNIT, MS_PER_UNIT
from reconciler.spec.yaml_scalars import core_value
from reconciler.spec.yaml_tree import Node, anchor_of, parse

_UNIT = re.compile(r"^\s*[0-9]+\s*([A-Za-z]+)\s*$")


@dataclass(frozen=True, slots=True)
class Wanted:
    """A drifted field and the cluster's value for it."""

    topic: str
    field: str  # "config.KEY", "partitions" or "replication_factor"
    value: str | None  # Kafka's canonical value; None: the cluster has no such override


@dataclass(frozen=True, slots=True)
class Written:
    topic: str
    field: str
    line: int  # 1-based, in the text before the edit
    before: str | None  # the value as it was written; None: a line added
    after: str | None  # as it is written now; None: its line removed


@dataclass(frozen=True, slots=True)
class Left:
    topic: str
    field: str
    reason: str  # a sentence naming file:line and what to do


@dataclass(frozen=True, slots=True)
class _Edit:
    start: int
    end: int
    text: str
    block: str | None = None  # a `config:` block added to this topic: later keys join it


def refresh_text(
    text: str, file: str, wanted: Sequence[Wanted]
) -> tuple[str, tuple[Written, ...], tuple[Left, ...]]:
    """`text` (the spec file `file`, relative to the repository) with each wanted value written
    in place; what was written and what was left, in `wanted`'s order."""
    root = parse(text)
    written: list[Written] = []
    left: list[Left] = []
    edits: list[_Edit] = []
    blocks: dict[str, int] = {}  # topic -> its added `config:` block in `edits`
    newline = "\r\n" if "\r\n" in text else "\n"
    topics = _topics(root)
    for want in wanted:
        topic = topics.get(want.topic)
        if root is None or topic is None:
            left.append(Left(want.topic, want.field, f"{file}: the topic's entry was not found"))
            continue
        found = _Refresh(text, file, root, topic, want, newline).edit()
        if isinstance(found, Left):
            left.append(found)
        elif found is not None:
            edit, done = found
            if edit.block is not None and edit.block in blocks:
                # a second key for a `config:` block added in this run: one block, not two
                index = blocks[edit.block]
                entry = edit.text.rstrip("\r\n").rsplit("\n", 1)[-1]
                earlier = edits[index]
                joined = (
                    earlier.text + entry + newline
                    if earlier.text.endswith("\n")
                    else earlier.text + newline + entry
                )
                edits[index] = _Edit(earlier.start, earlier.end, joined, earlier.block)
            else:
                if edit.block is not None:
                    blocks[edit.block] = len(edits)
                edits.append(edit)
            written.append(done)
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + edit.text + text[edit.end :]
    return text, tuple(written), tuple(left)


def _topics(root: Node | None) -> dict[str, Node]:
    if root is None or root.kind != "map":
        return {}
    entries = root.get("topics")
    if entries is None or entries.kind != "seq":
        return {}
    found: dict[str, Node] = {}
    for entry in entries.items:
        name = entry.get("name") if entry.kind == "map" else None
        if name is not None and name.kind == "scalar":
            found.setdefault(name.value, entry)
    return found


class _Refresh:
    """One wanted value: where it is written, and the edit that writes the cluster's."""

    def __init__(
        self, text: str, file: str, root: Node, topic: Node, want: Wanted, newline: str
    ) -> None:
        self.text, self.file, self.root, self.topic = text, file, root, topic
        self.want, self.newline = want, newline
        self.key = want.field.removeprefix("config.")
        self.in_config = want.field.startswith("config.")

    def at(self, node: Node) -> str:
        return f"{self.file}:{node.line}"

    def left(self, why: str) -> Left:
        return Left(self.want.topic, self.want.field, why)

    def edit(self) -> tuple[_Edit, Written] | Left | None:
        holder = self.topic
        if self.in_config:
            config = self.topic.get("config")
            if config is None:
                shared = self._shared(self.topic, "config")
                if shared is not None:
                    return shared
                return self._from_defaults() or self._add_config_block()
            if config.kind == "alias":
                return self._anchored(config, "its config")
            if config.kind != "map":
                return self.left(f"{self.at(config)}: config is not a mapping")
            holder = config
        node = holder.get(self.key)
        if node is None:
            shared = self._shared(holder, self.key)
            if shared is not None:
                return shared
            return self._from_defaults() or self._add(holder)
        if node.kind == "alias":
            return self._anchored(node, self.key)
        if node.anchor is not None:
            return self.left(
                f"{self.at(node)}: {self.key} of '{self.want.topic}' is the anchor &{node.anchor} "
                f"that other entries reuse (*{node.anchor}); set {self._shown()} there or give the "
                "topic its own value, then run import --refresh again"
            )
        if self.want.value is None:
            return self._remove(holder, node)
        if node.kind == "seq" and node.flow and all(i.kind == "scalar" for i in node.items):
            after = "[" + ", ".join(self.want.value.split(",")) + "]"  # a list config, inline
            if _reads_as(
                self.key, [core_value(i) for i in after[1:-1].split(", ")], self.want.value
            ):
                done = Written(
                    self.want.topic, self.want.field, node.line, self._as_written(node), after
                )
                return _Edit(node.start, node.end, after), done
        if node.kind != "scalar":
            return self.left(
                f"{self.at(node)}: {self.key} of '{self.want.topic}' is written as a block "
                f"list; set it to {self.want.value} by hand"
            )
        after = self._spelled(node)
        done = Written(self.want.topic, self.want.field, node.line, self._as_written(node), after)
        return _Edit(node.start, node.end, after), done

    def _shown(self) -> str:
        return f"{self.key}: {self.want.value}" if self.want.value is not None else "no override"

    def _shared(self, holder: Node, key: str) -> Left | None:
        """The value comes through a merge key (`<<: *x`): named at the anchor."""
        for source in holder.merged():
            target = anchor_of(self.root, source) if source.kind == "alias" else source
            if target is not None and target.kind == "map" and target.get(key) is not None:
                value = target.get(key)
                assert value is not None
                return self.left(
                    f"{self.at(value)}: {key} of '{self.want.topic}' comes from "
                    f"{'the anchor &' + target.anchor if target.anchor else 'a merge key'} "
                    f"(merged at {self.at(source)}), shared with other entries; change it there "
                    f"({self._shown()}) or give the topic its own value"
                )
        return None

    def _anchored(self, alias: Node, what: str) -> Left:
        target = anchor_of(self.root, alias)
        where = self.at(target) if target is not None else self.at(alias)
        return self.left(
            f"{where}: {what} of '{self.want.topic}' is the anchor &{alias.value} (used at "
            f"{self.at(alias)}), shared with other entries; change it there ({self._shown()}) or "
            "give the topic its own value"
        )

    def _from_defaults(self) -> Left | None:
        defaults = self.root.get("defaults") if self.root.kind == "map" else None
        if defaults is None or defaults.kind != "map":
            return None
        holder = defaults.get("config") if self.in_config else defaults
        value = holder.get(self.key) if holder is not None and holder.kind == "map" else None
        if value is None:
            return None
        return self.left(
            f"{self.at(value)}: {self.key} of '{self.want.topic}' comes from the file's "
            f"`defaults:`, which every topic of the file shares; change it there or give the "
            f"topic its own `{self._shown()}`"
        )

    def _add(self, holder: Node) -> tuple[_Edit, Written] | Left | None:
        if self.want.value is None:
            return None  # neither written nor on the cluster: nothing to accept
        if holder.flow or not holder.pairs:
            return self.left(
                f"{self.at(holder)}: '{self.want.topic}' is written inline; add "
                f"`{self._shown()}` by hand"
            )
        first_key = holder.pairs[0][0]
        indent = " " * (first_key.column - 1)
        line = f"{indent}{self.key}: {self._spelled(None)}"
        return self._insert_after(holder, line)

    def _add_config_block(self) -> tuple[_Edit, Written] | Left | None:
        if self.want.value is None:
            return None
        if self.topic.flow:
            return self.left(
                f"{self.at(self.topic)}: '{self.want.topic}' is written inline; add "
                f"`config: {{{self._shown()}}}` by hand"
            )
        indent = " " * (self.topic.pairs[0][0].column - 1)
        lines = f"{indent}config:{self.newline}{indent}  {self.key}: {self._spelled(None)}"
        edit, done = self._insert_after(self.topic, lines)
        return _Edit(edit.start, edit.end, edit.text, self.want.topic), done

    def _insert_after(self, holder: Node, lines: str) -> tuple[_Edit, Written]:
        """`lines` as new lines after the line where `holder`'s last value ends."""
        end = self.text.find("\n", holder.end)
        if self.text[holder.end - 1 : holder.end] == "\n":
            end = holder.end - 1  # a block scalar (`|`) ends with its line
        if end < 0:
            at, new = len(self.text), self.newline + lines
        else:
            at, new = end + 1, lines + self.newline
        line = self.text.count("\n", 0, at) + 1
        after = lines.strip().splitlines()[-1].split(": ", 1)[1]
        return _Edit(at, at, new), Written(self.want.topic, self.want.field, line, None, after)

    def _remove(self, holder: Node, node: Node) -> tuple[_Edit, Written] | Left:
        """The entry's whole line removed (with `config:` when it was the only entry)."""
        key = holder.key_node(self.key)
        assert key is not None
        start = self.text.rfind("\n", 0, key.start) + 1
        end = self.text.find("\n", node.end)
        end = len(self.text) if end < 0 else end + 1
        rest = self.text[node.end : end].strip()
        alone = self.text[start : key.start].strip() == "" and (not rest or rest.startswith("#"))
        if holder.flow or not alone:
            return self.left(
                f"{self.at(node)}: the cluster has no {self.key} override on "
                f"'{self.want.topic}'; remove it from the spec by hand"
            )
        if self.in_config and len(holder.pairs) == 1:
            config_key = self.topic.key_node("config")
            assert config_key is not None
            start = self.text.rfind("\n", 0, config_key.start) + 1
        done = Written(self.want.topic, self.want.field, node.line, self._as_written(node), None)
        return _Edit(start, end, ""), done

    def _as_written(self, node: Node) -> str:
        return self.text[node.start : node.end]

    def _spelled(self, old: Node | None) -> str:
        """The cluster's value as YAML text in `old`'s style (see the module's docstring)."""
        value = self.want.value
        assert value is not None
        if not self.in_config:
            return value  # a count
        plain = _styled(self.key, value, old)
        if old is not None and old.style in ("'", '"'):
            return _quoted(plain, old.style)
        return plain if _reads_as(self.key, core_value(plain), value) else _quoted(plain, "'")


def _styled(key: str, value: str, old: Node | None) -> str:
    """`value` spelled as `old` was: its unit kept where exact, else spec_value's choice."""
    defn = catalog.lookup(key)
    unit = _UNIT.match(old.value) if old is not None else None
    if defn is not None and defn.unit is not None and unit is not None and value.isdigit():
        factors = MS_PER_UNIT if defn.unit == "ms" else BYTES_PER_UNIT
        factor = factors.get(unit.group(1)) or factors.get(unit.group(1).lower())
        if factor is not None and int(value) % factor == 0 and int(value) > 0:
            candidate = f"{int(value) // factor}{unit.group(1)}"
            if _reads_as(key, candidate, value):
                return candidate
    chosen = spec_value(key, value)
    if isinstance(chosen, bool):
        return "true" if chosen else "false"
    if old is not None and old.value.lstrip("-").isdigit() and value.lstrip("-").isdigit():
        return value  # the old value was a number: so is the new one
    return str(chosen)


def _reads_as(key: str, written: object, value: str) -> bool:
    try:
        return catalog.normalise(key, written) == value
    except InvalidConfigValue:
        return False


def _quoted(text: str, style: str) -> str:
    if style == '"':
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True, slots=True)
class FileEdit:
    file: str  # relative to the repository, '/' separators
    written: tuple[Written, ...]


@dataclass(frozen=True, slots=True)
class RefreshRun:
    cluster: str
    files: tuple[FileEdit, ...]  # the files changed, sorted
    left: tuple[Left, ...]  # drifted values not written, each naming where to change it
    untouched: tuple[tuple[str, str], ...]  # (topic, why): drift refresh does not accept
    inexact: tuple[str, ...]  # topics written whose plan still changes them afterwards
    problems: tuple[Diagnostic, ...]  # error diagnostics of the specs after writing

    @property
    def complete(self) -> bool:
        """Every drifted value it could accept is written and plans to nothing."""
        return not (self.left or self.inexact or self.problems)
