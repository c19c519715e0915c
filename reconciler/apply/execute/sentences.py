"""Kafka's error codes as sentences: what happened to which topic, and what to do next."""

from __future__ import annotations

from reconciler.apply.execute.operations import KINDS
from reconciler.cluster.protocol.failures import Failure
from reconciler.planning.changes import Change

_SENTENCES: dict[str, str] = {
    "TOPIC_AUTHORIZATION_FAILED": (
        "the cluster refused it: the principal in `client:` is not authorized to {verb} "
        "{topic}; grant the ACL (e.g. ALTER / CREATE on the topic) or use another principal"
    ),
    "CLUSTER_AUTHORIZATION_FAILED": (
        "the cluster refused it: the principal in `client:` lacks cluster-level rights needed "
        "to {verb} {topic}; grant ALTER on the cluster or use another principal"
    ),
    "INVALID_PARTITIONS": (
        "Kafka rejected the partition count for {topic}: it must be at least 1 and, for an "
        "increase, above the current count; re-plan against the cluster as it is now"
    ),
    "INVALID_REPLICA_ASSIGNMENT": (
        "Kafka rejected the replica assignment for {topic}: each partition needs distinct, "
        "registered, unfenced brokers and as many replicas as the topic's replication factor; "
        "fix `assignments:` in the spec"
    ),
    "INVALID_REPLICATION_FACTOR": (
        "Kafka cannot place {topic} at that replication factor: not enough registered, "
        "unfenced brokers; lower replication_factor or bring brokers back"
    ),
    "INVALID_REQUEST": (
        "Kafka rejected the request for {topic} as malformed (e.g. a duplicate topic, or "
        "counts given together with a manual assignment); this is likely a reconciler bug: "
        "report it with the plan"
    ),
    "REASSIGNMENT_IN_PROGRESS": (
        "a partition reassignment is already running on {topic}; wait for it to finish "
        "(or cancel it), then re-run apply"
    ),
    "TOPIC_ALREADY_EXISTS": (
        "{topic} already exists on the cluster but differs from the plan: someone created it "
        "meanwhile; re-plan to see how it differs"
    ),
    "POLICY_VIOLATION": (
        "the cluster's create/alter policy refused the change to {topic} (or the request "
        "held more than 10,000 partitions); ask the cluster's operators what the policy "
        "allows and adjust the spec"
    ),
    "INVALID_CONFIG": (
        "Kafka rejected a topic config of {topic}, a key the cluster does not know or a value "
        "it refuses (Kafka's words follow): fix it in the spec (`reconciler help configs` "
        "lists Apache Kafka's keys and ranges)"
    ),
    "UNKNOWN_TOPIC_OR_PART": (
        "{topic} does not exist on the cluster (any more); re-plan against the cluster as it is now"
    ),
    "UNKNOWN_TOPIC_OR_PARTITION": (
        "{topic} does not exist on the cluster (any more); re-plan against the cluster as it is now"
    ),
    "TOPIC_DELETION_DISABLED": (
        "the brokers have delete.topic.enable=false, so {topic} cannot be deleted; enable it "
        "or drop the tombstone"
    ),
    "NOT_CONTROLLER": (
        "the controller moved while {topic} was being changed; re-run apply (it converges)"
    ),
    "TIMED_OUT": (
        "Kafka did not answer in time for {topic}: the change may or may not have been made; "
        "re-run apply, which checks the cluster and only does what is left"
    ),
    "NO_REASSIGNMENT_IN_PROGRESS": (
        "no reassignment was running on {topic} when one was expected; re-run apply"
    ),
}


def sentence(failure: Failure, topic: str, kind: type[Change]) -> str:
    """`failure` of a `kind` change to `topic` in words (its verb from the kind's row of
    KINDS), with Kafka's own code and message kept for searching."""
    verb = KINDS[kind].verb
    template = _SENTENCES.get(failure.code)
    own = f" (Kafka: {failure})"
    if template is None:
        return f"Kafka refused to {verb} {topic}: {failure}; fix the cause and re-run apply"
    return template.format(topic=topic, verb=verb) + own
