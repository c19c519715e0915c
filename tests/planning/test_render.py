"""Renderers against golden files, over plans made by make_plan from constructed states.

Golden files live in tests/planning/golden/. After an intended output change, rewrite them with

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/planning

and review the diff of the golden files like any other code change. Under CI (`CI` set, as
GitHub Actions and GitLab set it) UPDATE_GOLDEN fails the test instead: a CI run that rewrote
the goldens would pass whatever the output became.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reconciler import __version__
from reconciler.cluster.adapter.boundary import library_versions
from reconciler.planning.json_plan import made_by_json
from reconciler.planning.plan import MadeBy, Plan
from reconciler.render import common
from reconciler.render.json import render_json
from reconciler.render.markdown import COLLAPSE_ABOVE, render_markdown
from reconciler.render.text import render_text
from tests.planning import samples
from tests.planning.factories import checked_json

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
ANSI = re.compile(r"\x1b\[[0-9;]*m")

PLANS: dict[str, Callable[[], Plan]] = {
    "kitchen_sink": samples.kitchen_sink,
    "refused": samples.refused,
    "no_changes": samples.no_changes,
    "over_limits": samples.over_limits,
}


def made_by() -> MadeBy:
    """What a live `reconciler plan` records (the clients loaded: librdkafka's version too)."""
    return MadeBy(__version__, library_versions())


def saved_json(plan: Plan) -> str:
    """The plan as `plan -o` saves it (with the versions that made it, as `reconciler plan`
    records them), the versions written as VERSION: a release changes no golden file."""
    document = json.loads(render_json(dataclasses.replace(plan, made_by=made_by())))
    recorded = document["made_by"]
    assert recorded["reconciler"] == __version__ and recorded["libraries"]
    document["made_by"] = {
        "reconciler": "VERSION",
        "libraries": dict.fromkeys(recorded["libraries"], "VERSION"),
    }
    return json.dumps(document, indent=2, sort_keys=True)


def golden_document(name: str) -> dict[str, Any]:
    """A golden JSON plan as this reconciler would have saved it (its real versions)."""
    document: dict[str, Any] = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    document["made_by"] = made_by_json(made_by())
    return document


RENDERERS: dict[str, Callable[[Plan], str]] = {
    "txt": render_text,
    "color.txt": lambda plan: render_text(plan, color=True),
    "md": render_markdown,
    "json": saved_json,
}


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        if os.environ.get("CI"):
            pytest.fail(f"UPDATE_GOLDEN=1 under CI would rewrite {name} instead of checking it")
        path.write_text(actual + "\n", encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run UPDATE_GOLDEN=1 .venv/bin/pytest tests/planning"
    expected = path.read_text(encoding="utf-8").removesuffix("\n")
    assert actual == expected, f"{name} differs: run UPDATE_GOLDEN=1 and review the diff"


@pytest.mark.parametrize("suffix", RENDERERS)
@pytest.mark.parametrize("plan_name", PLANS)
def test_golden(plan_name: str, suffix: str) -> None:
    check_golden(f"{plan_name}.{suffix}", RENDERERS[suffix](PLANS[plan_name]()))


def test_collapsed_markdown_for_large_plans() -> None:
    large = render_markdown(samples.many_creates(COLLAPSE_ABOVE + 1))
    check_golden("many_creates.md", large)
    assert large.count("<details>") == COLLAPSE_ABOVE + 1
    small = render_markdown(samples.many_creates(COLLAPSE_ABOVE))
    assert "<details>" not in small
    assert small.count("#### + create") == COLLAPSE_ABOVE


@pytest.mark.parametrize("plan_name", PLANS)
def test_colour_is_the_only_difference(plan_name: str) -> None:
    plan = PLANS[plan_name]()
    coloured = render_text(plan, color=True)
    assert ANSI.search(coloured)
    assert ANSI.sub("", coloured) == render_text(plan)
    assert not ANSI.search(render_text(plan))
    assert not ANSI.search(render_markdown(plan))


def test_text_shape() -> None:
    text = render_text(samples.kitchen_sink())
    lines = text.splitlines()
    assert lines[-2] == "Plan: 3 to create, 4 to update, 3 to delete. 7 errors, 2 warnings."
    assert lines[-1].startswith("Not applyable: fix the 7 errors (max_deletes; ")
    # Diagnostics come before the changes.
    assert text.index("Diagnostics:") < text.index("Changes, in execution order:")
    assert "      - segment.bytes: 536870912 (512MiB) (falls back to 1073741824 (1GiB))" in lines
    assert "      partitions: 3 -> 6" in lines
    assert "  + create payments.orders.v1" in lines
    assert "  ~ update payments.ledger.v1" in lines
    assert "  - delete payments.legacy" in lines
    assert any(
        line.startswith("      ! hazard key_reorder (needs acknowledgment): ") for line in lines
    )
    assert any(line.startswith("      ! hazard delete (acknowledged): ") for line in lines)


def test_no_changes_text() -> None:
    assert render_text(samples.no_changes()).splitlines()[-1] == (
        "No changes. The cluster matches the specs."
    )


def test_json_renderer_is_the_json_plan() -> None:
    plan = samples.kitchen_sink()
    assert json.loads(render_json(plan)) == checked_json(plan)


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("retention.ms", "604800000", "604800000 (7d)"),
        ("retention.ms", "-1", "-1 (unlimited)"),
        ("segment.bytes", "536870912", "536870912 (512MiB)"),
        ("max.message.bytes", "1048588", "1048588"),  # no shorter reading: shown as is
        ("cleanup.policy", "compact,delete", "compact,delete"),  # not a duration or size
        ("no.such.key", "12", "12"),
    ],
)
def test_config_values_show_their_human_reading(key: str, value: str, shown: str) -> None:
    assert common.config_value(key, value) == shown
