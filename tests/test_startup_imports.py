"""Commands that do not talk to Kafka start without loading a Kafka client or Spark: the
client libraries are most of the start-up time (issue 14 measures it in bench/)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("confluent_kafka", "kafka", "pyspark", "jinja2", "jsonschema")

PROBE = """
import sys
from reconciler.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
loaded = sorted(m for m in {heavy!r} if m in sys.modules)
print("LOADED", ",".join(loaded))
"""


@pytest.mark.parametrize(
    "args", [["--version"], ["--help"], ["local", "--help"], ["fleet", "drift", "--help"]]
)
def test_no_client_library_is_imported(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    last = done.stdout.strip().splitlines()[-1]
    assert last == "LOADED", (args, last)
