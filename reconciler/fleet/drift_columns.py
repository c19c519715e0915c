"""The planner's drift, row for row, as DataFrame expressions over every cluster and date.

`reconciler drift` reports what `reconciler.planning.drift.drift` finds in the plan
`make_plan` makes; this module computes the same items for each (cluster, date) snapshot, in
the same kinds, fields and canonical values, and tests/fleet/test_differential.py holds the two
to each other on generated fleets. The rules that hold a change back or mark drift are the
planner's list, planning/drift_codes.py: `COMPUTED` below names the column expression of each
one this job computes, `PLANNER_ONLY` why the others are not computed (a test holds the three
to each other). The items, each mirroring planning/diff.py and planning/drift.py (their names
in brackets):

- Out of reach, never reported: internal topics, names the planner's `ignored` matches (the
  `_reconciler_` prefix and policy.ignore, in Java's regex dialect where that is provably the
  same, else by the planner's own function: ignore.py), a spec naming one of them
  [ignored_topic].
- missing: a spec's topic the snapshot lacks, unless its create is refused, which is a
  `blocked` item instead: a name colliding with an existing topic over '.' versus '_'
  [topic_collision], manual assignments naming brokers the snapshot does not list
  [unknown_broker, or broker_down when existing replicas name them], a replication factor (the
  spec's, its assignments', else the broker default) above the number of brokers
  [replication_factor_unreachable, or broker_down likewise].
- config: keys the spec sets or the cluster overrides, throttles (OPERATIONAL_KEYS) only when
  the spec names them, compared as canonical strings [_config_changes]; a key the cluster
  line's `topic_config_keys` does not list is a `blocked` item instead, for an update and a
  create alike [unknown_topic_config].
- partitions (growth) and replication_factor: only where the spec gives a count (omitted
  counts never drift, KIP-464), and not while a reassignment of the topic is in progress
  [reassignment_in_progress], a replication factor needs more brokers than there are
  [replication_factor_unreachable, broker_down], or manual assignments name unknown brokers
  [unknown_broker, broker_down]; more partitions than the spec's [partition_decrease].
- min.insync.replicas above the replication factor the cluster decides, for a spec that
  leaves it to the cluster [min_insync_replicas].
- placement where a spec sets assignments and the replication factor matches
  [drift._placement].
- present for a tombstone's topic the plan deletes; a delete it holds back is `blocked`
  [delete_protected, delete_not_allowed, delete_with_unread_specs].
- unmanaged: on the cluster, named by no spec (tombstones included), not out of reach.

A `blocked` item is the planner's: kind `blocked`, field the rule's name, no values.

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
from reconciler.diagnostics import Rule
from reconciler.fleet import ignore
from reconciler.fleet.inputs import Desired, Observed
from reconciler.fleet.spark_functions import map_contains_key
from reconciler.planning import p_codes
from reconciler.spec import r_codes as spec_rules

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
        # what tells a refusal for a down broker from the others (_down_brokers): the
        # replicas a replication factor needs, and the brokers assignments name that the
        # snapshot does not list
        T.StructField("needs", T.IntegerType()),
        T.StructField("unlisted", T.ArrayType(T.IntegerType())),
    ]
)

# The planner's rules (planning/drift_codes.py) this module computes, each with the function
# whose column expression does
COMPUTED: dict[str, str] = {
    p_codes.PARTITION_DECREASE.name: "_count_items",
    p_codes.REASSIGNMENT_IN_PROGRESS.name: "_count_items",
    p_codes.REPLICATION_FACTOR_UNREACHABLE.name: "_count_items, _missing",
    p_codes.UNKNOWN_BROKER.name: "_count_items, _missing",
    p_codes.BROKER_DOWN.name: "_down_brokers",
    p_codes.TOPIC_COLLISION.name: "_missing",
    p_codes.DELETE_PROTECTED.name: "_tombstone_item",
    p_codes.DELETE_NOT_ALLOWED.name: "_tombstone_item",
    p_codes.DELETE_WITH_UNREAD_SPECS.name: "_tombstone_item",
    p_codes.IGNORED_TOPIC.name: "ignore.ignored (prepare's `ignored` column)",
    spec_rules.MIN_INSYNC_REPLICAS.name: "_min_insync_item, _missing",
    p_codes.UNKNOWN_TOPIC_CONFIG.name: "_unknown_configs (prepare), items, _missing",
}
# ... and why the others are the planner's alone: they need what a compiled desired state and a
# snapshot do not carry, or the whole plan's placement
PLANNER_ONLY: dict[str, str] = {
    p_codes.INVALID_IGNORE_PATTERN.name: "a cluster-wide item with no topic; the job skips such "
    "patterns as the planner does, and `reconciler validate` names them",
    p_codes.MAX_BROKER_PARTITIONS.name: "judges the load after the plan's own placement of every "
    "new replica (planning/placement.py), which the job does not place",
    p_codes.MAX_PARTITIONS.name: "judges the partitions after the whole plan; the broker_load "
    "table shows the cluster's count against the limit instead",
    p_codes.MIN_REPLICATION_FACTOR.name: "policy.min_replication_factor is not in the compiled "
    "desired state",
    p_codes.MAX_PARTITIONS_PER_TOPIC.name: "policy.max_partitions_per_topic is not in the "
    "compiled desired state",
    p_codes.NAME_PATTERN.name: "policy.name_pattern is not in the compiled desired state",
    p_codes.MAX_DELETES.name: "policy.max_deletes is not in the compiled desired state",
    p_codes.LEFTOVER_THROTTLE.name: "a snapshot carries no audit record, which names the "
    "throttles an apply left",
}

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
            F.broadcast(
                desired.clusters.select(
                    "cluster", F.lit(True).alias("has_desired"), "allow_delete", "unread"
                )
            ),
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
            _unknown_configs().alias("unknown_configs"),
        )
        .withColumn(
            # the replicas naming brokers the snapshot does not list (rare; null otherwise):
            # the brokers the planner counts as down (_down_brokers)
            "unlisted",
            F.when(
                F.col("broker_count") > 0,
                F.array_except(F.flatten("replicas"), F.col("broker_ids")),
            ),
        )
        .withColumn("unlisted", F.when(F.size("unlisted") > 0, F.col("unlisted")))
        # what no later step reads stays out of the cache: each column costs its build. The
        # broker ids are read only to check manual assignments (drift._known)
        .withColumn("broker_ids", F.when(F.col("manual"), F.col("broker_ids")))
        .drop("has_desired", "spec_partitions", "spec_rf", "default_rf", "config_keys")
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
            _unknown_configs().alias("unknown_configs"),
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

    unknown = c("unknown_configs")
    config = F.concat(
        F.transform(unknown, lambda _: _blocked(p_codes.UNKNOWN_TOPIC_CONFIG)),
        F.when(
            F.size(unknown) > 0,
            _config_items(
                F.map_filter(c("config"), lambda k, _: ~F.array_contains(unknown, k)),
                F.map_filter(c("overrides"), lambda k, _: ~F.array_contains(unknown, k)),
            ),
        ).otherwise(_config_items(c("config"), c("overrides"))),
    )
    counts = _count_items()
    placement = _placement_item()
    # the planner judges min.insync.replicas on the topic's own replication factor: a spec
    # that leaves it to the cluster never reassigns
    insync = _min_insync_item(c("cur_rf"))
    tombstone = F.when(spec & absent, _tombstone_item())
    unmanaged = F.when(in_reach & ~c("managed"), _item("unmanaged", "topic", None, "present"))
    found = F.concat(
        F.when(update, F.concat(config, counts, F.array(placement, insync))).otherwise(
            F.array().cast(T.ArrayType(_ITEM))
        ),
        F.array(tombstone, unmanaged),
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
    found_items = exploded.unionByName(_missing(prepared.seen, prepared.absent))
    return _down_brokers(found_items, rows).select(
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
    "cur_rf", "broker_count",
)  # fmt: skip


def _down_brokers(found: DataFrame, rows: DataFrame) -> DataFrame:
    """A refusal for brokers the snapshot does not list is broker_down when existing replicas
    name those brokers (down, not gone: the planner's ClusterState.down_brokers) and, for a
    replication factor, the brokers down and up together could hold it [diff._unreachable,
    diff._brokers_known]; else it stays replication_factor_unreachable or unknown_broker.
    The brokers down come from the few rows naming an unlisted broker, per snapshot."""
    c = F.col
    down = F.broadcast(
        rows.where(c("unlisted").isNotNull())
        .groupBy("cluster", "seq")
        .agg(F.array_distinct(F.flatten(F.collect_list("unlisted"))).alias("down"))
    )
    count = F.coalesce(F.size("down"), F.lit(0))
    unreachable = (c("field") == p_codes.REPLICATION_FACTOR_UNREACHABLE.name) & (count > 0)
    unknown = (c("field") == p_codes.UNKNOWN_BROKER.name) & (count > 0)
    waits = (unreachable & (c("needs") <= c("broker_count") + count)) | (
        unknown & (F.size(F.array_intersect(c("unlisted"), c("down"))) > 0)
    )
    return (
        found.join(down, ["cluster", "seq"], "left")
        .withColumn(
            "field",
            F.when((c("kind") == "blocked") & waits, p_codes.BROKER_DOWN.name).otherwise(
                c("field")
            ),
        )
        .drop("down", "needs", "unlisted", "broker_count")
    )


def _missing(seen: DataFrame, absent: DataFrame) -> DataFrame:
    """Spec'd topics a snapshot lacks: a create, or the planner's refusal of it [diff.create]
    (a blocked item): a name colliding with an existing topic over '.' versus '_',
    assignments naming unknown brokers, a replication factor above the broker count. A name
    policy.ignore covers is out of reach."""
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
    unknown = c("manual") & ~_known(c("assignments"))
    unreachable = rf.isNotNull() & (c("broker_count") > 0) & (rf > c("broker_count"))
    # the create's replication factor when the spec leaves it to the broker (insync.create_rf)
    insync = _min_insync_item(c("default_rf"))
    collided = wanted.join(taken, collides, "left_semi").select(
        *_MISSING_CONTEXT, F.array(_blocked(p_codes.TOPIC_COLLISION)).alias("items")
    )
    created = wanted.join(taken, collides, "left_anti").select(
        *_MISSING_CONTEXT,
        F.when(
            F.size("unknown_configs") > 0,
            F.transform("unknown_configs", lambda _: _blocked(p_codes.UNKNOWN_TOPIC_CONFIG)),
        )
        .when(
            unknown,
            F.array(
                _blocked(
                    p_codes.UNKNOWN_BROKER,
                    unlisted=F.array_except(F.flatten("assignments"), c("broker_ids")),
                )
            ),
        )
        .when(unreachable, F.array(_blocked(p_codes.REPLICATION_FACTOR_UNREACHABLE, needs=rf)))
        .otherwise(F.array(_item("missing", "topic", F.lit("present"), None), insync))
        .alias("items"),
    )
    return (
        collided.unionByName(created)
        .select(*_MISSING_CONTEXT, F.explode(F.filter("items", lambda i: i.isNotNull())).alias("i"))
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
            "broker_count",
            "i.*",
        )
    )


_MISSING_CONTEXT = (
    "cluster", "date", "seq", "topic", "spec_file", "spec_line", "spec_column", "broker_count",
)  # fmt: skip


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


def _item(
    kind: str,
    field: str | Column,
    desired: Column | None,
    actual: Column | str | None,
    needs: Column | None = None,
    unlisted: Column | None = None,
) -> Column:
    return F.struct(
        F.lit(kind).alias("kind"),
        (field if isinstance(field, Column) else F.lit(field)).alias("field"),
        (desired if desired is not None else F.lit(None).cast("string")).alias("desired"),
        (
            actual
            if isinstance(actual, Column)
            else F.lit(actual)
            if actual is not None
            else F.lit(None).cast("string")
        ).alias("actual"),
        (needs if needs is not None else F.lit(None)).cast("int").alias("needs"),
        (unlisted if unlisted is not None else F.lit(None)).cast("array<int>").alias("unlisted"),
    )


def _blocked(rule: Rule, needs: Column | None = None, unlisted: Column | None = None) -> Column:
    """The planner's blocked item: its rule's name as the field, no values
    (planning/drift.py _blocked)."""
    return _item("blocked", rule.name, None, None, needs, unlisted)


def _unknown_configs() -> Column:
    """The keys a spec sets that the snapshot's cluster does not list among its topic configs,
    sorted; empty when it lists them all, or when its snapshot does not say which it knows
    (planning/cluster_configs.py: nobody can tell then, and the planner only warns)."""
    keys = F.coalesce(F.map_keys("config"), F.array().cast(T.ArrayType(T.StringType())))
    return F.when(
        F.col("config_keys").isNotNull(),
        F.array_sort(F.filter(keys, lambda k: ~F.array_contains(F.col("config_keys"), k))),
    ).otherwise(F.array().cast(T.ArrayType(T.StringType())))


def _config_items(wanted: Column, overrides: Column) -> Column:
    """One item per config key whose canonical value differs; both sides are canonical
    already (compile and the snapshot writer), so this is a string comparison."""
    operational = F.array(*(F.lit(k) for k in sorted(OPERATIONAL_KEYS)))
    current = F.map_filter(
        overrides,
        lambda k, _: map_contains_key(wanted, k) | ~F.array_contains(operational, k),
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
    """Partition growth and replication-factor changes the plan would make, and the ones it
    refuses [diff.update]."""
    c = F.col
    grow = F.coalesce(c("want_count") > c("cur_count"), F.lit(False))
    # "some partition's replica count differs from want_rf", without a lambda per partition:
    # cur_rf is the largest count, and the counts are all equal when they sum to
    # cur_count * cur_rf
    uniform = F.size(F.flatten("replicas")) == c("cur_count") * c("cur_rf")
    listed = (c("cur_rf") != c("want_rf")) | ~uniform
    # Mid-reassignment the planner judges the counts the moving partitions settle to
    # (diff.settled_replicas); a lambda per partition, only on the few topics moving
    settled = F.exists(
        F.transform(
            "replicas",
            lambda r, i: F.coalesce(F.map_from_entries("settled")[i], F.size(r)),
        ),
        lambda n: n != c("want_rf"),
    )
    reshape = (
        c("want_rf").isNotNull()
        & (c("cur_count") > 0)
        & F.when(c("moving"), settled).otherwise(listed)
    )
    moving = c("moving")
    held = (grow | reshape) & moving
    grow = grow & ~moving
    reshape = reshape & ~moving
    needed = F.greatest(F.coalesce(c("want_rf"), F.lit(0)), F.when(grow, c("cur_rf")).otherwise(0))
    unplaceable = reshape & (needed > c("broker_count"))
    reshape = reshape & ~unplaceable
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
        # more partitions than the spec: Kafka cannot shrink them
        F.when(c("want_count") < c("cur_count"), _blocked(p_codes.PARTITION_DECREASE)),
        F.when(held, _blocked(p_codes.REASSIGNMENT_IN_PROGRESS)),
        F.when(unplaceable, _blocked(p_codes.REPLICATION_FACTOR_UNREACHABLE, needs=needed)),
        F.when(
            refused,
            _blocked(
                p_codes.UNKNOWN_BROKER,
                unlisted=F.array_except(F.flatten(used), c("broker_ids")),
            ),
        ),
    )


def _min_insync_item(rf: Column) -> Column:
    """min.insync.replicas above `rf`, the replication factor the cluster decides for a spec
    that gives none (no count, no assignments) [insync.check_min_insync]."""
    c = F.col
    value = c("config")["min.insync.replicas"]
    judged = c("want_rf").isNull() & value.rlike("^[0-9]+$") & rf.isNotNull()
    return F.when(judged & (value.cast("long") > rf), _blocked(spec_rules.MIN_INSYNC_REPLICAS))


def _tombstone_item() -> Column:
    """A tombstone's topic still on the cluster: deleted by the plan (present), or held back
    [diff.tombstone], in the planner's order."""
    c = F.col
    return (
        F.when(c("protect"), _blocked(p_codes.DELETE_PROTECTED))
        .when(~c("allow_delete"), _blocked(p_codes.DELETE_NOT_ALLOWED))
        .when(c("unread"), _blocked(p_codes.DELETE_WITH_UNREAD_SPECS))
        .otherwise(_item("present", "topic", None, "present"))
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
