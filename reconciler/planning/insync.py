"""min.insync.replicas against the replication factor the topic will have: one rule, one code.

`validate` judges a spec that gives its replication factor (or assignments) with R103. A spec
that leaves it to the cluster gets the same R103, at the same severity, from the plan, which
knows the factor: the broker's default.replication.factor for a create, the topic's own for an
existing topic. `replication_factor_after` is that effective factor, shared with the P116
headroom policy, so both judge the same number.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic
from reconciler.planning import p_codes
from reconciler.planning.changes import CreateTopic, ReassignReplicas, TopicChange
from reconciler.planning.down_unseen import UNSEEN
from reconciler.spec.kafka_rules import min_insync_replicas
from reconciler.spec.model import DesiredState, Presence, replication_factor_of

MIN_INSYNC_REPLICAS = "min.insync.replicas"
DEFAULT_RF = " (the broker's default.replication.factor)"
CURRENT_RF = " (the topic's, on the cluster)"


def create_rf(change: CreateTopic) -> tuple[int | None, str]:
    """The replication factor a create ends with, and where it comes from (for messages)."""
    rf = replication_factor_of(change.replication_factor, change.assignments)
    if rf is not None:
        return rf, ""
    return change.default_replication_factor, DEFAULT_RF


def replication_factor_after(
    topic: str, changes: Iterable[TopicChange], state: ClusterState
) -> tuple[int | None, str]:
    """The replication factor `topic` has once the plan is applied, and its source."""
    rf: int | None = None
    source = ""
    current = state.topics.get(topic)
    if current is not None:
        rf, source = current.replication_factor, CURRENT_RF
    for topic_change in changes:
        if topic_change.topic != topic:
            continue
        for change in topic_change.changes:
            if isinstance(change, CreateTopic):
                rf, source = create_rf(change)
            elif isinstance(change, ReassignReplicas):
                rf, source = change.desired_rf, ""
    return rf, source


def cluster_brokers(state: ClusterState) -> int | None:
    """Brokers the cluster has, down ones included (None: a state listing none cannot tell)."""
    return len(state.brokers) + len(state.down_brokers) if state.brokers else None


def check_min_insync(
    changes: tuple[TopicChange, ...],
    desired: DesiredState,
    state: ClusterState,
    diagnostics: Iterable[Diagnostic],
) -> Iterator[Diagnostic]:
    """R103 for each spec whose replication factor the cluster decides (validate judged the
    others). Specs the plan leaves alone (ignored or internal topics: `diagnostics` holds
    their P109) are not judged."""
    out_of_reach = {d.topic for d in diagnostics if d.rule == p_codes.IGNORED_TOPIC.name}
    by_topic = {c.topic: c for c in changes}
    brokers = cluster_brokers(state)
    for name, spec in sorted(desired.topics.items()):
        if spec.state is Presence.ABSENT or name in out_of_reach:
            continue
        if spec.replication_factor is not None or spec.assignments:
            continue
        wanted = spec.config_map.get(MIN_INSYNC_REPLICAS)
        if wanted is None or not wanted.isdigit():
            continue
        change = by_topic.get(name)
        rf, source = replication_factor_after(name, (change,) if change else (), state)
        if rf is None or (change is None and name not in state.topics):
            continue  # a create the plan refused: its own diagnostic says why
        yield from min_insync_replicas(
            int(wanted), rf, spec.location, name, source=source, brokers=brokers,
            unseen=UNSEEN if state.down_unseen else "",
        )  # fmt: skip
