"""The planner's drift, row for row, as DataFrame expressions over every cluster and date.

`reconciler drift` reports what `reconciler.planning.drift.drift` finds in the plan
`make_plan` makes; this module computes the same items for each (cluster, date) snapshot, in
the same kinds, fields and canonical values, and tests/fleet/test_differential.py holds the two
to each other on generated fleets. The rules, each mirroring planning/diff.py and
planning/drift.py (their names in brackets):

- Out of reach, never reported: internal topics, names the planner's `ignored` matches (the
  `_reconciler_` prefix and policy.ignore, in Java's regex dialect where that is provably the
  same, else by the planner's own function: ignore.py), a spec
  naming one of them [ignored_spec].
- missing: a spec's topic the snapshot lacks, unless its create is refused: a name colliding
  with an existing topic over '.' versus '_', manual assignments naming unknown brokers, or a
  replication factor (the spec's, its assignments', else the broker default) above the number
  of brokers [create].
- config: keys the spec sets or the cluster overrides, throttles (OPERATIONAL_KEYS) only when
  the spec names them, compared as canonical strings [_config_changes].
- partitions (growth) and replication_factor: only where the spec gives a count (omitted
  counts never drift, KIP-464), and not while a reassignment of the topic is in progress, a
  replication factor needs more brokers than there are, or manual assignments name unknown
  brokers [update].
- placement where a spec sets assignments and the replication factor matches
  [drift._placement]; partitions above the spec and present for a tombstone's topic, the
  fleet's words for two of the planner's `blocked` items (its partition_decrease, and a delete
  held back or planned). The planner's other blocked items (every error of the plan) are not
  rows yet: the compiled desired state lacks the policies, protect and allow_delete they come
  from (`reconciler help fleet`).
- unmanaged: on the cluster, named by no spec (tombstones included), not out of reach.

`first_seen` is the first date of the unbroken run of snapshots (consecutive snapshots of the
cluster, whatever the calendar gaps between them) showing the same difference: same kind,
field, desired and actual value.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from reconciler.cluster.overrides import OPERATIONAL_KEYS
from reconciler.fleet import ignore
from reconciler.fleet.inputs import Desired, Observed

DRIFT_COLUMNS = (
    "cluster",
    "date",
    "topic",
    "field",
    "desired",
    "actual",
    "kind",
    "first_seen",
    "from_first_snapshot",
    "file",
    "line",
    "column",
)
UNMANAGED_COLUMNS = (
    "cluster",
    "date",
    "topic",
    "partitions",
    "replication_factor",
    "first_seen",
    "from_first_snapshot",
)

_ITEM = T.StructType(
    [
        T.StructField("kind", T.StringType()),
        T.StructField("field", T.StringType()),
        T.StructField("desired", T.StringType()),
        T.StructField("actual", T.StringType()),
    ]
)

_KEYS = ["cluster", "date", "topic"]


@dataclass(frozen=True)
class Rows:
    """The job's main frame and what the drift items need beside it."""

    # One row per topic of each snapshot that counts, with its spec (none for unmanaged
    # topics), the snapshot's brokers and the cluster's limits: the drift items, the
    # consistency and the broker load derive from it. Persisted; partitioned by (cluster,
    # topic), which the per-topic steps after it reuse.
    rows: DataFrame
    # Spec'd topics, per date, the snapshot does not hold: candidates for `missing`
    absent: DataFrame
    # cluster, topic, seen: the cluster's snapshots that held the topic, as bits (see _words)
    seen: DataFrame
    duplicates: int  # topic lines a snapshot held twice (one copy is kept)
    count: int  # rows (after that): one per topic of each snapshot
    cached: tuple[DataFrame, ...]  # to unpersist after the job


def prepare(desired: Desired, observed: Observed) -> Rows:
    """Join the snapshots' topics to their specs, and run it: this is the pass that parses
    every snapshot line (and counts the bad ones).

    The join is on (cluster, topic), not per date, so the specs are shuffled once rather than
    once per snapshot date; a spec's dates without its topic come from the dates each topic was
    seen on, gathered where the rows already sit. Comparing how many rows a topic has with how
    many dates it was seen on finds duplicated lines without a pass of their own; only when
    there are any (broken input) are the rows deduplicated.
    """
    patterns = {
        row["cluster"]: tuple(row["ignore"])
        for row in desired.clusters.select("cluster", "ignore").collect()  # one per cluster
    }
    ignored = ignore.ignored(patterns, F.col("topic"), F.col("cluster"))
    specs = desired.specs.withColumnsRenamed(
        {"partitions": "spec_partitions", "replication_factor": "spec_rf"}
    )
    context = F.broadcast(
        observed.snapshots.drop("brokers", "taken_at").join(
            # only whether the cluster has a desired state: the limits are broker_load's, which
            # joins them to its few rows, not to every cached one
            F.broadcast(desired.clusters.select("cluster", F.lit(True).alias("has_desired"))),
            "cluster",
            "left",
        )
    )
    manual = F.coalesce(F.size("assignments") > 0, F.lit(False))
    managed_cluster = F.coalesce(F.col("has_desired"), F.lit(False))
    rows = (
        observed.topics.repartition("topic")
        # a hash of the specs per partition rather than sorting the fleet's rows to merge them
        .join(specs.hint("shuffle_hash"), ["cluster", "topic"], "left")
        .join(context, ["cluster", "date"])
        .select(
            "*",
            managed_cluster.alias("managed_cluster"),
            F.col("state").isNotNull().alias("managed"),
            F.when(managed_cluster, ignored).alias("ignored"),
            manual.alias("manual"),
            F.size("replicas").alias("cur_count"),
            F.aggregate("replicas", F.lit(0), lambda acc, r: F.greatest(acc, F.size(r))).alias(
                "cur_rf"
            ),
            # the spec's effective counts, as columns: spec.model's partitions_of and
            # replication_factor_of (validated specs never hold a 0 for `or` to skip)
            F.coalesce(F.col("spec_partitions"), F.when(manual, F.size("assignments"))).alias(
                "want_count"
            ),
            F.coalesce(
                F.col("spec_rf"),
                F.when(manual, F.size(F.try_element_at("assignments", F.lit(1)))),
            ).alias("want_rf"),
            F.size("broker_ids").alias("broker_count"),
        )
        # what no later step reads stays out of the cache: each column costs its build. The
        # broker ids are read only to check manual assignments (drift._known)
        .withColumn("broker_ids", F.when(F.col("manual"), F.col("broker_ids")))
        .drop("has_desired", "spec_partitions", "spec_rf", "default_rf")
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    # The snapshots each topic was seen in, as bits of their numbers (seq) in a few longs: a
    # hash aggregate of fixed-width values, where a set of dates took an object aggregate
    # that sorted every row
    top = observed.snapshots.agg(F.max("seq")).first()
    words = _words(int(top[0]) if top is not None and top[0] is not None else 1)
    names = [f"w{w}" for w in range(len(words))]
    seen = (
        rows.groupBy("cluster", "topic")
        .agg(
            *(w.alias(n) for w, n in zip(words, names, strict=True)),
            F.count(F.lit(1)).alias("lines"),
        )
        .select(
            "cluster",
            "topic",
            F.array(*names).alias("seen"),
            sum((F.bit_count(n) for n in names), F.lit(0)).alias("dates"),
            "lines",
        )
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    # (and the rows' count, for the summary, without a pass over them of its own)
    twice = seen.agg(F.sum(F.col("lines") - F.col("dates")), F.sum("dates")).first()
    duplicates = int(twice[0]) if twice is not None and twice[0] is not None else 0
    count = int(twice[1]) if twice is not None and twice[1] is not None else 0
    cached: tuple[DataFrame, ...] = (rows, seen)
    if duplicates:
        rows = rows.dropDuplicates(_KEYS).persist(StorageLevel.MEMORY_AND_DISK)
        cached = (*cached, rows)
    held = seen.drop("lines", "dates")  # cluster, topic, seen
    dates = F.broadcast(
        observed.snapshots.groupBy("cluster").agg(
            F.collect_list(F.struct("seq", "date")).alias("d")
        )
    )
    absent = (
        specs.where(F.col("state") == "present")
        .join(held, ["cluster", "topic"], "left")
        .join(dates, "cluster")
        .select(
            "*",
            F.explode(F.filter("d", lambda s: ~_held(F.col("seen"), s.seq)).date).alias("date"),
        )
        .drop("d", "seen")
        .join(context, ["cluster", "date"])
        .where(F.col("has_desired"))
        .select(
            "*",
            ignored.alias("ignored"),
            manual.alias("manual"),
            F.coalesce(
                F.col("spec_rf"),
                F.when(manual, F.size(F.try_element_at("assignments", F.lit(1)))),
            ).alias("want_rf"),
            F.size("broker_ids").alias("broker_count"),
        )
        # few rows, read twice by _missing (the candidates' keys, then the candidates)
        .persist()
    )
    return Rows(rows, absent, held, duplicates, count, (*cached, absent))


def items(prepared: Rows) -> DataFrame:
    """The drift items of every (cluster, date), before first_seen: cluster, date, seq, topic,
    kind, field, desired, actual, file, line, column, partitions, replication_factor (the last
    two for unmanaged topics)."""
    c = F.col
    rows = prepared.rows
    in_reach = c("managed_cluster") & ~c("ignored") & ~c("internal")
    spec = in_reach & c("managed")
    absent = c("state") == "absent"
    update = spec & ~absent

    config = _config_items(c("config"), c("overrides"))
    counts = _count_items()
    placement = _placement_item()
    present = F.when(spec & absent, _item("present", "topic", None, "present"))
    unmanaged = F.when(in_reach & ~c("managed"), _item("unmanaged", "topic", None, "present"))
    found = F.concat(
        F.when(update, F.concat(config, counts, F.array(placement))).otherwise(
            F.array().cast(T.ArrayType(_ITEM))
        ),
        F.array(present, unmanaged),
    )
    # The items are computed in a projection and only then exploded, for the rows that have
    # any (few): an explode of the expression itself ran all of it interpreted, row by row,
    # once one part of it had no generated code (zip_with did), at over twice the cost.
    exploded = (
        rows.where(c("managed_cluster"))
        .select(*_ITEM_CONTEXT, F.filter(found, lambda i: i.isNotNull()).alias("items"))
        .where(F.size("items") > 0)
        .select(*_ITEM_CONTEXT, F.explode("items").alias("i"))
        .select("*", "i.*")
        .drop("i")
    )
    return exploded.unionByName(_missing(prepared.seen, prepared.absent)).select(
        "cluster",
        "date",
        "seq",
        "topic",
        "kind",
        "field",
        "desired",
        "actual",
        c("spec_file").alias("file"),
        c("spec_line").alias("line"),
        c("spec_column").alias("column"),
        F.when(c("kind") == "unmanaged", c("cur_count")).alias("partitions"),
        F.when(c("kind") == "unmanaged", c("cur_rf")).alias("replication_factor"),
    )


_ITEM_CONTEXT = (
    "cluster", "date", "seq", "topic", "spec_file", "spec_line", "spec_column", "cur_count",
    "cur_rf",
)  # fmt: skip


def _missing(seen: DataFrame, absent: DataFrame) -> DataFrame:
    """Spec'd topics a snapshot lacks, less the creates the planner refuses [diff.create]: a
    name policy.ignore covers, one colliding with an existing topic over '.' versus '_',
    assignments naming unknown brokers, a replication factor above the broker count."""
    c = F.col
    # Kafka's unifyCollisionChars ('.' as '_'); `replace`, not `translate`, which looks each
    # character of each name up in a map
    key = F.replace(c("topic"), F.lit("."), F.lit("_"))
    wanted = absent.where(~c("ignored")).withColumn("key", key)
    # The names each cluster holds, with the snapshots it held them in (`seen`: a row per
    # cluster and name, where the rows have one per snapshot as well), against the few
    # candidates' keys, broadcast
    names = ["taken_cluster", "taken_key"]
    candidates = wanted.select(c("cluster").alias(names[0]), c("key").alias(names[1]))
    taken = seen.select(
        c("cluster").alias(names[0]), key.alias(names[1]), c("seen").alias("on")
    ).join(F.broadcast(candidates.distinct()), names, "left_semi")
    collides = (
        (c("cluster") == c("taken_cluster"))
        & (c("key") == c("taken_key"))
        & _held(c("on"), c("seq"))
    )
    rf = F.coalesce(c("want_rf"), c("default_rf"))
    refused = (c("manual") & ~_known(c("assignments"))) | (
        rf.isNotNull() & (c("broker_count") > 0) & (rf > c("broker_count"))
    )
    return (
        wanted.join(taken, collides, "left_anti")
        .where(~refused)
        .select(
            "cluster",
            "date",
            "seq",
            "topic",
            "spec_file",
            "spec_line",
            "spec_column",
            F.lit(None).cast("int").alias("cur_count"),
            F.lit(None).cast("int").alias("cur_rf"),
            F.lit("missing").alias("kind"),
            F.lit("topic").alias("field"),
            F.lit("present").alias("desired"),
            F.lit(None).cast("string").alias("actual"),
        )
    )


_BITS = 63  # snapshots to a long (its sign bit left alone)


def _words(top: int) -> list[Column]:
    """The aggregates of a topic's bits, one long for each 63 snapshot numbers up to `top`:
    bit i of word w is snapshot w * 63 + i + 1."""
    words = []
    for w in range(max(1, -(-top // _BITS))):
        bit = F.col("seq") - 1 - w * _BITS
        one = F.call_function("shiftleft", F.lit(1).cast("long"), bit)
        mine = F.when((bit >= 0) & (bit < _BITS), one)
        words.append(F.coalesce(F.bit_or(mine), F.lit(0).cast("long")))
    return words


def _held(seen: Column, seq: Column) -> Column:
    """Whether snapshot `seq` is among the bits `seen` (false when `seen` is null: a topic
    the cluster never held)."""
    bit = seq - 1
    word = F.try_element_at(seen, F.floor(bit / _BITS).cast("int") + 1)
    shifted = F.call_function("shiftright", word, (bit % _BITS).cast("int"))
    return F.coalesce(shifted.bitwiseAND(1) == 1, F.lit(False))


def _item(kind: str, field: str | Column, desired: Column | None, actual: Column | str) -> Column:
    return F.struct(
        F.lit(kind).alias("kind"),
        (field if isinstance(field, Column) else F.lit(field)).alias("field"),
        (desired if desired is not None else F.lit(None).cast("string")).alias("desired"),
        (actual if isinstance(actual, Column) else F.lit(actual)).alias("actual"),
    )


def _config_items(wanted: Column, overrides: Column) -> Column:
    """One item per config key whose canonical value differs; both sides are canonical
    already (compile and the snapshot writer), so this is a string comparison."""
    operational = F.array(*(F.lit(k) for k in sorted(OPERATIONAL_KEYS)))
    current = F.map_filter(
        overrides,
        lambda k, _: F.map_contains_key(wanted, k) | ~F.array_contains(operational, k),
    )
    keys = F.sort_array(F.array_distinct(F.concat(F.map_keys(wanted), F.map_keys(current))))
    compared = F.filter(
        F.transform(
            keys,
            lambda k: _item("config", F.concat(F.lit("config."), k), wanted[k], current[k]),
        ),
        lambda i: ~i.desired.eqNullSafe(i.actual),
    )
    # Most topics hold exactly the overrides their spec sets: a plain comparison of the two
    # maps skips the per-key lambdas (evaluated row by row, not compiled) there. Compared as
    # their key and value arrays, as stored: both writers order the keys (compile and the
    # snapshot writer), and two equal maps whose keys some other writer ordered otherwise
    # merely take the per-key path, which finds them equal
    alike = (F.map_keys(wanted) == F.map_keys(overrides)) & (
        F.map_values(wanted) == F.map_values(overrides)
    )
    return F.when(alike, F.array().cast(T.ArrayType(_ITEM))).otherwise(compared)


def _known(ids: Column) -> Column:
    """The planner's _brokers_known: every broker named is listed (always, when the snapshot
    lists none)."""
    return (F.col("broker_count") == 0) | F.forall(
        F.flatten(ids), lambda b: F.array_contains(F.col("broker_ids"), b)
    )


def _count_items() -> Column:
    """Partition growth and replication-factor changes the plan would make [diff.update]."""
    c = F.col
    grow = F.coalesce(c("want_count") > c("cur_count"), F.lit(False))
    # The planner judges the replication factor on the replicas an in-progress reassignment
    # settles to, but a topic with one in progress gets neither change (moving, below), so the
    # replicas as listed give the same answer wherever it matters.
    # "some partition's replica count differs from want_rf", without a lambda per partition:
    # cur_rf is the largest count, and the counts are all equal when they sum to
    # cur_count * cur_rf
    uniform = F.size(F.flatten("replicas")) == c("cur_count") * c("cur_rf")
    reshape = (
        c("want_rf").isNotNull() & (c("cur_count") > 0) & ((c("cur_rf") != c("want_rf")) | ~uniform)
    )
    moving = c("moving")
    grow = grow & ~moving
    reshape = reshape & ~moving
    needed = F.greatest(F.coalesce(c("want_rf"), F.lit(0)), F.when(grow, c("cur_rf")).otherwise(0))
    reshape = reshape & ~(needed > c("broker_count"))
    used = F.when(reshape, c("assignments")).otherwise(
        F.filter("assignments", lambda _, i: i >= c("cur_count"))
    )
    refused = c("manual") & (grow | reshape) & ~_known(used)
    return F.array(
        F.when(
            grow & ~refused,
            _item(
                "partitions",
                "partitions",
                c("want_count").cast("string"),
                c("cur_count").cast("string"),
            ),
        ),
        F.when(
            reshape & ~refused,
            _item(
                "replication_factor",
                "replication_factor",
                c("want_rf").cast("string"),
                c("cur_rf").cast("string"),
            ),
        ),
        # more partitions than the spec: Kafka cannot shrink them [diff: partition_decrease]
        F.when(
            c("want_count") < c("cur_count"),
            _item(
                "partitions",
                "partitions",
                c("want_count").cast("string"),
                c("cur_count").cast("string"),
            ),
        ),
    )


def _placement_item() -> Column:
    """Manual assignments the replicas no longer follow, at an unchanged replication factor
    [drift._placement]."""
    c = F.col
    now = F.slice("replicas", 1, F.size("assignments"))
    spec = F.slice("assignments", 1, F.size(now))
    # the two are as long as each other: their lists of sizes compare as plain arrays (not
    # zip_with, which Spark evaluates outside the generated code)
    same_rf = F.transform(now, F.size) == F.transform(spec, F.size)
    return F.when(
        c("manual") & same_rf & ~(now == spec),
        _item("placement", "assignments", _lists(spec), _lists(now)),
    )


def _lists(assignments: Column) -> Column:
    """`[[1, 2], [2, 3]]`, as drift._lists writes it."""
    inner = F.transform(
        assignments,
        lambda r: F.concat(F.lit("["), F.array_join(r.cast("array<string>"), ", "), F.lit("]")),
    )
    return F.concat(F.lit("["), F.array_join(inner, ", "), F.lit("]"))


def with_first_seen(found: DataFrame, snapshots: DataFrame) -> DataFrame:
    """Each item with the first date of its unbroken run of snapshots (gaps and islands: in a
    run, the snapshot sequence number minus the item's row number stays constant), and whether
    that run already held in the first snapshot read."""
    same = ["cluster", "topic", "kind", "field", "desired", "actual"]
    numbered = found.withColumn(
        "island", F.col("seq") - F.row_number().over(Window.partitionBy(*same).orderBy("seq"))
    )
    run = Window.partitionBy(*same, "island")
    return numbered.select(
        "*",
        F.min("date").over(run).alias("first_seen"),
        (F.min("seq").over(run) == 1).alias("from_first_snapshot"),
    ).drop("island")
