"""Text reports wrapped to a width, like terraform's: a long line continues on the next ones,
indented under its own start, so a message stays visibly part of the topic or diagnostic it
belongs to.

Lines break only at spaces outside `backquotes`: a topic name, a value, a path, an approval
item (`- {key_reorder: 6}`) or a command is never split, and one longer than the width stays
whole on a line of its own (a longer line, rather than a name a reader cannot copy). Widths
are measured without the ANSI colour codes a line may hold, so the coloured and the plain
report break at the same places. The CLI chooses the width (cli/width.py); None leaves every
line as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# A word, or a run of spaces; a `quoted` span (an approval item, a command) is one word
_TOKENS = re.compile(r"(?:`[^`]*`|[^ `]|`)+| +")

HANG = 4  # continuation lines sit this much deeper than the line they continue (deeper than
# its own sub-lines, which sit 2 deeper)


def visible(text: str) -> int:
    """Columns `text` takes on a terminal: its length without colour codes."""
    return len(_ANSI.sub("", text))


def wrap(line: str, width: int | None, hang: int | None = None) -> list[str]:
    """`line` as lines of at most `width` columns (but for a word longer than that), each after
    the first indented by `hang` spaces (default: the line's own indent plus HANG)."""
    if width is None or ("\n" not in line and visible(line) <= width):
        return [line]
    plain = _ANSI.sub("", line)
    indent = len(plain) - len(plain.lstrip(" "))
    deeper = indent + HANG if hang is None else hang
    first, *rest = line.split("\n")  # a message's own line breaks continue it, indented too
    lines = _fill(first, width, " " * deeper)
    for part in rest:
        lines += _fill(" " * deeper + part.lstrip(" "), width, " " * deeper)
    return lines


def _fill(line: str, width: int, prefix: str) -> list[str]:
    """Greedy filling of one line, continuation lines starting with `prefix`."""
    if visible(line) <= width:
        return [line]
    tokens = _TOKENS.findall(line)
    lines: list[str] = []
    current = ""  # the line being filled, its indent (and any colour code before it) included
    used = 0  # its visible columns
    gap = ""  # spaces between the last word and the next, dropped at a break
    started = False  # a visible word is on the current line
    for token in tokens:
        if token.startswith(" "):
            if started:
                gap = token
            else:
                current += token  # the line's own indent
                used += len(token)
            continue
        size = visible(token)
        if started and size and used + len(gap) + size > width:
            lines.append(current)
            current, used = prefix + token, len(prefix) + size
        else:
            current += gap + token
            used += len(gap) + size
        gap = ""
        started = started or size > 0
    lines.append(current)
    return lines


def wrap_all(lines: Iterable[str], width: int | None) -> list[str]:
    """Every line wrapped under its own indent."""
    return [part for line in lines for part in wrap(line, width)]
