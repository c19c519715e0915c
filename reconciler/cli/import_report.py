"""What `import` and `import --refresh` print: text for people, JSON for scripts
(schemas/import.schema.json, one document either way: `mode` says which)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from reconciler.cli.width import echo as width_echo
from reconciler.cli.width import text_width
from reconciler.errors import ConfigError
from reconciler.spec.source import relative
from reconciler.words import listing

if TYPE_CHECKING:
    from reconciler.workflow.import_topics import ImportRun
    from reconciler.workflow.refresh import RefreshRun

FORMAT_VERSION = 1


def import_json(run: ImportRun, cluster: str, root: Path) -> dict[str, Any]:
    from reconciler import diagnostics

    return {
        "format_version": FORMAT_VERSION,
        "mode": "import",
        "cluster": cluster,
        "complete": not (run.inexact or run.problems),
        "pinned_cluster_id": run.pinned,
        "files": [
            {"path": relative(f.path, root), "topics": [t.name for t in f.topics]}
            for f in run.files
        ],
        "topics": [
            {
                "name": t.name,
                "file": relative(f.path, root),
                "assignments_kept": t.kept,
                "notes": list(t.notes),
            }
            for f in run.files
            for t in f.topics
        ],
        "skipped": sorted(
            [{"topic": name, "reason": "declared"} for name in run.skipped]
            + [{"topic": name, "reason": why} for name, why in run.left_out],
            key=lambda s: s["topic"],
        ),
        "inexact": list(run.inexact),
        "diagnostics": [diagnostics.to_json(d) for d in run.problems],
    }


def refresh_json(run: RefreshRun) -> dict[str, Any]:
    from reconciler import diagnostics

    return {
        "format_version": FORMAT_VERSION,
        "mode": "refresh",
        "cluster": run.cluster,
        "complete": run.complete,
        "files": [
            {
                "path": f.file,
                "changes": [
                    {
                        "topic": w.topic,
                        "field": w.field,
                        "line": w.line,
                        "before": w.before,
                        "after": w.after,
                    }
                    for w in f.written
                ],
            }
            for f in run.files
        ],
        "left": [{"topic": x.topic, "field": x.field, "message": x.reason} for x in run.left],
        "untouched": [{"topic": topic, "reason": why} for topic, why in run.untouched],
        "inexact": list(run.inexact),
        "diagnostics": [diagnostics.to_json(d) for d in run.problems],
    }


def print_json(document: dict[str, Any]) -> None:
    click.echo(json.dumps(document, indent=2))


def print_kept(run: ImportRun) -> None:
    """Name every topic whose spec pins its placement, and how to hand it back to Kafka."""
    width = text_width()
    for topic in run.topics:
        if topic.kept is not None:
            width_echo(
                f"{topic.name} keeps its assignments ({topic.kept}); delete its `assignments:` "
                "to let Kafka place its replicas",
                width,
            )


def print_refresh(run: RefreshRun) -> None:
    """The text report of `import --refresh`; raises ConfigError (exit 1) when a drifted value
    was left or the result does not plan to nothing."""
    width = text_width()
    values = sum(len(f.written) for f in run.files)
    for edit in run.files:
        width_echo(f"wrote {edit.file}: {len(edit.written)} value(s)", width)
        for w in edit.written:
            field = w.field.removeprefix("config.")
            if w.before is None:
                change = f"added {w.after}"
            elif w.after is None:
                change = f"removed (was {w.before})"
            else:
                change = f"{w.before} -> {w.after}"
            width_echo(f"  line {w.line}: {w.topic} {field}: {change}", width)
    for topic, why in run.untouched:
        width_echo(f"not refreshed: {topic}: {why}", width)
    for left in run.left:
        click.echo(f"left: {left.reason}", err=True)
    for diagnostic in run.problems:
        click.echo(str(diagnostic), err=True)
    if run.inexact:
        click.echo(
            f"warning: a plan would still change {listing(list(run.inexact))} after the edit",
            err=True,
        )
    if values:
        topics = len({w.topic for f in run.files for w in f.written})
        width_echo(
            f"Refreshed {values} value(s) of {topics} topic(s) in {len(run.files)} file(s) from "
            f"cluster '{run.cluster}'. Review `git diff`, commit it on a branch and open a pull "
            "request: its plan shows no changes for them.",
            width,
        )
    elif not run.left:
        width_echo(
            f"Nothing to refresh: no spec'd value differs on cluster '{run.cluster}'.", width
        )
    if not run.complete:
        raise ConfigError(
            f"{len(run.left) + len(run.inexact) + len(run.problems)} drifted value(s) were not "
            "written (see above): change them where named, then run `reconciler plan`"
        )
