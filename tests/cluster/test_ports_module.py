"""cluster/ports.py is types only: code that names a port loads no Kafka client for it."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import reconciler.cluster.ports
print(sorted(m for m in sys.modules
             if m.split(".")[0] in ("confluent_kafka", "kafka")
             or m.startswith("reconciler.cluster.adapter")))
"""


def test_importing_the_ports_loads_neither_a_client_nor_the_adapter() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
