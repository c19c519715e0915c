"""The pull-request comment of real plans whose messages quote hostile text: Kafka's own
refusal (validate_only, on a real broker) quoting a config value, and a YAML error quoting the
line of a spec file whose very name is hostile. Each comment keeps its structure: its tables'
rows and cells, one summary line (the last), no HTML comment or tag of the text's own."""

from __future__ import annotations

from pathlib import Path

from markdown_it import MarkdownIt

from reconciler.local.state import LocalCluster
from tests.spec_repo import SpecRepo

FILE = "x | <!-- `a` <b>.yaml"
# Each a kind of markup: a comment, a tag, a table pipe, code-span fences, a link, emphasis
HOSTILE = "0:1 <!-- | `x``y` <b>z</b> [l](https://e.example) **s**"
_PARSER = MarkdownIt("commonmark").enable("table")
_OURS = {"<details>", "</details>", "<summary>", "</summary>", "<code>", "</code>"}


def _assert_intact(comment: str) -> None:
    assert "<!--" not in comment and "<b>" not in comment
    assert "**s**" not in comment  # the text's emphasis is shown as text, not made bold
    tokens = _PARSER.parse(comment)
    for token in tokens:
        assert token.type != "html_block" or token.content.startswith(("<details>", "<summary>"))
        for child in token.children or ():
            assert child.type not in ("link_open", "image", "hardbreak"), (
                child,
                token.content,
            )
            assert child.type != "html_inline" or child.content in _OURS, child.content
    lines = comment.split("\n")
    header: int | None = None
    for line in lines:  # every row has its table's cells
        if not line.startswith("|"):
            header = None
            continue
        row = sum(1 for t in _PARSER.parse(_table_of(lines, line)) if t.type == "td_open")
        header = row if header is None else header
        assert row == header, line


def _table_of(lines: list[str], row: str) -> str:
    """The table `row` belongs to, as a table of its header and that row only."""
    index = lines.index(row)
    start = index
    while start > 0 and lines[start - 1].startswith("|"):
        start -= 1
    return "\n".join([lines[start], lines[start + 1], row]) + "\n"


def test_a_real_plans_messages_quoting_hostile_text_keep_the_comment_whole(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """In a spec file whose name is hostile: a vendor's key and value (hostile, which only the
    cluster can judge: Apache Kafka has no such key) and a pair Kafka's validate_only refuses
    with its own sentence (P135)."""
    vendor, lags = f"{ns}.vendor", f"{ns}.lags"
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    key = "confluent.a|<!--`b`<b>_x_"
    repo.write(
        f"topics/{FILE}",
        {
            "topics": [
                {"name": vendor, "partitions": 1, "replication_factor": 1,
                 "config": {key: HOSTILE}},
                {"name": lags, "partitions": 1, "replication_factor": 1,
                 "config": {"cleanup.policy": "compact", "min.compaction.lag.ms": "2h",
                            "max.compaction.lag.ms": "1h"}},
            ]
        },
    )  # fmt: skip

    planned = repo.run("plan", "--cluster", "test", "--format", "markdown")

    assert planned.code == 1, planned.stdout + planned.stderr
    comment = planned.stdout
    _assert_intact(comment)
    lines = comment.rstrip("\n").split("\n")
    assert lines[-1].startswith("**Plan: ") and lines[-1].endswith(".**")
    assert sum(line.startswith("**Plan:") for line in lines) == 1
    rows = [line for line in lines if line.startswith("| error |")]
    assert any("| P135 |" in row and "min.compaction.lag.ms" in row for row in rows), rows
    [said] = [row for row in rows if "confluent.a" in row]
    assert "&lt;\\!--" in said  # the key shown, as text
    assert all("x \\| &lt;\\!--" in row for row in rows if "topics/x" in row), rows


def test_a_yaml_error_in_a_hostile_file_keeps_the_failure_comment_whole(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.write(f"topics/{FILE}", f"topics:\n  - name: {ns}.t\n    config: {{a: [{HOSTILE}\n")

    planned = repo.run("plan", "--cluster", "test", "--format", "markdown")

    assert planned.code == 1, planned.stdout + planned.stderr
    comment = planned.stdout
    assert "failed" in comment and "Nothing was changed on the cluster." in comment
    _assert_intact(comment)
