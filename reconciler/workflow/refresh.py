"""import --refresh: accepting drift as a reviewed change. The cluster's current values of
drifted topics are written into the spec lines they come from (spec/refresh.py), for a pull
request; then the specs are planned again against the same state, so "after it, plan shows no
changes for what it wrote" is checked every time.

What it writes, and what it leaves (`reconciler help adopting`, "Accepting drift"):

    config override changed, added or removed on the cluster     written (the line, in place)
    more partitions on the cluster than the spec's (P101)         written (a count only grows)
    a higher replication factor on the cluster                    written
    a lower count or factor on the cluster than the spec's        left: apply raises it; a
                                                                  spec is never lowered here
    replicas moved away from a spec's `assignments`               left, named with the line
    a value from defaults:, an anchor or alias, or a template     left, named with file:line
    missing, unmanaged, tombstoned topics; a throttle apply left  untouched, named

Only topic files are edited, never reconciler.yaml, and a file changed on disk since it was
read is not overwritten.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from reconciler.atomic_write import replace_whole
from reconciler.cluster.overrides import OPERATIONAL_KEYS
from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic
from reconciler.errors import ConfigError
from reconciler.planning import p_codes
from reconciler.planning.drift import DriftItem, DriftReport
from reconciler.planning.drift import drift as find_drift
from reconciler.planning.plan import make_plan
from reconciler.planning.targeting import compiled, matches
from reconciler.spec.discovery import TEMPLATE_SUFFIX
from reconciler.spec.model import DesiredState
from reconciler.spec.refresh import FileEdit, Left, RefreshRun, Wanted, refresh_text
from reconciler.spec.repo_config import select_cluster
from reconciler.spec.source import MAX_FILE_BYTES, real_path
from reconciler.workflow.connection import read_state
from reconciler.workflow.context import Context

# A drift item's field by the spec field refresh writes for it
_FIELD_OF = {p_codes.PARTITION_DECREASE.name: "partitions"}


def refresh(context: Context, cluster: str, topics: tuple[str, ...] = ()) -> RefreshRun:
    """Write the cluster's values of the drifted topics (matching `topics`, if any) into
    their spec files; see the module's docstring for what is written and what is left."""
    patterns = compiled(topics)
    specs = context.specs(cluster)
    state = read_state(specs.cluster)
    names = {*specs.desired.topics, *state.topics}
    unmatched = [p.text for p in patterns if not any(p.search(n) for n in names)]
    if unmatched:  # a typo would otherwise say "Nothing to refresh"
        raise ConfigError(
            f"--topic {' and '.join(map(repr, unmatched))} matches no topic in the specs of "
            f"cluster '{cluster}' nor on the cluster, so nothing was refreshed; check the "
            "pattern (a Python regular expression searched in topic names)"
        )
    report = find_drift(make_plan(specs.desired, state, specs.cluster), specs.desired, state)
    wanted: dict[str, list[Wanted]] = defaultdict(list)
    left: list[Left] = []
    untouched: list[tuple[str, str]] = []
    for item in report.items:
        if item.topic is None or (patterns and not matches(item.topic, patterns)):
            continue
        found = _accepted(item, specs.desired, report, len(state.topics[item.topic].partitions)
                          if item.topic in state.topics else 0)  # fmt: skip
        if isinstance(found, Wanted):
            spec = specs.desired.topics[item.topic]
            wanted[spec.location.file].append(found)
        elif isinstance(found, Left):
            left.append(found)
        elif found is not None:
            untouched.append((item.topic, found))
    root = context.repo
    edits: list[FileEdit] = []
    for file, wants in sorted(wanted.items()):
        if file.endswith(TEMPLATE_SUFFIX):
            left.extend(_templated(file, w, specs.desired) for w in wants)
            continue
        path = real_path(root / file)
        before = context.files.read(path, MAX_FILE_BYTES)
        text, written, not_written = refresh_text(before.decode("utf-8"), file, wants)
        left.extend(not_written)
        if written:
            _replace(path, file, before, text.encode("utf-8"))
            context.files.wrote(path, text.encode("utf-8"))
            edits.append(FileEdit(file, written))
    inexact, problems = _check(context, cluster, state, edits)
    return RefreshRun(
        cluster, tuple(edits), tuple(left), tuple(sorted(set(untouched))), inexact, problems
    )


def _accepted(
    item: DriftItem, desired: DesiredState, report: DriftReport, partitions: int
) -> Wanted | Left | str | None:
    """What refresh does with one drift item: a value to write, one it leaves (with where to
    change it), or why the topic's drift is not refresh's to accept (a str)."""
    topic = item.topic
    assert topic is not None
    spec = desired.topics.get(topic)
    where = f"{spec.location.file}:{spec.location.line}" if spec is not None else ""
    match item.kind:
        case "missing":
            return "not on the cluster: apply creates it (refresh never removes a spec)"
        case "unmanaged":
            return "no spec names it: `reconciler import` writes one"
        case "present":
            return "its spec is a tombstone (`state: absent`): apply deletes it"
        case "config":
            key = item.field.removeprefix("config.")
            if key in OPERATIONAL_KEYS:
                return f"{key} is a throttle an apply left: the next apply removes it"
            return Wanted(topic, item.field, item.current)
        case "partitions":
            return Left(
                topic, "partitions",
                f"{where}: the spec asks for {item.desired} partitions and the cluster has "
                f"{item.current}: apply adds them; refresh never lowers a count",
            )  # fmt: skip
        case "replication_factor":
            if int(item.current or 0) > int(item.desired or 0):
                return Wanted(topic, "replication_factor", item.current)
            return Left(
                topic, "replication_factor",
                f"{where}: the spec asks for replication factor {item.desired} and the cluster "
                f"has {item.current}: apply raises it; refresh never lowers one",
            )  # fmt: skip
        case "placement":
            return Left(
                topic, "assignments",
                f"{where}: the replicas of '{topic}' no longer sit where its `assignments` put "
                "them: remove `assignments:` to hand placement back to Kafka, or write the "
                "placement you want",
            )  # fmt: skip
        case "blocked":
            decrease = item.field == p_codes.PARTITION_DECREASE.name
            if decrease and spec is not None and not spec.assignments:
                return Wanted(topic, "partitions", str(partitions))
            message = item.diagnostic.message if item.diagnostic is not None else item.field
            return Left(topic, item.field, f"{where}: {message}")
    return None


def _templated(file: str, want: Wanted, desired: DesiredState) -> Left:
    line = desired.topics[want.topic].location.line
    shown = want.field.removeprefix("config.")
    value = want.value if want.value is not None else "no override"
    return Left(
        want.topic, want.field,
        f"{file}:{line}: '{want.topic}' comes from a template, which import --refresh never "
        f"rewrites: set {shown} to {value} there (or in the `vars` it renders from)",
    )  # fmt: skip


def _replace(path: Path, file: str, read: bytes, content: bytes) -> None:
    """Write `content` over `path` whole (atomic_write), unless the file changed on disk since
    it was read."""
    try:
        now = path.read_bytes()
        if now != read:
            raise ConfigError(
                f"{file} changed while import --refresh ran; it was left as it is now: run it again"
            )
        replace_whole(path, content)
    except OSError as exc:
        raise ConfigError(
            f"{file}: cannot be written ({exc.strerror}); it was left as it was"
        ) from None


def _check(
    context: Context, cluster: str, state: ClusterState, edits: list[FileEdit]
) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """Plan the written specs against the state already read: the topics written whose fields
    still drift, and the error diagnostics on the files written."""
    if not edits:
        return (), ()
    again = context.reload(cluster)
    files = {e.file for e in edits}
    problems = tuple(
        d
        for d in again.diagnostics
        if d.is_error and d.location is not None and d.location.file in files
    )
    if problems or again.config is None or cluster not in again.desired:
        return (), problems
    chosen = select_cluster(again.config, cluster)
    desired = again.desired[cluster]
    report = find_drift(make_plan(desired, state, chosen), desired, state)
    fields = {(w.topic, w.field) for e in edits for w in e.written}
    still = {
        i.topic
        for i in report.items
        if i.topic is not None and (i.topic, _FIELD_OF.get(i.field, i.field)) in fields
    }
    return tuple(sorted(still)), problems
