"""Which of a spec's topic config keys the cluster has, decided by the cluster's own answer.

DescribeConfigs lists, for every topic, every topic config its broker knows: Apache Kafka's
(the catalog's, as far as the broker's version has them) and a Kafka-compatible service's own
(`confluent.placement.constraints`). The adapter keeps the keys every topic's answer listed
(`ClusterState.topic_config_keys`); this module decides each key a spec sets from them, so
that validate's catalog (Apache Kafka 4.1's keys) is never what refuses or accepts a key on a
given cluster:

    the cluster lists the key     set and compared like any config (planning/configs.py), a
                                  vendor key's value as Kafka returns it, no unit converted
    the cluster does not          an error naming the cluster's answer (unknown_topic_config);
                                  an existing topic's change of that key is left out, a new
                                  topic is not created: the plan is not applyable
    no answer was read            (a cluster without topics, a state without configs) a key
                                  outside the catalog is a warning (topic_config_unchecked):
                                  apply's validate-only CreateTopics / IncrementalAlterConfigs
                                  asks Kafka before any change; the catalog's keys pass, as
                                  validate checked them

Pure: the adapter reads, this decides; drift, the fleet job (fleet/drift_columns.py, from the
snapshot line's `topic_config_keys`) and apply (which re-derives the plan) take the decision
from here.
"""

from __future__ import annotations

import difflib

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic, Location
from reconciler.planning import p_codes
from reconciler.spec import catalog, vendors
from reconciler.spec.model import TopicSpec

_NEAR = 0.8  # a close key the cluster does have, for "did you mean"


def unknown_keys(
    spec: TopicSpec, state: ClusterState, cluster: str, creating: bool
) -> tuple[frozenset[str], list[Diagnostic]]:
    """The keys `spec` sets that the cluster does not know, and what the plan says of each
    (and of the keys nobody could check). `creating`: the topic does not exist yet, so the
    message says it is not created."""
    known = state.topic_config_keys
    # At the topic's `- name:` line, where drift and the fleet job place every item of a topic
    where = spec.location
    unknown: set[str] = set()
    found: list[Diagnostic] = []
    for key, _ in spec.config:
        if known is None:
            if catalog.lookup(key) is None:
                found.append(_unchecked(spec.name, key, cluster, where))
        elif key not in known:
            unknown.add(key)
            found.append(_unknown(spec.name, key, cluster, known, creating, where))
    return frozenset(unknown), found


def _unknown(
    topic: str,
    key: str,
    cluster: str,
    known: frozenset[str],
    creating: bool,
    where: Location,
) -> Diagnostic:
    count = len(known)
    listed = f"{count} topic config{'s' if count != 1 else ''}"
    why = ""
    vendor = vendors.vendor_of(key)
    if vendor is not None:
        why = (
            f" ('{vendor.prefix}' prefixes the topic configs of {vendor.vendor}: this cluster "
            "is not one)"
        )
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=_NEAR)
    if close:
        why += f" (did you mean '{close[0]}'?)"
    consequence = f"{topic} is not created" if creating else f"{topic}'s '{key}' is not changed"
    return p_codes.UNKNOWN_TOPIC_CONFIG(
        f"the cluster '{cluster}' does not know topic config '{key}': its brokers list "
        f"{listed}, none of them this one{why}; {consequence}. Remove the key from the topic's "
        "config, or keep the topic to the clusters that have it (`clusters:`)",
        topic=topic,
        location=where,
    )


def _unchecked(topic: str, key: str, cluster: str, where: Location) -> Diagnostic:
    return p_codes.TOPIC_CONFIG_UNCHECKED(
        f"{topic}: whether the cluster '{cluster}' knows topic config '{key}' is not known: "
        "it lists no topic whose configs say so; apply's validate-only request asks Kafka "
        "before any change, and refuses the whole apply if the cluster does not know it",
        topic=topic,
        location=where,
    )
