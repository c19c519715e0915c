"""The fleet drift job: compiled desired state and nightly snapshots in, Parquet tables out.

    OUT/drift         cluster, date, topic, field, desired, actual, kind, first_seen, ...
    OUT/unmanaged     topics no spec names, with first_seen
    OUT/broker_load   replicas per broker and partitions per cluster against KIP-578 limits
    OUT/consistency   topics that differ between clusters where the specs do not make them
    OUT/summary.md    the run in a page
    OUT/report.html   the tables as charts, one self-contained page (report.py)

Everything is DataFrame operations: the only rows that reach the driver are the summary's
few aggregates. The same code runs on `local[*]` from `reconciler fleet drift` and on a
cluster through `spark-submit` of reconciler/cli/spark_submit.py, which hands its arguments to
the same command:

    spark-submit --master spark://HOST:7077 reconciler/cli/spark_submit.py \\
        --desired DESIRED --snapshots SNAPSHOTS --out OUT [--since YYYY-MM-DD]
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pyspark import StorageLevel
from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from reconciler.errors import EnvironmentProblem, ReconcilerError
from reconciler.fleet import java_errors, s3a, storage
from reconciler.fleet import summary as report
from reconciler.fleet.consistency import CONSISTENCY_COLUMNS, consistency
from reconciler.fleet.drift_columns import (
    DRIFT_COLUMNS,
    UNMANAGED_COLUMNS,
    Rows,
    items,
    prepare,
    with_first_seen,
)
from reconciler.fleet.inputs import (
    LAYOUT,
    Desired,
    Observed,
    local_dir,
    read_desired,
    read_snapshots,
)
from reconciler.fleet.load import LOAD_COLUMNS, broker_load
from reconciler.fleet.report import REPORT
from reconciler.fleet.report import collect as report_data
from reconciler.fleet.report import page as report_page
from reconciler.fleet.shipping import Inquiry, Shipment, ship
from reconciler.planning.drift import KINDS

A = TypeVar("A")
B = TypeVar("B")

TABLES = ("drift", "unmanaged", "broker_load", "consistency")
SUMMARY = "summary.md"
TOP = 10  # rows in each of the summary's lists

# Settings the job's results depend on, set on whatever session runs it: string partition
# values (a cluster named 2024 stays "2024"), UTC dates.
_SQL = {
    "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
    # The topic rows are shuffled once, by topic alone (drift.prepare): a join or grouping on
    # (cluster, topic) or (date, topic) then reuses that partitioning instead of shuffling the
    # fleet again
    "spark.sql.requireAllClusterKeysForCoPartition": "false",
    # A key named twice in one input (an object's key, a partition listed twice among a
    # topic's reassignments): the last wins, as in the planner's dicts. Spark's default
    # fails the whole job on the first such map.
    "spark.sql.mapKeyDedupPolicy": "LAST_WIN",
    # Spark 4.0 turned ANSI mode on by default; 3.5 has it off. The job's expressions are
    # written for it (try_ functions wherever a value may not convert), and pinned, a 3.5
    # session (or a cluster's spark-defaults.conf) evaluates them as 4.x does.
    "spark.sql.ansi.enabled": "true",
    # Two more defaults 4.0 changed: 3.5 fails a datetime pattern the parser of Spark 2 would
    # have read otherwise, and a Parquet write or read of a date before 1582 (a date=
    # directory may name one), where 4.x reads and writes the calendar as it is.
    "spark.sql.legacy.timeParserPolicy": "CORRECTED",
    "spark.sql.parquet.datetimeRebaseModeInWrite": "CORRECTED",
    "spark.sql.parquet.datetimeRebaseModeInRead": "CORRECTED",
    "spark.sql.parquet.int96RebaseModeInWrite": "CORRECTED",
    "spark.sql.parquet.int96RebaseModeInRead": "CORRECTED",
}

# Spark's own log: errors only. (The CLI also sends the JVM's output to a file.)
_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def session(
    master: str | None = None, conf: Mapping[str, str] | None = None, log: Path | None = None
) -> SparkSession:
    """A SparkSession for the job: `master` (default `local[*]`, unless spark-submit already
    chose one), the UI off, and on a local master the driver bound to 127.0.0.1. With `log`,
    the JVM's own output goes to that file instead of this process's stdout and stderr."""
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit started the JVM for us
    if master is None and not submitted:
        master = "local[*]"
    builder = SparkSession.builder.appName("reconciler fleet drift")
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        # With the UI off nobody reads the finished queries' plans, which Spark otherwise keeps
        # (1,000 of them, each with its plan's text) on the driver's heap for a session's life
        "spark.sql.ui.retainedExecutions": "20",
        "spark.ui.retainedJobs": "50",
        "spark.ui.retainedStages": "50",
        **_SQL,
    }
    java: list[str] = []  # the driver JVM's options (it starts here unless spark-submit ran)
    if master is not None:
        builder = builder.master(master)
        if master.startswith("local"):
            settings |= {
                "spark.driver.host": "127.0.0.1",
                "spark.driver.bindAddress": "127.0.0.1",
                # Spark's 200 shuffle partitions cost more in task overhead than they save on
                # one machine; 16 per core keeps a task's share of a large fleet small, and
                # adaptive execution merges them again for a small one
                "spark.sql.shuffle.partitions": str(16 * _local_cores(master)),
                # Listing a directory of over 32 subdirectories is otherwise a Spark job of
                # its own, on the same cores, for each input read: about a second each here
                "spark.sql.sources.parallelPartitionDiscovery.threshold": "100000",
                # The cached rows are built once and read a few times, in one JVM's memory:
                # compressing them (a dictionary of each string column's values, per batch of
                # rows) cost more time than reading them uncompressed (`reconciler help benchmarks`)
                "spark.sql.inMemoryColumnarStorage.compressed": "false",
            }
            # Spark's default driver heap (1 GiB) ran out in a parquet write on a six-cluster
            # generated fleet with bad lines, on PySpark 3.5 and 4.x alike: on a local master the
            # driver is the whole job, so it gets a quarter of this machine's memory (2 to 8
            # GiB) unless --conf spark.driver.memory says otherwise. The JVM takes memory as it
            # needs it; this is its ceiling, not what it reserves.
            settings["spark.driver.memory"] = _local_driver_memory()
            # On a local master this JVM does all the work, a throughput job: the parallel
            # collector, without G1's concurrent marking and costlier write barriers, ran the
            # 100-cluster benchmark about a tenth faster (`reconciler help benchmarks`)
            java.append("-XX:+UseParallelGC")
    if not submitted:
        config = Path(tempfile.gettempdir()) / "reconciler-fleet-log4j2.properties"
        config.write_text(_LOG4J2, encoding="utf-8")
        java.append(f"-Dlog4j.configurationFile=file:{config}")
        settings["spark.driver.extraJavaOptions"] = " ".join(java)
    settings |= dict(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    local = master is not None and master.startswith("local")
    with _jvm_output(log), _worker_python(local):
        try:
            spark = builder.getOrCreate()
        except Exception as exc:  # pyspark raises its own error types for a JVM that died
            where = f"; Spark's output is in {log}" if log is not None else ""
            raise EnvironmentProblem(
                f"Spark could not start ({type(exc).__name__}: {str(exc).splitlines()[0]})"
                f"{where}; it needs Java 17 or newer on PATH or in JAVA_HOME"
            ) from exc
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _local_driver_memory() -> str:
    """A quarter of physical memory, at least 2 GiB and at most 8 GiB, in Spark's MiB form."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):  # no such sysconf name on this platform
        total = 0
    mib = min(max(total // 4 // 2**20, 2048), 8192)
    return f"{mib}m"


def _local_cores(master: str) -> int:
    """N of local[N] (local[*] and local: this machine's cores)."""
    inside = master.partition("[")[2].partition("]")[0].split(",")[0]
    return int(inside) if inside.isdigit() else os.cpu_count() or 1


@contextmanager
def _worker_python(local: bool) -> Iterator[None]:
    """On a local master, the workers run this very interpreter unless PYSPARK_PYTHON says
    otherwise: Spark would start the `python3` on PATH, which need not be the one that has
    reconciler and its dependencies (pipx, cron, a CI step). PySpark reads the variable when
    the context starts; it is restored after."""
    if not local or "PYSPARK_PYTHON" in os.environ:
        yield
        return
    os.environ["PYSPARK_PYTHON"] = sys.executable
    try:
        yield
    finally:
        os.environ.pop("PYSPARK_PYTHON", None)


@contextmanager
def _jvm_output(log: Path | None) -> Iterator[None]:
    """Point file descriptors 1 and 2 at `log` while the JVM starts: it inherits them, and
    keeps writing there (its warnings, and Python workers' output) for its lifetime."""
    if log is None:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with log.open("ab") as target:
        os.dup2(target.fileno(), 1)
        os.dup2(target.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def execute(
    desired: str,
    snapshots: str,
    out: str,
    *,
    master: str | None = None,
    since: str | None = None,
    conf: Iterable[tuple[str, str]] = (),
    log: Path | None = None,
) -> report.FleetResult:
    """`run` on a session of its own (see `session`), stopped afterwards. A failure inside
    Spark (a Java exception, an unreadable remote path) becomes a one-line ReconcilerError
    naming Spark's log; anything else is a bug and propagates."""
    _check_inputs(desired, snapshots)  # before Spark starts: a wrong path fails in a moment
    settings = dict(conf)
    if "PYSPARK_GATEWAY_PORT" not in os.environ:  # spark-submit's classpath is the submitter's
        from reconciler.local.distribution import cache_dir

        settings |= s3a.settings((desired, snapshots, out), settings, cache_dir())
    inquiry = Inquiry()  # what the executors' Python imports, asked while the JVM starts
    spark = session(master, settings, log)
    shipped: Shipment | None = None
    try:
        with spark_failures(log):
            # the executors need no reconciler of their own
            shipped = ship(spark.sparkContext, inquiry.modules())
            return run(spark, desired, snapshots, out, since)
    finally:
        spark.stop()
        if shipped is not None:
            shipped.remove()


@contextmanager
def spark_failures(log: Path | None) -> Iterator[None]:
    """A failure inside Spark (a Java exception, an unreadable remote path) raised as a
    one-line ReconcilerError naming Spark's `log`; anything else propagates. Apart from
    `execute` so that the tests can hold a job on their shared session to it."""
    try:
        yield
    except ReconcilerError:
        raise
    except Exception as exc:
        if not isinstance(exc, PySparkException) and not type(exc).__module__.startswith("py4j"):
            raise
        where = f" (Spark's log: {log})" if log is not None else ""
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        asked = java_errors.innermost(exc)
        cause = f" ({asked})" if asked else _root_cause(text)
        raise ReconcilerError(f"the Spark job failed: {first}{cause}{where}") from exc


def run(
    spark: SparkSession, desired: str, snapshots: str, out: str, since: str | None = None
) -> report.FleetResult:
    """Read both inputs, write the four tables, summary.md and report.html under `out`."""
    _check_inputs(desired, snapshots)
    storage.check_input(spark, desired, "--desired", _DESIRED_HINT)  # remote ones: by Hadoop
    storage.check_input(spark, snapshots, "--snapshots", _SNAPSHOTS_HINT)
    storage.check_output(spark, out)  # a remote OUT takes a write, before any input is read
    for key, value in _SQL.items():
        spark.conf.set(key, value)
    # Both reads run a first pass of their own (the cluster lines): at once (see _at_once)
    wanted, observed = _at_once(
        spark,
        lambda: read_desired(spark, desired),
        lambda: read_snapshots(spark, snapshots, since),
    )
    # Every table derives from these rows: computed once (the one pass that parses every
    # snapshot line, counting the bad ones on the way), kept for the rest of the job.
    prepared = prepare(wanted, observed)
    rows = prepared.rows
    found = with_first_seen(items(prepared), observed.snapshots).persist(
        StorageLevel.MEMORY_AND_DISK
    )
    try:
        written = tuple(_join(out, name) for name in TABLES)
        write_all(spark, tuple(zip(outputs(found, rows, observed, wanted), written, strict=True)))
        tables = {
            name: spark.read.parquet(path) for name, path in zip(TABLES, written, strict=True)
        }
        result = _summary(desired, snapshots, since, prepared, observed, wanted, tables)
        page = report_page(report_data(tables))
    finally:
        for frame in (found, *prepared.cached, *wanted.cached, *observed.cached):
            frame.unpersist()
    storage.write_text(spark, _join(out, SUMMARY), report.render(result.summary))
    storage.write_text(spark, _join(out, REPORT), page)
    return report.FleetResult(
        out, written, result.summary, result.drift_rows, result.consistency_rows
    )


Output = tuple[DataFrame, tuple[str, ...], bool]


def outputs(
    found: DataFrame, rows: DataFrame, observed: Observed, wanted: Desired
) -> tuple[Output, ...]:
    """The four tables in TABLES order: (frame, sort order, whether to stage it). A global
    sort samples its input in a job of its own before sorting it, so a table computed from
    the cached rows is staged (persisted) first rather than computed twice; drift and
    unmanaged read `found`, cached already."""
    return (
        (
            found.select(*(_dated(c) for c in DRIFT_COLUMNS)),
            ("cluster", "date", "topic", "field"),
            False,
        ),
        (
            found.where(F.col("kind") == "unmanaged").select(
                *(_dated(c) for c in UNMANAGED_COLUMNS)
            ),
            ("cluster", "date", "topic"),
            False,
        ),
        (
            broker_load(rows, observed, wanted.clusters).select(*(_dated(c) for c in LOAD_COLUMNS)),
            ("cluster", "date", "broker"),
            True,
        ),
        (
            consistency(rows).select(*(_dated(c) for c in CONSISTENCY_COLUMNS)),
            ("date", "topic", "field", "cluster"),
            True,
        ),
    )


def write_all(spark: SparkSession, tables: tuple[tuple[Output, str], ...]) -> None:
    """Write the tables (each with its path) in two streams at once (see _at_once): drift
    then unmanaged (both from the cached items), and the rest (from the cached rows)."""
    _at_once(spark, lambda: _write_each(tables[:2]), lambda: _write_each(tables[2:]))


def _write_each(tables: tuple[tuple[Output, str], ...]) -> None:
    for (frame, order, stage), path in tables:
        write_sorted(frame, order, stage, path)


def _at_once(spark: SparkSession, first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """Both calls' results, the two run in threads on the one session: each one's planning
    and its stages' last tasks leave a core idle that the other's tasks then take. They share
    the same task slots, so memory use is that of one. A failure (or ^C) cancels the other's
    Spark jobs and is raised."""
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="fleet") as pool:
        one, two = pool.submit(first), pool.submit(second)
        try:
            return one.result(), two.result()
        except BaseException:
            spark.sparkContext.cancelAllJobs()
            raise


def write_sorted(frame: DataFrame, order: tuple[str, ...], stage: bool, path: str) -> None:
    staged = frame.persist(StorageLevel.MEMORY_AND_DISK) if stage else frame
    try:
        staged.orderBy(*order).write.mode("overwrite").parquet(path)
    finally:
        if stage:
            staged.unpersist()


_DESIRED_HINT = "write it with `reconciler compile --all-clusters --out DIR`"
_SNAPSHOTS_HINT = f"snapshots are read from {LAYOUT}"


def _check_inputs(desired: str, snapshots: str) -> None:
    local_dir(desired, "--desired", _DESIRED_HINT)
    local_dir(snapshots, "--snapshots", _SNAPSHOTS_HINT)


def _dated(column: str) -> Column:
    """Dates as DATE values in the tables (they travel as YYYY-MM-DD strings until then)."""
    if column in ("date", "first_seen"):
        return F.to_date(F.col(column)).alias(column)
    return F.col(column)


def _join(root: str, name: str) -> str:
    return f"{root.rstrip('/')}/{name}"


@dataclass(frozen=True, slots=True)
class _Collected:
    summary: report.Summary
    drift_rows: int
    consistency_rows: int


def _summary(
    desired: str,
    snapshots: str,
    since: str | None,
    prepared: Rows,
    observed: Observed,
    wanted: Desired,
    tables: dict[str, DataFrame],
) -> _Collected:
    """The summary's aggregates: one row per cluster at most, top-N lists, counts."""
    c = F.col
    snaps = observed.snapshots
    window = snaps.agg(
        F.count(F.lit(1)).alias("n"), F.min("date").alias("first"), F.max("date").alias("last")
    ).first()
    snapshot_clusters = {r["cluster"] for r in snaps.select("cluster").distinct().collect()}
    desired_clusters = {r["cluster"] for r in wanted.clusters.select("cluster").collect()}
    topic_rows = prepared.count
    superseded = observed.superseded.count()

    drift = tables["drift"]
    latest = snaps.groupBy("cluster").agg(F.max("date").alias("date"))
    on_latest = drift.withColumn("date", c("date").cast("string")).join(latest, ["cluster", "date"])
    counts = {
        r["cluster"]: r
        for r in on_latest.groupBy("cluster")
        .agg(
            F.count(F.lit(1)).alias("differences"),
            F.countDistinct("topic").alias("topics"),
            F.min("first_seen").alias("since"),
            F.min_by("from_first_snapshot", "first_seen").alias("open"),
            *(F.count(F.when(c("kind") == k, 1)).alias(k) for k in KINDS),
        )
        .collect()
    }
    clusters = []
    for r in latest.where(c("cluster").isin(sorted(desired_clusters))).orderBy("cluster").collect():
        got = counts.get(r["cluster"])
        clusters.append(
            report.ClusterDrift(
                cluster=r["cluster"],
                date=r["date"],
                differences=got["differences"] if got else 0,
                topics=got["topics"] if got else 0,
                by_kind=tuple((k, got[k] if got else 0) for k in KINDS),
                since=str(got["since"]) if got and got["since"] else None,
                from_first_snapshot=bool(got and got["open"]),
            )
        )

    load = (
        tables["broker_load"]
        .withColumn("date", c("date").cast("string"))
        .join(latest, ["cluster", "date"])
    )
    brokers = [
        report.BrokerRow(
            r["cluster"],
            r["date"],
            r["broker"],
            r["rack"],
            r["replicas"],
            r["max_broker_partitions"],
            r["broker_percent"],
            r["replicas_per_day"],
            r["days_to_limit"],
        )
        for r in load.where(c("broker_percent").isNotNull())
        .orderBy(c("broker_percent").desc(), "cluster", "broker")
        .limit(TOP)
        .collect()
    ]
    cluster_load = [
        report.ClusterLoad(
            r["cluster"],
            r["date"],
            r["cluster_partitions"],
            r["max_partitions"],
            r["cluster_percent"],
            r["cluster_partitions_per_day"],
        )
        for r in load.where(c("cluster_percent").isNotNull())
        .select(
            "cluster",
            "date",
            "cluster_partitions",
            "max_partitions",
            "cluster_percent",
            "cluster_partitions_per_day",
        )
        .distinct()
        .orderBy(c("cluster_percent").desc(), "cluster")
        .limit(TOP)
        .collect()
    ]

    consistent = tables["consistency"].withColumn("date", c("date").cast("string"))
    by_date = [
        report.ConsistencyDate(r["date"], r["topics"], r["fields"], r["rows"])
        for r in consistent.groupBy("date")
        .agg(
            F.countDistinct("topic").alias("topics"),
            F.countDistinct("topic", "field").alias("fields"),
            F.count(F.lit(1)).alias("rows"),
        )
        .orderBy("date")
        .collect()
    ]
    examples: list[report.ConsistencyExample] = []
    if by_date:
        last = by_date[-1].date
        pairs = F.concat_ws("=", c("cluster"), F.coalesce(c("actual"), F.lit("(none)")))
        for r in (
            consistent.where(c("date") == last)
            .groupBy("date", "topic", "field")
            .agg(F.array_sort(F.collect_list(pairs)).alias("values"))
            .orderBy("topic", "field")
            .limit(TOP)
            .collect()
        ):
            examples.append(
                report.ConsistencyExample(r["date"], r["topic"], r["field"], ", ".join(r["values"]))
            )

    # Counted while the rows were computed (inputs.Counts); a topic twice in one snapshot
    # was found when they were joined (drift.prepare)
    duplicates = prepared.duplicates
    bad_rows: list[report.BadLines] = []
    superseded_lines = 0
    for tally in (wanted.counts, observed.counts):
        found = tally.get()
        if tally.input == "snapshots":
            superseded_lines = found.pop("superseded", (0, None))[0]
            if duplicates:
                before, example = found.get("duplicate", (0, None))
                found["duplicate"] = (before + duplicates, example)
        bad_rows += [
            report.BadLines(tally.input, reason, lines, example)
            for reason, (lines, example) in sorted(found.items())
        ]
    result = report.Summary(
        desired=desired,
        snapshots=snapshots,
        since=since,
        first_date=window["first"] if window else None,
        last_date=window["last"] if window else None,
        snapshots_read=window["n"] if window else 0,
        topic_rows=topic_rows,
        superseded=superseded,
        superseded_lines=superseded_lines,
        desired_clusters=len(desired_clusters),
        clusters=tuple(clusters),
        no_desired=tuple(sorted(snapshot_clusters - desired_clusters)),
        no_snapshots=tuple(sorted(desired_clusters - snapshot_clusters)),
        brokers=tuple(brokers),
        cluster_load=tuple(cluster_load),
        consistency=tuple(by_date),
        examples=tuple(examples),
        bad=tuple(bad_rows),
        incomplete=observed.incomplete,
    )
    return _Collected(result, drift.count(), consistent.count())


def _root_cause(text: str) -> str:
    """The innermost Java exception of a py4j error's text (its last `Caused by:` line, else
    the exception line under py4j's first), when the JVM cannot be asked (java_errors); cut to
    one short line."""
    lines = [line.strip() for line in text.splitlines()[1:]]
    causes = [line.removeprefix("Caused by: ") for line in lines if line.startswith("Caused by: ")]
    thrown = [line.removeprefix(": ") for line in lines if line.startswith(": ")]
    cause = (causes or thrown or [""])[-1 if causes else 0]
    return f" ({cause[:300]})" if cause else ""
