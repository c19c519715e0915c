"""The request timeout of the tests that point a command at a cluster nobody listens at.

Such a command retries until its timeout, then says so: the tests give it the shortest
`request.timeout.ms` the product accepts (wait_limit.SHORTEST, librdkafka's shortest connection
setup), which is all they wait; what they assert (one clear error naming the cluster) does not
depend on how long it was.
"""

from __future__ import annotations

from reconciler.cluster import wait_limit

UNREACHABLE_MS = int(wait_limit.SHORTEST * 1000)

# The same for a command given no reconciler.yaml to read it from (`init`): the global option
SHORTEST_WAIT = ("--timeout", f"{wait_limit.SHORTEST:g}")
