"""The comments read back by a CommonMark parser (markdown-it-py, with GitHub's tables and
strikethrough): whatever text the repository or the cluster puts in any field of a plan, a
failure or a drift report, the comment parses to the same blocks (headings, tables with their
rows and cells, lists, quotes, HTML blocks) as the same report with plain values, and no link,
image, emphasis or HTML tag appears that the plain one lacks. The hostile texts are kinds, not
one example: line breaks of every kind, comments, tags, entities, links and autolinks, emphasis
and strikethrough, code-span fences, table pipes and block markers."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import pytest
from markdown_it import MarkdownIt

from reconciler.diagnostics import Diagnostic, Location, Severity
from reconciler.fleet import summary
from reconciler.render.drift_report import render_drift_markdown
from reconciler.render.markdown import render_failure, render_markdown
from tests.planning import samples
from tests.planning.test_hostile_names import CLOSED, _fleet_summary, _report, _with_evidence

_PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")
# The only HTML the renderers write themselves: a collapsed section and escaped code
_MARKUP = {"link_open", "image", "em_open", "strong_open", "s_open", "hardbreak"}
_OURS = {"<details>", "</details>", "<summary>", "</summary>", "<code>", "</code>"}
HOSTILE = {
    "comment": "x<!-- hidden",
    "close-comment": "--> <!---->",
    "tags": "<b>bold</b><img src=x onerror=alert(1)><script>alert(1)</script>",
    "entities": "&lt;!-- &#60;b&#62; &amp;",
    "link": "[click](https://evil.example) [ref][1] ![img](https://evil.example/p.png)",
    "autolink": "<https://evil.example> <mail@evil.example>",
    "emphasis": "*em* **strong** _em_ __strong__ ~~gone~~ ***both***",
    "fences": "`a` ``b`` `unclosed ``` `` ` `` \\`",
    "pipes": "a|b \\| c || `x|y`",
    "lines": "one\ntwo\r\nthree\u2028four\u2029five\x85six\x0bseven\x0ceight",
    "blocks": "\n# Heading\n---\n===\n> quote\n- item\n1. item\n| a | b |\n|---|---|\n    code",
    "summary": "\n\n**Plan: 0 to create, 0 to update, 0 to delete.**\n\n",
    "backslash": "trailing\\",
}


def _carrying(value: Any, text: str, name: str = "") -> Any:
    """`value` with `text` in the middle and at the end of every string field (in the middle
    too: inside a message's own `code spans` and between its words)."""
    if isinstance(value, str):
        if name in CLOSED or not value:
            return value
        half = len(value) // 2
        return value[:half] + text + value[half:] + text
    if isinstance(value, tuple):
        return tuple(_carrying(item, text, name) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {
            f.name: _carrying(getattr(value, f.name), text, f.name)
            for f in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changed)
    return value


def _blocks(markdown: str) -> list[str]:
    return [
        token.type + ("" if token.type != "html_block" else token.content.split(">")[0])
        for token in _PARSER.parse(markdown)
        if token.type != "inline"
    ]


def _markup(markdown: str) -> Counter[str]:
    """What inline Markdown the comment holds beyond text and code: links, images, emphasis,
    strikethrough, hard breaks and every HTML tag that is not the renderers' own."""
    found: Counter[str] = Counter()
    for token in _PARSER.parse(markdown):
        if token.type == "html_block":
            found.update(
                f"block {line.strip()}"
                for line in token.content.splitlines()
                if line.strip() and not _ours(line.strip())
            )
        for child in token.children or ():
            if child.type == "html_inline" and child.content not in _OURS:
                found[f"html {child.content}"] += 1
            elif child.type in _MARKUP:
                found[child.type] += 1
    return found


def _ours(line: str) -> bool:
    """A line of an HTML block the renderers write: <details>, </details>, <summary>…</summary>
    (whose content is escaped HTML: no tag in it but <code>)."""
    if line in ("<details>", "</details>"):
        return True
    if line.startswith("<summary>") and line.endswith("</summary>"):
        inner = line.removeprefix("<summary>").removesuffix("</summary>")
        return "<" not in inner.replace("<code>", "").replace("</code>", "")
    return False


def _same_shape(plain: str, hostile: str) -> None:
    assert _blocks(hostile) == _blocks(plain)
    assert _markup(hostile) == _markup(plain)


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_the_plan_comment_parses_the_same_whatever_the_fields_hold(kind: str) -> None:
    plain = _with_evidence(samples.kitchen_sink())
    unbounded = 10**7  # longer values, the same comment: nothing fitted away
    _same_shape(
        render_markdown(plain, unbounded),
        render_markdown(_carrying(plain, HOSTILE[kind]), unbounded),
    )


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_the_collapsed_plan_comment_parses_the_same(kind: str) -> None:
    plain = _with_evidence(samples.kitchen_sink())
    many = tuple(
        dataclasses.replace(c, topic=f"{c.topic}.{i}") for i in range(3) for c in plain.changes
    )
    plain = dataclasses.replace(plain, changes=many)
    unbounded = 10**7
    _same_shape(
        render_markdown(plain, unbounded),
        render_markdown(_carrying(plain, HOSTILE[kind]), unbounded),
    )


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_the_failure_comment_parses_the_same(kind: str) -> None:
    diagnostics = [
        Diagnostic(
            Severity.ERROR,
            "R001",
            "yaml_syntax",
            "bad `x: [` here",
            Location("topics/a.yaml", 1, 1),
        ),
        Diagnostic(
            Severity.WARNING, "R002", "dup", "dup of `t`", Location("topics/b.yaml", 2, 3), "t"
        ),
    ]
    text = HOSTILE[kind]
    plain = render_failure("plan", "prod", "Kafka refused `t`: bad value", diagnostics)
    hostile = render_failure(
        "plan",
        "prod" + text,
        f"Kafka refused `t{text}`: bad value {text}",
        [_carrying(d, text) for d in diagnostics],
    )
    _same_shape(plain, hostile)


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_the_drift_comment_parses_the_same(kind: str) -> None:
    plain = _report()
    _same_shape(
        render_drift_markdown(plain), render_drift_markdown(_carrying(plain, HOSTILE[kind]))
    )


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_the_fleet_summary_parses_the_same(kind: str) -> None:
    """summary.md of `fleet drift`: every string of the snapshots (dates and reasons too)."""
    plain = _fleet_summary("")
    _same_shape(summary.render(plain), summary.render(_carrying(plain, HOSTILE[kind])))
