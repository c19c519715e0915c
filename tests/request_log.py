"""Counting the requests a client sent, from the brokers' own request logs (the tests' and the
benchmarks' proof of round trips; nothing in the package counts them).

The fixture clusters run with `request_log=True`: every node writes one line per request it
served to `<node dir>/requests.log` (kafka.request.logger at DEBUG), with the client's id and
whether a broker forwarded it to the KRaft controller. Counting a unique client.id's lines with
`"isForwarded":false` counts that client's round trips, as the brokers saw them.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter

from reconciler.local.state import LocalCluster

_LINE = re.compile(r"Completed request:(\{.*)$")


def requests_by(
    cluster: LocalCluster,
    client_id: str,
    settle: float = 1.0,
    naming: str | None = None,
    broker_lists: bool = False,
) -> Counter[str]:
    """Requests per API name that `client_id` sent to any node (forwarded copies left out);
    with `naming`, only those whose request names a topic starting with it (`"ns.`).

    Metadata requests for the broker list alone (no topic) are left out unless `broker_lists`:
    librdkafka sends them when a connection comes up and every few seconds while a client
    lives (the adapter's METADATA_REFRESH_MS), so their number follows the command's duration,
    never its topics. Waits `settle` seconds first: brokers append to the log asynchronously.
    """
    time.sleep(settle)
    counts: Counter[str] = Counter()
    needle = f'"clientId":"{client_id}"'
    for node in cluster.nodes:
        path = cluster.node_dir(node) / "requests.log"
        if not path.exists():
            continue
        with path.open(encoding="utf-8", errors="replace") as log:
            for line in log:
                if needle not in line:
                    continue
                match = _LINE.search(line)
                if match is None:
                    continue
                entry = json.loads(match.group(1))
                header = entry["requestHeader"]
                if entry.get("isForwarded") or header.get("clientId") != client_id:
                    continue
                request = entry.get("request") or {}
                if naming is not None and f'"{naming}' not in json.dumps(request):
                    continue
                kind = header["requestApiKeyName"]
                if kind == "METADATA" and request.get("topics") == [] and not broker_lists:
                    continue
                counts[kind] += 1
    return counts
