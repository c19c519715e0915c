"""What `validate` prints: every diagnostic at its file:line, the files it could not read, and
one summary line; or the same as one JSON document (schemas/validate.schema.json)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reconciler import diagnostics
from reconciler.render.lines import Line, out
from reconciler.words import counted

if TYPE_CHECKING:
    from reconciler.spec.loader import LoadResult


def validate_document(result: LoadResult) -> dict[str, Any]:
    """Each diagnostic in the plan's shape (diagnostics.to_json)."""
    return {
        "valid": result.valid,
        "files": result.files,
        "topics": _topics(result),
        "diagnostics": [diagnostics.to_json(d) for d in result.diagnostics],
        "not_read": [
            {"path": n.path, "reason": n.reason, "could_hold_specs": n.could_hold_specs}
            for n in result.not_read
        ],
    }


def validate_lines(result: LoadResult) -> list[Line]:
    lines = [out(str(diagnostic)) for diagnostic in result.diagnostics]
    # The R013 warnings above name those that matter; dotfiles (`.gitkeep`) go unnamed
    lines += [
        out(f"not read: {skipped.path} ({skipped.reason})")
        for skipped in result.not_read
        if not skipped.could_hold_specs and not skipped.hidden
    ]
    files = counted(result.files, "file")
    topics = _topics(result)
    if result.valid:
        warned = f" ({counted(result.warnings, 'warning')})" if result.warnings else ""
        lines.append(
            out(
                f"ok: {counted(len(result.topic_names), 'topic')} in {files} for "
                f"{counted(len(topics), 'cluster')} ({', '.join(topics)}){warned}"
            )
        )
    else:
        problems = f"{counted(result.errors, 'error')}, {counted(result.warnings, 'warning')}"
        lines.append(out(f"{problems} in {files}"))
    return lines


def _topics(result: LoadResult) -> dict[str, int]:
    """Each cluster's number of topics, by cluster name."""
    return {name: len(state.topics) for name, state in sorted(result.desired.items())}
