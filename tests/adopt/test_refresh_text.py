"""`import --refresh`'s edit of one spec file's text: only the drifted values change."""

from __future__ import annotations

import difflib
from pathlib import Path

from reconciler.spec.refresh import Wanted, refresh_text
from tests.spec_repo import SpecRepo

SPEC = """\
# Payments' topics: keep them reviewed.
defaults:
  config:
    min.insync.replicas: 2   # every topic of this file

common: &common
  compression.type: zstd

topics:
  # The ledger: retention is a legal matter
  - name: pay.ledger
    partitions: 6
    replication_factor: 3
    config:
      retention.ms: 7d       # a week, agreed with audit
      segment.bytes: "536870912"
      max.message.bytes: 1048588
      cleanup.policy: delete
  - name: pay.events
    partitions: 3
    config:
      <<: *common
      retention.ms: 168h
  - name: pay.bare
    partitions: 1
"""


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_a_drifted_value_is_written_in_place_in_the_old_style() -> None:
    text, written, left = refresh_text(
        SPEC,
        "topics/pay.yaml",
        [
            Wanted("pay.ledger", "config.retention.ms", str(14 * 86_400_000)),
            Wanted("pay.ledger", "config.segment.bytes", "1073741824"),
            Wanted("pay.ledger", "config.max.message.bytes", "2097152"),
            Wanted("pay.ledger", "config.cleanup.policy", "compact,delete"),
            Wanted("pay.events", "config.retention.ms", str(336 * 3_600_000)),
            Wanted("pay.ledger", "partitions", "12"),
        ],
    )
    assert left == ()
    assert changed_lines(SPEC, text) == [
        "-    partitions: 6",
        "+    partitions: 12",
        "-      retention.ms: 7d       # a week, agreed with audit",
        '-      segment.bytes: "536870912"',
        "-      max.message.bytes: 1048588",
        "-      cleanup.policy: delete",
        "+      retention.ms: 14d       # a week, agreed with audit",
        '+      segment.bytes: "1073741824"',
        "+      max.message.bytes: 2097152",
        "+      cleanup.policy: compact,delete",
        "-      retention.ms: 168h",
        "+      retention.ms: 336h",
    ]
    assert [(w.field, w.line, w.before, w.after) for w in written][:2] == [
        ("config.retention.ms", 15, "7d", "14d"),
        ("config.segment.bytes", 16, '"536870912"', '"1073741824"'),
    ]


def test_a_unit_that_does_not_divide_falls_back_to_an_exact_one() -> None:
    text, _, _ = refresh_text(
        SPEC, "t.yaml", [Wanted("pay.ledger", "config.retention.ms", "5400000")]
    )
    assert "      retention.ms: 90m       # a week, agreed with audit\n" in text


def test_an_override_added_on_the_cluster_is_a_new_line_in_the_topic() -> None:
    text, written, _ = refresh_text(
        SPEC,
        "t.yaml",
        [
            Wanted("pay.ledger", "config.segment.ms", "3600000"),
            Wanted("pay.bare", "config.retention.ms", "86400000"),
        ],
    )
    assert changed_lines(SPEC, text) == [
        "+      segment.ms: 1h",
        "+    config:",
        "+      retention.ms: 1d",
    ]
    assert text.index("segment.ms: 1h") > text.index("cleanup.policy: delete")
    assert [(w.before, w.after) for w in written] == [(None, "1h"), (None, "1d")]


def test_an_override_removed_on_the_cluster_loses_its_line() -> None:
    one = "topics:\n  - name: a\n    config:\n      retention.ms: 1d  # x\n    partitions: 1\n"
    text, written, left = refresh_text(one, "t.yaml", [Wanted("a", "config.retention.ms", None)])
    assert (text, left) == ("topics:\n  - name: a\n    partitions: 1\n", ())
    assert written[0].after is None
    text, _, _ = refresh_text(SPEC, "t.yaml", [Wanted("pay.ledger", "config.cleanup.policy", None)])
    assert changed_lines(SPEC, text) == ["-      cleanup.policy: delete"]


def test_values_shared_with_other_topics_are_named_not_rewritten() -> None:
    text, written, left = refresh_text(
        SPEC,
        "topics/pay.yaml",
        [
            Wanted("pay.ledger", "config.min.insync.replicas", "1"),
            Wanted("pay.events", "config.compression.type", "lz4"),
        ],
    )
    assert (text, written) == (SPEC, ())
    assert left[0].reason.startswith("topics/pay.yaml:4: min.insync.replicas of 'pay.ledger' ")
    assert "`defaults:`" in left[0].reason
    assert left[1].reason.startswith("topics/pay.yaml:7: compression.type of 'pay.events' ")
    assert "anchor &common" in left[1].reason and "merged at topics/pay.yaml:22" in left[1].reason


def test_an_aliased_value_is_named_at_its_anchor() -> None:
    spec = "x: &week 7d\ntopics:\n  - name: a\n    config:\n      retention.ms: *week\n"
    text, _, left = refresh_text(spec, "t.yaml", [Wanted("a", "config.retention.ms", "1000")])
    assert text == spec
    assert left[0].reason.startswith("t.yaml:1: retention.ms of 'a' is the anchor &week")
    spec = "x: &week 7d\ntopics:\n  - name: a\n    config:\n      retention.ms: &w 7d\n"
    _, _, left = refresh_text(spec, "t.yaml", [Wanted("a", "config.retention.ms", "1000")])
    assert "the anchor &w that other entries reuse" in left[0].reason


def test_crlf_files_keep_their_line_ends() -> None:
    spec = "topics:\r\n  - name: a\r\n    config:\r\n      retention.ms: 1d\r\n"
    text, _, _ = refresh_text(spec, "t.yaml", [Wanted("a", "config.segment.ms", "60000")])
    assert text == spec + "      segment.ms: 1m\r\n"


def test_the_drift_issue_says_how_to_open_the_pull_request_that_accepts_it() -> None:
    from reconciler.diagnostics import Location
    from reconciler.planning.drift import DriftItem, DriftReport
    from reconciler.render.drift_report import render_drift_markdown, render_drift_text

    item = DriftItem(
        "pay.ledger", "config", "config.retention.ms", "604800000", "1209600000",
        Location("topics/pay.yaml", 11, 5),
    )  # fmt: skip
    report = DriftReport("prod", "abc", (item,))
    body = render_drift_markdown(report)
    assert "`reconciler import --refresh --cluster prod`" in body
    assert "pull request" in body
    assert "reconciler import --refresh --cluster prod" in render_drift_text(report, 300)


def test_a_list_written_inline_stays_a_list() -> None:
    spec = "topics:\n  - name: a\n    config:\n      cleanup.policy: [delete]  # x\n"
    text, _, left = refresh_text(
        spec, "t.yaml", [Wanted("a", "config.cleanup.policy", "compact,delete")]
    )
    assert (text, left) == (spec.replace("[delete]", "[compact, delete]"), ())


def test_refresh_refuses_the_options_of_a_new_import_in_one_sentence(tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path, "127.0.0.1:1", "t")
    mixed = repo.run("import", "--refresh", "--out", "topics", "--keep-assignments")
    assert mixed.code == 1
    assert mixed.stderr.strip() == (
        "error: import --refresh edits the specs that exist and takes no --out or "
        "--keep-assignments (those choose new files); scope it with --topic REGEX"
    )
    scoped = repo.run("import", "--topic", "^a")
    assert scoped.code == 1 and "a new import takes --include REGEX" in scoped.stderr


def test_two_overrides_added_to_a_topic_without_config_make_one_block() -> None:
    spec = "topics:\n  - name: a\n    description: |\n      Two lines\n      of text.\n"
    spec += "  - name: b\n"
    text, _, _ = refresh_text(
        spec,
        "t.yaml",
        [Wanted("a", "config.retention.ms", "3600000"), Wanted("a", "config.segment.ms", "60000")],
    )
    assert text == spec.replace(
        "of text.\n", "of text.\n    config:\n      retention.ms: 1h\n      segment.ms: 1m\n"
    )
    end = "topics:\n  - name: a\n    partitions: 1"  # no newline at the end
    text, _, _ = refresh_text(
        end,
        "t.yaml",
        [Wanted("a", "config.retention.ms", "3600000"), Wanted("a", "config.segment.ms", "60000")],
    )
    assert text == end + "\n    config:\n      retention.ms: 1h\n      segment.ms: 1m"
