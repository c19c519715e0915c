"""Files the installed package reads at run time, found through importlib.resources.

Everything here ships inside the wheel (pyproject's package-data), so the tool works from any
directory of any spec repository, not only from its own source checkout:

    schemas/*.json        the JSON Schemas (copies of the repository's top-level schemas/, the
                          source; tests/adopt/test_packaging.py fails when they differ)
    scaffold/workflows/   the GitHub workflows `reconciler init` writes into a new spec repo
    local/pom.xml         the Maven project that fetches the Kafka jars for `local up`
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

SCHEMA_NAMES = (
    "topics.schema.json",
    "reconciler.schema.json",
    "plan.schema.json",
    "snapshot.schema.json",
    "drift.schema.json",
    "desired-line.schema.json",
    "snapshot-line.schema.json",
    "validate.schema.json",
    "import.schema.json",
    "local-status.schema.json",
)


def package_file(*parts: str) -> Traversable:
    """A file of the installed `reconciler` package, e.g. package_file("schemas", "x.json")."""
    node = resources.files("reconciler")
    for part in parts:
        node = node.joinpath(part)
    return node


def schema_text(name: str) -> str:
    """The text of one packaged JSON Schema by file name (SCHEMA_NAMES)."""
    return package_file("schemas", name).read_text(encoding="utf-8")


def scaffold_text(*parts: str) -> str:
    """The text of one file `reconciler init` writes, below scaffold/."""
    return package_file("scaffold", *parts).read_text(encoding="utf-8")
