"""Text output that scans: wrapped at the width the CLI chooses, each message continuing under
its own start; the state hash only on request; the refusal said once.

The goldens (tests/planning/golden/representative.{80,120}.txt) are the representative plan
of samples.py at 80 and 120 columns; rewrite them with `UPDATE_GOLDEN=1 .venv/bin/pytest
tests/planning` (never under CI: test_render.check_golden refuses).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import sys
import termios
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reconciler.cli.width import text_width
from reconciler.planning.drift import drift
from reconciler.planning.hazards import entry
from reconciler.planning.plan import Plan, make_plan
from reconciler.render.drift_report import render_drift_text
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text
from reconciler.spec.model import ClusterConfig
from reconciler.wrap import HANG, wrap
from tests.planning import samples
from tests.planning.factories import cluster, desired, spec, spread, topic
from tests.planning.test_render import ANSI, check_golden
from tests.spec.helpers import run_cli

WIDTHS = (80, 120)
PLANS: dict[str, Callable[[], Plan]] = {
    "representative": samples.representative,
    "kitchen_sink": samples.kitchen_sink,
    "refused": samples.refused,
    "over_limits": samples.over_limits,
}


WORD = re.compile(r"(?:`[^`]*`|[^ `]|`)+")  # a `quoted` span is one word: it never breaks


def fits(line: str, width: int) -> bool:
    """At most `width` columns, or a single word (a name or value that cannot break), or no
    word at all (an indent alone, wider than the width, has nothing to break)."""
    plain = ANSI.sub("", line)
    return len(plain) <= width or len(WORD.findall(plain)) <= 1


def words(text: str) -> list[str]:
    return ANSI.sub("", text).split()


@pytest.mark.parametrize("width", WIDTHS)
def test_representative_plan_golden(width: int) -> None:
    text = render_text(samples.representative(), width=width)
    check_golden(f"representative.{width}.txt", text)
    assert all(fits(line, width) for line in text.splitlines())
    if width < len(samples.LONG_NAME):  # the long name is kept whole, on a line of its own
        longest = max(text.splitlines(), key=len)
        assert longest.strip().rstrip(":") == samples.LONG_NAME


def test_goldens_are_not_rewritten_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.planning import test_render

    monkeypatch.setattr(test_render, "UPDATE", True)
    monkeypatch.setenv("CI", "true")
    golden = test_render.GOLDEN / "representative.80.txt"
    before = golden.read_text(encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="under CI"):
        check_golden("representative.80.txt", "rewritten")
    assert golden.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120, 200])
@pytest.mark.parametrize("plan_name", PLANS)
def test_every_line_fits_and_no_word_is_lost(plan_name: str, width: int) -> None:
    plan = PLANS[plan_name]()
    for color in (False, True):
        text = render_text(plan, width=width, color=color)
        assert all(fits(line, width) for line in text.splitlines()), text
        assert words(text) == words(render_text(plan))
    # Colour codes take no columns: coloured and plain break at the same places
    assert ANSI.sub("", render_text(plan, width=width, color=True)) == render_text(
        plan, width=width
    )


def test_messages_continue_under_their_own_start() -> None:
    lines = render_text(samples.representative(), width=80).splitlines()
    hazard = next(i for i, line in enumerate(lines) if "! hazard key_reorder" in line)
    assert lines[hazard].startswith("      ! hazard key_reorder (needs acknowledgment): ")
    assert lines[hazard + 1].startswith(" " * (6 + HANG) + "going from 3 to 6")
    diagnostic = next(i for i, line in enumerate(lines) if "error[P101]" in line)
    assert lines[diagnostic + 1].startswith(" " * (2 + HANG) + "shrink from 3 to 1")
    # A sub-line (2 deeper) is never mistaken for a continuation (HANG deeper)
    reassign = next(i for i, line in enumerate(lines) if "replication_factor: 1 -> 2" in line)
    assert lines[reassign + 1] == " " * (6 + HANG) + "removed)"
    assert lines[reassign + 2].startswith("        partition 0:")


def test_an_approval_item_is_never_split() -> None:
    for width in range(30, 130):
        text = render_text(samples.representative(), width=width)
        item = "`- {retention_decrease: {key: retention.ms, from: 604800000, to: 86400000}}`"
        assert text.count(item) == 2, width


@given(
    text=st.lists(st.text(alphabet="ab`é-", min_size=1, max_size=30), max_size=40).map(" ".join),
    indent=st.integers(0, 10),
    width=st.integers(1, 100),
)
@example(text="", indent=2, width=1)  # an indent alone, wider than the width (found by a run)
def test_wrap_keeps_every_word_in_order(text: str, indent: int, width: int) -> None:
    line = " " * indent + text
    lines = wrap(line, width)
    assert lines[0].startswith(" " * indent)
    assert all(part.startswith(" " * (indent + HANG)) for part in lines[1:])
    assert " ".join(part.strip() for part in lines).split() == line.split()
    for part in lines:
        assert fits(part, width)


def test_no_width_leaves_lines_alone() -> None:
    plan = samples.representative()
    assert render_text(plan, width=None) == render_text(plan)
    assert "    " + samples.LONG_NAME not in render_text(plan)


def test_the_state_hash_only_when_verbose() -> None:
    plan = samples.representative()
    assert plan.based_on not in render_text(plan, width=80)
    assert render_text(plan).splitlines()[0] == "Plan for cluster prod"
    verbose = render_text(plan, width=None, verbose=True)
    assert verbose.splitlines()[0] == f"Plan for cluster prod, based on {plan.based_on}"
    assert plan.based_on in render_markdown(plan)  # the pull-request comment keeps it


@pytest.mark.parametrize("plan_name", PLANS)
def test_a_refusal_is_said_once(plan_name: str) -> None:
    plan = PLANS[plan_name]()
    text = render_text(plan, width=None)
    markdown = render_markdown(plan)
    assert not plan.applyable
    assert text.count("Not applyable") == 1 and markdown.count("Not applyable") == 1
    assert text.splitlines()[-1].startswith("Not applyable: ")
    assert text.splitlines()[-1].endswith(", then plan again.")
    for output in (text, markdown):
        assert "need acknowledgment (" not in output and "needs acknowledgment (" not in output
    # What to add is in the sentence: each unapproved hazard's own approval item
    verdict = text.splitlines()[-1]
    for name, hazard in plan.unacknowledged_hazards[:5]:
        assert name in verdict and f"`- {entry(hazard.code, hazard.approval)}`" in verdict
    # apply shows the plan without it: its own refusal says it (tests/apply/test_preflight.py)
    assert "Not applyable" not in render_text(plan, verdict=False)


def test_drift_text_wraps_and_shows_its_hash_when_verbose() -> None:
    state = cluster(
        topic(samples.LONG_NAME, spread(3, 2), overrides={"retention.ms": "86400000"}),
    )
    specs = desired(spec(samples.LONG_NAME, line=4, config={"retention.ms": "604800000"}))
    plan = make_plan(specs, state, ClusterConfig("prod", "k:9092"), samples.FINGERPRINT)
    report = drift(plan, specs, state)
    text = render_drift_text(report, 80)
    assert all(fits(line, 80) for line in text.splitlines())
    assert words(text) == words(render_drift_text(report))
    assert samples.FINGERPRINT not in text
    assert f"Read from cluster state {samples.FINGERPRINT}." in render_drift_text(
        report, None, verbose=True
    )


# --- the width the CLI chooses -----------------------------------------------------------------


@pytest.fixture
def terminal() -> Iterator[tuple[TextIO, Callable[[int], None]]]:
    """A pseudo-terminal to put stdout on (in the test itself: pytest's capture puts its own
    back after set-up), and a way to set its size."""
    leader, follower = pty.openpty()
    stream = os.fdopen(follower, "w")

    def size(columns: int) -> None:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))

    yield stream, size
    stream.close()
    os.close(leader)


def test_a_terminal_gives_its_own_width(
    terminal: tuple[TextIO, Callable[[int], None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream, size = terminal
    monkeypatch.setattr(sys, "stdout", stream)
    monkeypatch.setenv("COLUMNS", "90")
    size(132)
    assert text_width() == 132
    size(0)  # a pseudo-terminal nobody sized: COLUMNS, else 80
    assert text_width() == 90
    monkeypatch.delenv("COLUMNS")
    assert text_width() == 80


@pytest.mark.parametrize(("columns", "width"), [(None, 80), ("120", 120), (" 100 ", 100)])
def test_without_a_terminal_columns_else_80(
    monkeypatch: pytest.MonkeyPatch, columns: str | None, width: int
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert text_width() == width


@pytest.mark.parametrize("columns", ["abc", "0", "-5", "80.5"])
def test_a_bad_columns_is_named_and_80_used(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], columns: str
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert text_width() == 80
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"warning: COLUMNS={columns!r} is not a positive whole number")


def test_validate_wraps_its_diagnostics_and_json_never(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text("clusters:\n  local:\n    bootstrap: k:9092\n")
    topics = f"topics:\n  - name: {samples.LONG_NAME}\n    config:\n      retention.msx: 1d\n"
    (tmp_path / "topics" / "t.yaml").write_text(topics)
    monkeypatch.setenv("COLUMNS", "60")
    code, narrow = run_cli(["--repo", str(tmp_path), "validate"], env={"NO_COLOR": "1"})
    monkeypatch.setenv("COLUMNS", "100000")
    _, wide = run_cli(["--repo", str(tmp_path), "validate"], env={"NO_COLOR": "1"})
    assert code == 1 and "error[R105]" in narrow
    assert len(wide.splitlines()) < len(narrow.splitlines())
    assert all(fits(line, 60) for line in narrow.splitlines()), narrow
    assert words(narrow) == words(wide)
    diagnostic = next(i for i, line in enumerate(narrow.splitlines()) if "error[R105]" in line)
    assert narrow.splitlines()[diagnostic + 1].startswith(" " * HANG)
    monkeypatch.setenv("COLUMNS", "20")
    _, data = run_cli(["--repo", str(tmp_path), "validate", "--format", "json"])
    assert json.loads(data)["valid"] is False
