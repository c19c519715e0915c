"""Apply, the ports, the protocol values and the in-memory fake load no Kafka client library:
apply speaks to a cluster only through cluster/ports.py in cluster/protocol/'s values, and the
fast tests run on the fake without confluent-kafka or kafka-python (issue 40). Each import runs
in a fresh interpreter, so nothing another test loaded hides one."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import reconciler.apply
import reconciler.cluster.protocol

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = ("confluent_kafka", "kafka")

PROBE = f"""
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(",".join(sorted({{m.split(".")[0] for m in sys.modules}} & set({CLIENTS!r}))))
"""


def _loaded(*modules: str) -> str:
    """The client libraries importing `modules` loaded, comma-separated ('' for none)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
    )
    return done.stdout.strip()


def _all_of(package: object) -> list[str]:
    path = getattr(package, "__path__")  # noqa: B009  (a package's, not in its type)
    name = getattr(package, "__name__")  # noqa: B009
    return [name, *(m.name for m in pkgutil.walk_packages(path, name + "."))]


@pytest.mark.parametrize(
    "modules",
    [
        ["tests.fakes.cluster"],
        ["reconciler.apply"],
        ["reconciler.apply.execute.batching"],
        _all_of(reconciler.apply),
        ["reconciler.cluster.ports", *_all_of(reconciler.cluster.protocol)],
    ],
    ids=["fake", "apply", "batching", "every-apply-module", "ports-and-protocol"],
)
def test_imports_load_no_kafka_client(modules: list[str]) -> None:
    assert _loaded(*modules) == "", f"importing {modules} loaded a Kafka client library"


def test_the_probe_sees_a_client_library() -> None:
    # The adapter imports confluent-kafka at module level: the probe must report it.
    assert _loaded("reconciler.cluster.adapter") == "confluent_kafka"
