"""`import --quotas`: the client quotas a cluster has, as `quotas:` entries for its
reconciler.yaml (`reconciler help access`).

One DescribeClientQuotas (Kafka 2.6+). Only the entities the cluster's `policy.manage` covers
(all of them without it), as planning owns them: pasted under the cluster, the block plans no
change. reconciler.yaml is written by people and never rewritten: the block is printed.
"""

from __future__ import annotations

import dataclasses

from reconciler.planning.quota_changes import owned_entity
from reconciler.spec.quotas import quotas_block
from reconciler.spec.repo_config import select_cluster
from reconciler.spec.settings_scope import Settings
from reconciler.workflow.connection import connect
from reconciler.workflow.context import Context


def import_quotas(context: Context, cluster: str) -> str:
    """The `quotas:` block of the cluster's client quotas within its `policy.manage`, as YAML."""
    loaded = context.valid(None, Settings.of(cluster))
    assert loaded.config is not None  # valid
    chosen = select_cluster(loaded.config, cluster)
    with connect(dataclasses.replace(chosen, quotas=chosen.quotas or ())) as kafka:
        found = kafka.quotas()
    return quotas_block([q for q in found.quotas if owned_entity(q.entity, chosen.policy)])
