"""Reading the pipeline's two inputs into DataFrames, counting bad lines instead of failing.

Snapshots live in a Hive-style layout, SNAPSHOTS/cluster=NAME/date=YYYY-MM-DD/*.jsonl: the
cluster and the date come from the directories (partition columns, kept as strings), so a
`--since` filter on `date` prunes whole directories before any file is opened. Each line is
parsed against the declared schema (schemas.py), then checked; a line that fails a check is
counted under a reason and left out:

    malformed            not a JSON object with a `record` field
    unknown record       `record` is none of "cluster", "topic", "end" and the access
                         records ("acl", "quota", "user": counted in the proof, not read)
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
    future date          date= is after the run's own date (UTC): a copy or a clock gone wrong
    incomplete snapshot  a line of a snapshot not proven whole (below)
    no cluster line      a topic line whose snapshot (cluster, date, taken_at) has no valid
                         cluster line (or, on the desired side, whose cluster has none)
    duplicate            a second line for the same topic in one snapshot (one is kept;
                         found after the join, see drift.prepare)

When a cluster has several snapshots for one date (the job ran twice), the one taken last
counts and the lines of the others are reported as superseded, not as bad.

A snapshot is used only when proven whole: its file ends with the trailer line (`record`
"end") whose `taken_at` and `cluster_id` are its cluster line's, and the file holds exactly
the topic lines the trailer counts, every line read. Otherwise (a file cut short, a line lost
or added, a line over LINE_BOUND, a file written before trailers existed) the whole snapshot is
left out, its lines counted as "incomplete snapshot", and it supersedes nothing. Lines longer
than LINE_BOUND are skipped by Hadoop's line reader itself (it keeps at most that many bytes
of a line), so no such line reaches the JVM's heap; the bytes a file's lines leave unread
show them, each such file counted once under "line over 16 MiB".

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
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

from pyspark.sql import Column, DataFrame, Observation, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from reconciler.errors import ConfigError
from reconciler.fleet.java_regex import LEGAL_NAME
from reconciler.fleet.schemas import DESIRED_LINE, SNAPSHOT_LINE
from reconciler.fleet.spark_functions import is_valid_utf8, try_cast, try_to_date

GLOB = "*.jsonl"
LAYOUT = "SNAPSHOTS/cluster=NAME/date=YYYY-MM-DD/*.jsonl"
_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
TRAILER = "end"  # reconciler.cluster.jsonl.TRAILER (not imported: executors need no more)
# jsonl.ACCESS_RECORDS: lines the job counts in a file's proof but does not read (access
# drift is not compared yet, docs/fleet.md), and the trailer's count of each
ACCESS_RECORDS = ("acl", "quota", "user")
ACCESS_COUNTS = ("acls", "quotas", "users")

# The longest line read, in bytes: Hadoop's line reader skips longer ones without holding
# them (a 200 MB line otherwise exhausted the JVM's heap)
LINE_BOUND = 16 * 1024 * 1024
LONG_LINE = "line over 16 MiB"
_MAX_LINE = "mapreduce.input.linerecordreader.line.maxlength"

REASONS = (
    "malformed", "unknown record", "format_version", "incomplete", "cluster mismatch",
    "cluster id mismatch", "bad topic name", "bad date directory", "future date",
    "no cluster line", "duplicate", "incomplete snapshot",
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
    clusters: DataFrame  # cluster, max_broker_partitions, max_partitions, ignore, allow_delete,
    # unread (small)
    specs: DataFrame  # cluster, topic, state, partitions, replication_factor, config, ...
    counts: Counts
    cached: tuple[DataFrame, ...]  # small frames persisted for reuse: unpersist after the job


@dataclass(frozen=True)
class Observed:
    # One row per snapshot that counts (small): cluster, date, taken_at, seq (1, 2, ... per
    # cluster), snap (1, 2, ... over the fleet), brokers, broker_ids, default_rf
    snapshots: DataFrame
    # One row per topic line of those snapshots: cluster, date, topic, internal, replicas (per
    # partition, by id), overrides, moving (a reassignment in progress), settled (its moving
    # partitions' replica counts once they settle). A topic twice in one
    # snapshot is two rows: drift.prepare finds and drops the copy.
    topics: DataFrame
    superseded: DataFrame  # cluster, date, taken_at: snapshots a later one replaced (small)
    counts: Counts
    cached: tuple[DataFrame, ...]  # small frames persisted for reuse: unpersist after the job
    parser: str  # what parsed the topic lines: "JSON data source" or "from_json"
    # Snapshots not proven whole, left out: (cluster, date, file, why), sorted (small)
    incomplete: tuple[tuple[str, str, str, str], ...] = ()


class NoSnapshots(InputError):
    """No snapshot can be used: --since is later than every one, or none is sound."""


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


def _text(spark: SparkSession, root: str) -> DataFrame:
    """The `*.jsonl` lines under `root`, a line over LINE_BOUND skipped by the reader."""
    return spark.read.option("pathGlobFilter", GLOB).option(_MAX_LINE, str(LINE_BOUND)).text(root)


def today() -> str:
    """The run's own date (UTC), YYYY-MM-DD: a snapshot dated later is bad input."""
    return datetime.now(UTC).date().isoformat()


def read_desired(spark: SparkSession, root: str) -> Desired:
    raw = _text(spark, root)
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
        # policy.allow_delete and the spec files the loader did not read (compile.py): a
        # compiled state from before they were written holds neither, as a policy without
        # allow_delete and a loader that read every file
        F.coalesce(r.allow_delete, F.lit(False)).alias("allow_delete"),
        F.coalesce(F.size(r.unread) > 0, F.lit(False)).alias("unread"),
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
        F.coalesce(r.protect, F.lit(False)).alias("protect"),
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
    raw = _text(spark, root)
    if "cluster" not in raw.columns or "date" not in raw.columns:
        raise InputError(
            f"--snapshots {root} is not in the layout the job reads ({LAYOUT}): its files must "
            "sit in cluster=NAME/date=YYYY-MM-DD directories"
        )
    if since is not None:
        raw = raw.where(F.col("date") >= since)  # a partition filter: Spark skips the directories
    day = today()
    r = F.col("r")
    is_cluster = r.record == "cluster"
    is_end = r.record == TRAILER
    reason = _snapshot_reason(r, day)
    # A cluster line (or trailer) naming another cluster than its directory: checked only
    # here, on the cluster lines, because the JSON data source cannot read a `cluster` field
    # beside the `cluster` partition column; the main pass counts every other reason
    mismatch = (is_cluster | is_end) & ~F.coalesce(r.cluster == F.col("cluster"), F.lit(False))
    header_reason = F.when(reason.isNull() & mismatch, "cluster mismatch").otherwise(reason)

    # The first pass, over every line's text, one row per file: its lines and the bytes they
    # hold (what proves the file whole), the odd lines (few: none in a sound fleet), and the
    # cluster lines and trailers, found by text (every one holds both words, or an escape)
    # and parsed after
    value = F.col("value")
    files = (
        raw.select(
            "cluster",
            "date",
            F.col("_metadata.file_path").alias("file"),
            F.col("_metadata.file_size").alias("size"),
            "value",
        )
        .groupBy("cluster", "date", "file")
        .agg(
            F.max("size").alias("size"),
            F.count(F.lit(1)).alias("read_lines"),
            F.sum(F.octet_length(value)).alias("read_bytes"),
            F.count(F.when(F.trim(value) != "", 1)).alias("lines"),
            F.count(F.when(_odd(value), 1)).alias("odd"),
            F.collect_list(F.when(_maybe_cluster_text(value), value)).alias("picked"),
        )
        .persist()
    )
    found = (
        files.select("cluster", "date", "file", F.explode("picked").alias("value"))
        .where(F.trim(value) != "")
        .select("cluster", "date", "file", F.from_json(value, SNAPSHOT_LINE).alias("r"))
        .withColumn("reason", header_reason)
        .where(is_cluster | is_end)
        .select(
            "cluster",
            "date",
            "file",
            F.coalesce(is_cluster, F.lit(False)).alias("cluster_line"),
            "reason",
            r.taken_at.alias("taken_at"),
            F.try_to_timestamp(r.taken_at).alias("at"),
            r.brokers.alias("brokers"),
            F.coalesce(r.broker_defaults, _empty_map()).alias("broker_defaults"),
            r.topic_config_keys.alias("config_keys"),
            r.cluster_id.alias("cluster_id"),
            r.topics.alias("topics"),
            # the access lines the trailer counts (none in a file written before they were)
            sum((F.coalesce(r[part], F.lit(0)) for part in ACCESS_COUNTS), F.lit(0)).alias(
                "access"
            ),
        )
        .persist()
    )
    # Run now: the mismatch count, and the choice of parser, come from this pass
    tally = found.agg(
        F.count(F.when(F.col("reason") == "cluster mismatch", 1)),
        F.min(F.when(F.col("reason") == "cluster mismatch", F.col("file"))),
    ).first()
    mismatched: tuple[tuple[str, int, str | None], ...] = (
        (("cluster mismatch", int(tally[0]), tally[1]),) if tally is not None else ()
    )
    proof = _proof(files, found)
    stats = proof.agg(
        F.count(F.lit(1)),
        F.sum("odd"),
        F.count(F.when(F.col("skipped"), 1)),
        F.min(F.when(F.col("skipped"), F.col("file"))),
    ).first()
    if (stats is None or not stats[0]) and since is not None:
        raise NoSnapshots(
            f"--since {since} is later than every snapshot under {root}: no date= directory is "
            "that day or later; give an earlier date, or leave --since out"
        )
    odd = int(stats[1] or 0) if stats is not None else 0
    if stats is not None and stats[2]:
        mismatched += ((LONG_LINE, int(stats[2]), stats[3]),)
    # A snapshot whose cluster id is not the first one its cluster's snapshots carry (by
    # date, then time taken) is another cluster's: left out whole, counted as bad input
    earlier = Window.partitionBy("cluster").orderBy("date", F.col("at").asc_nulls_last())
    first_id = F.first("cluster_id", ignorenulls=True).over(earlier)
    valid = (
        found.where(F.col("cluster_line") & F.col("reason").isNull())
        .drop("topics")
        .join(proof.select("cluster", "date", "file", "whole_file"), ["cluster", "date", "file"])
        .join(
            _trailers(found),
            ["cluster", "date", "file", "taken_at"],
            "left",
        )
        .withColumn("foreign", F.coalesce(F.col("cluster_id") != first_id, F.lit(False)))
        .withColumn("why", _incomplete_why())
    )
    foreign = valid.where(F.col("foreign")).select("cluster", "date", "taken_at", "file")
    strays = foreign.agg(F.count(F.lit(1)), F.min("file")).first()
    if strays is not None and int(strays[0]):
        mismatched += (("cluster id mismatch", int(strays[0]), strays[1]),)
    kept = valid.where(~F.col("foreign")).persist()
    unproven = kept.where(F.col("why").isNotNull())
    incomplete = tuple(
        (r["cluster"], r["date"], r["file"], r["why"])
        for r in unproven.select("cluster", "date", "file", "why")
        .orderBy("cluster", "date", "file")
        .collect()
    )
    usable = kept.where(F.col("why").isNull())
    if usable.isEmpty():  # nothing to compare: one sentence rather than empty tables
        window = f" from {since} on" if since is not None else ""
        example = f" (e.g. {incomplete[0][2]}: {incomplete[0][3]})" if incomplete else ""
        raise NoSnapshots(
            f"no snapshot under {root}{window} can be used: {len(incomplete)} not proven whole "
            f"by a trailer line{example}, the other files without a valid cluster line; write "
            "snapshots with `reconciler snapshot --format jsonl`"
        )
    headers = usable.drop(
        "reason", "odd", "cluster_line", "cluster_id", "foreign", "why", "whole_file", "topics",
        "trailers", "trailer_id", "lines", "skipped",
    )  # fmt: skip
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
            try_cast("broker_defaults['default.replication.factor']", "INT").alias("default_rf"),
            # the topic configs the cluster knows (null: not known), which the planner
            # decides a spec's keys from (planning/cluster_configs.py)
            "config_keys",
        )
        .persist()
    )
    # A line belongs to the snapshot of its own file: the trailer proves that file alone
    keys = ["cluster", "date", "file", "taken_at"]
    no = F.lit(False)
    every = F.broadcast(
        ranked.select(
            *keys, (F.col("n") == 1).alias("current"), no.alias("foreign"), no.alias("cut")
        )
        .unionByName(
            foreign.select(
                *keys, no.alias("current"), F.lit(True).alias("foreign"), no.alias("cut")
            )
        )
        .unionByName(
            unproven.select(
                *keys, no.alias("current"), no.alias("foreign"), F.lit(True).alias("cut")
            )
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
        # (partition, replicas once it settles) of each moving partition: the counts the
        # planner judges a replication factor on mid-reassignment (diff.settled_replicas)
        F.transform(
            r.reassignments,
            lambda m: F.struct(
                m.partition.alias("partition"),
                F.size(F.array_except(m.replicas, F.coalesce(m.removing, F.array()))).alias("size"),
            ),
        ).alias("settled"),
        _snapshot_reason(r, day, dated=False).alias("line_reason"),
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
                .when(current.isNull() & _date_reason(day).isNotNull(), _date_reason(day))
                .when(~placed, F.col("line_reason"))
                .when(current.isNull(), "no cluster line")
                .when(F.col("cut"), "incomplete snapshot")
                .when(F.col("foreign"), "cluster id mismatch")
                .when(~current, "superseded"),
            ),
        )
        .where(placed & current)
        .drop("current", "foreign", "cut", "reason", "line_reason", "is_topic", "taken_at", "file")
    )
    superseded = ranked.where(F.col("n") > 1).select("cluster", "date", "taken_at")
    return Observed(
        snapshots,
        topics,
        superseded,
        Counts("snapshots", (counted,), mismatched),
        (files, found, kept, ranked, snapshots),
        "JSON data source" if plain else "from_json",
        incomplete,
    )


def _proof(files: DataFrame, found: DataFrame) -> DataFrame:
    """Per file: `whole_file` when its lines are exactly those its trailers count (each
    snapshot's topic and access lines, its cluster line and its trailer) and every byte was
    read; `skipped` when some were not (a line over LINE_BOUND: the bytes read, one newline per
    line, fall short of the file's size by more than a CRLF per line and a byte order mark)."""
    c = F.col
    counted = (
        found.where(~c("cluster_line") & c("reason").isNull())
        .groupBy("cluster", "date", "file")
        .agg(F.sum(c("topics") + c("access") + 2).alias("expected"))
    )
    unread = c("size") - c("read_bytes") - c("read_lines")
    return (
        files.join(counted, ["cluster", "date", "file"], "left")
        .withColumn("skipped", unread > c("read_lines") + 3)
        .withColumn(
            "whole_file", F.coalesce(c("lines") == c("expected"), F.lit(False)) & ~c("skipped")
        )
        .select("cluster", "date", "file", "odd", "lines", "skipped", "whole_file")
    )


def _trailers(found: DataFrame) -> DataFrame:
    """The valid trailers of each snapshot in its file: how many, their count and cluster id."""
    c = F.col
    return (
        found.where(~c("cluster_line") & c("reason").isNull())
        .groupBy("cluster", "date", "file", "taken_at")
        .agg(
            F.count(F.lit(1)).alias("trailers"),
            F.first("topics").alias("topics"),
            F.first("cluster_id", ignorenulls=True).alias("trailer_id"),
        )
    )


def _incomplete_why() -> Column:
    """Why a snapshot (a cluster line joined to its file's proof and its trailers) is not
    proven whole; null when it is."""
    c = F.col
    return (
        F.when(c("trailers").isNull(), "no trailer line (cut short, or written before trailers)")
        .when(c("trailers") > 1, "more than one trailer")
        .when(~c("cluster_id").eqNullSafe(c("trailer_id")), "the trailer's cluster_id differs")
        .when(~c("whole_file"), "its lines differ from the trailer's count")
    )


def _snapshot_reason(r: Column, day: str, dated: bool = True) -> Column:
    """Why a snapshot line is bad (null: it is not), every check but the cluster mismatch.
    Without `dated`, the date directory is left to the caller (see `_date_reason`); `day` is
    the run's own date."""
    is_cluster = r.record == "cluster"
    is_topic = r.record == "topic"
    is_end = r.record == TRAILER
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
    is_access = r.record.isin(*ACCESS_RECORDS)
    reason = F.when(r.isNull() | r.record.isNull(), "malformed").when(
        ~(is_cluster | is_topic | is_end | is_access), "unknown record"
    )
    if dated:
        reason = reason.when(_date_reason(day).isNotNull(), _date_reason(day))
    return (
        reason.when(is_cluster & ~F.coalesce(r.format_version == 1, F.lit(False)), "format_version")
        .when(r.taken_at.isNull(), "incomplete")
        .when(is_end & ~F.coalesce(r.topics >= 0, F.lit(False)), "incomplete")
        .when(is_cluster & ~brokers_ok, "incomplete")
        .when(is_topic & (r.topic.isNull() | ~partitions_ok | ~reassignments_ok), "incomplete")
        .when(is_topic & ~_legal(r.topic), "bad topic name")
    )


def _date_reason(day: str) -> Column:
    """What is wrong with the line's date= directory (null: nothing): not a calendar date
    YYYY-MM-DD, or later than `day`, the run's own date."""
    date = F.col("date")
    ok = date.rlike(_DATE) & try_to_date(date, "yyyy-MM-dd").isNotNull()
    return F.when(~ok, "bad date directory").when(date > F.lit(day), "future date")


def _odd(value: Column) -> Column:
    """A line Spark's JSON data source might read otherwise than `from_json`, which the job
    then uses for every line instead: one that does not open with `{` (the data source makes
    a row of each object of a JSON array, where `from_json` sees one malformed line), or is
    not valid UTF-8, or holds a NUL byte (the data source parses the bytes and guesses their
    encoding from them; `from_json` decodes UTF-8 first). Blank lines are no lines to either."""
    # (Jackson guesses the encoding from a line's first four bytes)
    shaped = (
        ~value.startswith("{") | F.substring(value, 1, 4).contains("\u0000") | ~is_valid_utf8(value)
    )
    return shaped & (F.trim(value) != "")


def _source(spark: SparkSession, root: str, since: str | None) -> DataFrame:
    """The snapshot lines through Spark's JSON data source, in `_parsed`'s shape. It parses
    each line's bytes where `from_json` reads it through a character decoder: about a fifth
    less time over the fleet's largest input (`reconciler help benchmarks`). The `cluster` field is
    left out (the partition column of that name would hide it) and reads as null."""
    fields = [f for f in SNAPSHOT_LINE.fields if f.name != "cluster"]
    lines = (
        spark.read.schema(T.StructType(fields))
        .option("pathGlobFilter", GLOB)
        .option(_MAX_LINE, str(LINE_BOUND))
        .json(root)
    )
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


def _maybe_cluster_lines(raw: DataFrame, *, twice: bool = False) -> DataFrame:
    """A superset of the cluster lines, by text: see `_maybe_cluster_text`."""
    return raw.where(_maybe_cluster_text(F.col("value"), twice=twice))


def _maybe_cluster_text(value: Column, *, twice: bool = False) -> Column:
    """Whether `value` may be a cluster line (or a snapshot's trailer, which names its
    cluster too): such a line holds `"record"` and `"cluster"` (with `twice`, `"cluster"`
    twice: as the record and as the field naming the cluster), unless it spells them with
    escapes (`\\u0063luster`); the parse and the checks that follow drop the rest."""
    word = '"cluster"'
    if twice:  # a second one after the first (0: none)
        named = F.position(F.lit(word), value, F.instr(value, word) + 1) > 0
    else:
        named = value.contains(word)
    return (value.contains('"record"') & named) | value.contains("\\u")


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
