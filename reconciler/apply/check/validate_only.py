"""Kafka's validate_only answers for the requests a plan's changes become: CreateTopics,
IncrementalAlterConfigs and CreatePartitions, batched as apply sends them (a fixed number of
requests, not one per topic). Asked by apply's pre-flight before the first change
(preflight.validate: any refusal refuses the apply) and by plan (workflow/plan.py), so a
change Kafka refuses (a conflict between two keys, tiered storage the cluster lacks, a count
over a broker's limit) is an error in the pull request rather than at apply. One function
asks; each caller judges the answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reconciler.apply.execute.batching import (
    MAX_PARTITIONS_PER_REQUEST,
    MAX_RECORDS_PER_REQUEST,
    batches,
    config_update,
    create_weight,
    increase_weight,
    new_topic,
    partitions_request,
    update_weight,
)
from reconciler.apply.execute.sentences import sentence
from reconciler.cluster.ports import TopicWriter
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.requests import ConfigUpdate
from reconciler.cluster.state import ClusterState
from reconciler.planning.changes import (
    AlterTopicConfig,
    Change,
    CreateTopic,
    IncreasePartitions,
)

# Kafka's answer when the principal may not send the request: the change was not judged
DENIED = frozenset({"TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED"})


@dataclass(frozen=True, slots=True)
class Refusal:
    topic: str
    failure: Failure
    sentence: str  # the refusal in words, naming the topic and the request

    @property
    def denied(self) -> bool:
        """The principal may not send this request: Kafka did not judge the change."""
        return self.failure.code in DENIED


def ask(cluster: TopicWriter, state: ClusterState, changes: Sequence[Change]) -> list[Refusal]:
    """Kafka's refusals of these changes' requests, sent validate_only: creates, then config
    updates, then partition increases, each by topic name. Other changes send no such request.
    Raises ValueError when the Kafka client refuses a request before sending it (librdkafka's
    own range checks: a partition count over 100,000, say)."""
    creates = [c for c in changes if isinstance(c, CreateTopic)]
    updates = [
        update
        for c in changes
        if isinstance(c, AlterTopicConfig)
        and (update := config_update(c, state.topics.get(c.topic))).set + update.delete
    ]
    increases = [c for c in changes if isinstance(c, IncreasePartitions)]
    found: list[Refusal] = []
    for batch in batches(creates, lambda c: create_weight(c, state), MAX_RECORDS_PER_REQUEST):
        answers = cluster.create_topics([new_topic(c) for c in batch], validate_only=True)
        found += [
            Refusal(t, f, sentence(f, t, CreateTopic)) for t, f in sorted(answers.items()) if f
        ]
    for sent in batches(updates, update_weight, MAX_RECORDS_PER_REQUEST):
        answers = cluster.alter_topic_configs(sent, validate_only=True)
        keys = {u.topic: u for u in sent}
        found += [
            Refusal(t, f, _refused_update(f, keys[t])) for t, f in sorted(answers.items()) if f
        ]
    for group in batches(increases, increase_weight, MAX_PARTITIONS_PER_REQUEST):
        answers = cluster.create_partitions(
            [partitions_request(c) for c in group], validate_only=True
        )
        found += [
            Refusal(t, f, sentence(f, t, IncreasePartitions))
            for t, f in sorted(answers.items())
            if f
        ]
    return found


def _refused_update(failure: Failure, update: ConfigUpdate) -> str:
    """A refused config update in words, naming the keys it carried: Kafka answers per topic,
    not per key, and its message does not always name the key."""
    keys = [f"{k}={v}" for k, v in update.set] + [f"{k} removed" for k in update.delete]
    return f"{sentence(failure, update.topic, AlterTopicConfig)} [the update: {', '.join(keys)}]"
