"""PySpark is an optional extra (`kafka-topic-reconciler[fleet]`): say how to get it."""

from __future__ import annotations

from reconciler.errors import EnvironmentProblem

INSTALL = "pip install 'kafka-topic-reconciler[fleet]'"


def require_pyspark() -> None:
    """Raise EnvironmentProblem, with the install command, when pyspark cannot be imported."""
    try:
        import pyspark  # noqa: F401  (imported for the check; the job imports what it uses)
    except ImportError as exc:
        raise EnvironmentProblem(
            "`reconciler fleet drift` runs on Spark, and PySpark is not installed in this "
            f"Python environment; install it with: {INSTALL} (Spark also needs Java 17 or "
            "newer)"
        ) from exc
