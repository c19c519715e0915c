"""Cross-cluster consistency: a topic that differs between clusters where the specs do not
make it differ.

For each date and each topic present on several clusters, every field (partitions,
replication_factor, and config.<key> for each key a spec sets or a cluster overrides) is
compared among the clusters whose specs say the same about it. What the specs say is taken
after templates and defaults, so a difference a template variable or a per-cluster spec
produces (different desired values) is intended and never compared:

    spec value     the rendered value, e.g. "12" or "604800000"
    (unset)        the spec leaves it out: the broker default at creation for counts, no
                   override for a config key
    (no spec)      no spec names the topic on that cluster (an unmanaged topic)

Within one such group, every cluster whose actual value some other member does not share is
reported, with the members that differ from it (`differs_from`) and how many share its value
(`same`), so the odd one out is the row with the smallest `same`. Left out, as the planner
leaves them out: internal topics, names the cluster's policy.ignore (or the `_reconciler_`
prefix) covers, tombstoned topics, clusters without a compiled desired state, and throttle
overrides (OPERATIONAL_KEYS) unless a spec names the key. Config values are canonical on both
sides, so `7d` and `604800000` are the same value.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from reconciler.cluster.overrides import OPERATIONAL_KEYS
from reconciler.fleet.spark_functions import map_contains_key

CONSISTENCY_COLUMNS = (
    "date",
    "topic",
    "field",
    "cluster",
    "desired",
    "managed",
    "actual",
    "clusters",
    "same",
    "differs_from",
)

# What the specs say, as a grouping key: a spec's value behind "=", so no value can pass for
# one of the two markers.
UNSET = "unset"
NO_SPEC = "no spec"


def consistency(rows: DataFrame) -> DataFrame:
    """`rows` is drift.prepare's rows; one output row per (date, topic, field, cluster)."""
    c = F.col
    operational = F.array(*(F.lit(k) for k in sorted(OPERATIONAL_KEYS)))
    config = F.coalesce(c("config"), F.create_map().cast("map<string,string>"))
    candidates = rows.where(
        c("managed_cluster")
        & ~c("internal")
        & ~c("ignored")
        & ~F.coalesce(c("state") == "absent", F.lit(False))
    )
    # map_filter is evaluated row by row outside the generated code (Spark 4 compiles the array
    # lambdas, not the map ones): only maps holding a throttle key, a few, need it
    overrides = F.when(
        F.arrays_overlap(F.map_keys("overrides"), operational),
        F.map_filter(
            "overrides",
            lambda k, _: map_contains_key(config, k) | ~F.array_contains(operational, k),
        ),
    ).otherwise(c("overrides"))
    member = F.struct(
        c("cluster").alias("cluster"),
        c("managed").alias("managed"),
        c("want_count").cast("string").alias("want_count"),
        c("want_rf").cast("string").alias("want_rf"),
        config.alias("config"),
        c("cur_count").cast("string").alias("cur_count"),
        c("cur_rf").cast("string").alias("cur_rf"),
        overrides.alias("overrides"),
    )
    # Most groups are of identical members (spec and cluster values alike), with no field to
    # report: two independent hashes of each member (96 bits, so members that differ and yet
    # hash alike are out of practical reach) let the costly per-field comparison below skip
    # them. The rows are partitioned by topic already (drift.prepare): this does not shuffle.
    # (The maps as stored, keys in their writers' order, which is sorted: equal maps in
    # another order hash apart, and go to the comparison, which finds them equal)
    alike = (
        c("managed"),
        c("want_count"),
        c("want_rf"),
        F.map_keys(config),
        F.map_values(config),
        c("cur_count"),
        c("cur_rf"),
        F.map_keys(overrides),
        F.map_values(overrides),
    )
    groups = (
        candidates.select(
            "date",
            "topic",
            member.alias("member"),
            F.xxhash64(*alike).alias("a"),
            F.hash(*alike).alias("b"),
        )
        .groupBy("date", "topic")
        .agg(
            F.collect_list("member").alias("m"),
            (F.min("a") != F.max("a")).alias("unequal_a"),
            (F.min("b") != F.max("b")).alias("unequal_b"),
        )
        .where(F.col("unequal_a") | F.col("unequal_b"))
        .drop("unequal_a", "unequal_b")
    )
    keys = F.sort_array(
        F.array_distinct(
            F.flatten(
                F.transform("m", lambda m: F.concat(F.map_keys(m.config), F.map_keys(m.overrides)))
            )
        )
    )
    fields = F.concat(
        F.array(
            _field(F.lit("partitions"), lambda m: m.want_count, lambda m: m.cur_count),
            _field(F.lit("replication_factor"), lambda m: m.want_rf, lambda m: m.cur_rf),
        ),
        F.transform(
            keys,
            lambda k: _field(
                F.concat(F.lit("config."), k), lambda m: m.config[k], lambda m: m.overrides[k]
            ),
        ),
    )
    # Most groups agree: a field goes further only when its members hold more distinct
    # (desired, actual) pairs than distinct desired values.
    differing = (
        groups.select("date", "topic", F.explode(fields).alias("f"))
        .where(
            F.size(F.array_distinct(F.transform("f.v", lambda v: F.struct(v.key, v.actual))))
            > F.size(F.array_distinct(F.transform("f.v", lambda v: v.key)))
        )
        .select("date", "topic", c("f.field").alias("field"), "f.v", F.explode("f.v").alias("x"))
    )
    peers = F.filter("v", lambda o: o.key == c("x.key"))
    others = F.filter(peers, lambda o: ~o.actual.eqNullSafe(c("x.actual")))
    return (
        differing.select(
            "date",
            "topic",
            "field",
            c("x.cluster").alias("cluster"),
            c("x.desired").alias("desired"),
            c("x.managed").alias("managed"),
            c("x.actual").alias("actual"),
            F.size(peers).alias("clusters"),
            (F.size(peers) - F.size(others)).alias("same"),
            F.sort_array(F.transform(others, lambda o: o.cluster)).alias("differs_from"),
        )
        .where(c("same") < c("clusters"))
        .select(*CONSISTENCY_COLUMNS)
    )


def _field(
    name: Column, desired: Callable[[Column], Column], actual: Callable[[Column], Column]
) -> Column:
    """(field, [per member: cluster, managed, desired, key, actual]); `key` is what the specs
    say, the group a member is compared within."""

    def value(m: Column) -> Column:
        wanted = desired(m)
        return F.struct(
            m.cluster.alias("cluster"),
            m.managed.alias("managed"),
            F.when(m.managed, wanted).alias("desired"),
            F.when(m.managed, F.coalesce(F.concat(F.lit("="), wanted), F.lit(UNSET)))
            .otherwise(NO_SPEC)
            .alias("key"),
            actual(m).alias("actual"),
        )

    return F.struct(name.alias("field"), F.transform("m", value).alias("v"))
