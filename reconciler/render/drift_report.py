"""A drift report for a terminal (text) and a GitHub issue (Markdown); formats, computes nothing.

Both list one line per difference with the spec's file:line, values in Kafka's form with their
human reading (`86400000 (1d)`), and end with what to do next.
"""

from __future__ import annotations

from reconciler.markdown_escape import code, escape
from reconciler.planning.drift import KINDS, AccessDrift, DriftItem, DriftKind, DriftReport
from reconciler.planning.quota_changes import QuotaChange
from reconciler.printable import printable
from reconciler.render import common
from reconciler.spec.quotas import shown_value
from reconciler.wrap import wrap_all

DEFAULT_MAX_CHARS = 60_000  # a GitHub issue or comment body holds 65,536 characters

_WHAT: dict[DriftKind, str] = {
    "missing": "missing from the cluster",
    "config": "config differs",
    "partitions": "partition count differs",
    "replication_factor": "replication factor differs",
    "placement": "replicas are not where `assignments` puts them",
    "present": "still on the cluster, though its spec tombstones it (`state: absent`)",
    "unmanaged": "on the cluster; no spec declares it for this cluster",
    "blocked": "the plan refuses or blocks it",
}
# Kinds whose items carry no values (a topic there or not, a refusal); the others show the
# spec's value against the cluster's
_BARE: frozenset[DriftKind] = frozenset({"missing", "present", "unmanaged", "blocked"})
_VALUED: tuple[DriftKind, ...] = tuple(k for k in KINDS if k not in _BARE)


def _value(item: DriftItem, value: str | None) -> str:
    if value is None:
        return "not set" if item.kind == "config" else "absent"
    if item.kind == "config":
        return common.config_value(item.field.removeprefix("config."), value)
    return value


def _blocked(item: DriftItem) -> str:
    """A blocked item says what the plan says: its error, code and sentence."""
    d = item.diagnostic
    return f"error[{d.code}]: {d.message}" if d is not None else _WHAT["blocked"]


def _detail(item: DriftItem) -> str:
    if item.kind == "blocked":
        return _blocked(item)
    if item.kind in _BARE:
        return _WHAT[item.kind]
    label = item.field.removeprefix("config.") if item.kind == "config" else item.field
    found = f"{label}: spec {_value(item, item.desired)}, cluster {_value(item, item.current)}"
    return f"{found} ({item.diagnostic.message})" if item.diagnostic is not None else found


def headline(report: DriftReport) -> str:
    if report.in_sync:
        return f"In sync: cluster '{report.cluster}' matches the specs."
    unmanaged = report.count("unmanaged")
    managed = len(report.topics) - unmanaged
    access = f", {len(report.access)} ACL binding(s)" if report.access else ""
    quotas = f", {len(report.quotas)} client quota(s)" if report.quotas else ""
    quotas += f", {len(report.users)} SCRAM user(s)" if report.users else ""
    return (
        f"Drift on cluster '{report.cluster}': {len(report.items)} difference(s) on {managed} "
        f"managed topic(s), {unmanaged} unmanaged topic(s){access}{quotas}."
    )


def _quota_line(q: QuotaChange) -> str:
    return f"client quota {q.text} (cluster -> spec)"


def _access_line(a: AccessDrift) -> str:
    return (f"ACL held by the cluster, not derived by the spec: {a.binding}" if a.granted
            else f"ACL the spec derives, missing on the cluster: {a.binding}")  # fmt: skip


_NEXT_STEP = (
    " shows how apply would bring the cluster back to the specs; to keep the cluster's values "
    "instead, "
)
_KEEP = (
    " on a branch writes them into the spec lines they come from: review the diff and open a "
    "pull request (a value from a file's defaults, an anchor or a template is named, to change "
    "by hand)."
)


def _command(report: DriftReport) -> str:
    return f"reconciler plan --cluster {report.cluster}"


def _keep(report: DriftReport) -> str:
    return f"reconciler import --refresh --cluster {report.cluster}"


def render_drift_text(report: DriftReport, width: int | None = None, verbose: bool = False) -> str:
    """One line per difference, wrapped at `width` under its own indent (reconciler/wrap.py);
    `verbose` adds the state hash the report was read from."""
    lines = [printable(headline(report))]
    if verbose:
        lines.append(f"Read from cluster state {printable(report.based_on)}.")
    if not report.in_sync:
        lines.append("")
        for item in report.items:
            where = printable(str(item.location)) if item.location else "(no spec)"
            topic = printable(item.topic) if item.topic else "(cluster)"
            lines.append(f"  {where}  {topic}  {printable(_detail(item))}")
        for a in report.access:
            where = printable(str(a.location)) if a.location else "(no spec)"
            lines.append(f"  {where}  {printable(a.topic)}  {printable(_access_line(a))}")
        lines += [f"  (reconciler.yaml)  {printable(_quota_line(q))}" for q in report.quotas]
        lines += [f"  (reconciler.yaml)  {printable(u.text)}" for u in report.users]
        lines += ["", printable(_command(report)) + _NEXT_STEP + printable(_keep(report)) + _KEEP]
    return "\n".join(wrap_all(lines, width))


def render_drift_markdown(report: DriftReport, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """Markdown for an issue body, never longer than `max_chars`: rows that do not fit are
    counted in a last line instead."""
    head = [
        f"## reconciler drift for {code(report.cluster)}",
        "",
        f"**{escape(headline(report))}**",
    ]
    head.append("")
    if report.in_sync:
        return "\n".join(head)
    head += [f"Read from cluster state {code(report.based_on)}.", ""]
    head += ["| topic | what | spec | cluster | where |", "| --- | --- | --- | --- | --- |"]
    tail = ["", code(_command(report)) + _NEXT_STEP + code(_keep(report)) + escape(_KEEP)]
    rows = [_row(item) for item in report.items]
    rows += [
        f"| {code(a.topic)} | {escape('ACL binding')} | {'' if a.granted else code(a.binding)} "
        f"| {code(a.binding) if a.granted else ''} | "
        f"{code(str(a.location)) if a.location else ''} |"
        for a in report.access
    ]
    rows += [
        f"| | {escape(f'client quota {q.entity.text} {q.key}')} | {code(shown_value(q.after))} "
        f"| {code(shown_value(q.before))} | {code('reconciler.yaml')} |"
        for q in report.quotas
    ]
    rows += [
        f"| | {escape(f'SCRAM user {u.name} {u.mechanism}')} | {escape(u.action)} "
        f"| {escape('; '.join(u.reasons))} | {code('reconciler.yaml')} |"
        for u in report.users
    ]
    used = sum(len(line) + 1 for line in (*head, *tail))
    shown: list[str] = []
    for index, row in enumerate(rows):
        more = len(rows) - index
        reserve = len(f"| … | {more} more difference(s): see `reconciler drift` | | | |") + 1
        if used + len(row) + 1 + (reserve if more > 1 else 0) > max_chars:
            shown.append(f"| … | {more} more difference(s): see `reconciler drift` | | | |")
            break
        shown.append(row)
        used += len(row) + 1
    return "\n".join([*head, *shown, *tail])


def _row(item: DriftItem) -> str:
    what = _blocked(item) if item.kind == "blocked" else _WHAT[item.kind]
    if item.kind in _VALUED:
        label = item.field.removeprefix("config.") if item.kind == "config" else item.field
        what = code(label)
    else:
        what = escape(what)
    spec = "" if item.kind in _BARE else _value(item, item.desired)
    cluster = "" if item.kind in _BARE else _value(item, item.current)
    where = code(str(item.location)) if item.location else ""
    topic = code(item.topic) if item.topic is not None else "(cluster)"
    return f"| {topic} | {what} | {escape(spec)} | {escape(cluster)} | {where} |"
