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
  spans; one holding `|`, `<`, `>` or `&` becomes a `<code>` element with escaped content,
  so it cannot end a table cell and no `<!--` or tag appears in the comment's source;
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
# What a backquote span cannot hold as it is: `|` ends a table cell even there, and `<`, `>`,
# `&` are kept out of the comment's source altogether (no `<!--` or tag in it at all, so
# nothing depends on how a renderer treats HTML inside code)
_SPAN_UNSAFE = re.compile(r"[|<>&]")


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
        parts.append(_span(shown[opening.end() : end.start()], opening.group()))
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


def _span(content: str, fence: str) -> str:
    """A code span showing `content`: as written when it is safe, else a `<code>` element
    whose content is escaped as prose (which shows backquotes and `|` literally)."""
    if _SPAN_UNSAFE.search(content) is None:
        return f"{fence}{content}{fence}"
    if content[:1] == content[-1:] == " " and content.strip():
        content = content[1:-1]  # the space CommonMark strips from a padded span
    return f"<code>{_prose(content)}</code>"


def _prose(text: str) -> str:
    text = _MARKUP.sub(lambda found: _ENTITIES.get(found.group(), "\\" + found.group()), text)
    return _UNDERSCORES.sub(lambda found: "\\_" * len(found.group()), text)
