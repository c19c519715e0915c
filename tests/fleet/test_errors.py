"""A failed Spark job's one line names its innermost Java cause: asked of the JVM (the cause
chain walked with getCause), read from the error's text only when the JVM cannot answer."""

from __future__ import annotations

from typing import Any

from py4j.protocol import Py4JJavaError, Py4JNetworkError  # type: ignore[import-untyped]
from pyspark.sql import SparkSession

from reconciler.fleet import java_errors, job


def test_the_innermost_cause_is_asked_of_the_jvm(spark: SparkSession) -> None:
    jvm: Any = spark.sparkContext._jvm
    inner = jvm.java.lang.OutOfMemoryError("Java heap space")
    middle = jvm.java.lang.RuntimeException("Task 3 in stage 7.0 failed", inner)
    outer = jvm.org.apache.spark.SparkException("Job aborted", middle)
    # the text names another cause: the answer must come from the JVM's objects
    error = Py4JJavaError("An error occurred while calling o3711.parquet.\n", outer)
    assert java_errors.innermost(error) == "java.lang.OutOfMemoryError: Java heap space"
    lone = jvm.java.lang.IllegalStateException("no cause of its own")
    assert java_errors.innermost(Py4JJavaError("x", lone)) == (
        "java.lang.IllegalStateException: no cause of its own"
    )


def test_a_real_failure_captured_by_pyspark_names_its_cause(spark: SparkSession) -> None:
    """PySpark's own errors hold the Java exception as `_origin`."""
    try:
        spark.sql("SELECT assert_true(id < 0, 'the row that failed') FROM range(1)").collect()
    except Exception as exc:
        said = java_errors.innermost(exc)
    else:
        raise AssertionError("the query did not fail")
    assert "the row that failed" in said, said
    assert "\n" not in said


class _Gone:
    """A Java object whose JVM has exited: every call fails as py4j fails it."""

    def getCause(self) -> None:  # the Java method's name
        raise Py4JNetworkError("Answer from Java side is empty")


class _Failed(Exception):
    """An error holding its Java exception as py4j's does (`java_exception`)."""

    java_exception = _Gone()


def test_a_jvm_that_no_longer_answers_leaves_the_text_to_say_it() -> None:
    assert java_errors.innermost(_Failed("An error occurred")) == ""
    assert java_errors.innermost(ValueError("no Java exception behind it")) == ""
    text = (
        "An error occurred while calling o12.parquet.\n"
        ": org.apache.spark.SparkException: Job aborted.\n"
        "Caused by: java.io.IOException: No space left on device\n"
    )
    assert job._root_cause(text) == " (java.io.IOException: No space left on device)"
