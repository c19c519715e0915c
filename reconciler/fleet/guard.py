"""PySpark is an optional extra (`kafka-topic-reconciler[fleet]`): say how to get it, and
which versions the job runs on when the installed one is outside them."""

from __future__ import annotations

import re

from reconciler.errors import EnvironmentProblem

INSTALL = "pip install 'kafka-topic-reconciler[fleet]'"

# The PySpark releases the job is proven on: 3.5 and 4.x (pyproject.toml's `fleet` extra says
# the same; tests/fleet/test_spark_versions.py holds 3.5's tables to 4.x's). 5.x is left out
# until it is tried.
OLDEST = (3, 5)
BELOW = (5, 0)
SUPPORTED = "3.5 or 4.x (3.5 or later, before 5.0)"


def require_pyspark() -> None:
    """Raise EnvironmentProblem, with the install command, when pyspark cannot be imported or
    is a release outside OLDEST..BELOW."""
    try:
        import pyspark
    except ImportError as exc:
        raise EnvironmentProblem(
            "`reconciler fleet drift` runs on Spark, and PySpark is not installed in this "
            f"Python environment; install it with: {INSTALL} (Spark also needs Java 17 or "
            "newer)"
        ) from exc
    check_version(str(getattr(pyspark, "__version__", "")))


def check_version(version: str) -> None:
    """Raise EnvironmentProblem naming `version` (PySpark's own) and the supported ones when
    the job does not run on it."""
    found = re.match(r"(\d+)\.(\d+)", version)
    release = (int(found.group(1)), int(found.group(2))) if found else None
    if release is not None and OLDEST <= release < BELOW:
        return
    shown = version or "of unknown version"
    raise EnvironmentProblem(
        f"`reconciler fleet drift` runs on PySpark {SUPPORTED}, and the PySpark installed in "
        f"this Python environment is {shown}; install a supported one with: {INSTALL} (or "
        "`pip install 'pyspark>=3.5,<5'` pinned to your cluster's Spark)"
    )
