"""Templates: sandboxed, strict, and rendered YAML mapped back to template lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.spec.source import Source
from reconciler.spec.templates import MAX_OUTPUT_CHARS, compile_template, render

TEMPLATE = """\
topics:
{% for team in ["a", "b"] %}
  - name: {{ team }}.events
    partitions: {{ 12 if cluster == "prod" else 3 }}
{% endfor %}
{%- if vars.env == "dev" %}
  - name: dev.only
{%- endif %}
{{ "  - name: from.an.expression\\n    partitions: 1" }}
  - name: last
"""


def rendered(text: str, cluster: str = "local", env: str = "dev") -> tuple[str, tuple[int, ...]]:
    compiled, found = compile_template(Source(Path("t.yaml.j2"), "t.yaml.j2", text))
    assert compiled is not None, found
    result, found = render(compiled, cluster, {"env": env})
    assert result is not None, found
    return result.text, result.line_map


def test_output_is_what_jinja_renders() -> None:
    text, _ = rendered(TEMPLATE)
    assert "\x00" not in text
    assert text == (
        "topics:\n\n  - name: a.events\n    partitions: 3\n\n  - name: b.events\n"
        "    partitions: 3\n\n  - name: dev.only\n  - name: from.an.expression\n"
        "    partitions: 1\n  - name: last\n"
    )


def test_every_output_line_maps_to_its_template_line() -> None:
    text, line_map = rendered(TEMPLATE)
    by_text = dict(zip(text.split("\n"), line_map, strict=True))
    assert by_text["  - name: a.events"] == 3
    assert by_text["  - name: b.events"] == 3  # the loop body, again
    assert by_text["  - name: dev.only"] == 7
    assert by_text["  - name: from.an.expression"] == 9
    assert by_text["    partitions: 1"] == 9  # a newline an expression printed stays on its line
    assert by_text["  - name: last"] == 10


def test_set_blocks_keep_their_meaning() -> None:
    text, _ = rendered('{% set x %}\nab\n{% endset %}{{ x | trim | length }} {{ x == "\\nab\\n" }}')
    assert text == "2 True"


@pytest.mark.parametrize(
    ("template", "code", "line"),
    [
        ("a\n{{ ''.__class__.__mro__ }}", "R603", 2),
        ("{{ vars.__class__.__init__ }}", "R603", 1),
        ("{{ cycler.__init__.__globals__ }}", "R603", 1),
        ("a\nb\n{{ nope }}", "R602", 3),
        ("{{ vars.nope }}", "R602", 1),
        ("{% for x in %}", "R601", 1),
        ("\n{% include 'x.yaml' %}", "R604", 2),
        ("{{ 'x' * 10**8 }}", "R607", 1),
        ("{{ 10 ** 100000 }}", "R607", 1),
        ("{% for i in range(10**9) %}{% endfor %}", "R604", 1),
        ("{% for i in range(99999) %}{{ 'x' * 100 }}{% endfor %}", "R605", 1),
        ("{{ lipsum(10**6) }}", "R602", 1),
        ("\n\n{% set _ = vars.update({'env': 'prod'}) %}", "R603", 3),  # vars stay as given
    ],
)
def test_template_problems(template: str, code: str, line: int) -> None:
    compiled, found = compile_template(Source(Path("t.yaml.j2"), "t.yaml.j2", template))
    if compiled is not None:
        result, found = render(compiled, "local", {"env": "dev"})
        assert result is None
    assert [(d.code, d.location.line if d.location else 0) for d in found] == [(code, line)]


def test_default_filter_works_with_strict_undefined() -> None:
    text, _ = rendered("{{ vars.missing | default(7) }} {{ vars.env }}")
    assert text == "7 dev"


def test_output_cap_is_the_file_cap() -> None:
    assert MAX_OUTPUT_CHARS == 5 * 2**20
