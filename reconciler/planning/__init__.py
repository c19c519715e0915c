"""Planning: the difference between the specs and a cluster, as an ordered plan value.

diff.py       what changes, per topic, with diagnostics and unmanaged topics
placement.py  rack-aware replica targets for replication-factor changes
hazards.py    consequences a reviewer must see (key reorder, retention, cleanup, delete)
limits.py     KIP-578 partition limits: per-broker load before and after, feasibility
policies.py   the cluster's policies (min RF, partitions per topic, name pattern, ...)
p_codes.py      the diagnostic rules (P1xx) and their configurable severities
order.py      execution order: phase, dependency DAG, name
plan.py       the Plan value and make_plan
json_plan.py  the versioned JSON form (schemas/plan.schema.json)
"""

from __future__ import annotations

from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    Change,
    ConfigChange,
    CreateTopic,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.diff import diff
from reconciler.planning.json_plan import FORMAT_VERSION, from_json, to_json
from reconciler.planning.order import order
from reconciler.planning.plan import Plan, Summary, make_plan

__all__ = [
    "FORMAT_VERSION",
    "Action",
    "AlterTopicConfig",
    "Change",
    "ConfigChange",
    "CreateTopic",
    "DeleteTopic",
    "Hazard",
    "IncreasePartitions",
    "Plan",
    "ReassignReplicas",
    "Summary",
    "TopicChange",
    "diff",
    "from_json",
    "make_plan",
    "order",
    "to_json",
]
