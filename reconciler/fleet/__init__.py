"""Fleet-wide drift on Spark: many clusters' nightly snapshots against their compiled specs.

    guard.py        PySpark is an optional extra: a clear message when it is missing, or
                    of a version outside the supported 3.5 to 4.x
    spark_functions.py  the few functions whose Python API differs between Spark 3.5 and 4.x
    names.py        which topic names the planner never touches (the planner's own function)
    schemas.py      the declared Spark schemas of the two inputs
    inputs.py       reading them: bad lines counted, superseded and unproven snapshots dropped
    drift_columns.py        the planner's drift rules as DataFrame expressions, with first_seen
    load.py         partition replicas per broker against the KIP-578 limits, with the trend
    consistency.py  topics that differ between clusters where the specs do not make them
    summary.py      summary.md from a few small aggregates
    shipping.py     what the executors' Python runs, shipped with the job (workers need no
                    reconciler of their own)
    job.py          the job: a SparkSession, the tables (spark-submit runs it through
                    reconciler/cli/spark_submit.py, the CLI's `fleet drift`)

Only job.py and the modules it calls import pyspark; the CLI reaches them through guard.py.
`reconciler help fleet` describes the tables.
"""
