"""diff: the changes that take a cluster from its current state to the desired one.

A pure function of frozen values. Steps:

1. Split off what the planner must not touch: internal topics and names matching
   `policy.ignore` (a spec naming one gets a warning, a cluster one is not even unmanaged).
2. For each spec, by name: create it, update it (config, partition increase, replication
   factor as a reassignment) or, for a tombstone, delete it if the policy allows.
3. List unmanaged topics (on the cluster, named by no spec); with `prune`, delete them too.

No delete (tombstone or prune) is planned while the loader found a file that could hold
topics but did not read it (`DesiredState.unread`): an error diagnostic names it instead.

Policies (max_deletes among them), limits and hazard acknowledgment come after, in make_plan.

A problem becomes a diagnostic and the change it blocks is left out, so a plan never shows a
change apply would not make; the plan's other changes are still computed, so one run reports
everything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from reconciler.cluster.evidence import Evidence
from reconciler.cluster.state import ClusterState, PartitionState, Reassignment, TopicState
from reconciler.diagnostics import Diagnostic
from reconciler.patterns import UserPattern, problem
from reconciler.planning import hazards, p_codes, placement
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    Assignments,
    Change,
    CreateTopic,
    DeleteReason,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.cluster_configs import unknown_keys
from reconciler.planning.configs import compacted, config_changes
from reconciler.planning.down_unseen import UNSEEN
from reconciler.planning.ownership import owned
from reconciler.planning.system_topics import system_topic
from reconciler.spec.kafka_rules import collision_key
from reconciler.spec.model import DesiredState, Policy, Presence, TopicSpec

DiffResult = tuple[tuple[TopicChange, ...], tuple[Diagnostic, ...], tuple[str, ...]]


def diff(
    desired: DesiredState,
    state: ClusterState,
    policy: Policy,
    prune: bool = False,
    evidence: Evidence | None = None,
    unmanaged_in: Callable[[str], bool] | None = None,
) -> DiffResult:
    """(changes by topic name, diagnostics, unmanaged topic names), all sorted by name.

    `evidence`: whether the topics to delete are still in use (None: not read), carried by
    each delete and judged by hazards.in_use. `unmanaged_in`: a partial plan's choice of
    unmanaged topics, made before `prune` (its `desired` holds only the targeted specs, so
    every other managed topic looks unmanaged here). Ordering the changes is `order.order`'s job.
    """
    run = _Diff(state, policy, desired.cluster, desired.unread, evidence)
    ignore = run.ignore_patterns()
    for name in sorted(desired.topics):
        spec = desired.topics[name]
        current = state.topics.get(name)
        if (current is not None and current.internal) or ignored(name, ignore):
            run.ignored_spec(spec, current)
        elif spec.state is Presence.ABSENT:
            if current is not None:
                run.tombstone(spec, current)
        elif current is None:
            run.create(spec)
        else:
            run.update(spec, current)
    unmanaged = tuple(
        sorted(
            name
            for name, topic in state.topics.items()
            if name not in desired.topics and not topic.internal and not ignored(name, ignore)
            if owned(name, policy)  # policy.manage: another team's topic is not unmanaged
            if unmanaged_in is None or unmanaged_in(name)
        )
    )
    if prune:
        run.prune(unmanaged)
    return tuple(run.changes), tuple(run.diagnostics), unmanaged


# reconciler's own topics (apply's lock and audit record): never planned, whatever the ignore
# patterns say, so no --prune can delete the lock another apply holds.
RESERVED_PREFIX = "_reconciler_"


def ignored(name: str, patterns: Sequence[UserPattern]) -> bool:
    """Reserved for reconciler itself, or matched by a policy.ignore pattern: never planned.

    A pattern that exceeds its bound on `name` raises PatternTooSlow (reconciler/patterns.py):
    the command stops, naming the pattern and the name, rather than guess which it is."""
    return name.startswith(RESERVED_PREFIX) or any(p.search(name) for p in patterns)


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


@dataclass
class _Diff:
    """The accumulators of one diff run; private, so diff() stays a pure function."""

    state: ClusterState
    policy: Policy
    cluster: str  # its name, for messages
    unread: tuple[tuple[str, str], ...] = ()  # DesiredState.unread: files that stop deletes
    evidence: Evidence | None = None  # of the topics to delete; None: not read
    changes: list[TopicChange] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.broker_ids = frozenset(b.id for b in self.state.brokers)
        # Brokers existing replicas name that the cluster does not list: down, not gone. A
        # change that needs one waits for it; it is never a reason to ask for fewer replicas
        # or other assignments.
        self.down = frozenset(self.state.down_brokers)
        # Replicas per broker, updated by every placement this plan makes, so moves spread.
        self.load = placement.replica_load(self.state)
        self.collisions = {collision_key(n): n for n in self.state.topics}
        # policy.system_topics (reconciler.yaml's reader reported any that does not compile)
        self.system_patterns = [
            UserPattern(p, self.policy.pattern_source("system_topics", p))
            for p in self.policy.system_topics
            if problem(p) is None
        ]

    # --- what is out of reach ---------------------------------------------------------------

    def ignore_patterns(self) -> list[UserPattern]:
        patterns = []
        for pattern in self.policy.ignore:
            error = problem(pattern)
            if error is None:
                source = self.policy.pattern_source("ignore", pattern)
                patterns.append(UserPattern(pattern, source))
            else:
                self.diagnostics.append(
                    p_codes.INVALID_IGNORE_PATTERN(
                        f"policy.ignore pattern {pattern!r} is not a valid regular expression "
                        f"({error}); fix it in reconciler.yaml"
                    )
                )
        return patterns

    def ignored_spec(self, spec: TopicSpec, current: TopicState | None) -> None:
        why = (
            "is an internal topic"
            if current is not None and current.internal
            else "matches a policy.ignore pattern"
        )
        self.diagnostics.append(
            p_codes.IGNORED_TOPIC(
                f"{spec.name} {why}, so the planner never touches it and its spec has no "
                "effect; remove the spec, or the pattern from policy.ignore in reconciler.yaml",
                topic=spec.name,
                location=spec.location,
            )
        )

    # --- create -----------------------------------------------------------------------------

    def create(self, spec: TopicSpec) -> None:
        name = spec.name
        existing = self.collisions.get(collision_key(name))
        if existing is not None:
            self.diagnostics.append(
                p_codes.TOPIC_COLLISION(
                    f"topic {name} collides with existing topic {existing}: Kafka treats '.' "
                    "and '_' as the same character in metric names and refuses the create; "
                    "choose a name that differs by more than '.' versus '_'",
                    topic=name,
                    location=spec.location,
                )
            )
            return
        unknown, said = unknown_keys(spec, self.state, self.cluster, creating=True)
        self.diagnostics.extend(said)
        if unknown:
            return
        assignments = spec.assignments
        if assignments and not self._brokers_known(spec, assignments, "creating it"):
            return
        partitions = spec.effective_partitions
        rf = spec.effective_replication_factor
        defaults = self.state.broker_defaults
        default_partitions = (
            _int_or_none(defaults.get("num.partitions")) if partitions is None else None
        )
        default_rf = (
            _int_or_none(defaults.get("default.replication.factor")) if rf is None else None
        )
        effective_rf = rf if rf is not None else default_rf
        # A state listing no brokers (a partial snapshot) cannot tell; creates are then trusted
        # to the broker's own check.
        if effective_rf is not None and self.broker_ids and effective_rf > len(self.broker_ids):
            source = "" if rf is not None else " (the broker's default.replication.factor)"
            self.diagnostics.append(
                self._unreachable(
                    spec, effective_rf, f"{name} needs replication factor {effective_rf}{source}"
                )
            )
            return
        if assignments:
            self.load = placement.shift_load(self.load, (), assignments)
        change = CreateTopic(
            topic=name,
            partitions=partitions,
            replication_factor=rf,
            config=spec.config,
            assignments=assignments,
            depends_on=spec.depends_on,
            default_partitions=default_partitions,
            default_replication_factor=default_rf,
        )
        self.changes.append(TopicChange(name, Action.CREATE, (change,), depends_on=spec.depends_on))

    # --- update -----------------------------------------------------------------------------

    def update(self, spec: TopicSpec, current: TopicState) -> None:
        """Config, then partitions, then replication factor: the order apply runs them."""
        name = spec.name
        planned: list[Change] = []
        found: list[Hazard] = []

        unknown, said = unknown_keys(spec, self.state, self.cluster, creating=False)
        self.diagnostics.extend(said)
        entries = config_changes(spec, current, self.state.broker_defaults)
        entries = tuple(e for e in entries if e.key not in unknown)
        is_compacted = compacted(current, entries, self.state.broker_defaults)
        if entries:
            planned.append(AlterTopicConfig(name, entries))
            found.extend(hazards.config_hazards(entries, is_compacted, current.topic_id))

        manual = spec.assignments
        current_count = len(current.partitions)
        desired_count = spec.effective_partitions
        # Omitted counts meant "broker default at creation" (KIP-464): never drift afterwards.
        grow = desired_count is not None and desired_count > current_count
        if desired_count is not None and desired_count < current_count:
            self.diagnostics.append(
                p_codes.PARTITION_DECREASE(
                    f"{name}: partitions cannot shrink from {current_count} to {desired_count}: "
                    "Kafka has no partition decrease; create a new topic and migrate, or set "
                    f"partitions: {current_count}",
                    topic=name,
                    location=spec.location,
                )
            )

        settled = settled_replicas(current, self.state.reassignments)
        desired_rf = spec.effective_replication_factor
        reshape = desired_rf is not None and any(len(r) != desired_rf for r in settled)

        moving = [r for r in self.state.reassignments if r.topic == name]
        if (grow or reshape) and moving:
            self.diagnostics.append(self._reassignment_in_progress(spec, moving))
            grow = reshape = False
        # New partitions are created at the current factor first (see _increase), so that one
        # must be placeable too.
        needed = max(desired_rf or 0, current.replication_factor if grow else 0)
        if reshape and needed > len(self.broker_ids):
            self.diagnostics.append(
                self._unreachable(
                    spec, needed, f"{name}: replication factor {needed} needs {needed} brokers"
                )
            )
            reshape = False
        if manual and (grow or reshape):
            used = manual[current_count:] if not reshape else manual
            if not self._brokers_known(spec, used, "placing its replicas"):
                grow = reshape = False

        new_partitions: Assignments = ()
        if grow and desired_count is not None:
            increase = self._increase(spec, current, desired_count, reshape)
            new_partitions = increase.assignments or ()
            planned.append(increase)
            found.extend(hazards.key_reorder(increase, spec.keyed, is_compacted, current.topic_id))
            # the evidence read for a grown topic (workflow/plan.py planned): its live groups
            read = self.evidence.topics.get(name) if self.evidence is not None else None
            found.extend(hazards.partition_increase_read(increase, read, current.topic_id))
        if reshape and desired_rf is not None:
            reassign = self._reassign(spec, current, desired_rf, new_partitions)
            planned.append(reassign)
            found.extend(hazards.replication_factor_decrease(reassign, current.topic_id))

        if planned:
            self.changes.append(
                TopicChange(
                    name, Action.UPDATE, tuple(planned), tuple(found), depends_on=spec.depends_on
                )
            )

    def _increase(
        self, spec: TopicSpec, current: TopicState, desired: int, reshape: bool
    ) -> IncreasePartitions:
        """New partitions: the spec's assignment tail, Kafka's choice, or (with a replication
        factor change in the same plan) a computed placement at the CURRENT replication factor,
        because Kafka requires new partitions to match the existing ones; the reassignment then
        takes them to the desired factor with the rest."""
        count = len(current.partitions)
        tail = spec.assignments[count:desired] if spec.assignments else None
        assignments = tail
        if reshape:
            base = [placement.ReplicaSet(t[: current.replication_factor]) for t in tail or ()]
            base += [placement.ReplicaSet(())] * (desired - count - len(base))
            assignments = placement.change_replication_factor(
                base, current.replication_factor, self.state.brokers, self.load
            )
        if assignments:
            self.load = placement.shift_load(self.load, (), assignments)
        return IncreasePartitions(spec.name, count, desired, assignments)

    def _reassign(
        self,
        spec: TopicSpec,
        current: TopicState,
        desired_rf: int,
        new_partitions: Assignments,
    ) -> ReassignReplicas:
        sets = [_replica_set(p) for p in current.partitions]
        sets += [placement.ReplicaSet(a) for a in new_partitions]
        before = tuple(s.replicas for s in sets)
        manual = spec.assignments
        if manual and len(manual) == len(sets):
            # The spec says where replicas go: partitions that move anyway go there.
            target = tuple(manual[i] if len(r) != desired_rf else r for i, r in enumerate(before))
        else:
            target = placement.change_replication_factor(
                sets, desired_rf, self.state.brokers, self.load
            )
        self.load = placement.shift_load(self.load, before, target)
        return ReassignReplicas(spec.name, current.replication_factor, desired_rf, before, target)

    def _reassignment_in_progress(
        self, spec: TopicSpec, moving: Sequence[Reassignment]
    ) -> Diagnostic:
        partitions = ", ".join(str(r.partition) for r in sorted(moving, key=lambda r: r.partition))
        return p_codes.REASSIGNMENT_IN_PROGRESS(
            f"{spec.name}: a partition reassignment is in progress (partition(s) {partitions}); "
            "Kafka refuses new partition or replica changes until it finishes: wait for it "
            "(kafka-reassign-partitions --verify) or cancel it, then plan again",
            topic=spec.name,
            location=spec.location,
        )

    def _unreachable(self, spec: TopicSpec, wanted: int, needs: str) -> Diagnostic:
        """More replicas than the cluster lists brokers: a broker down (wait for it) or too few
        brokers (never advise below the brokers the cluster has, down ones included)."""
        live, down = len(self.broker_ids), sorted(self.down)
        total = live + len(down)
        if down and wanted <= total:
            return p_codes.BROKER_DOWN(
                f"{needs} but only {live} of the cluster's {total} brokers are up: broker(s) "
                f"{_ids(down)} {_down(down)}; wait for it or bring it back, then plan again "
                "(the spec needs no change)",
                topic=spec.name,
                location=spec.location,
            )
        also = f", {len(down)} of them down ({_ids(down)})" if down else ""
        if self.state.down_unseen:
            return p_codes.REPLICATION_FACTOR_UNREACHABLE(
                f"{needs} but the cluster lists {total} broker(s){also}; {UNSEEN}: if one is, "
                "bring it back and plan again (the spec needs no change), else set "
                f"replication_factor to at most {total} or add brokers",
                topic=spec.name,
                location=spec.location,
            )
        return p_codes.REPLICATION_FACTOR_UNREACHABLE(
            f"{needs} but the cluster has {total} broker(s){also}; set replication_factor to "
            f"at most {total} or add brokers",
            topic=spec.name,
            location=spec.location,
        )

    def _brokers_known(self, spec: TopicSpec, assignments: Assignments, doing: str) -> bool:
        if not self.broker_ids:
            return True  # a state listing no brokers cannot tell (see create)
        named = {b for replicas in assignments for b in replicas} - self.broker_ids
        if not named:
            return True
        down = sorted(named & self.down)
        if down:
            self.diagnostics.append(
                p_codes.BROKER_DOWN(
                    f"{spec.name}: assignments name broker(s) {_ids(down)}, which "
                    f"{_down(down)}; wait for it or bring it back, then plan again before "
                    f"{doing} (the assignments need no change)",
                    topic=spec.name,
                    location=spec.location,
                )
            )
            return False
        unknown = sorted(named)
        known = ", ".join(map(str, sorted(self.broker_ids | self.down)))
        verb, fix = "have", f"fix the assignments before {doing}"
        if self.state.down_unseen:
            verb, fix = "list", f"{UNSEEN}: if one is, bring it back and plan again, else {fix}"
        self.diagnostics.append(
            p_codes.UNKNOWN_BROKER(
                f"{spec.name}: assignments name broker(s) {', '.join(map(str, unknown))} that "
                f"the cluster does not {verb} (brokers: {known}); {fix}",
                topic=spec.name,
                location=spec.location,
            )
        )
        return False

    # --- delete -----------------------------------------------------------------------------

    def tombstone(self, spec: TopicSpec, current: TopicState) -> None:
        name = spec.name
        if spec.protect:
            self.diagnostics.append(
                p_codes.DELETE_PROTECTED(
                    f"{name} has `protect: true` and a tombstone (`state: absent`): protected "
                    "topics are never deleted; remove `protect: true` in the reviewed change "
                    "first, or drop the tombstone",
                    topic=name,
                    location=spec.location,
                )
            )
        elif not self.policy.allow_delete:
            self.diagnostics.append(
                p_codes.DELETE_NOT_ALLOWED(
                    f"{name} has a tombstone (`state: absent`) but this cluster's policy does "
                    "not allow deletes; set `policy: {allow_delete: true}` for the cluster in "
                    "reconciler.yaml, or drop the tombstone",
                    topic=name,
                    location=spec.location,
                )
            )
        elif self.unread:
            self.diagnostics.append(
                p_codes.DELETE_WITH_UNREAD_SPECS(
                    f"{name} has a tombstone (`state: absent`) but {self._unread_files()}, and "
                    "could declare it; no delete is planned while a file that could hold "
                    "topics is not read: rename it to .yaml (or .yaml.j2), move it out of the "
                    "hidden folder, or remove it",
                    topic=name,
                    location=spec.location,
                )
            )
        else:
            self._delete(name, current, "tombstone", spec.depends_on)

    def prune(self, unmanaged: Iterable[str]) -> None:
        names = list(unmanaged)
        if not names:
            return
        if not self.policy.allow_delete:
            self.diagnostics.append(
                p_codes.DELETE_NOT_ALLOWED(
                    f"--prune would delete {len(names)} unmanaged topic(s) but this cluster's "
                    "policy does not allow deletes; set `policy: {allow_delete: true}` for the "
                    "cluster in reconciler.yaml, or plan without --prune"
                )
            )
            return
        if self.unread:
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            self.diagnostics.append(
                p_codes.DELETE_WITH_UNREAD_SPECS(
                    f"--prune would delete {len(names)} unmanaged topic(s) ({shown}) but "
                    f"{self._unread_files()}, and could declare them; no delete is planned "
                    "while a file that could hold topics is not read: rename it to .yaml (or "
                    ".yaml.j2), move it out of the hidden folder, or remove it"
                )
            )
            return
        for name in names:
            if system_topic(name, self.system_patterns) is None:  # a tombstone deletes one
                self._delete(name, self.state.topics[name], "prune", ())

    def _unread_files(self) -> str:
        """`topics/UP.YAML is not read (its extension is not in lower case)`, and others."""
        first = [f"{path} is not read ({reason})" for path, reason in self.unread[:3]]
        more = len(self.unread) - len(first)
        return "; ".join(first) + (f" (and {more} more such file(s))" if more else "")

    def _delete(
        self,
        name: str,
        current: TopicState,
        reason: DeleteReason,
        depends_on: tuple[str, ...],
    ) -> None:
        found = self.evidence.of(name) if self.evidence is not None else None
        stamps = current.entry("message.timestamp.type")
        if found is not None and stamps is not None and stamps.value is not None:
            # CreateTime: the newest timestamp is the producer's claim, said beside it
            found = dataclasses.replace(found, producer_stamped=stamps.value == "CreateTime")
        change = DeleteTopic(name, len(current.partitions), reason, found)
        idle = self.policy.idle_before_delete_ms
        found_hazards = (
            *hazards.delete(change, current.topic_id),
            *hazards.system_topic(
                change, current.topic_id, system_topic(name, self.system_patterns)
            ),
            *hazards.in_use(change, current.topic_id, idle),
        )
        self.changes.append(TopicChange(name, Action.DELETE, (change,), found_hazards, depends_on))


def _ids(brokers: Iterable[int]) -> str:
    return ", ".join(map(str, brokers))


def _down(brokers: Sequence[int]) -> str:
    """Why a broker the cluster does not list is down, not gone."""
    verb = "is" if len(brokers) == 1 else "are"
    return (
        f"{verb} down: existing replicas name {'it' if len(brokers) == 1 else 'them'} but the "
        "cluster does not list " + ("it" if len(brokers) == 1 else "them")
    )


def _replica_set(partition: PartitionState) -> placement.ReplicaSet:
    return placement.ReplicaSet(partition.replicas, partition.leader, partition.isr)


def settled_replicas(
    topic: TopicState, reassignments: Sequence[Reassignment]
) -> list[tuple[int, ...]]:
    """Each partition's replicas once an in-progress reassignment settles.

    Mid-reassignment, metadata lists the union of old and new replicas; comparing that with the
    spec would misread the replication factor (and re-plan a reassignment apply already began).
    """
    moving = {r.partition: r for r in reassignments if r.topic == topic.name}
    settled = []
    for p in topic.partitions:
        r = moving.get(p.partition)
        settled.append(r.target if r else p.replicas)
    return settled
