"""What `import` and `import --refresh` print: text for people, JSON for scripts
(schemas/import.schema.json, one document either way: `mode` says which)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from reconciler.render.lines import Line, err, out
from reconciler.spec.source import relative
from reconciler.words import listing

if TYPE_CHECKING:
    from reconciler.import_cluster import ImportRun
    from reconciler.spec.refresh import RefreshRun

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


def import_lines(run: ImportRun, cluster: str) -> list[Line]:
    """The text report of `import`, up to its verdict: what was pinned and created, what was
    skipped, each topic's notes and the problems that make it inexact."""
    lines: list[Line] = []
    if run.pinned is not None:
        lines.append(
            out(f"pinned cluster '{cluster}' in reconciler.yaml: cluster_id: {run.pinned}")
        )
    if run.unpinned is not None:
        lines.append(
            err(
                f"warning: cluster '{cluster}' is not pinned and reconciler.yaml's layout left "
                f'no line to add it to: add `cluster_id: "{run.unpinned}"` under `{cluster}:`'
            )
        )
    lines += [out(f"created {done.path} ({len(done.topics)} topic(s))") for done in run.files]
    if run.skipped:
        lines.append(
            out(f"skipped {len(run.skipped)} topic(s) a spec already names: {listing(run.skipped)}")
        )
    lines += [err(f"note: {topic.name}: {note}") for topic in run.topics for note in topic.notes]
    lines += kept_lines(run)
    count = len(run.topics)
    if not count:
        lines.append(
            out(
                f"Nothing to import: every topic of cluster '{cluster}' that reconciler manages "
                "is already in a spec."
            )
        )
        return lines
    lines.append(
        out(f"Imported {count} topic(s) of cluster '{cluster}' into {len(run.files)} file(s).")
    )
    lines += [err(str(diagnostic)) for diagnostic in run.problems]
    if run.inexact:
        lines.append(
            err(
                f"warning: a plan would still change {len(run.inexact)} imported topic(s) "
                f"({listing(list(run.inexact))}); the notes above say why"
            )
        )
    return lines


def import_next_lines(
    cluster: str, include: str | None, scoped: bool, chose_acls: bool = False
) -> list[Line]:
    """After an exact import: what to run next, and (adopting team by team, `--include`
    without a `manage:` scope) how to keep other teams' topics out of this repository's plans.
    `chose_acls`: --include/--exclude chose the bindings of a new `acls:` file, whose
    ownership is the cluster's (the bindings left out are revoked by a whole plan)."""
    lines = [out(f"Next: `reconciler plan --cluster {cluster}` shows no changes for them.")]
    if chose_acls:
        lines.append(
            err(
                "The new acls: file holds the chosen bindings only, and an acls: key makes "
                "every binding inside policy.manage the spec's: a whole plan revokes the others "
                "(acl_revoke hazards); `plan --topic` with the same pattern shows the chosen "
                "part. Import them too, or narrow policy.manage (`reconciler help access`)."
            )
        )
    if include is not None and not scoped:
        lines.append(
            err(
                f"To adopt only these topics, add `manage: ['{include}']` under "
                f"clusters.{cluster}.policy in reconciler.yaml: topics outside it are then "
                "neither planned, reported unmanaged, nor drift (`reconciler help adopting`)."
            )
        )
    return lines


def kept_lines(run: ImportRun) -> list[Line]:
    """Name every topic whose spec pins its placement, and how to hand it back to Kafka."""
    return [
        out(
            f"{topic.name} keeps its assignments ({topic.kept}); delete its `assignments:` "
            "to let Kafka place its replicas"
        )
        for topic in run.topics
        if topic.kept is not None
    ]


def refresh_lines(run: RefreshRun) -> list[Line]:
    """The text report of `import --refresh` (the command fails after it when the run is not
    complete: a drifted value left, or a result that does not plan to nothing)."""
    lines: list[Line] = []
    values = sum(len(f.written) for f in run.files)
    for edit in run.files:
        lines.append(out(f"wrote {edit.file}: {len(edit.written)} value(s)"))
        for w in edit.written:
            field = w.field.removeprefix("config.")
            if w.before is None:
                change = f"added {w.after}"
            elif w.after is None:
                change = f"removed (was {w.before})"
            else:
                change = f"{w.before} -> {w.after}"
            lines.append(out(f"  line {w.line}: {w.topic} {field}: {change}"))
    lines += [out(f"not refreshed: {topic}: {why}") for topic, why in run.untouched]
    lines += [err(f"left: {left.reason}") for left in run.left]
    lines += [err(str(diagnostic)) for diagnostic in run.problems]
    if run.inexact:
        lines.append(
            err(f"warning: a plan would still change {listing(list(run.inexact))} after the edit")
        )
    if values:
        topics = len({w.topic for f in run.files for w in f.written})
        lines.append(
            out(
                f"Refreshed {values} value(s) of {topics} topic(s) in {len(run.files)} file(s) "
                f"from cluster '{run.cluster}'. Review `git diff`, commit it on a branch and open "
                "a pull request: its plan shows no changes for them."
            )
        )
    elif not run.left:
        lines.append(
            out(f"Nothing to refresh: no spec'd value differs on cluster '{run.cluster}'.")
        )
    return lines


def refresh_incomplete(run: RefreshRun) -> str | None:
    """Why `import --refresh` fails (exit 1) after its report, or None when it is complete."""
    if run.complete:
        return None
    return (
        f"{len(run.left) + len(run.inexact) + len(run.problems)} drifted value(s) were not "
        "written (see above): change them where named, then run `reconciler plan`"
    )
