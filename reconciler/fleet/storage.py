"""The job's paths through Hadoop's FileSystem: local folders, and `s3a://` (or any scheme
whose connector is on Spark's classpath) alike.

Spark reads and writes the tables itself; this module does what the driver does beside them:
checks that a remote input exists and holds `*.jsonl` files before the job's first pass (a
local one is checked before Spark starts, inputs.local_dir), that a remote OUT takes a write
before any input is read (a local one is checked before Spark starts, writable.check_dir),
and writes summary.md and
report.html, to a local OUT with Python's own file calls, to a remote one through the same
FileSystem Spark's writers use (and the same spark.hadoop.* settings and credentials).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pyspark.sql import SparkSession

from reconciler.errors import ConfigError
from reconciler.fleet import java_errors
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


# A marker the output check writes and deletes at once: named so no reader of OUT takes it for
# a table (Spark and Hadoop skip names starting with `_` or `.`)
PROBE = "_reconciler_write_probe_"


def check_output(spark: SparkSession, path: str) -> None:
    """A remote OUT takes a write: a marker object written under it and deleted, right after
    the session starts and before the job reads its inputs, so a missing bucket or a missing
    permission is one sentence now, not a Java exception after the whole job ran. The sentence
    names the URI and what is missing, never the exception's text (S3A's messages may carry
    request details; the credentials are never in it)."""
    if is_local(path):
        return
    fs, where = _filesystem(spark, path, "--out")
    marker = _jvm(spark).org.apache.hadoop.fs.Path(where, f"{PROBE}{uuid.uuid4().hex}")
    try:
        fs.create(marker, True).close()  # S3A sends the object on close
        fs.delete(marker, False)
    except Exception as exc:  # py4j's Py4JJavaError (untyped): a Java exception
        if not type(exc).__module__.startswith("py4j"):
            raise
        raise ConfigError(f"--out {path} is not writable: {_why_not(exc, path)}") from exc


def _why_not(exc: Exception, path: str) -> str:
    """What the Java exception chain says is missing, by exception class (S3A maps S3's
    NoSuchBucket to UnknownStoreException and a 403 to AccessDeniedException)."""
    names = [str(cause.getClass().getName()) for cause in java_errors.chain(exc)]
    bucket = urlparse(path).netloc
    if any(n.endswith("UnknownStoreException") for n in names):
        return f"the bucket {bucket} does not exist; create it, or name another --out"
    if any(n.endswith("AccessDeniedException") for n in names):
        return (
            f"access denied: the credentials in use may not write objects to the bucket "
            f"{bucket} (s3:PutObject and s3:DeleteObject); grant them, or name another --out"
        )
    shown = names[0].rsplit(".", 1)[-1] if names else type(exc).__name__
    return f"writing a marker object there failed ({shown}); check the URI and the credentials"


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
