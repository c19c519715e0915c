"""The plan as a pull-request comment (GitHub-flavoured Markdown), never with ANSI colour.

A heading with the cluster and a summary table, diagnostics first, then a section per topic.
Past COLLAPSE_ABOVE topics each section folds into a `<details>` block, so a large plan stays
reviewable. The renderer formats the Plan value and computes nothing.

A comment is kept within `max_chars` (GitHub refuses a body over 65,536 characters). A plan
that fits is rendered whole. One that does not is fitted, in this order of priority: the
heading, summary table, applyable line and summary line; the error diagnostics; the hazards
that need acknowledgment; the warnings; the other hazards (so every hazard is listed with its
topic and code, in a table of their own, even when its change's section is not shown); the
broker load; then the per-topic sections in execution order, and the unmanaged topics. What
does not fit is counted in a line saying where the full plan is. Were even the first part too
long (thousands of errors), its lists are cut the same way, errors before warnings.

With --changed-since the changes come in two sections, the pull request's own then the
pre-existing drift, each in execution order, under the same budget. A scoped plan's drift
diagnostics (which neither count in the summary table nor block the plan) are a table of their
own after the plan's diagnostics, fitted after the plan's own hazards.

`render_failure` is the comment for a command that could not plan at all (invalid specs, an
unreachable cluster), so a pull request or an issue never shows an empty or stale body.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reconciler.diagnostics import Diagnostic
from reconciler.markdown_escape import code, escape
from reconciler.planning.changes import (
    Action,
    Hazard,
    TopicChange,
)
from reconciler.planning.plan import Plan
from reconciler.planning.refusal import refusal
from reconciler.render import common
from reconciler.render import markdown_blocks as parts
from reconciler.spec.quotas import shown_value

COLLAPSE_ABOVE = 20  # topics (or unmanaged names); beyond this, their lists are collapsible
DEFAULT_MAX_CHARS = 60_000  # GitHub refuses a comment or issue body over 65,536 characters
_FULL_PLAN = (
    "the full plan is in the saved plan (`plan -o`, the workflow's plan artifact) and in "
    "`reconciler plan --format text`"
)
_LISTS_ALL = "`reconciler plan --format text` lists them all"


def render_markdown(plan: Plan, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The comment for `plan`, at most `max_chars` characters long."""
    whole = "\n".join(_whole(plan))
    if len(whole) <= max_chars:
        return whole
    return _at_most("\n".join(_fitted(plan, max_chars)), max_chars)


def render_failure(
    command: str,
    cluster: str,
    message: str,
    diagnostics: Sequence[Diagnostic],
    max_chars: int = DEFAULT_MAX_CHARS,
) -> str:
    """The comment of a `command` that failed before it had a result: what failed (`message`)
    and the diagnostics that made it fail, errors first, at most `max_chars` characters."""
    head = [
        f"## reconciler {command} for {code(cluster)}",
        "",
        f"**`reconciler {command}` failed**: {escape(message)}",
        "",
        "Nothing was changed on the cluster.",
    ]
    tail = []
    if diagnostics:
        head.append("")
        tail = [f"{code(f'reconciler validate --cluster {cluster}')} lists the same problems."]
    room = _Room(max_chars - _cost([*head, *tail]))
    errors, error_counts = _unzip(parts.diagnostic_rows([d for d in diagnostics if d.is_error]))
    warnings, warning_counts = _unzip(
        parts.diagnostic_rows([d for d in diagnostics if not d.is_error])
    )
    if diagnostics:
        room.reserve(
            [*_DIAGNOSTICS_HEAD, _more_diagnostics(len(diagnostics), len(diagnostics)), ""]
        )
    shown_errors, shown_warnings = _prefixes(room, [_rows(errors), _rows(warnings)])
    table = _table(
        _DIAGNOSTICS_HEAD,
        errors,
        shown_errors,
        warnings,
        shown_warnings,
        _more_diagnostics,
        (error_counts, warning_counts),
    )
    return _at_most("\n".join([*head, *table, *tail]), max_chars)


# --- the whole plan ---------------------------------------------------------------------------


def _whole(plan: Plan) -> list[str]:
    lines = _head(plan)
    if plan.diagnostics:
        rows = parts.diagnostic_rows(plan.diagnostics)
        lines += [*_DIAGNOSTICS_HEAD, *(row for row, _ in rows), ""]
    if plan.drift.diagnostics:
        rows = parts.diagnostic_rows(_errors_first(plan.drift.diagnostics))
        lines += [*_drift_head(plan), *(row for row, _ in rows), ""]
    lines += _load(plan)
    collapse = len(plan.changes) + len(plan.drift.changes) > COLLAPSE_ABOVE
    for title, changes in _groups(plan):
        lines += title
        for topic_change in changes:
            lines += parts.topic_section(topic_change, collapse)
    if plan.unmanaged:
        lines += _unmanaged(plan.unmanaged, len(plan.unmanaged))
    return lines + _tail(plan)


def _head(plan: Plan) -> list[str]:
    s = plan.summary
    refused = refusal(plan)
    verdict = "Applyable." if refused is None else f"**Not applyable**: {escape(refused)}."
    lines = [
        f"## reconciler plan for {code(plan.cluster)}",
        "",
        "| create | update | delete | errors | warnings |",
        "| ---: | ---: | ---: | ---: | ---: |",
        f"| {s.create} | {s.update} | {s.delete} | {s.errors} | {s.warnings} |",
        "",
        f"Based on cluster state {code(plan.based_on)}. {verdict}",
        "",
    ]
    if plan.scoped:
        lines += [
            f"Compared with {code(plan.changed_since or '')}: {s.from_change} topic "
            f"change(s) from this pull request, {len(plan.drift.changes)} pre-existing drift "
            "shown apart below (not part of this plan: not applied with it, not blocking it; "
            "the drift job's to report).",
            "",
        ]
    elif plan.changed_since is not None:
        lines += [
            f"Compared with {code(plan.changed_since)}: {s.from_change} topic change(s) "
            f"from this pull request, {s.drift} pre-existing drift (the cluster already differed "
            "from specs this pull request does not change; apply makes both).",
            "",
        ]
    return lines + _policy(plan)


def _policy(plan: Plan) -> list[str]:
    """The policy and quota sections: kept whole in any budget (a gate turned off, a quota
    lowered, is never cut)."""
    policy = [
        (f"{code('policy.' + c.setting)}: {code(c.before)} → {code(c.after)}", c.hazards)
        for c in plan.policy_changes
    ]
    quotas = [
        (f"{code(q.entity.text)} {code(q.key)}: {code(shown_value(q.before))} → "
         f"{code(shown_value(q.after))}", q.hazards)
        for q in plan.quotas
    ]  # fmt: skip
    acls = [
        (f"{a.action} {code(a.binding.text)}{parts.kept_note(a.change)}", a.hazards)
        for a in plan.acls
    ]
    users = [(f"{u.action} {code(u.text)}", u.hazards) for u in plan.users]
    return (
        _section("### Policy changes", policy)
        + _section("### Client quota changes", quotas)
        + _section("### ACL changes (`acls:`)", acls)
        + _section("### SCRAM user changes", users)
    )


def _section(title: str, rows: list[tuple[str, tuple[Hazard, ...]]]) -> list[str]:
    if not rows:
        return []
    lines = [title, ""]
    for line, hazards in rows:
        lines.append(f"- {line}")
        for hazard in hazards:
            lines.append(
                f"  - **Hazard** {code(hazard.code)} ({common.hazard_status(hazard)}): "
                f"{escape(hazard.message)}"
            )
    return [*lines, ""]


def _tail(plan: Plan) -> list[str]:
    # The refusal is the head's verdict, said once (planning/refusal.py)
    if plan.empty and plan.applyable:
        return [escape(common.no_changes(plan))]
    return [f"**{escape(common.summary_line(plan))}**"]


_DIAGNOSTICS_HEAD = [
    "### Diagnostics",
    "",
    "| severity | code | rule | topic | where | message |",
    "| --- | --- | --- | --- | --- | --- |",
]


def _load(plan: Plan) -> list[str]:
    if not plan.load_near_limit:
        return []
    return [
        f"### {common.load_title(plan)}",
        "",
        "| " + " | ".join(common.LOAD_HEADER) + " |",
        "| ---: | --- | ---: | ---: | ---: | ---: |",
        *("| " + " | ".join(map(escape, common.load_cells(r))) + " |" for r in plan.broker_load),
        "",
    ]


def _groups(plan: Plan) -> list[tuple[list[str], tuple[TopicChange, ...]]]:
    """(title lines, changes) of each changes section: one, or with --changed-since the
    pull request's own changes, then the pre-existing drift (each in execution order)."""
    if plan.scoped:
        return _scoped_groups(plan)
    if not plan.changes:
        return []
    if plan.changed_since is None:
        return [(["### Changes, in execution order", ""], plan.changes)]
    ref = code(plan.changed_since)
    # A change without a cause cannot be claimed to be drift: it is shown as the change's own
    ours = tuple(c for c in plan.changes if c.cause != "drift")
    drift = tuple(c for c in plan.changes if c.cause == "drift")
    groups: list[tuple[list[str], tuple[TopicChange, ...]]] = []
    if ours:
        title = (
            f"### Changes from this pull request (spec files changed since {ref}), in "
            "execution order"
        )
        groups.append(([title, ""], ours))
    if drift:
        title = f"### Pre-existing drift (specs unchanged since {ref}), in execution order"
        note = (
            "The cluster already differed from these specs before this pull request; apply "
            "makes these changes too."
        )
        groups.append(([title, "", note, ""], drift))
    return groups


def _scoped_groups(plan: Plan) -> list[tuple[list[str], tuple[TopicChange, ...]]]:
    """A scoped plan's sections: its changes (the pull request's, and what they depend on),
    then the drift set apart, with its first diagnostics."""
    ref = code(plan.changed_since or "")
    groups: list[tuple[list[str], tuple[TopicChange, ...]]] = []
    if plan.changes:
        title = (
            f"### Changes from this pull request (spec files changed since {ref}, and the "
            "topics they depend on), in execution order"
        )
        groups.append(([title, ""], plan.changes))
    drift = plan.drift
    if drift.changes or drift.diagnostics:
        lines = [
            f"### Pre-existing drift (specs unchanged since {ref}), in execution order",
            "",
            "The cluster already differed from these specs before this pull request. Not part "
            "of this plan: its changes are not applied with it and its errors and hazards do "
            "not block it; the drift job reports it (`reconciler drift`).",
            "",
        ]
        groups.append((lines, drift.changes))
    return groups


def _drift_head(plan: Plan) -> list[str]:
    """The title of a scoped plan's drift diagnostics: the table head, said not to block."""
    return [
        "### Diagnostics of the pre-existing drift",
        "",
        "On topics this pull request does not change (the whole plan has them, this one does "
        f"not): they do not block it. Specs unchanged since {code(plan.changed_since or '')}.",
        "",
        *_DIAGNOSTICS_HEAD[2:],
    ]


def _errors_first(found: Sequence[Diagnostic]) -> list[Diagnostic]:
    return sorted(found, key=lambda d: not d.is_error)  # stable: diagnostic order within each


def _unmanaged(names: Sequence[str], total: int) -> list[str]:
    """The unmanaged topics section listing `names` of `total`, folded past COLLAPSE_ABOVE."""
    items = [f"- {code(name)}" for name in names]
    if len(names) < total:
        items.append(f"- … and {total - len(names):,} more: {_LISTS_ALL}")
    if total <= COLLAPSE_ABOVE:
        return ["### Unmanaged topics", "", "On the cluster, in no spec:", "", *items, ""]
    summary = f"<summary>{total:,} topics on the cluster, in no spec</summary>"
    return ["### Unmanaged topics", "", "<details>", summary, "", *items, "", "</details>", ""]


# --- a plan fitted to a budget ----------------------------------------------------------------


def _fitted(plan: Plan, max_chars: int) -> list[str]:
    """The comment for a plan too long to show whole; see the module's docstring for what is
    kept first. Every list reserves its heading and its longest count line before any row is
    placed, so the count line always fits, and gives that back when nothing was left out."""
    head, tail = _head(plan), _tail(plan)
    room = _Room(max_chars - _cost([*head, *tail]))

    errors, error_counts = _unzip(parts.diagnostic_rows(plan.errors))
    warnings, warning_counts = _unzip(
        parts.diagnostic_rows([d for d in plan.diagnostics if not d.is_error])
    )
    hazards = [(c.topic, h) for c in plan.changes for h in c.hazards]
    blocking = [_hazard_row(t, h) for t, h in hazards if h.blocks_apply]
    others = [_hazard_row(t, h) for t, h in hazards if not h.blocks_apply]
    drift_found = _errors_first(plan.drift.diagnostics)
    drift_errors, drift_error_counts = _unzip(
        parts.diagnostic_rows([d for d in drift_found if d.is_error])
    )
    drift_warnings, drift_warning_counts = _unzip(
        parts.diagnostic_rows([d for d in drift_found if not d.is_error])
    )
    groups = _groups(plan)
    collapse = len(plan.changes) + len(plan.drift.changes) > COLLAPSE_ABOVE

    most_diagnostics = _more_diagnostics(sum(error_counts), sum(warning_counts))
    most_hazards = _more_hazards(len(blocking), len(others))
    most_changes = [_more_changes(changes) for _, changes in groups]
    if errors or warnings:
        room.reserve([*_DIAGNOSTICS_HEAD, most_diagnostics, ""])
    if hazards:
        room.reserve([*_HAZARDS_HEAD, most_hazards, ""])
    most_drift = _more_diagnostics(sum(drift_error_counts), sum(drift_warning_counts))
    if drift_found:
        room.reserve([*_drift_head(plan), most_drift, ""])
    for (title, _), most in zip(groups, most_changes, strict=True):
        room.reserve([*title, most, ""])
    if plan.unmanaged:
        room.reserve(_unmanaged((), len(plan.unmanaged)))

    shown_errors, shown_blocking, shown_warnings, shown_others, shown_drift_errors, shown_drift = (
        _prefixes(
            room,
            [
                _rows(errors),
                _rows(blocking),
                _rows(warnings),
                _rows(others),
                _rows(drift_errors),
                _rows(drift_warnings),
            ],
        )
    )
    if (errors or warnings) and (shown_errors, shown_warnings) == (len(errors), len(warnings)):
        room.release([most_diagnostics])
    if hazards and (shown_blocking, shown_others) == (len(blocking), len(others)):
        room.release([most_hazards])
    if drift_found and (shown_drift_errors, shown_drift) == (
        len(drift_errors),
        len(drift_warnings),
    ):
        room.release([most_drift])
    load = _load(plan)
    if not room.take(load):
        load = []  # the per-broker limit errors (P111) above say the same, shorter

    sections: list[list[list[str]]] = []
    for (_, changes), most in zip(groups, most_changes, strict=True):
        blocks = [parts.topic_section(c, collapse) for c in changes]
        [count] = _prefixes(room, [blocks])
        sections.append(blocks[:count])
        if count == len(changes):
            room.release([most])
    [named] = _prefixes(room, [_rows([f"- {code(name)}" for name in plan.unmanaged])])

    lines = list(head)
    lines += _table(
        _DIAGNOSTICS_HEAD,
        errors,
        shown_errors,
        warnings,
        shown_warnings,
        _more_diagnostics,
        (error_counts, warning_counts),
    )
    lines += _table(
        _drift_head(plan),
        drift_errors,
        shown_drift_errors,
        drift_warnings,
        shown_drift,
        _more_diagnostics,
        (drift_error_counts, drift_warning_counts),
    )
    lines += load
    lines += _table(_HAZARDS_HEAD, blocking, shown_blocking, others, shown_others, _more_hazards)
    for (title, changes), shown in zip(groups, sections, strict=True):
        lines += title
        for section in shown:
            lines += section
        if len(shown) < len(changes):
            lines += [_more_changes(changes[len(shown) :]), ""]
    if plan.unmanaged:
        lines += _unmanaged(plan.unmanaged[:named], len(plan.unmanaged))
    return lines + tail


class _Room:
    """Characters left in the budget; a line costs its length and its newline."""

    def __init__(self, chars: int) -> None:
        self.left = chars

    def take(self, lines: Sequence[str]) -> bool:
        """Spend the room for `lines` if there is enough, and say whether there was."""
        cost = _cost(lines)
        if cost > self.left:
            return False
        self.left -= cost
        return True

    def reserve(self, lines: Sequence[str]) -> None:
        self.left -= _cost(lines)

    def release(self, lines: Sequence[str]) -> None:
        self.left += _cost(lines)


def _cost(lines: Sequence[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _prefixes(room: _Room, lists: Sequence[Sequence[Sequence[str]]]) -> list[int]:
    """How many blocks (a row, a topic's section) of each list are shown, filling the lists in
    order of priority: once one block does not fit, no later one is shown, so a short warning
    never takes the place of an error, nor a later change the place of an earlier one."""
    counts: list[int] = []
    stopped = False
    for blocks in lists:
        count = 0
        while not stopped and count < len(blocks):
            if room.take(blocks[count]):
                count += 1
            else:
                stopped = True
        counts.append(count)
    return counts


def _unzip(rows: Sequence[tuple[str, int]]) -> tuple[list[str], list[int]]:
    return [row for row, _ in rows], [count for _, count in rows]


def _rows(rows: Sequence[str]) -> list[list[str]]:
    return [[row] for row in rows]


def _table(
    head: Sequence[str],
    first: Sequence[str],
    shown_first: int,
    then: Sequence[str],
    shown_then: int,
    more: Callable[[int, int], str],
    counts: tuple[Sequence[int], Sequence[int]] | None = None,
) -> list[str]:
    """A table of two kinds of rows (errors and warnings; hazards that block and the others),
    the shown ones first, then a count of what is left out (`counts`: how many items each row
    stands for, when a row groups several)."""
    if not first and not then:
        return []
    rows = [*first[:shown_first], *then[:shown_then]]
    if counts is None:
        counts = ([1] * len(first), [1] * len(then))
    left_out = (sum(counts[0][shown_first:]), sum(counts[1][shown_then:]))
    if any(left_out):
        rows.append(more(*left_out))
    return [*head, *rows, ""]


_HAZARDS_HEAD = [
    "### Hazards",
    "",
    "Every hazard of the plan, here because the plan is too long for every change to be shown "
    "below; a hazard's full message is in its topic's section, or in `reconciler plan --format "
    "text`.",
    "",
    "| topic | hazard | status |",
    "| --- | --- | --- |",
]


def _hazard_row(topic: str, hazard: Hazard) -> str:
    # No message: a row per hazard must stay short for every hazard of a large plan to fit
    return f"| {code(topic)} | {code(hazard.code)} | {common.hazard_status(hazard)} |"


def _more_diagnostics(errors: int, warnings: int) -> str:
    return (
        f"| … | | | | | {errors + warnings:,} more diagnostic(s) not shown ({errors:,} error(s), "
        f"{warnings:,} warning(s)): {_LISTS_ALL} |"
    )


def _more_hazards(blocking: int, others: int) -> str:
    return (
        f"| … | | {blocking + others:,} more hazard(s) not shown ({blocking:,} needing "
        f"acknowledgment): {_LISTS_ALL} |"
    )


def _more_changes(changes: Sequence[TopicChange]) -> str:
    actions = [c.action for c in changes]
    return (
        f"*… and {len(changes):,} more change(s) ({actions.count(Action.CREATE):,} to create, "
        f"{actions.count(Action.UPDATE):,} to update, {actions.count(Action.DELETE):,} to "
        f"delete) not shown: {_FULL_PLAN}.*"
    )


def _at_most(text: str, max_chars: int) -> str:
    """`text` cut to `max_chars`: only when even the heading and summary cannot fit (a budget
    far below any real comment's), so the limit holds whatever the plan."""
    if len(text) <= max_chars:
        return text
    cut = "\n\n*… cut at the comment size limit*"
    return text[: max(max_chars - len(cut), 0)] + cut[:max_chars]
