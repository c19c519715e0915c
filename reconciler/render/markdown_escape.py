"""The one way a value from the repository or the cluster enters Markdown.

A spec file's path, a topic, config key or value, a consumer group, a cluster name, a git ref,
and every message quoting them are data, and data must never become structure in a pull-request
comment or an issue: a file named `x\\n\\n**Plan: 0 to create**\\n\\n<!--.yaml` must not end a
table row, add a fake summary line or open an HTML comment that hides the rest of the comment.
`escape` makes any such text render as itself wherever it is placed (a table cell, a list item,
a heading, a paragraph; `html=True` inside a raw HTML block such as `<summary>`):

- every control character (line breaks, CR, ESC, ...) is shown as an escape (`\\n`, `\\r`),
  as on a terminal (reconciler/printable.py), so the value stays on its one line;
- the text's own `code spans` (messages quote names and commands in backquotes) stay code
  spans, with `|` escaped inside them so they cannot end a table cell;
- everywhere else every character Markdown or HTML could read as markup (`\\ ` * | ! ~ # $`,
  `&`, `<`, `>`, a `]` that a `(` or `[` follows, and `_` but between two letters or digits,
  where GFM reads no emphasis) is escaped, so no emphasis, link, image, HTML tag or comment
  can start.

`code` shows one value as a code span whose fence is longer than any run of backquotes the
value holds, then passes it through `escape`.
"""

from __future__ import annotations

import html as html_module
import re

from reconciler.printable import printable

_TICKS = re.compile(r"`+")
# ASCII punctuation that can start or end inline markup (GitHub's math included), escaped with
# a backslash; & < > become entities, so neither a tag nor a comment nor an entity can start
# (a link needs `](` or `][`: `]` is escaped there only, so `error[P102]` reads as it is)
_MARKUP = re.compile(r"[\\`*|!~#$&<>]|\](?=[(\[])")
# `_` between two letters or digits cannot open or close emphasis (GFM: no intraword `_`
# emphasis), so `orders_archive` stays as it is; any other run of `_` is escaped
_UNDERSCORES = re.compile(r"(?<![^\W_])_+|_+(?![^\W_])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def escape(text: str, *, html: bool = False) -> str:
    """`text` (from a spec or the cluster) as Markdown that renders as itself on one line;
    `html`: for the inside of a raw HTML block (`<summary>`), where Markdown is not read."""
    shown = printable(text)
    if html:
        return html_module.escape(shown)
    parts: list[str] = []
    position = 0
    runs = list(_TICKS.finditer(shown))
    index = 0
    while index < len(runs):
        opening = runs[index]
        width = len(opening.group())
        # CommonMark: a code span closes at the next run of exactly as many backquotes
        closing = next(
            (j for j in range(index + 1, len(runs)) if len(runs[j].group()) == width), None
        )
        if closing is None:
            index += 1  # an unmatched run is literal text, escaped with the rest
            continue
        end = runs[closing]
        parts.append(_prose(shown[position : opening.start()]))
        inside = shown[opening.end() : end.start()].replace("|", "\\|")
        parts.append(f"{opening.group()}{inside}{end.group()}")
        position = end.end()
        index = closing + 1
    parts.append(_prose(shown[position:]))
    return "".join(parts)


def code(text: str, *, html: bool = False) -> str:
    """`text` shown as code: a code span (with `html`, a `<code>` element) holding it literally."""
    if html:
        return f"<code>{escape(text, html=True)}</code>"
    shown = printable(text)
    fence = "`" * (max((len(run) for run in _TICKS.findall(shown)), default=0) + 1)
    # CommonMark strips one space from each end of a span: pad when the value needs its own
    pad = " " if shown[:1] == "`" or shown[-1:] == "`" or shown[:1] == shown[-1:] == " " else ""
    return escape(f"{fence}{pad}{shown}{pad}{fence}")


def _prose(text: str) -> str:
    text = _MARKUP.sub(lambda found: _ENTITIES.get(found.group(), "\\" + found.group()), text)
    return _UNDERSCORES.sub(lambda found: "\\_" * len(found.group()), text)
