"""The Hadoop S3 connector (s3a://) for a SparkSession the job starts itself.

PySpark's pip package bundles Hadoop's client but not `hadoop-aws`. When an input or OUT is
an `s3a://` URI, the job asks Spark to resolve `hadoop-aws` of the bundled Hadoop's version
from Maven Central (`spark.jars.packages`, cached by Ivy under $RECONCILER_CACHE/ivy, so only
the first run downloads). hadoop-aws depends on the AWS SDK's `bundle` jar, 686 MB for the
SDK 3.5.0 is built with; for the Hadoop versions listed below the job takes the three SDK
modules S3A loads instead (s3, s3-transfer-manager, sts: 41 MB with their dependencies) and
excludes the bundle. An unlisted Hadoop version gets hadoop-aws with its own bundle.

Nothing is added when the caller put hadoop-aws on the classpath already (`--conf
spark.jars.packages=...` or `spark.jars`), or under spark-submit, whose classpath is the
submitter's. Credentials are S3A's own: fs.s3a.access.key/secret.key (as
spark.hadoop.fs.s3a.*), the AWS_* environment variables, or an instance profile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlparse

HADOOP_AWS = "org.apache.hadoop:hadoop-aws"
# The AWS SDK v2 version each Hadoop release builds hadoop-aws against (hadoop-project's
# `aws-java-sdk-v2.version`), and the modules of it that S3A loads
SDK_FOR_HADOOP = {"3.5.0": "2.35.4"}
SDK_MODULES = ("s3", "s3-transfer-manager", "sts")
SDK_BUNDLE = "software.amazon.awssdk:bundle"


def wanted(paths: Iterable[str]) -> bool:
    return any(urlparse(p).scheme == "s3a" for p in paths)


def bundled_hadoop() -> str | None:
    """The Hadoop version of the pyspark installation's own jars (hadoop-client-api-V.jar)."""
    import pyspark

    jars = Path(pyspark.__file__).resolve().parent / "jars"
    for jar in jars.glob("hadoop-client-api-*.jar"):
        if found := re.fullmatch(r"hadoop-client-api-(.+)\.jar", jar.name):
            return found.group(1)
    return None


def packages(hadoop: str) -> dict[str, str]:
    """spark.jars.packages (and .excludes) for hadoop-aws of `hadoop` and its AWS SDK."""
    sdk = SDK_FOR_HADOOP.get(hadoop)
    if sdk is None:
        return {"spark.jars.packages": f"{HADOOP_AWS}:{hadoop}"}
    modules = ",".join(f"software.amazon.awssdk:{m}:{sdk}" for m in SDK_MODULES)
    return {
        "spark.jars.packages": f"{HADOOP_AWS}:{hadoop},{modules}",
        "spark.jars.excludes": SDK_BUNDLE,
    }


def settings(paths: Iterable[str], conf: Mapping[str, str], cache: Path) -> dict[str, str]:
    """The settings to add to `conf` for a session the job starts over `paths` (none when no
    path is s3a://, or the caller's settings bring hadoop-aws already)."""
    given = conf.get("spark.jars.packages", "") + "," + conf.get("spark.jars", "")
    hadoop = bundled_hadoop()
    if not wanted(paths) or "hadoop-aws" in given or hadoop is None:
        return {}
    added = packages(hadoop)
    if theirs := conf.get("spark.jars.packages"):
        added["spark.jars.packages"] = f"{theirs},{added['spark.jars.packages']}"
    if "spark.jars.excludes" in added and (excluded := conf.get("spark.jars.excludes")):
        added["spark.jars.excludes"] = f"{excluded},{added['spark.jars.excludes']}"
    return {"spark.jars.ivy": str(cache / "ivy"), **added} | (
        {"spark.jars.ivy": conf["spark.jars.ivy"]} if "spark.jars.ivy" in conf else {}
    )
