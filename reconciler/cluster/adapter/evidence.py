"""Reading the in-use evidence of the topics a plan deletes, in a fixed number of requests.

    request                       sent                         client
    DescribeCluster (auth. ops)   once                         librdkafka
    ListGroups                    once per broker              kafka-python
    FindCoordinator (batched)     once per call below          kafka-python
    DescribeGroups                once per group coordinator   kafka-python
    ConsumerGroupDescribe         for KIP-848 groups only      librdkafka
    (share groups, KIP-932)       listed by ListGroups only: neither client sends
                                  ShareGroupDescribe, so a share group makes every topic's
                                  evidence unreadable (it may read any of them)
    OffsetFetch v8 (KIP-709)      once per group coordinator   kafka-python (one per group
                                                               on Kafka before 3.0)
    ListOffsets latest            once per partition leader    librdkafka (twice, SAMPLE_MS
                                                               apart, when sampling)
    ListOffsets max-timestamp     once per partition leader    librdkafka (KIP-734, Kafka 3.0+)

None of these grows with the number of topics; only OffsetFetch before Kafka 3.0 grows with the
number of groups. Brokers before 3.0 lack the max-timestamp lookup: there the newest record of
each partition that holds any is read with one consumer (records.py), its fetches batched.

What cannot be read becomes a reason in `TopicEvidence.unreadable`, never an exception: the
gate fails closed. ListGroups leaves out the groups the principal may not Describe unless it
may Describe the cluster, so an empty list proves nothing by itself: without Describe on the
cluster (its authorized operations, KIP-430) every topic's evidence is unreadable.
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from confluent_kafka import KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from reconciler.cluster.adapter import authorization, boundary, failures, records, retry
from reconciler.cluster.adapter.connect import Connection, reason
from reconciler.cluster.evidence import Evidence, GroupUse, TopicEvidence
from reconciler.cluster.protocol.authorized import Authorized, lacks

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

# The ListOffsets lookups (confluent-kafka types none of them)
_SPEC_LATEST: OffsetSpec = OffsetSpec.latest()  # type: ignore[no-untyped-call]
_SPEC_EARLIEST: OffsetSpec = OffsetSpec.earliest()  # type: ignore[no-untyped-call]
_SPEC_MAX_TIMESTAMP: OffsetSpec = OffsetSpec.max_timestamp()  # type: ignore[no-untyped-call]
# Why each group is read, one phrase for both requests: a group refused to both is said once
_WHY = "read the consumer group's members and committed offsets"


def read(
    connection: Connection,
    admin: AdminClient,
    groups_admin: KafkaAdminClient,
    partitions: Mapping[str, int],
    sample_ms: int = 0,
) -> Evidence:
    """The evidence for each topic of `partitions` (topic -> its partition count); with
    `sample_ms`, the log end offsets are read twice that far apart and any movement counted
    as records written (one ListOffsets round trip each, for every topic at once)."""
    problems: list[str] = []  # unreadable for every topic
    by_topic: dict[str, list[str]] = defaultdict(list)  # unreadable for one topic
    with boundary.librdkafka(connection, "ListOffsets"):
        tps = [
            TopicPartition(t, p) for t, count in sorted(partitions.items()) for p in range(count)
        ]
    first: dict[tuple[str, int], int] | None = None
    started = time.monotonic()
    if sample_ms > 0 and tps:
        first = _offsets(connection, admin, tps, _SPEC_LATEST, defaultdict(list))
        time.sleep(sample_ms / 1000)
    latest = _offsets(connection, admin, tps, _SPEC_LATEST, by_topic)
    window_ms = int((time.monotonic() - started) * 1000) if first is not None else 0
    read_at = int(time.time() * 1000)
    newest = _newest(connection, admin, tps, latest, by_topic)
    uses: dict[str, list[GroupUse]] = defaultdict(list)
    listed = _complete_group_list(connection, admin, groups_admin, problems)
    if listed:
        described = _describe(connection, admin, groups_admin, listed, problems)
        committed = _committed(connection, groups_admin, listed, problems)
        for group in sorted(listed):
            state, members, assigned = described.get(group, ("unknown", None, frozenset()))
            by_topic_offsets: dict[str, dict[int, int]] = defaultdict(dict)
            for (topic, partition), offset in committed.get(group, {}).items():
                if topic in partitions:
                    by_topic_offsets[topic][partition] = offset
            for topic in sorted({*by_topic_offsets, *(t for t in assigned if t in partitions)}):
                mine = by_topic_offsets.get(topic, {})
                lag = sum(max(0, latest.get((topic, p), o) - o) for p, o in mine.items())
                uses[topic].append(
                    GroupUse(
                        group, state, members, bool(mine), topic in assigned, lag if mine else None
                    )
                )
    return Evidence(
        read_at,
        {
            topic: TopicEvidence(
                topic,
                read_at,
                tuple(uses[topic]),
                newest.get(topic),
                tuple(dict.fromkeys([*problems, *by_topic[topic]])),
                end_offsets=tuple(latest.get((topic, p), -1) for p in range(count)),
                written=_moved(first, latest, topic, count),
                window_ms=window_ms,
            )
            for topic, count in partitions.items()
        },
    )


def _moved(
    first: Mapping[tuple[str, int], int] | None,
    latest: Mapping[tuple[str, int], int],
    topic: str,
    count: int,
) -> int:
    """Records appended to `topic` between the two reads (0 without a first read)."""
    if first is None:
        return 0
    keys = [(topic, p) for p in range(count) if (topic, p) in first and (topic, p) in latest]
    return sum(abs(latest[k] - first[k]) for k in keys)


def _complete_group_list(
    connection: Connection,
    admin: AdminClient,
    groups_admin: KafkaAdminClient,
    problems: list[str],
) -> list[str]:
    """Every group's name, or [] with the reason in `problems` when the list cannot be
    proven whole."""
    try:
        with boundary.librdkafka(connection, "DescribeCluster"):
            described = admin.describe_cluster(
                request_timeout=connection.seconds, include_authorized_operations=True
            ).result()
            operations = described.authorized_operations
    except KafkaException as exc:
        problems.append(f"the cluster's authorized operations could not be read ({reason(exc)})")
        return []
    granted = Authorized(authorization.names(operations), {})
    if not granted.allows("Describe", None):
        problems.append(
            lacks(
                connection,
                "Describe",
                "the cluster",
                "list every consumer group: Kafka leaves out the groups it may not Describe, "
                "so an empty list proves nothing",
                unchanged=False,
            ).removesuffix(".")
        )
        return []
    try:
        with boundary.kafka_python(connection, "ListGroups", groups_admin):
            found = groups_admin.list_groups()
    except boundary.LibraryFailed:
        raise
    except Exception as exc:  # kafka-python raises its own error classes
        problems.append(f"the consumer groups could not be listed ({_said(exc)})")
        return []
    with boundary.kafka_python(connection, "ListGroups", groups_admin):  # the answer's shape
        share = sorted({_share_named(g) for g in found if _is_share(g)})
        listed = sorted({str(g.get("group_id")) for g in found if not _is_share(g)})
    if share:  # KIP-932: they read like consumer groups, but neither client can ask which topics
        problems.append(
            f"share group(s) {', '.join(share[:3])}"
            + (f" and {len(share) - 3} more" if len(share) > 3 else "")
            + " may read it: Kafka tracks them (KIP-932) but neither client library can ask it "
            "which topics a share group reads (ShareGroupDescribe), so they count as readers"
        )
    return listed


def _share_named(group: Mapping[str, Any]) -> str:
    """A share group's name and, as ListGroups gives it, its state: `workers (Stable)` has
    live members, `workers (Empty)` none now (its acquired records are kept for its return)."""
    state = group.get("group_state")
    return f"{group.get('group_id')}" + (f" ({state})" if state else "")


def _is_share(group: Mapping[str, Any]) -> bool:
    """A share group (KIP-932), by the type ListGroups v5 gives or its protocol type."""
    return "share" in (str(group.get("group_type") or "").lower(), group.get("protocol_type"))


def _describe(
    connection: Connection,
    admin: AdminClient,
    groups_admin: KafkaAdminClient,
    groups: list[str],
    problems: list[str],
) -> dict[str, tuple[str, int | None, frozenset[str]]]:
    """group -> (state, live members, topics its members are assigned). Groups of the new
    consumer protocol (KIP-848), which DescribeGroups refuses, are described with
    ConsumerGroupDescribe through librdkafka."""
    try:
        with boundary.kafka_python(connection, "DescribeGroups", groups_admin):
            found: dict[str, dict[str, Any]] = groups_admin.describe_groups(groups)
    except boundary.LibraryFailed:
        raise
    except Exception as exc:  # kafka-python stops at the first group refused
        problems.append(_failed(connection, exc))
        return {}
    described: dict[str, tuple[str, int | None, frozenset[str]]] = {}
    new_protocol: list[str] = []
    for group, answer in found.items():
        error = answer.get("error")
        if error and failures.not_classic(str(error)):
            new_protocol.append(group)
            continue
        if error:  # kafka-python answers each group with text only
            code = failures.answer_code(str(error))
            problems.append(_group_problem(connection, group, code, str(error)))
            continue
        members = answer.get("members") or []
        topics: set[str] = set()
        for member in members:
            topics |= _assigned(member.get("member_assignment"))
        if answer.get("protocol_type") not in ("consumer", "", None) and not topics:
            continue  # a Connect or other group: it reads no topic through its assignment
        described[group] = (
            str(answer.get("group_state") or "unknown"),
            len(members),
            frozenset(topics),
        )
    if new_protocol:
        described.update(_describe_new_protocol(connection, admin, new_protocol, problems))
    return described


def _describe_new_protocol(
    connection: Connection, admin: AdminClient, groups: list[str], problems: list[str]
) -> dict[str, tuple[str, int | None, frozenset[str]]]:
    described: dict[str, tuple[str, int | None, frozenset[str]]] = {}
    try:
        with boundary.librdkafka(connection, "ConsumerGroupDescribe"):
            futures = admin.describe_consumer_groups(groups, request_timeout=connection.seconds)
    except KafkaException as exc:
        problems.append(f"the consumer groups could not be described ({reason(exc)})")
        return described
    for group, future in futures.items():
        try:
            with boundary.librdkafka(connection, "ConsumerGroupDescribe"):
                found = future.result()
                topics = {
                    tp.topic
                    for member in found.members
                    if member.assignment is not None
                    for tp in member.assignment.topic_partitions
                }
                state = found.state.name.title() if found.state is not None else "unknown"
        except KafkaException as exc:
            problems.append(_group_problem(connection, group, failures.code_of(exc), reason(exc)))
            continue
        described[group] = (state, len(found.members), frozenset(topics))
    return described


def _committed(
    connection: Connection, groups_admin: KafkaAdminClient, groups: list[str], problems: list[str]
) -> dict[str, dict[tuple[str, int], int]]:
    """group -> {(topic, partition): committed offset}."""
    try:
        with boundary.kafka_python(connection, "OffsetFetch", groups_admin):
            found = groups_admin.list_group_offsets(dict.fromkeys(groups))
    except boundary.LibraryFailed:
        raise
    except Exception as exc:  # kafka-python stops at the first group refused
        problems.append(_failed(connection, exc))
        return {}
    return {
        group: {
            (tp.topic, tp.partition): meta.offset
            for tp, meta in offsets.items()
            if meta.offset >= 0
        }
        for group, offsets in found.items()
    }


def _failed(connection: Connection, exc: BaseException) -> str:
    """The reason a group request failed, naming the group Kafka refused where it says."""
    group = failures.group_named(exc)
    if group is None:
        return f"the consumer groups could not be read ({_said(exc)})"
    return _group_problem(connection, group, failures.code_of(exc), _said(exc))


def _group_problem(connection: Connection, group: str, code: int | None, error: str) -> str:
    if code == failures.GROUP_DENIED:
        return lacks(connection, "Describe", f"group {group}", _WHY, unchanged=False).removesuffix(
            "."
        )
    return f"consumer group '{group}' could not be read ({error})"


def _offsets(
    connection: Connection,
    admin: AdminClient,
    tps: list[TopicPartition],
    spec: OffsetSpec,
    by_topic: dict[str, list[str]],
) -> dict[tuple[str, int], int]:
    """(topic, partition) -> offset for one ListOffsets spec; failures by topic."""
    found, _ = _list_offsets(connection, admin, tps, spec, by_topic)
    return found


def _list_offsets(
    connection: Connection,
    admin: AdminClient,
    tps: list[TopicPartition],
    spec: OffsetSpec,
    by_topic: dict[str, list[str]],
    unsupported: list[TopicPartition] | None = None,
) -> tuple[dict[tuple[str, int], int], dict[tuple[str, int], int]]:
    """(offsets, timestamps) by (topic, partition); a partition the broker cannot answer for
    with this spec goes to `unsupported` when given, else to `by_topic`.

    librdkafka sends each partition's ListOffsets to the leader its metadata cache names, with
    that leader's epoch, and does not refresh the cache when the answer says the leader moved:
    asked again, the same client fails the same way (measured: FENCED_LEADER_EPOCH five times
    in a row after a preferred-leader election). So partitions refused for a reason that
    passes are asked again after the client's metadata is refreshed, with backoff, within the
    request timeout; what still fails then is a reason (the gate fails closed)."""
    offsets: dict[tuple[str, int], int] = {}
    stamps: dict[tuple[str, int], int] = {}
    deadline = time.monotonic() + connection.seconds
    refused: dict[TopicPartition, tuple[KafkaException, bool]] = {}
    pending = list(tps)
    pause = retry.FIRST_PAUSE
    rounds = 0
    while pending:
        left = max(deadline - time.monotonic(), 1.0)
        failed, whole = _ask_offsets(
            connection, admin, pending, spec, left, offsets, stamps, unsupported
        )
        for tp, exc in failed.items():
            refused[tp] = (exc, whole)
        rounds += 1
        pending = [tp for tp, exc in failed.items() if _passes(exc, rounds)]
        if not pending or time.monotonic() + pause >= deadline:
            break
        time.sleep(pause)
        pause = min(pause * 2, retry.MAX_PAUSE)
        _refresh_metadata(connection, admin, deadline)
        for tp in pending:
            del refused[tp]  # asked again: its next answer decides
    for tp, (exc, whole) in refused.items():
        if failures.code_of(exc) in _UNKNOWN:
            continue  # deleted meanwhile (unknown to every answer): nothing left to protect
        if whole:
            by_topic[tp.topic].append(f"its offsets could not be read ({reason(exc)})")
        else:
            by_topic[tp.topic].append(
                f"partition {tp.partition}'s offsets could not be read ({reason(exc)})"
            )
    return offsets, stamps


# Partition errors that pass once the client knows the partition's current leader: the leader
# moved or is being elected, or the broker asked lags the controller (a topic just created).
_PASSING_PARTITION_ERRORS = frozenset(
    {
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.REPLICA_NOT_AVAILABLE,
        KafkaError.FENCED_LEADER_EPOCH,
        KafkaError.UNKNOWN_LEADER_EPOCH,
        KafkaError.OFFSET_NOT_AVAILABLE,
        KafkaError.KAFKA_STORAGE_ERROR,
    }
)
# Unknown to the broker asked, or to the client's metadata
_UNKNOWN = frozenset(
    {KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC, KafkaError._UNKNOWN_PARTITION}
)
# A partition unknown to the broker asked is asked this many times (1.5 s of backoff: a
# broker's metadata lags the controller's by milliseconds), then counted as deleted meanwhile.
_UNKNOWN_ROUNDS = 5


def _passes(exc: KafkaException, rounds: int) -> bool:
    code = failures.code_of(exc)
    if code in _UNKNOWN:
        return rounds < _UNKNOWN_ROUNDS
    return code in _PASSING_PARTITION_ERRORS or retry.retriable(exc)


def _ask_offsets(
    connection: Connection,
    admin: AdminClient,
    tps: list[TopicPartition],
    spec: OffsetSpec,
    timeout: float,
    offsets: dict[tuple[str, int], int],
    stamps: dict[tuple[str, int], int],
    unsupported: list[TopicPartition] | None,
) -> tuple[dict[TopicPartition, KafkaException], bool]:
    """One ListOffsets round (one request per leader): answers into `offsets` and `stamps`;
    the refusals by partition, and whether the call as a whole failed."""
    failed: dict[TopicPartition, KafkaException] = {}
    if not tps:
        return failed, False
    try:
        with boundary.librdkafka(connection, "ListOffsets"):
            futures = admin.list_offsets(dict.fromkeys(tps, spec), request_timeout=timeout)
    except KafkaException as exc:
        return dict.fromkeys(tps, exc), True
    for tp, future in futures.items():
        try:
            with boundary.librdkafka(connection, "ListOffsets"):
                result = future.result()
        except KafkaException as exc:
            if unsupported is not None and failures.code_of(exc) == KafkaError.UNSUPPORTED_VERSION:
                unsupported.append(tp)
            else:
                failed[tp] = exc
            continue
        offsets[(tp.topic, tp.partition)] = result.offset
        stamps[(tp.topic, tp.partition)] = result.timestamp
    return failed, False


def _refresh_metadata(connection: Connection, admin: AdminClient, deadline: float) -> None:
    """The client's metadata of every topic refreshed, in one Metadata request (whose answer
    librdkafka's cache takes); a failure here shows in the next round's answers."""
    with contextlib.suppress(KafkaException), boundary.librdkafka(connection, "Metadata"):
        admin.list_topics(timeout=max(0.1, deadline - time.monotonic()))


def _newest(
    connection: Connection,
    admin: AdminClient,
    tps: list[TopicPartition],
    latest: Mapping[tuple[str, int], int],
    by_topic: dict[str, list[str]],
) -> dict[str, int]:
    """topic -> its newest record's timestamp (topics without records left out)."""
    holding = [tp for tp in tps if latest.get((tp.topic, tp.partition), 0) > 0]
    old_brokers: list[TopicPartition] = []
    offsets, stamps = _list_offsets(
        connection, admin, holding, _SPEC_MAX_TIMESTAMP, by_topic, old_brokers
    )
    newest: dict[str, int] = {}
    for (topic, partition), offset in offsets.items():
        if offset >= 0 and stamps[(topic, partition)] >= 0:
            newest[topic] = max(newest.get(topic, -1), stamps[(topic, partition)])
    if old_brokers:  # before Kafka 3.0: read the last records themselves
        earliest = _offsets(connection, admin, old_brokers, _SPEC_EARLIEST, by_topic)
        spans = {
            key: (earliest[key], latest[key])
            for tp in old_brokers
            if (key := (tp.topic, tp.partition)) in earliest
        }
        try:
            seen, unseen = records.last_timestamps(connection, spans, connection.seconds)
        except KafkaException as exc:
            seen, unseen = {}, {key: reason(exc) for key in spans}
        for (topic, _), stamp in seen.items():
            newest[topic] = max(newest.get(topic, -1), stamp)
        for (topic, partition), why in unseen.items():
            by_topic[topic].append(f"partition {partition}'s last record could not be read ({why})")
    return newest


def _assigned(assignment: object) -> set[str]:
    """The topics of a member's decoded assignment (kafka-python hands an object or a dict)."""
    if assignment is None or isinstance(assignment, bytes | bytearray):
        return set()
    if hasattr(assignment, "partitions"):
        return {tp.topic for tp in assignment.partitions()}
    pairs = assignment.get("assigned_partitions") if isinstance(assignment, dict) else None
    topics = set()
    for pair in pairs or ():
        if isinstance(pair, dict):
            topics.add(str(pair.get("topic")))
        elif isinstance(pair, list | tuple) and pair:
            topics.add(str(pair[0]))
    return topics


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".strip().removesuffix(":")
