"""`import --users`: the SCRAM credentials a cluster has, as `users:` entries for its
reconciler.yaml (`reconciler help access`).

Kafka never answers a secret (DescribeUserScramCredentials: mechanism and iterations), so each
password is a placeholder variable to set to the user's current password; until a plan has a
digest on record for it, it says "secret not known to reconciler", and the first apply sets it
(the same secret: the clients notice nothing) and records its digest. reconciler.yaml is
written by people and never rewritten: the block is printed, to paste under the cluster.
"""

from __future__ import annotations

import dataclasses

from reconciler.spec.repo_config import select_cluster
from reconciler.spec.scram_users import users_block
from reconciler.spec.settings_scope import Settings
from reconciler.workflow.connection import connect
from reconciler.workflow.context import Context


def import_users(context: Context, cluster: str) -> str:
    """The `users:` block of the cluster's SCRAM credentials (one DescribeUserScramCredentials,
    and the digest topic's read), as YAML."""
    loaded = context.valid(None, Settings.of(cluster))
    assert loaded.config is not None  # valid
    chosen = select_cluster(loaded.config, cluster)
    with connect(dataclasses.replace(chosen, users=chosen.users or ())) as kafka:
        found = kafka.scram()
    return users_block([(c.user, c.mechanism, c.iterations) for c in found.credentials])
