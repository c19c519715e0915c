"""Broker load: partition replicas per broker against KIP-578's limits, with the trend.

Counted as the planner's limits check counts the load now (planning/limits.py, step 1): every
topic's replicas, internal, ignored and unmanaged ones included, because brokers host them
all; `max_partitions` counts partitions, not replicas. A broker the snapshot lists but that
hosts nothing shows 0; one that hosts replicas but is not listed (gone from the cluster) shows
with a null rack and `registered` false.

The trend of a broker is over its cluster's snapshots up to the row's date: the change since
the previous snapshot, and the least-squares slope in replicas per day, from which
`days_to_limit` extrapolates when the load grows; `cluster_days_to_limit` is the same for the
cluster's partitions against `max_partitions` (report.html draws both).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.window import WindowSpec

from reconciler.fleet.inputs import Observed

LOAD_COLUMNS = (
    "cluster",
    "date",
    "broker",
    "rack",
    "registered",
    "replicas",
    "max_broker_partitions",
    "broker_percent",
    "replicas_change",
    "replicas_per_day",
    "days_to_limit",
    "cluster_partitions",
    "max_partitions",
    "cluster_percent",
    "cluster_partitions_change",
    "cluster_partitions_per_day",
    "cluster_days_to_limit",
)


def broker_load(rows: DataFrame, observed: Observed, clusters: DataFrame) -> DataFrame:
    """One row per cluster, date and broker (`rows` is drift.prepare's rows)."""
    c = F.col
    # grouped by the snapshot's number (an integer) rather than by (cluster, date): every
    # replica of every row is a row here
    numbered = F.broadcast(observed.snapshots.select("snap", "cluster", "date"))
    hosted = (
        rows.select("snap", F.explode(F.flatten("replicas")).alias("broker"))
        .groupBy("snap", "broker")
        .agg(F.count(F.lit(1)).alias("replicas"))
        .join(numbered, "snap")
        .drop("snap")
    )
    listed = observed.snapshots.select("cluster", "date", F.explode("brokers").alias("b")).select(
        "cluster",
        "date",
        c("b.id").alias("broker"),
        c("b.rack").alias("rack"),
        F.lit(True).alias("registered"),
    )
    partitions = (
        rows.groupBy("snap")
        .agg(F.sum("cur_count").alias("cluster_partitions"))
        .join(numbered, "snap")
        .drop("snap")
    )
    limits = F.broadcast(clusters.select("cluster", "max_broker_partitions", "max_partitions"))
    snapshots = observed.snapshots.select("cluster", "date", "seq")
    by_cluster = Window.partitionBy("cluster").orderBy("seq")
    cluster_rows = (
        snapshots.join(partitions, ["cluster", "date"], "left")
        .join(limits, "cluster", "left")
        .withColumn("cluster_partitions", F.coalesce(c("cluster_partitions"), F.lit(0)))
        .select(
            "*",
            _percent(c("cluster_partitions"), c("max_partitions")).alias("cluster_percent"),
            (c("cluster_partitions") - F.lag("cluster_partitions").over(by_cluster)).alias(
                "cluster_partitions_change"
            ),
            _slope(c("cluster_partitions"), by_cluster).alias("cluster_partitions_per_day"),
        )
        .withColumn(
            "cluster_days_to_limit",
            _days_to_limit(
                c("cluster_partitions"), c("max_partitions"), c("cluster_partitions_per_day")
            ),
        )
    )
    by_broker = Window.partitionBy("cluster", "broker").orderBy("seq")
    brokers = (
        hosted.join(listed, ["cluster", "date", "broker"], "full_outer")
        .join(F.broadcast(cluster_rows), ["cluster", "date"])
        .withColumn("replicas", F.coalesce(c("replicas"), F.lit(0)))
        .withColumn("registered", F.coalesce(c("registered"), F.lit(False)))
    )
    slope = _slope(c("replicas"), by_broker)
    return brokers.select(
        "*",
        _percent(c("replicas"), c("max_broker_partitions")).alias("broker_percent"),
        (c("replicas") - F.lag("replicas").over(by_broker)).alias("replicas_change"),
        slope.alias("replicas_per_day"),
        _days_to_limit(c("replicas"), c("max_broker_partitions"), slope).alias("days_to_limit"),
    ).select(*LOAD_COLUMNS)


def _days_to_limit(value: Column, limit: Column, slope: Column) -> Column:
    """Days until `value` reaches `limit` at `slope` per day: 0 at or over it, null when not
    growing or no limit is set."""
    room = limit - value
    return F.when(room <= 0, F.lit(0)).when(slope > 0, F.ceil(room / slope)).cast("long")


def _percent(value: Column, limit: Column) -> Column:
    return F.when(limit > 0, F.round(value * 100.0 / limit, 1))


def _slope(value: Column, window: WindowSpec) -> Column:
    """Least-squares replicas per day over the snapshots so far (null from a single one)."""
    day = F.datediff(F.to_date(F.col("date")), F.lit("1970-01-01").cast("date"))
    running = window.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    return F.round(F.regr_slope(value.cast("double"), day.cast("double")).over(running), 3)
