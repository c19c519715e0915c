"""A saved plan is verified, not trusted: apply derives the plan again and compares.

Plan files travel through CI artifacts between review and apply, so apply does not execute one
as written. Under the cluster's lock, with the state read there, `verify`:

1. refuses a plan some of whose changes the cluster shows otherwise than planned (someone
   else changed the topic: status.Diverged, named as a stale plan's), and a change whose
   `depends_on` topic is missing: not on the cluster and not created by the plan (deleted
   after planning);
2. takes the saved plan's remaining work: each planned step judged against the cluster
   (status.judge); Done steps drop out, a half-set config change keeps its pending keys, a
   reassignment under way drops out (the planner sees it settled), so an interrupted apply of
   this very plan still resumes;
3. compares that, change by change in execution order, with the plan derived again from the
   specs and the cluster (the same --prune: a plan deleting unmanaged topics was made with it),
   and refuses at the first difference, naming it: values edited, changes added, removed,
   reordered or renamed, hazards acknowledged in the file but not in the specs;
4. judges limits, policies and hazards again on the derived plan (preflight.check_plan).

A delete's evidence and its `in_use` hazard (and a grown topic's `partition_increase_read`) are
not compared: a delete the saved plan showed idle but the evidence read now shows in use is
refused as Diverged instead (apply.in_use), before step 3. Resumed topics are compared without
their hazards (what is left may have fewer); the derived plan's own hazards are still judged in
step 4. `cause` (plan --changed-since) is for reviewers and not compared, nor is a scoped plan's
`drift`: `derive` plans the saved plan's `targets` (its scope) alone, so drift elsewhere is
neither compared nor applied.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from reconciler.apply.check.in_use import diverged_deletes
from reconciler.apply.check.preflight import check_plan, refuse_diverged, stale
from reconciler.apply.execute.verdict import Done, Partly, judge, pending_entries
from reconciler.cluster.state import ClusterState
from reconciler.errors import PlanMismatch
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    Change,
    DeleteTopic,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.hazards import IN_USE, PARTITION_INCREASE_READ
from reconciler.planning.json_plan import topic_change_json
from reconciler.planning.order import order
from reconciler.planning.plan import Plan
from reconciler.planning.plan_input import place
from reconciler.planning.scram_secrets import same_secret

_FROM_EVIDENCE = frozenset({IN_USE, PARTITION_INCREASE_READ})

Derive = Callable[[ClusterState, bool], Plan]  # (state, prune) -> the plan the specs give


def made_with_prune(plan: Plan) -> bool:
    """The plan deletes unmanaged topics, so it was made with --prune."""
    return any(
        isinstance(step, DeleteTopic) and step.reason == "prune"
        for change in plan.changes
        for step in change.changes
    )


def verify(saved: Plan, state: ClusterState, derive: Derive) -> None:
    """Raise PlanMismatch (or ApplyRefused from check_plan) unless `saved`'s remaining work is
    the plan `derive` gives for `state`; see the module's steps."""
    _in_order(saved)
    _same_secrets(saved)
    refuse_diverged(saved, state)
    _dependencies(saved, state)
    left = {i: rest for i, c in enumerate(saved.changes) if (rest := _remaining(c, state))}
    # What is left is put in the planner's order again: with a dependency done, its dependents
    # may come earlier (the saved plan itself was checked to be in that order above)
    at = {rest.change.topic: i for i, rest in left.items()}
    remaining = [(at[c.topic], left[at[c.topic]]) for c in order(r.change for r in left.values())]
    derived = derive(state, made_with_prune(saved))
    _in_use(saved, [left.change for _, left in remaining], derived)
    difference = (
        f"it is for cluster '{saved.cluster}', the specs are for '{derived.cluster}'"
        if saved.cluster != derived.cluster
        else _first_difference(saved, remaining, derived.changes)
        or _raw_acl_difference(saved, state, derived)
    )
    if difference is not None:
        raise PlanMismatch(
            f"the saved plan is not the plan the specs give for the cluster now: {difference}. "
            "Either the plan file was edited after review or the specs or the cluster changed "
            "since it was made; plan again, review the new plan and apply it. Nothing was "
            "changed."
        )
    check_plan(derived, derived.cluster)


def _raw_acl_difference(saved: Plan, state: ClusterState, derived: Plan) -> str | None:
    """The first raw `acls:` change left of the saved plan that the derived plan does not
    make, or the reverse (a grant the cluster shows, a revoke done, is work already done)."""
    have = set(state.acls.bindings) if state.acls is not None else None
    left = {
        (a.action, a.binding)
        for a in saved.acls
        if have is None or (a.binding in have) == (a.action == "revoke")
    }
    now = {(a.action, a.binding) for a in derived.acls}
    for action, binding in sorted(left ^ now):
        where = "the saved plan has" if (action, binding) in left else "the specs now give"
        return f"{where} the ACL change `{action} {binding.text}` and the other does not"
    return None


def _same_secrets(saved: Plan) -> None:
    """Each user change's variable still holds the secret the plan was made with (its
    secret_digest): the reviewers approved setting that one."""
    for change in saved.users:
        variable, planned = change.variable, change.secret_digest
        if variable and planned and not same_secret(variable, planned):
            raise PlanMismatch(
                f"the secret in ${{{variable}}} (user {change.name} {change.mechanism}) is not "
                "the one the saved plan was made with: plan again with the secret to set, "
                "review that plan and apply it. Nothing was changed."
            )


def _in_order(saved: Plan) -> None:
    """One entry per topic, in the order the planner gives (order.order): a reordered file is
    refused even though apply's levels come from depends_on, not from the list."""
    first: dict[str, int] = {}
    for index, change in enumerate(saved.changes):
        if change.topic in first:
            raise PlanMismatch(
                f"changes[{index}] repeats {change.topic} (changes[{first[change.topic]}]); a "
                "plan has one entry per topic. Plan again. Nothing was changed."
            )
        first[change.topic] = index
    for index, (mine, expected) in enumerate(zip(saved.changes, order(saved.changes), strict=True)):
        if mine.topic != expected.topic:
            raise PlanMismatch(
                f"changes[{index}] ({mine.action.word} {mine.topic}) is out of order: a plan "
                "runs creates, updates, then deletes, each in dependency and then name order, "
                f"which puts {expected.topic} there. Plan again. Nothing was changed."
            )


def _dependencies(saved: Plan, state: ClusterState) -> None:
    created = {c.topic for c in saved.changes if c.action is Action.CREATE}
    for index, change in enumerate(saved.changes):
        if change.action is Action.DELETE:
            continue
        for dependency in change.depends_on:
            if dependency not in state.topics and dependency not in created:
                raise PlanMismatch(
                    f"changes[{index}] ({change.topic}) depends on {dependency}, which is no "
                    "longer on the cluster and which the plan does not create (deleted after "
                    f"planning?), so {change.topic} is refused; plan again to create "
                    f"{dependency} first. Nothing was changed."
                )


@dataclasses.dataclass(frozen=True, slots=True)
class _Left:
    change: TopicChange
    untouched: bool  # every step not started: compared with its hazards


def _remaining(change: TopicChange, state: ClusterState) -> _Left | None:
    topic = state.topics.get(change.topic)
    steps: list[Change] = []
    for step in change.changes:
        verdict = judge(step, topic, state.reassignments)
        if isinstance(verdict, Done):
            continue
        if isinstance(verdict, Partly):
            if isinstance(step, ReassignReplicas):
                continue  # under way: the planner plans from where it settles
            if isinstance(step, AlterTopicConfig):
                steps.append(dataclasses.replace(step, entries=pending_entries(step, topic)))
                continue
        steps.append(step)
    # ACL grants the cluster shows and revokes it no longer holds are done, as steps are
    have = set(state.acls.bindings) if state.acls is not None else None
    access = tuple(
        a for a in change.access if have is None or (a.binding in have) == (a.action == "revoke")
    )
    if not steps and not access:
        return None
    untouched = tuple(steps) == change.changes and access == change.access
    return _Left(dataclasses.replace(change, changes=tuple(steps), access=access), untouched)


def _in_use(saved: Plan, remaining: list[TopicChange], derived: Plan) -> None:
    """A delete the saved plan showed idle (or with fewer readers) but the evidence read now
    shows in use is Diverged (apply.in_use): refused as a stale plan's, before any change."""
    found = diverged_deletes(saved, derived, [c.topic for c in remaining])
    if found:
        stale([f"{why}: not deleted" for why in found.values()])


def _comparable(change: TopicChange, hazards: bool) -> dict[str, Any]:
    """The change as compared: without its evidence and the hazards judged from it (`in_use`,
    `partition_increase_read`), which follow the readers and writers of the moment (a delete's
    divergence is `_in_use`'s to judge; a group newly reading a grown topic gives the derived
    plan a hazard that step 4 judges, approved only by the item of this very transition)."""
    entry = topic_change_json(dataclasses.replace(change, cause=None))
    entry.pop("evidence", None)
    entry["hazards"] = [h for h in entry["hazards"] if h["code"] not in _FROM_EVIDENCE]
    if not hazards:
        entry.pop("hazards")
    return entry


def _first_difference(
    saved: Plan, remaining: list[tuple[int, _Left]], derived: tuple[TopicChange, ...]
) -> str | None:
    saved_topics = [left.change.topic for _, left in remaining]
    derived_topics = [c.topic for c in derived]
    for position in range(max(len(remaining), len(derived))):
        if position >= len(remaining):
            extra = derived[position]
            return (
                f"planning again also gives {extra.action.word} {extra.topic} (its "
                f"changes[{position}]), which the saved plan does not have"
            )
        index, left = remaining[position]
        ours = left.change
        label = f"changes[{index}] ({ours.action.word} {ours.topic})"
        if position >= len(derived):
            return f"{label} is not in the plan the specs give"
        theirs = derived[position]
        if ours.topic != theirs.topic:
            if ours.topic not in derived_topics:
                return f"{label} is not in the plan the specs give"
            if theirs.topic not in saved_topics:
                return (
                    f"planning again also gives {theirs.action.word} {theirs.topic} (its "
                    f"changes[{position}]), which the saved plan does not have"
                )
            return (
                f"{label} is out of order: planning again gives {theirs.topic} at that place "
                "(changes run in dependency order)"
            )
        found = _difference(
            _comparable(ours, left.untouched), _comparable(theirs, left.untouched), ()
        )
        if found is not None:
            path, mine, other = found
            where = place(("changes", index, *path)) + _item_name(_comparable(ours, True), path)
            return (
                f"{label}: {where} is {_shown(mine)} in the saved plan, planning again gives "
                f"{_shown(other)}"
            )
    return None


_ABSENT = object()


def _item_name(entry: dict[str, Any], path: tuple[str | int, ...]) -> str:
    """ " (retention.ms)" for a path into a config entry, " (delete)" into a hazard: the list
    index alone does not say which key or hazard differs."""
    if len(path) >= 2 and path[0] in ("config", "hazards") and isinstance(path[1], int):
        items = entry.get(str(path[0]), [])
        if path[1] < len(items) and isinstance(items[path[1]], dict):
            name = items[path[1]].get("key", items[path[1]].get("code"))
            return f" ({name})" if name is not None else ""
    return ""


def _difference(
    mine: object, other: object, path: tuple[str | int, ...]
) -> tuple[tuple[str | int, ...], object, object] | None:
    """The first place two JSON values differ: (path, saved value, derived value)."""
    if isinstance(mine, dict) and isinstance(other, dict):
        for key in [*mine, *(k for k in other if k not in mine)]:
            found = _difference(mine.get(key, _ABSENT), other.get(key, _ABSENT), (*path, key))
            if found is not None:
                return found
        return None
    if isinstance(mine, list) and isinstance(other, list) and len(mine) == len(other):
        for number, (a, b) in enumerate(zip(mine, other, strict=True)):
            found = _difference(a, b, (*path, number))
            if found is not None:
                return found
        return None
    return None if mine == other and type(mine) is type(other) else (path, mine, other)


def _shown(value: object) -> str:
    if value is _ABSENT:
        return "absent"
    text = repr(value) if not isinstance(value, dict | list) else str(value)
    return text if len(text) <= 120 else text[:117] + "..."
