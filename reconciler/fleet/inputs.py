"""Reading the pipeline's two inputs into DataFrames, counting bad lines instead of failing.

Snapshots live in a Hive-style layout, SNAPSHOTS/cluster=NAME/date=YYYY-MM-DD/*.jsonl: the
cluster and the date come from the directories (partition columns, kept as strings), so a
`--since` filter on `date` prunes whole directories before any file is opened. Each line is
parsed against the declared schema (schemas.py), then checked; a line that fails a check is
counted under a reason and left out:

    malformed            not a JSON object with a `record` field
    unknown record       `record` is neither "cluster" nor "topic"
    format_version       a line of another format version
    incomplete           a required field missing or of the wrong type
    cluster mismatch     a cluster line naming another cluster than its cluster= directory
    cluster id mismatch  a snapshot whose cluster_id differs from the first id its cluster's
                         earlier snapshots carry (a mislabeled folder: another cluster's
                         snapshot, not drift); its cluster line and every topic line count
    bad topic name       a topic Kafka cannot hold: characters other than ASCII letters,
                         digits, '.', '_' and '-', or over 249 of them (policy.ignore's
                         patterns are evaluated in Java's dialect only on legal names)
    bad date directory   date= is not a calendar date YYYY-MM-DD
    no cluster line      a topic line whose snapshot (cluster, date, taken_at) has no valid
                         cluster line (or, on the desired side, whose cluster has none)
    duplicate            a second line for the same topic in one snapshot (one is kept;
                         found after the join, see drift.prepare)

When a cluster has several snapshots for one date (the job ran twice), the one taken last
counts and the lines of the others are reported as superseded, not as bad.

The counts are Spark observations: aggregates computed while the job's main pass parses the
lines, so counting them costs no pass of its own. They are read after that pass has run
(`Counts.get`). The cluster lines, few, are found first by a text filter and parsed alone
(with `from_json`, a line's text in); that pass also checks the cluster mismatch, and counts
the odd lines (`_odd`).

The main pass parses the snapshot lines with Spark's JSON data source, which reads a line's
bytes, about a fifth faster than `from_json` on its text. The two read a line alike when it
opens with `{`, is valid UTF-8 and holds no NUL byte among its first four; when any line is
odd, every line is parsed with `from_json` instead, so the counts never depend on the parser.

The desired side (DESIRED/*.jsonl from `reconciler compile`, small) is read with `from_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from pyspark.sql import Column, DataFrame, Observation, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from reconciler.errors import ConfigError
from reconciler.fleet.java_regex import LEGAL_NAME
from reconciler.fleet.schemas import DESIRED_LINE, SNAPSHOT_LINE

GLOB = "*.jsonl"
LAYOUT = "SNAPSHOTS/cluster=NAME/date=YYYY-MM-DD/*.jsonl"
_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"

REASONS = (
    "malformed", "unknown record", "format_version", "incomplete", "cluster mismatch",
    "cluster id mismatch", "bad topic name", "bad date directory", "no cluster line",
    "duplicate",
)  # fmt: skip


class InputError(ConfigError):
    """An input directory is missing, empty or not in the layout the job reads."""


@dataclass(frozen=True)
class Counts:
    """Bad (and superseded) lines of one input, counted while the main pass runs."""

    input: str  # "desired" or "snapshots"
    observations: tuple[Observation, ...]
    counted: tuple[tuple[str, int, str | None], ...] = ()  # (reason, lines, file) known already

    def get(self) -> dict[str, tuple[int, str | None]]:
        """reason -> (lines, one file holding such lines). Blocks until the main pass has run:
        call it after the job's first action over the topics."""
        seen = list(self.counted)
        for observation in self.observations:  # each has every reason's two metrics
            metrics = observation.get
            for reason in (*REASONS, "superseded"):
                lines, example = metrics.get(f"{reason}: lines"), metrics.get(f"{reason}: file")
                if isinstance(lines, int):
                    seen.append((reason, lines, example if isinstance(example, str) else None))
        found: dict[str, tuple[int, str | None]] = {}
        for reason, lines, example in seen:
            if lines:
                before, first = found.get(reason, (0, None))
                found[reason] = (before + lines, first or example)
        return found


@dataclass(frozen=True)
class Desired:
    clusters: DataFrame  # cluster, max_broker_partitions, max_partitions, ignore (small)
    specs: DataFrame  # cluster, topic, state, partitions, replication_factor, config, ...
    counts: Counts
    cached: tuple[DataFrame, ...]  # small frames persisted for reuse: unpersist after the job


@dataclass(frozen=True)
class Observed:
    # One row per snapshot that counts (small): cluster, date, taken_at, seq (1, 2, ... per
    # cluster), snap (1, 2, ... over the fleet), brokers, broker_ids, default_rf
    snapshots: DataFrame
    # One row per topic line of those snapshots: cluster, date, topic, internal, replicas (per
    # partition, by id), overrides, moving (a reassignment in progress). A topic twice in one
    # snapshot is two rows: drift.prepare finds and drops the copy.
    topics: DataFrame
    superseded: DataFrame  # cluster, date, taken_at: snapshots a later one replaced (small)
    counts: Counts
    cached: tuple[DataFrame, ...]  # small frames persisted for reuse: unpersist after the job
    parser: str  # what parsed the topic lines: "JSON data source" or "from_json"


def local_dir(path: str, what: str, hint: str) -> None:
    """Fail early, with the path, when a local input directory is missing or holds no
    `*.jsonl`: Spark's own error would be a Java stack trace. Remote URIs (hdfs://, s3a://)
    are left to Spark."""
    parsed = urlparse(path)
    if parsed.scheme not in ("", "file"):
        return
    local = Path(parsed.path if parsed.scheme == "file" else path)
    if not local.is_dir():
        raise InputError(f"{what} {path} is not a directory; {hint}")
    if next(local.rglob(GLOB), None) is None:
        raise InputError(f"{what} {path} holds no {GLOB} file; {hint}")


def read_desired(spark: SparkSession, root: str) -> Desired:
    raw = spark.read.option("pathGlobFilter", GLOB).text(root)
    r = F.col("r")
    is_cluster = r.record == "cluster"
    is_topic = r.record == "topic"
    cluster_ok = F.coalesce(r.format_version == 1, F.lit(False))
    assignments_ok = F.coalesce(
        F.forall(r.assignments, lambda a: a.isNotNull() & F.forall(a, lambda b: b.isNotNull())),
        F.lit(True),
    )
    reason = (
        F.when(r.isNull() | r.record.isNull(), "malformed")
        .when(~(is_cluster | is_topic), "unknown record")
        .when(is_cluster & ~cluster_ok, "format_version")
        .when(is_cluster & (r.cluster.isNull() | r.ignore.isNull()), "incomplete")
        .when(
            is_topic
            & (
                r.cluster.isNull()
                | r.topic.isNull()
                | ~F.coalesce(r.state.isin("present", "absent"), F.lit(False))
                | ~assignments_ok
            ),
            "incomplete",
        )
        .when(is_topic & ~_legal(r.topic), "bad topic name")
    )
    # The cluster lines: few, found by text before parsing. Every desired line names its
    # cluster; a cluster line that counts also says `"cluster"` as its record, so twice
    headers = _parsed(_maybe_cluster_lines(raw, twice=True), DESIRED_LINE).where(
        is_cluster & cluster_ok & r.cluster.isNotNull() & r.ignore.isNotNull()
    )
    # One cluster line per cluster: a second one (the same cluster compiled into two files)
    # is a duplicate, and the first file in name order wins.
    first = Window.partitionBy("cluster").orderBy("file")
    ranked = headers.select(
        r.cluster.alias("cluster"),
        r.limits.max_broker_partitions.alias("max_broker_partitions"),
        r.limits.max_partitions.alias("max_partitions"),
        r.ignore.alias("ignore"),
        "file",
    ).withColumn("n", F.row_number().over(first))
    # Kept (few rows): both the clusters and the count of second cluster lines below come from
    # it, and each would otherwise read the desired files again
    ranked = ranked.persist()
    clusters = ranked.where(F.col("n") == 1).drop("n", "file").persist()

    counted = Observation("desired lines")
    lines = _observe(counted, _parsed(raw, DESIRED_LINE).withColumn("reason", reason))
    topic_rows = lines.where(F.col("reason").isNull() & is_topic).select(
        r.cluster.alias("cluster"),
        r.topic.alias("topic"),
        r.state.alias("state"),
        r.partitions.alias("partitions"),
        r.replication_factor.alias("replication_factor"),
        F.coalesce(r.config, _empty_map()).alias("config"),
        r.assignments.alias("assignments"),
        r.file.alias("spec_file"),
        r.line.alias("spec_line"),
        r.column.alias("spec_column"),
        "file",
    )
    known = F.broadcast(clusters.select("cluster", F.lit(True).alias("known")))
    one = Window.partitionBy("cluster", "topic").orderBy("file", "spec_line")
    numbered = (
        # partitioned by topic, as the snapshots' topics are (drift.prepare): the join and the
        # later steps need no shuffle of their own
        topic_rows.repartition("topic")
        .join(known, "cluster", "left")
        .withColumn("n", F.when(F.col("known"), F.row_number().over(one)))
        .withColumn(
            "reason",
            F.when(F.col("known").isNull(), "no cluster line").when(F.col("n") > 1, "duplicate"),
        )
    )
    placed = Observation("desired topics")
    specs = (
        _observe(placed, numbered)
        .where(F.col("reason").isNull())
        .drop("known", "n", "file", "reason")
        .persist()  # joined to the snapshots' topics, then to the dates their topic lacks
    )
    # A second cluster line for a cluster: counted now, from the few cluster lines
    twice = ranked.where(F.col("n") > 1).agg(F.count(F.lit(1)), F.min("file")).first()
    extra = (("duplicate", int(twice[0]), twice[1]),) if twice is not None else ()
    return Desired(
        clusters, specs, Counts("desired", (counted, placed), extra), (ranked, clusters, specs)
    )


def read_snapshots(
    spark: SparkSession, root: str, since: str | None, *, source: bool | None = None
) -> Observed:
    """The snapshots under `root`. Their topic lines are parsed by Spark's JSON data source
    when every line is plain (`source` None; see `_odd`), else by `from_json`; True or False
    forces one of the two (tests compare them)."""
    raw = spark.read.option("pathGlobFilter", GLOB).text(root)
    if "cluster" not in raw.columns or "date" not in raw.columns:
        raise InputError(
            f"--snapshots {root} is not in the layout the job reads ({LAYOUT}): its files must "
            "sit in cluster=NAME/date=YYYY-MM-DD directories"
        )
    if since is not None:
        raw = raw.where(F.col("date") >= since)  # a partition filter: Spark skips the directories
    r = F.col("r")
    is_cluster = r.record == "cluster"
    reason = _snapshot_reason(r)
    # A cluster line naming another cluster than its directory: checked only here, on the
    # cluster lines, because the JSON data source cannot read a `cluster` field beside the
    # `cluster` partition column; the main pass counts every other reason
    mismatch = is_cluster & ~F.coalesce(r.cluster == F.col("cluster"), F.lit(False))
    header_reason = F.when(reason.isNull() & mismatch, "cluster mismatch").otherwise(reason)

    # The cluster lines: few, found by text before parsing (every one holds both words, or
    # an escape), in a pass over every line's text that also finds the odd lines (few: none
    # in a sound fleet), parsed here too
    odd_line = _odd(F.col("value"))
    found = (
        _parsed(
            _maybe_cluster_lines(raw, odd_line),
            SNAPSHOT_LINE,
            "cluster",
            "date",
            odd_line.alias("odd"),
        )
        .withColumn("reason", header_reason)
        .where(is_cluster | F.col("odd"))
        .select(
            "cluster",
            "date",
            "file",
            "odd",
            F.coalesce(is_cluster, F.lit(False)).alias("cluster_line"),
            "reason",
            r.taken_at.alias("taken_at"),
            F.try_to_timestamp(r.taken_at).alias("at"),
            r.brokers.alias("brokers"),
            F.coalesce(r.broker_defaults, _empty_map()).alias("broker_defaults"),
            r.cluster_id.alias("cluster_id"),
        )
        .persist()
    )
    # Run now: the mismatch count, and the choice of parser, come from this pass
    tally = found.agg(
        F.count(F.when(F.col("reason") == "cluster mismatch", 1)),
        F.min(F.when(F.col("reason") == "cluster mismatch", F.col("file"))),
        F.count(F.when(F.col("odd"), 1)),
    ).first()
    mismatched: tuple[tuple[str, int, str | None], ...] = (
        (("cluster mismatch", int(tally[0]), tally[1]),) if tally is not None else ()
    )
    odd = int(tally[2]) if tally is not None else 0
    # A snapshot whose cluster id is not the first one its cluster's snapshots carry (by
    # date, then time taken) is another cluster's: left out whole, counted as bad input
    earlier = Window.partitionBy("cluster").orderBy("date", F.col("at").asc_nulls_last())
    first_id = F.first("cluster_id", ignorenulls=True).over(earlier)
    valid = found.where(F.col("cluster_line") & F.col("reason").isNull()).withColumn(
        "foreign", F.coalesce(F.col("cluster_id") != first_id, F.lit(False))
    )
    foreign = valid.where(F.col("foreign")).select("cluster", "date", "taken_at", "file")
    strays = foreign.agg(F.count(F.lit(1)), F.min("file")).first()
    if strays is not None and int(strays[0]):
        mismatched += (("cluster id mismatch", int(strays[0]), strays[1]),)
    headers = valid.where(~F.col("foreign")).drop(
        "reason", "file", "odd", "cluster_line", "cluster_id", "foreign"
    )
    latest = Window.partitionBy("cluster", "date").orderBy(
        F.col("at").desc_nulls_last(), F.col("taken_at").desc()
    )
    ranked = headers.withColumn("n", F.row_number().over(latest)).persist()
    by_date = Window.partitionBy("cluster").orderBy("date")
    snapshots = (
        ranked.where(F.col("n") == 1)
        .withColumn("seq", F.dense_rank().over(by_date))
        # a number for each snapshot, fleet-wide: the per-snapshot aggregates over every row
        # (broker_load) group by it, an integer, rather than by two strings
        .withColumn("snap", F.row_number().over(Window.orderBy("cluster", "date")))
        .select(
            "cluster",
            "date",
            "taken_at",
            "seq",
            "snap",
            "brokers",
            # the planner's frozenset of broker ids, and its int() of the broker default
            F.array_distinct(F.transform("brokers", lambda b: b.id)).alias("broker_ids"),
            F.col("broker_defaults")
            .getItem("default.replication.factor")
            .try_cast("int")
            .alias("default_rf"),
        )
        .persist()
    )
    keys = ["cluster", "date", "taken_at"]
    every = F.broadcast(
        ranked.select(
            *keys, (F.col("n") == 1).alias("current"), F.lit(False).alias("foreign")
        ).unionByName(
            foreign.select(*keys, F.lit(False).alias("current"), F.lit(True).alias("foreign"))
        )
    )

    plain = odd == 0 if source is None else source
    parsed = (
        _source(spark, root, since) if plain else _parsed(raw, SNAPSHOT_LINE, "cluster", "date")
    )
    # One observation, over narrow rows: each one's input is a copy of the row (out of the
    # generated code), so the parse's wide struct is projected away first, and the line's
    # own reason and its snapshot's (no cluster line, superseded) are counted together
    is_topic = F.coalesce(r.record == "topic", F.lit(False))
    narrowed = parsed.select(
        "cluster",
        "date",
        "file",
        r.taken_at.alias("taken_at"),
        r.topic.alias("topic"),
        F.coalesce(r.internal, F.lit(False)).alias("internal"),
        # Each partition's replicas, by partition id: all the rest of the job needs of them
        # (sort_array and a field of an array: compiled, where array_sort and transform would
        # evaluate a lambda per element)
        F.sort_array(r.partitions).replicas.alias("replicas"),
        F.coalesce(r.overrides, _empty_map()).alias("overrides"),
        F.coalesce(F.size(r.reassignments) > 0, F.lit(False)).alias("moving"),
        _snapshot_reason(r, dated=False).alias("line_reason"),
        is_topic.alias("is_topic"),
    )
    placed = F.col("line_reason").isNull() & F.col("is_topic")
    current = F.col("current")
    counted = Observation("snapshot lines")
    topics = (
        _observe(
            counted,
            narrowed.join(every, keys, "left").withColumn(
                "reason",
                # The date is checked only where the line found no snapshot: every snapshot
                # in `every` passed the check (its cluster line did), and the check, a regex
                # and a date parse, cost a fifth of this pass when run on every line. The
                # precedence is _snapshot_reason's: a line not parsed as a record first.
                F.when(
                    F.col("line_reason").isin("malformed", "unknown record"), F.col("line_reason")
                )
                .when(current.isNull() & ~_date_ok(), "bad date directory")
                .when(~placed, F.col("line_reason"))
                .when(current.isNull(), "no cluster line")
                .when(F.col("foreign"), "cluster id mismatch")
                .when(~current, "superseded"),
            ),
        )
        .where(placed & current)
        .drop("current", "foreign", "reason", "line_reason", "is_topic", "taken_at", "file")
    )
    superseded = ranked.where(F.col("n") > 1).select(*keys)
    return Observed(
        snapshots,
        topics,
        superseded,
        Counts("snapshots", (counted,), mismatched),
        (found, ranked, snapshots),
        "JSON data source" if plain else "from_json",
    )


def _snapshot_reason(r: Column, dated: bool = True) -> Column:
    """Why a snapshot line is bad (null: it is not), every check but the cluster mismatch.
    Without `dated`, a bad date directory is left to the caller (see `_date_ok`)."""
    is_cluster = r.record == "cluster"
    is_topic = r.record == "topic"
    brokers_ok = F.coalesce(
        F.forall(r.brokers, lambda b: b.isNotNull() & b.id.isNotNull()), F.lit(False)
    )
    partitions_ok = F.coalesce(
        F.forall(
            r.partitions,
            lambda p: p.isNotNull() & p.partition.isNotNull() & _ids_ok(p.replicas),
        ),
        F.lit(False),
    )
    reassignments_ok = F.coalesce(
        F.forall(r.reassignments, lambda m: m.isNotNull() & m.partition.isNotNull()), F.lit(True)
    )
    reason = F.when(r.isNull() | r.record.isNull(), "malformed").when(
        ~(is_cluster | is_topic), "unknown record"
    )
    if dated:
        reason = reason.when(~_date_ok(), "bad date directory")
    return (
        reason.when(is_cluster & ~F.coalesce(r.format_version == 1, F.lit(False)), "format_version")
        .when(r.taken_at.isNull(), "incomplete")
        .when(is_cluster & ~brokers_ok, "incomplete")
        .when(is_topic & (r.topic.isNull() | ~partitions_ok | ~reassignments_ok), "incomplete")
        .when(is_topic & ~_legal(r.topic), "bad topic name")
    )


def _date_ok() -> Column:
    """The line's date= directory is a calendar date, YYYY-MM-DD."""
    return F.col("date").rlike(_DATE) & F.try_to_date(F.col("date"), "yyyy-MM-dd").isNotNull()


def _odd(value: Column) -> Column:
    """A line Spark's JSON data source might read otherwise than `from_json`, which the job
    then uses for every line instead: one that does not open with `{` (the data source makes
    a row of each object of a JSON array, where `from_json` sees one malformed line), or is
    not valid UTF-8, or holds a NUL byte (the data source parses the bytes and guesses their
    encoding from them; `from_json` decodes UTF-8 first). Blank lines are no lines to either."""
    # (Jackson guesses the encoding from a line's first four bytes)
    shaped = (
        ~value.startswith("{")
        | F.substring(value, 1, 4).contains("\u0000")
        | ~F.is_valid_utf8(value)
    )
    return shaped & (F.trim(value) != "")


def _source(spark: SparkSession, root: str, since: str | None) -> DataFrame:
    """The snapshot lines through Spark's JSON data source, in `_parsed`'s shape. It parses
    each line's bytes where `from_json` reads it through a character decoder: about a fifth
    less time over the fleet's largest input (`reconciler help benchmarks`). The `cluster` field is
    left out (the partition column of that name would hide it) and reads as null."""
    fields = [f for f in SNAPSHOT_LINE.fields if f.name != "cluster"]
    lines = spark.read.schema(T.StructType(fields)).option("pathGlobFilter", GLOB).json(root)
    if since is not None:
        lines = lines.where(F.col("date") >= since)
    r = F.struct(
        *(
            (F.col(f.name) if f.name != "cluster" else F.lit(None).cast(f.dataType)).alias(f.name)
            for f in SNAPSHOT_LINE.fields
        )
    )
    return lines.select("cluster", "date", F.col("_metadata.file_path").alias("file"), r.alias("r"))


def _empty_map() -> Column:
    return F.create_map().cast(T.MapType(T.StringType(), T.StringType()))


def _maybe_cluster_lines(
    raw: DataFrame, also: Column | None = None, *, twice: bool = False
) -> DataFrame:
    """A superset of the cluster lines, by text (and the lines `also` picks): a cluster line
    holds `"record"` and `"cluster"` (with `twice`, `"cluster"` twice: as the record and as
    the field naming the cluster), unless it spells them with escapes (`\\u0063luster`); the
    parse and the checks that follow drop the rest."""
    value = F.col("value")
    word = '"cluster"'
    if twice:  # a second one after the first (0: none)
        named = F.position(F.lit(word), value, F.instr(value, word) + 1) > 0
    else:
        named = value.contains(word)
    maybe = (value.contains('"record"') & named) | value.contains("\\u")
    return raw.where(maybe if also is None else maybe | also)


def _legal(topic: Column) -> Column:
    return topic.rlike(LEGAL_NAME) & (F.length(topic) <= 249)


def _ids_ok(ids: Column) -> Column:
    return ids.isNotNull() & F.forall(ids, lambda b: b.isNotNull())


def _parsed(raw: DataFrame, schema: T.StructType, *partitions: str | Column) -> DataFrame:
    """Each non-blank line with its file and its parse (`r`; null fields where the line does
    not fit the schema), after the `partitions` columns (and any other of the line's)."""
    return raw.where(F.trim(F.col("value")) != "").select(
        *partitions,
        F.col("_metadata.file_path").alias("file"),
        F.from_json(F.col("value"), schema).alias("r"),
    )


def _observe(observation: Observation, frame: DataFrame) -> DataFrame:
    """`frame` counting its rows by `reason` (and one file per reason) as it is processed."""
    metrics: list[Column] = []
    for reason in (*REASONS, "superseded"):
        hit = F.col("reason") == reason
        metrics.append(F.count(F.when(hit, 1)).alias(f"{reason}: lines"))
        metrics.append(F.min(F.when(hit, F.col("file"))).alias(f"{reason}: file"))
    return frame.observe(observation, *metrics)


def counts(found: Mapping[str, tuple[int, str | None]]) -> int:
    """Bad lines in `found` (Counts.get), superseded ones left out."""
    return sum(lines for reason, (lines, _) in found.items() if reason != "superseded")
