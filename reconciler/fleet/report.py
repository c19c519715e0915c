"""report.html: the job's findings as one self-contained page of charts.

Read back from the Parquet tables the job has just written (never from its intermediate
frames), so every number on the page is the tables': drift items per cluster, kind and date
(OUT/drift), each cluster's busiest broker and its partitions against the KIP-578 limits with
the date the load reaches a limit (OUT/broker_load's own `days_to_limit` and
`cluster_days_to_limit`), and the topics with the most drift items. Only those aggregates reach
the driver: a row per cluster, date and kind at most.

The page embeds the numbers it draws as a JSON block (`<script type="application/json"
id="report-data">`), the charts as inline SVG (charts.py, matplotlib) and its CSS: it opens
with no network. `page` is pure; `collect` runs the Spark aggregations.
"""

from __future__ import annotations

import datetime
import html
import json
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from reconciler.planning.drift import KINDS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from reconciler.fleet.charts import Series

REPORT = "report.html"
TOP_TOPICS = 15  # bars in the top drifting topics chart
TOP_CLUSTERS = 40  # rows of the per-cluster drift chart (the JSON block holds them all)
LOAD_LINES = 10  # clusters drawn in the broker load chart (the table lists them all)


@dataclass(frozen=True, slots=True)
class DriftCount:
    cluster: str
    date: str
    kind: str
    items: int  # drift rows of this cluster, snapshot and kind


@dataclass(frozen=True, slots=True)
class Load:
    """A cluster's load on one snapshot, against its limits (null: no limit set)."""

    cluster: str
    date: str
    broker: int  # the broker hosting the most replicas (lowest id on a tie)
    replicas: int
    max_broker_partitions: int | None
    broker_percent: float | None
    broker_days_to_limit: int | None  # the soonest of any broker's days_to_limit
    cluster_partitions: int
    max_partitions: int | None
    cluster_percent: float | None
    cluster_days_to_limit: int | None

    @property
    def days_to_limit(self) -> int | None:
        """Days until the first limit is reached, broker or cluster (None: not growing)."""
        known = [
            d for d in (self.broker_days_to_limit, self.cluster_days_to_limit) if d is not None
        ]
        return min(known) if known else None

    @property
    def limit_reached_on(self) -> str | None:
        days = self.days_to_limit
        if days is None:
            return None
        try:
            reached = datetime.date.fromisoformat(self.date) + datetime.timedelta(days=days)
        except OverflowError:  # a trend so slow its date is past year 9999: no date to show
            return None
        return reached.isoformat()


@dataclass(frozen=True, slots=True)
class TopicDrift:
    topic: str
    items: int  # drift rows naming the topic, every cluster and date
    clusters: int  # clusters it drifts on
    by_kind: tuple[tuple[str, int], ...]  # (kind, items) in KINDS order


@dataclass(frozen=True, slots=True)
class ReportData:
    dates: tuple[str, ...]  # every snapshot date of the broker_load table, ascending
    clusters: tuple[str, ...]  # every cluster of the broker_load table (every snapshot has rows)
    drift: tuple[DriftCount, ...]
    load: tuple[Load, ...]  # clusters with at least one limit set
    top_topics: tuple[TopicDrift, ...]

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        for row, value in zip(data["load"], self.load, strict=True):
            row["limit_reached_on"] = value.limit_reached_on
        return data


def collect(tables: dict[str, DataFrame]) -> ReportData:
    """The page's numbers, aggregated by Spark from the written tables (`drift`, `broker_load`)."""
    from pyspark.sql import functions as F

    c = F.col
    drift = tables["drift"].withColumn("date", c("date").cast("string"))
    load = tables["broker_load"].withColumn("date", c("date").cast("string"))

    snapshots = load.select("cluster", "date").distinct().collect()
    counts = tuple(
        DriftCount(r["cluster"], r["date"], r["kind"], r["items"])
        for r in drift.groupBy("cluster", "date", "kind")
        .agg(F.count(F.lit(1)).alias("items"))
        .orderBy("cluster", "date", "kind")
        .collect()
    )
    # The busiest broker: most replicas, the lowest id on a tie (max_by of a struct key)
    busiest = F.struct(c("replicas"), -c("broker"))
    loads = tuple(
        Load(
            r["cluster"],
            r["date"],
            r["top"]["broker"],
            r["top"]["replicas"],
            r["max_broker_partitions"],
            r["top"]["broker_percent"],
            r["broker_days"],
            r["cluster_partitions"],
            r["max_partitions"],
            r["cluster_percent"],
            r["cluster_days"],
        )
        for r in load.where(
            c("max_broker_partitions").isNotNull() | c("max_partitions").isNotNull()
        )
        .groupBy("cluster", "date")
        .agg(
            F.max_by(F.struct("broker", "replicas", "broker_percent"), busiest).alias("top"),
            F.min("days_to_limit").alias("broker_days"),
            # the same on every row of a snapshot
            F.max("max_broker_partitions").alias("max_broker_partitions"),
            F.max("cluster_partitions").alias("cluster_partitions"),
            F.max("max_partitions").alias("max_partitions"),
            F.max("cluster_percent").alias("cluster_percent"),
            F.max("cluster_days_to_limit").alias("cluster_days"),
        )
        .orderBy("cluster", "date")
        .collect()
    )
    top = tuple(
        TopicDrift(
            r["topic"],
            r["items"],
            r["clusters"],
            tuple((k, r[k]) for k in KINDS),
        )
        for r in drift.groupBy("topic")
        .agg(
            F.count(F.lit(1)).alias("items"),
            F.countDistinct("cluster").alias("clusters"),
            *(F.count(F.when(c("kind") == k, 1)).alias(k) for k in KINDS),
        )
        .orderBy(c("items").desc(), "topic")
        .limit(TOP_TOPICS)
        .collect()
    )
    return ReportData(
        dates=tuple(sorted({r["date"] for r in snapshots})),
        clusters=tuple(sorted({r["cluster"] for r in snapshots})),
        drift=counts,
        load=loads,
        top_topics=top,
    )


def page(data: ReportData) -> str:
    """The HTML page: charts (inline SVG), the tables behind them, and the numbers as JSON."""
    from reconciler.fleet import charts

    latest = _latest_load(data)
    sections = [
        _section(
            "drift-by-kind",
            "Drift items by kind",
            "Every cluster's drift rows on each snapshot date, by kind.",
            charts.drift_by_kind(data.dates, KINDS, _by_date_and_kind(data)),
        ),
        _section(
            "drift-by-cluster",
            "Drift items per cluster",
            "Drift rows per cluster and snapshot date (blank: no snapshot), for up to "
            f"{TOP_CLUSTERS} clusters, those with the most on their latest snapshot (every "
            "cluster's counts are in the page's JSON block).",
            charts.drift_by_cluster(data.dates, *_cluster_grid(data)),
        ),
        _section(
            "broker-load",
            "Broker load against the limits",
            "Each cluster's busiest broker as a share of max_broker_partitions, or its "
            "partitions as a share of max_partitions, whichever is nearer, for up to "
            f"{LOAD_LINES} clusters, the closest to a limit first; dashed: the trend to the date "
            "a limit is reached.",
            charts.broker_load(data.dates, _load_series(data, latest)),
            _load_table(latest),
        ),
        _section(
            "top-topics",
            "Top drifting topics",
            "Topics with the most drift rows over every cluster and date, by kind.",
            charts.top_topics(
                [(t.topic, t.clusters) for t in data.top_topics],
                KINDS,
                [dict(t.by_kind) for t in data.top_topics],
            ),
        ),
    ]
    window = f"{data.dates[0]} to {data.dates[-1]}" if data.dates else "no snapshots"
    numbers = json.dumps(data.as_json(), sort_keys=True).replace("</", "<\\/")
    return _PAGE.format(
        heading=f"Fleet drift: {len(data.clusters)} cluster(s), {window}",
        sections="\n".join(sections),
        data=numbers,
    )


def _by_date_and_kind(data: ReportData) -> dict[tuple[str, str], int]:
    total: dict[tuple[str, str], int] = defaultdict(int)
    for d in data.drift:
        total[(d.date, d.kind)] += d.items
    return total


def _cluster_grid(data: ReportData) -> tuple[list[str], list[list[int | None]]]:
    """(clusters, items per date: None where the cluster has no snapshot that date)."""
    snapshot_dates: dict[str, set[str]] = defaultdict(set)
    for load in data.load:
        snapshot_dates[load.cluster].add(load.date)
    items: dict[tuple[str, str], int] = defaultdict(int)
    for d in data.drift:
        items[(d.cluster, d.date)] += d.items
        snapshot_dates[d.cluster].add(d.date)
    drifting = {d.cluster for d in data.drift}

    def on_latest(cluster: str) -> int:
        return items[(cluster, max(snapshot_dates[cluster]))]

    chosen = sorted(drifting, key=lambda c: (-on_latest(c), c))[:TOP_CLUSTERS]
    grid = [
        [items[(c, day)] if day in snapshot_dates[c] else None for day in data.dates]
        for c in chosen
    ]
    return chosen, grid


def _latest_load(data: ReportData) -> list[Load]:
    """Each cluster's load on its latest snapshot, the closest to a limit first."""
    latest: dict[str, Load] = {}
    for load in data.load:  # ordered by cluster, date
        latest[load.cluster] = load
    return sorted(latest.values(), key=lambda x: (-_share(x), x.cluster))


def _share(load: Load) -> float:
    """The load as a share of its nearer limit, in percent."""
    return max(load.broker_percent or 0.0, load.cluster_percent or 0.0)


def _load_series(data: ReportData, latest: list[Load]) -> list[Series]:
    drawn = {x.cluster for x in latest[:LOAD_LINES]}
    series: dict[str, list[Load]] = defaultdict(list)
    for load in data.load:
        if load.cluster in drawn:
            series[load.cluster].append(load)
    return [
        (
            x.cluster,
            [(p.date, _share(p)) for p in series[x.cluster]],
            x.limit_reached_on,
        )
        for x in latest[:LOAD_LINES]
    ]


def _load_table(latest: list[Load]) -> str:
    head = (
        "<tr><th>cluster</th><th>date</th><th>busiest broker</th><th>replicas</th>"
        "<th>max_broker_partitions</th><th>used</th><th>partitions</th><th>max_partitions</th>"
        "<th>used</th><th>limit reached</th></tr>"
    )
    rows = []
    for x in latest:
        cells = (
            x.cluster, x.date, x.broker, f"{x.replicas:,}", _n(x.max_broker_partitions),
            _pct(x.broker_percent), f"{x.cluster_partitions:,}", _n(x.max_partitions),
            _pct(x.cluster_percent), _reached(x),
        )  # fmt: skip
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in cells) + "</tr>")
    return f'<table class="load">{head}{"".join(rows)}</table>'


def _reached(load: Load) -> str:
    if load.days_to_limit is None:
        return "not growing"
    if load.days_to_limit == 0:
        return "reached"
    return f"{load.limit_reached_on} (in {load.days_to_limit:,} days)"


def _n(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def _section(ident: str, title: str, caption: str, svg: str, extra: str = "") -> str:
    return (
        f'<section id="{ident}"><h2>{html.escape(title)}</h2>'
        f'<p>{html.escape(caption)}</p><figure class="chart" data-chart="{ident}">{svg}</figure>'
        f"{extra}</section>"
    )


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{heading}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; }}
h1 {{ font-size: 1.4em; }} h2 {{ font-size: 1.15em; margin-top: 1.6em; }}
figure.chart {{ margin: 0; }} figure.chart svg {{ max-width: 100%; height: auto; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
td, th {{ border: 1px solid #ccc; padding: 2px 6px; text-align: right; }}
td:first-child, th:first-child {{ text-align: left; }}
</style>
</head>
<body>
<h1>{heading}</h1>
{sections}
<script type="application/json" id="report-data">{data}</script>
</body>
</html>
"""
