"""The Java exception behind a failed Spark or Hadoop call, asked of the JVM.

py4j's errors hold it as `java_exception`, PySpark's captured errors as `_origin`; its cause
chain is walked with getCause() on the JVM. Both the job's one-line failure
(job.spark_failures) and the --out probe's verdict (storage.check_output) read it here.
"""

from __future__ import annotations

from typing import Any

_DEPTH = 50  # a cause chain longer than this is a cycle or a bug; stop walking


def chain(exc: BaseException) -> list[Any]:
    """The Java exception behind `exc` and its causes, outermost first; [] when there is none
    or the JVM no longer answers (py4j's errors, untyped, are told by their module)."""
    thrown = getattr(exc, "java_exception", None) or getattr(exc, "_origin", None)
    found: list[Any] = []
    try:
        while thrown is not None and len(found) < _DEPTH:
            found.append(thrown)
            inner = thrown.getCause()
            thrown = None if inner is None or inner.equals(thrown) else inner
    except Exception as asked:
        if not type(asked).__module__.startswith("py4j"):
            raise
        return []
    return found


def innermost(exc: BaseException) -> str:
    """The innermost cause as a stack trace names it (`class: message`), its first line cut to
    300 characters; "" when the JVM cannot be asked."""
    causes = chain(exc)
    if not causes:
        return ""
    try:
        said = str(causes[-1].toString()).strip()
    except Exception as asked:
        if not type(asked).__module__.startswith("py4j"):
            raise
        return ""
    return said.splitlines()[0][:300] if said else ""
