"""The topics reconciler keeps on a cluster for itself: never a spec's, never planned.

LOCK_TOPIC    the per-cluster apply lock (cluster/adapter/lock_topic.py): its existence is
              the lock, its `TOKEN_KEY` config the holder's random token
AUDIT_TOPIC   the apply journal, one partition kept forever (cluster/adapter/audit_topic.py)
USERS_TOPIC   the salted digests of the SCRAM secrets apply set, compacted (adapter/scram.py)
"""

from __future__ import annotations

LOCK_TOPIC = "_reconciler_lock"
TOKEN_KEY = "segment.jitter.ms"  # carries the holder's token; any long >= 0 is valid
AUDIT_TOPIC = "_reconciler_audit"
USERS_TOPIC = "_reconciler_users"
