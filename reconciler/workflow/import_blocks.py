"""`import --users` and `import --quotas`: what a cluster has that reconciler.yaml declares per
cluster, as the block to paste under the cluster there (`reconciler help access`).
reconciler.yaml is written by people and never rewritten: the block is printed.

- users: the SCRAM credentials (one DescribeUserScramCredentials, and the digest topic's
  read). Kafka never answers a secret (mechanism and iterations only), so each password is a
  placeholder variable to set to the user's current password; until a plan has a digest on
  record for it, it says "secret not known to reconciler", and the first apply sets it (the
  same secret: the clients notice nothing) and records its digest.
- quotas: the client quotas (one DescribeClientQuotas, Kafka 2.6+) of the entities the
  cluster's `policy.manage` covers (all of them without it), as planning owns them: pasted
  under the cluster, the block plans no change.
"""

from __future__ import annotations

import dataclasses

from reconciler.planning.quota_changes import owned_entity
from reconciler.spec.model import ClusterConfig
from reconciler.spec.quotas import quotas_block
from reconciler.spec.repo_config import select_cluster
from reconciler.spec.scram_users import users_block
from reconciler.spec.settings_scope import Settings
from reconciler.workflow.connection import connect
from reconciler.workflow.context import Context


def _cluster(context: Context, cluster: str) -> ClusterConfig:
    loaded = context.valid(None, Settings.of(cluster))
    assert loaded.config is not None  # valid
    return select_cluster(loaded.config, cluster)


def import_users(context: Context, cluster: str) -> str:
    """The `users:` block of the cluster's SCRAM credentials, as YAML."""
    chosen = _cluster(context, cluster)
    with connect(dataclasses.replace(chosen, users=chosen.users or ())) as kafka:
        found = kafka.scram()
    return users_block([(c.user, c.mechanism, c.iterations) for c in found.credentials])


def import_quotas(context: Context, cluster: str) -> str:
    """The `quotas:` block of the cluster's client quotas within its `policy.manage`, as YAML."""
    chosen = _cluster(context, cluster)
    with connect(dataclasses.replace(chosen, quotas=chosen.quotas or ())) as kafka:
        found = kafka.quotas()
    return quotas_block([q for q in found.quotas if owned_entity(q.entity, chosen.policy)])
