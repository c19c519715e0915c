"""The job's own session settings on a local master, read back from the running JVM."""

from __future__ import annotations

from pyspark.sql import SparkSession


def test_a_local_master_runs_the_parallel_collector_lists_on_the_driver_and_caches_plain(
    spark: SparkSession,
) -> None:
    # the conftest session comes from job.session("local[2]", ...), as `fleet drift` starts it
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    beans = jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
    collectors = {str(bean.getName()) for bean in beans}
    assert collectors == {"PS Scavenge", "PS MarkSweep"}  # the parallel collector's two
    threshold = spark.conf.get("spark.sql.sources.parallelPartitionDiscovery.threshold")
    assert threshold is not None and int(threshold) > 10_000
    # the cached rows are not compressed (docs/fleet.md, "How the job keeps its passes few")
    assert spark.conf.get("spark.sql.inMemoryColumnarStorage.compressed") == "false"
