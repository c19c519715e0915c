"""The job's paths through Hadoop's FileSystem: local folders, and `s3a://` (or any scheme
whose connector is on Spark's classpath) alike.

Spark reads and writes the tables itself; this module does what the driver does beside them:
checks that a remote input exists and holds `*.jsonl` files before the job's first pass (a
local one is checked before Spark starts, inputs.local_dir), and writes summary.md and
report.html, to a local OUT with Python's own file calls, to a remote one through the same
FileSystem Spark's writers use (and the same spark.hadoop.* settings and credentials).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pyspark.sql import SparkSession

from reconciler.errors import ConfigError
from reconciler.fleet.inputs import GLOB, InputError


def is_local(path: str) -> bool:
    return urlparse(path).scheme in ("", "file")


def _local(path: str) -> Path:
    parsed = urlparse(path)
    return Path(parsed.path if parsed.scheme == "file" else path)


def check_input(spark: SparkSession, path: str, what: str, hint: str) -> None:
    """A remote input directory exists and holds a `*.jsonl` file somewhere below it: the one
    sentence Spark would otherwise give is a Java exception's."""
    if is_local(path):
        return
    fs, where = _filesystem(spark, path, what)
    if not fs.exists(where) or not fs.getFileStatus(where).isDirectory():
        raise InputError(f"{what} {path} is not a directory; {hint}")
    files = fs.listFiles(where, True)  # recursive, paged: stops at the first match
    suffix = GLOB.removeprefix("*")
    while files.hasNext():
        if str(files.next().getPath().getName()).endswith(suffix):
            return
    raise InputError(f"{what} {path} holds no {GLOB} file; {hint}")


def write_text(spark: SparkSession, path: str, text: str) -> None:
    """Write `text` (UTF-8) to `path`, replacing it."""
    if is_local(path):
        target = _local(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write {target}: {exc.strerror}") from exc
        return
    fs, where = _filesystem(spark, path, "--out")
    stream = fs.create(where, True)
    try:
        stream.write(bytearray(text.encode("utf-8")))
    finally:
        stream.close()


def _filesystem(spark: SparkSession, path: str, what: str) -> tuple[Any, Any]:
    """(Hadoop FileSystem, Path) for `path`; a scheme without its connector is one sentence."""
    jvm = _jvm(spark)
    where = jvm.org.apache.hadoop.fs.Path(path)
    try:
        return where.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), where
    except Exception as exc:  # py4j's Py4JJavaError (untyped): a Java exception
        if not type(exc).__module__.startswith("py4j"):
            raise
        text = str(exc)
        if "ClassNotFoundException" in text or "No FileSystem for scheme" in text:
            scheme = urlparse(path).scheme
            raise ConfigError(
                f"{what} {path}: Spark has no connector for {scheme}:// on its classpath; "
                "for s3a:// put hadoop-aws and the AWS SDK there (`reconciler help fleet`, "
                '"Remote storage")'
            ) from exc
        raise


def _jvm(spark: SparkSession) -> Any:
    return spark.sparkContext._jvm
