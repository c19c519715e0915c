"""The in-use gate at apply: a delete the saved plan showed idle, but now in use, is Diverged.

A saved plan's evidence is a moment in review; a consumer may start reading the topic, or a
producer writing to it, before the apply on merge. Apply derives the plan again with evidence it
reads itself, twice: when it verifies the saved plan under the lock (apply.verify), and right
before the delete level (execute.py, through the `in_use` callback workflow.apply gives). Both
compare the saved delete with the derived one here:

- the derived delete carries the `in_use` hazard (planning/hazards.py judged the new evidence)
  and the saved one did not: the topic is in use now and nobody approved deleting it;
- or the derived evidence names a consumer group the saved evidence did not: even an approved
  `in_use` approved the readers the reviewer saw, not a new one;
- or records were appended since the saved plan read the log end offsets (workflow.apply
  counts them with cluster.evidence.since) and the saved evidence showed no write: an
  `in_use` approved for its readers did not approve deleting a topic being written.

Volatile values (lag, timestamps, member counts) are never compared, else every saved plan with
a delete would look stale; the log end offsets are compared by the records between them.
An `in_use` that policy.severity makes a warning (or off) never blocks, here either.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.diagnostics import Severity
from reconciler.planning.changes import DeleteTopic, TopicChange
from reconciler.planning.hazards import IN_USE
from reconciler.planning.plan import Plan


def diverged(saved: TopicChange, derived: TopicChange | None) -> str | None:
    """Why deleting `saved`'s topic now would go beyond what was reviewed; None when not."""
    if derived is None:
        return None  # not deleted by the plan derived again: verify's comparison says why
    now = next((h for h in derived.hazards if h.code == IN_USE), None)
    if now is None or now.severity is not Severity.ERROR:
        return None  # policy.severity made in_use a warning (or off): it never blocks
    before = next((h for h in saved.hazards if h.code == IN_USE), None)
    if before is None:
        reason = now.message.split("; deleting it", 1)[0]
        read = any(isinstance(s, DeleteTopic) and s.evidence is not None for s in saved.changes)
        shown = (
            "showed no use Kafka could see"
            if read
            else "read no evidence of use (made from a snapshot)"
        )
        return f"{reason}, but the plan {shown}"
    added = sorted(_groups(derived) - _groups(saved))
    if added:
        return (
            f"{saved.topic} gained consumer group(s) {', '.join(added)} since the plan was "
            "made, which its evidence (and so its in_use approval) did not show"
        )
    written = _written(derived)
    if written and not _written(saved):
        return (
            f"{saved.topic} was written since the plan was made ({written:,} record(s) appended "
            "by its log end offsets), which its evidence (and so its in_use approval) did not "
            "show"
        )
    return None


def diverged_deletes(saved: Plan, derived: Plan, topics: Iterable[str]) -> dict[str, str]:
    """topic -> why, for each of `topics` that the saved plan deletes and `diverged` refuses."""
    wanted = set(topics)
    theirs = {c.topic: c for c in derived.changes}
    found = {}
    for change in saved.changes:
        if change.topic in wanted and any(isinstance(s, DeleteTopic) for s in change.changes):
            why = diverged(change, theirs.get(change.topic))
            if why is not None:
                found[change.topic] = why
    return found


def _written(change: TopicChange) -> int:
    """Records its evidence saw appended (the plan's sample, or since the saved plan)."""
    return sum(
        step.evidence.written
        for step in change.changes
        if isinstance(step, DeleteTopic) and step.evidence is not None
    )


def _groups(change: TopicChange) -> frozenset[str]:
    return frozenset(
        name
        for step in change.changes
        if isinstance(step, DeleteTopic) and step.evidence is not None
        for name in step.evidence.group_names
    )
