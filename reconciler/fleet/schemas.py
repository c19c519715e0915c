"""The declared Spark schemas of the pipeline's inputs, one per line format.

Each is the union of its format's two records (the cluster line and the topic lines), every
field nullable: a line is parsed against it with `from_json`, and the checks in inputs.py,
not the parser, decide which lines are bad, so bad lines are counted instead of failing the
job. They mirror schemas/snapshot-line.schema.json and schemas/desired-line.schema.json.
"""

from __future__ import annotations

from pyspark.sql import types as T

_IDS = T.ArrayType(T.IntegerType())

BROKER = T.StructType(
    [
        T.StructField("id", T.IntegerType()),
        T.StructField("host", T.StringType()),
        T.StructField("port", T.IntegerType()),
        T.StructField("rack", T.StringType()),
    ]
)

# A topic line's partitions and reassignments, as far as the job reads them: a line's leader,
# ISR and topic id (in schemas/snapshot-line.schema.json) are skipped by the parser, which
# makes parsing the fleet's largest input cheaper.
PARTITION = T.StructType(
    [
        T.StructField("partition", T.IntegerType()),
        T.StructField("replicas", _IDS),
    ]
)

# its replicas and those it removes: what the partition settles to (Reassignment.target)
REASSIGNMENT = T.StructType(
    [
        T.StructField("partition", T.IntegerType()),
        T.StructField("replicas", _IDS),
        T.StructField("removing", _IDS),
    ]
)

SNAPSHOT_LINE = T.StructType(
    [
        T.StructField("record", T.StringType()),
        T.StructField("taken_at", T.StringType()),
        # the cluster line
        T.StructField("format_version", T.IntegerType()),
        T.StructField("cluster", T.StringType()),
        T.StructField("cluster_id", T.StringType()),
        T.StructField("controller_id", T.IntegerType()),
        T.StructField("brokers", T.ArrayType(BROKER)),
        T.StructField("broker_defaults", T.MapType(T.StringType(), T.StringType())),
        T.StructField("topic_config_keys", T.ArrayType(T.StringType())),
        # a topic line
        T.StructField("topic", T.StringType()),
        T.StructField("internal", T.BooleanType()),
        T.StructField("partitions", T.ArrayType(PARTITION)),
        T.StructField("overrides", T.MapType(T.StringType(), T.StringType())),
        T.StructField("reassignments", T.ArrayType(REASSIGNMENT)),
        # the trailer (its taken_at, cluster and cluster_id above): the topic lines and the
        # access lines of each part the file holds (acl, quota, user; not read by the job)
        T.StructField("topics", T.LongType()),
        T.StructField("acls", T.LongType()),
        T.StructField("quotas", T.LongType()),
        T.StructField("users", T.LongType()),
    ]
)

LIMITS = T.StructType(
    [
        T.StructField("max_broker_partitions", T.LongType()),
        T.StructField("max_partitions", T.LongType()),
    ]
)

DESIRED_LINE = T.StructType(
    [
        T.StructField("record", T.StringType()),
        T.StructField("format_version", T.IntegerType()),
        T.StructField("cluster", T.StringType()),
        # the cluster line
        T.StructField("limits", LIMITS),
        T.StructField("ignore", T.ArrayType(T.StringType())),
        T.StructField("allow_delete", T.BooleanType()),
        T.StructField("unread", T.ArrayType(T.StringType())),
        # a topic line
        T.StructField("topic", T.StringType()),
        T.StructField("state", T.StringType()),
        T.StructField("partitions", T.IntegerType()),
        T.StructField("replication_factor", T.IntegerType()),
        T.StructField("config", T.MapType(T.StringType(), T.StringType())),
        T.StructField("assignments", T.ArrayType(_IDS)),
        T.StructField("keyed", T.BooleanType()),
        T.StructField("protect", T.BooleanType()),
        T.StructField("owner", T.StringType()),
        T.StructField("file", T.StringType()),
        T.StructField("line", T.IntegerType()),
        T.StructField("column", T.IntegerType()),
    ]
)
