"""Names and values from the repository or the cluster, made harmless on a terminal.

A file name, topic name, consumer group, config value or cluster name is data: it may hold a
newline, a carriage return or an ANSI escape sequence, which on a terminal would add a line to a
report (a fake `Plan:` summary), rewrite the line it is on (CR) or move the cursor and clear the
screen (ESC). `printable` shows every control character of such a value as an escape instead
(`\\n`, `\\r`, `\\x1b`, `\\u202e`), so the reader sees that it is there and nothing happens; the
text renderers and diagnostics pass every name and value through it.

`terminal` is the backstop the CLI's output channel applies to every byte it writes
(cli/output.py): the report's own line breaks, tabs and colour codes pass, every other control
character is escaped as `printable` does, whatever path the text took to get there.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the bidirectional
# overrides and isolates that reorder what a terminal shows ("Trojan Source")
_CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[{_CONTROLS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# What `terminal` lets through: a line break, a tab, and an SGR (colour) sequence, which can
# only colour text, never move the cursor or erase
_KEPT = re.compile(r"\n|\t|\x1b\[[0-9;]*m")


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    # C0 as `\x1b`; DEL, C1 and the rest as `\u0085`: JSON printed with its non-ASCII kept
    # (snapshot lines) holds those raw, and `\u0085` is the same string to a JSON reader
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control character (line breaks, CR and ESC included) shown as an
    escape: what a name or value from a spec or the cluster is printed as."""
    return _CONTROL.sub(_shown, text)


def terminal(text: str) -> str:
    """`text` as a terminal gets it: line breaks, tabs and colour codes kept, every other
    control character shown as `printable` shows it."""
    if _CONTROL.search(text) is None:
        return text
    parts: list[str] = []
    start = 0
    for kept in _KEPT.finditer(text):
        parts.append(printable(text[start : kept.start()]))
        parts.append(kept.group())
        start = kept.end()
    parts.append(printable(text[start:]))
    return "".join(parts)
