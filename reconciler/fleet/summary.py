"""summary.md: what a person reads first after a fleet run, from a few small aggregates.

Pure: the job collects these values (one row per cluster, a few top-N lists, the bad-line
counts: never the fleet's rows) and this module renders them as Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

# The planner's drift kinds, in its order: the table's columns
from reconciler.markdown_escape import code, escape
from reconciler.planning.drift import KINDS

TOP = 10  # incomplete snapshots listed by name


@dataclass(frozen=True, slots=True)
class ClusterDrift:
    """A cluster on its latest snapshot read."""

    cluster: str
    date: str
    differences: int
    topics: int
    by_kind: tuple[tuple[str, int], ...]  # (kind, items), every kind in KINDS order
    since: str | None  # the earliest first_seen among those items
    from_first_snapshot: bool  # that run already held in the first snapshot read


@dataclass(frozen=True, slots=True)
class BrokerRow:
    cluster: str
    date: str
    broker: int
    rack: str | None
    replicas: int
    limit: int | None
    percent: float | None
    per_day: float | None
    days_to_limit: int | None


@dataclass(frozen=True, slots=True)
class ClusterLoad:
    cluster: str
    date: str
    partitions: int
    limit: int | None
    percent: float | None
    per_day: float | None


@dataclass(frozen=True, slots=True)
class ConsistencyDate:
    date: str
    topics: int
    fields: int
    rows: int


@dataclass(frozen=True, slots=True)
class ConsistencyExample:
    date: str
    topic: str
    field: str
    values: str  # e.g. "prod-eu=12, prod-us=6"


@dataclass(frozen=True, slots=True)
class BadLines:
    input: str  # "desired" or "snapshots"
    reason: str  # inputs.REASONS
    lines: int
    example: str | None  # one file holding such lines


@dataclass(frozen=True, slots=True)
class Summary:
    desired: str
    snapshots: str
    since: str | None
    first_date: str | None
    last_date: str | None
    snapshots_read: int
    topic_rows: int
    superseded: int  # snapshots replaced by a later one of the same day
    superseded_lines: int  # their lines, left out
    desired_clusters: int
    clusters: tuple[ClusterDrift, ...]  # sorted by name
    no_desired: tuple[str, ...]  # clusters with snapshots but no compiled desired state
    no_snapshots: tuple[str, ...]  # clusters compiled but never snapshot in the window
    brokers: tuple[BrokerRow, ...]  # the fullest brokers on their cluster's latest date
    cluster_load: tuple[ClusterLoad, ...]  # the fullest clusters on their latest date
    consistency: tuple[ConsistencyDate, ...]  # by date
    examples: tuple[ConsistencyExample, ...]  # from the latest date
    bad: tuple[BadLines, ...]
    # snapshots left out whole, not proven whole by their trailer: (cluster, date, file, why)
    incomplete: tuple[tuple[str, str, str, str], ...] = ()

    @property
    def bad_lines(self) -> int:
        return sum(b.lines for b in self.bad)

    @property
    def drifted(self) -> tuple[ClusterDrift, ...]:
        return tuple(c for c in self.clusters if c.differences)


@dataclass(frozen=True, slots=True)
class FleetResult:
    """What a run of the job wrote: the table directories, summary.md's content, row counts."""

    out: str
    tables: tuple[str, ...]  # OUT/drift, OUT/unmanaged, OUT/broker_load, OUT/consistency
    summary: Summary
    drift_rows: int
    consistency_rows: int


def render(s: Summary) -> str:
    window = (
        f"{escape(s.first_date)} to {escape(s.last_date or '')}" if s.first_date else "no snapshots"
    )
    out = [
        "# Fleet drift",
        "",
        f"{len(s.clusters)} cluster(s), {s.snapshots_read} snapshot(s) from {window}"
        + (f" (since {escape(s.since)})" if s.since else "")
        + f", {s.topic_rows:,} topic rows; desired state of {s.desired_clusters} cluster(s)."
        f" Inputs: {code(s.desired)} and {code(s.snapshots)}.",
        "",
    ]
    if s.bad:
        out += [
            f"**{s.bad_lines:,} bad input line(s)** were left out:",
            "",
            "| input | reason | lines | e.g. in |",
            "|---|---|---:|---|",
            *(
                f"| {escape(b.input)} | {escape(b.reason)} | {b.lines:,} | "
                + (code(b.example) if b.example else "")
                + " |"
                for b in s.bad
            ),
            "",
        ]
    else:
        out += ["Bad input lines: none.", ""]
    if s.incomplete:
        out += [
            f"**{len(s.incomplete):,} incomplete snapshot(s)** were left out whole (not proven "
            "whole by their trailer line; write them again with `reconciler snapshot --format "
            "jsonl`):",
            "",
            "| cluster | date | file | why |",
            "|---|---|---|---|",
            *(
                f"| {escape(c)} | {escape(d)} | {code(f)} | {escape(why)} |"
                for c, d, f, why in s.incomplete[:TOP]
            ),
            *(
                [f"| ... | | | {len(s.incomplete) - TOP:,} more |"]
                if len(s.incomplete) > TOP
                else []
            ),
            "",
        ]
    if s.superseded:
        out += [
            f"{s.superseded} snapshot(s) were replaced by a later one of the same day (their "
            f"{s.superseded_lines:,} topic line(s) left out).",
            "",
        ]
    if s.no_desired:
        out += [
            f"No compiled desired state for {escape(', '.join(s.no_desired))}: their topics "
            "count in "
            "the broker load only (`reconciler compile --all-clusters`).",
            "",
        ]
    if s.no_snapshots:
        out += [f"No snapshot in the window for {escape(', '.join(s.no_snapshots))}.", ""]
    out += _drift(s)
    out += _load(s)
    out += _consistency(s)
    out += [
        "Tables (Parquet): `drift`, `unmanaged`, `broker_load`, `consistency`; "
        "`reconciler help fleet` describes their columns.",
        "",
    ]
    return "\n".join(out)


def _drift(s: Summary) -> list[str]:
    out = [
        "## Drift on each cluster's latest snapshot",
        "",
        f"{len(s.drifted)} of {len(s.clusters)} cluster(s) differ from their specs.",
        "",
    ]
    if not s.clusters:
        return out
    out += [
        "| cluster | date | differences | topics | " + " | ".join(KINDS) + " | drifting since |",
        "|---|---|---:|---:|" + "---:|" * len(KINDS) + "---|",
    ]
    for c in s.clusters:
        counts = dict(c.by_kind)
        since = c.since or ""
        if c.since and c.from_first_snapshot:
            since += " (or before)"
        out.append(
            f"| {escape(c.cluster)} | {escape(c.date)} | {c.differences:,} | {c.topics:,} | "
            + " | ".join(f"{counts.get(k, 0):,}" for k in KINDS)
            + f" | {since} |"
        )
    return [*out, ""]


def _number(value: float | int | None, suffix: str = "") -> str:
    if value is None:
        return ""
    return f"{value:,}{suffix}"


def _load(s: Summary) -> list[str]:
    out = ["## Brokers closest to max_broker_partitions", ""]
    if s.brokers:
        out += [
            "| cluster | date | broker | rack | replicas | limit | used | replicas/day | "
            "days to limit |",
            "|---|---|---:|---|---:|---:|---:|---:|---:|",
            *(
                f"| {escape(b.cluster)} | {escape(b.date)} | {b.broker} | {escape(b.rack or '')} | "
                f"{b.replicas:,} | "
                f"{_number(b.limit)} | {_number(b.percent, '%')} | {_number(b.per_day)} | "
                f"{_number(b.days_to_limit)} |"
                for b in s.brokers
            ),
        ]
    else:
        out.append("No cluster sets limits.max_broker_partitions.")
    out += ["", "## Clusters closest to max_partitions", ""]
    if s.cluster_load:
        out += [
            "| cluster | date | partitions | limit | used | partitions/day |",
            "|---|---|---:|---:|---:|---:|",
            *(
                f"| {escape(c.cluster)} | {escape(c.date)} | {c.partitions:,} | "
                f"{_number(c.limit)} | "
                f"{_number(c.percent, '%')} | {_number(c.per_day)} |"
                for c in s.cluster_load
            ),
        ]
    else:
        out.append("No cluster sets limits.max_partitions.")
    return [*out, ""]


def _consistency(s: Summary) -> list[str]:
    out = ["## Cross-cluster consistency", ""]
    if not any(d.rows for d in s.consistency):
        return [*out, "Topics on several clusters agree wherever their specs agree.", ""]
    out += [
        "Differences between clusters whose specs say the same:",
        "",
        "| date | topics | fields | rows |",
        "|---|---:|---:|---:|",
        *(
            f"| {escape(d.date)} | {d.topics:,} | {d.fields:,} | {d.rows:,} |"
            for d in s.consistency
        ),
        "",
    ]
    if s.examples:
        out += [
            f"On {escape(s.examples[0].date)}, for example:",
            "",
            "| topic | field | values |",
            "|---|---|---|",
            *(f"| {code(e.topic)} | {code(e.field)} | {escape(e.values)} |" for e in s.examples),
            "",
        ]
    return out
