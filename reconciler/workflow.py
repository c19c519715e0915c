"""The use cases the CLI runs, as functions from inputs to values; the CLI formats and prints.

plan(): load and validate the specs for one cluster -> read the cluster's state (live, batched;
or a snapshot file) -> diff, policies and order (pure) -> a Plan whose `based_on` is the
fingerprint of the state of the topics it touches; with --changed-since, each change marked as
the spec repository's own since a git ref or as pre-existing drift.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.cluster.evidence import since
from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.snapshot import load_snapshot
from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic, Location, Severity
from reconciler.errors import ConfigError, InvalidSpecs, PlanMismatch
from reconciler.git_repo import head_commit
from reconciler.init_repo import NewFile, write_new
from reconciler.patterns import UserPattern, problem
from reconciler.planning.changes import Action, DeleteTopic
from reconciler.planning.drift import DriftReport
from reconciler.planning.drift import drift as find_drift
from reconciler.planning.json_plan import from_json
from reconciler.planning.plan import (
    Plan,
    PlanSource,
    deleted_partitions,
    diagnostic_order,
    evidence_topics,
    make_plan,
    mark_causes,
)
from reconciler.planning.rules import IN_USE_NOT_READ
from reconciler.printable import printable
from reconciler.spec.discovery import folder_not_read
from reconciler.spec.identity import specs_digest
from reconciler.spec.loader import load_repo
from reconciler.spec.model import ClusterConfig, DesiredState
from reconciler.spec.repo_config import REPO_CONFIG, load_repo_config, select_cluster
from reconciler.spec.rules import IGNORED_FILE
from reconciler.spec.settings_scope import Settings
from reconciler.spec.source import relative

# Commands that never talk to Kafka or git (validate, compile) must not pay for loading the
# Kafka clients, gitpython and apply (~0.5 s): those are imported where they are used.
if TYPE_CHECKING:
    from reconciler import import_cluster
    from reconciler.apply import ApplyResult
    from reconciler.apply.cancel import Cancelled
    from reconciler.cluster import adapter
    from reconciler.cluster.evidence import Evidence
    from reconciler.cluster.ports import EvidenceReader
    from reconciler.git_repo import Checkout


@dataclass(frozen=True, slots=True)
class Specs:
    cluster: ClusterConfig
    desired: DesiredState
    warnings: tuple[Diagnostic, ...]


def load_specs(repo: Path, cluster: str) -> Specs:
    """Load and validate the repo for one cluster; any error diagnostic raises InvalidSpecs."""
    result = load_repo(repo, cluster)
    if any(d.is_error for d in result.diagnostics) or result.config is None:
        raise InvalidSpecs(result.diagnostics)
    chosen = select_cluster(result.config, cluster)
    return Specs(chosen, result.desired[cluster], result.diagnostics)


def connection(cluster: ClusterConfig) -> adapter.Connection:
    from reconciler.cluster import adapter, wait_limit

    # A load for another command's cluster leaves this one's settings unread and empty
    assert cluster.settings_read, f"cluster {cluster.name}'s settings were not read"

    return adapter.Connection(
        cluster.name,
        cluster.bootstrap,
        cluster.client,
        wait_limit.seconds(),
        cluster_id=cluster.cluster_id,
    )


def read_state(cluster: ClusterConfig, snapshot: Path | None = None) -> ClusterState:
    """The cluster's state: from the snapshot file if given, else live in batched round trips,
    with what other applies left there (a held lock, recorded throttles: apply.leftovers)."""
    if snapshot is None:
        from reconciler.apply.check import leftovers
        from reconciler.cluster import adapter

        with adapter.Cluster(connection(cluster)) as kafka:
            return leftovers.observe(kafka, kafka.read_state())
    name, state = load_snapshot(snapshot)
    if name != cluster.name:
        raise ConfigError(
            f"{snapshot} is a snapshot of cluster '{printable(name)}', not '{cluster.name}'; "
            "pass the matching --cluster or snapshot file"
        )
    if cluster.cluster_id is not None and state.cluster_id != cluster.cluster_id:
        # the file's own words: its control characters shown as escapes, never a line of ours
        shown = printable(state.cluster_id) if state.cluster_id is not None else "no cluster id"
        raise ConfigError(
            f"{snapshot} is a snapshot of cluster id {shown}, but reconciler.yaml pins "
            f"cluster_id {cluster.cluster_id} for '{cluster.name}'; pass a snapshot of that "
            "cluster (or correct cluster_id if the cluster was rebuilt)"
        )
    return state


def cluster_config(repo: Path, cluster: str) -> ClusterConfig:
    """One cluster's settings from reconciler.yaml alone (topic files are not read)."""
    config, found = load_repo_config(Path(repo), os.environ, Settings.of(cluster))
    if config is None or any(d.is_error for d in found):
        raise InvalidSpecs(tuple(found))
    return select_cluster(config, cluster)


def plan(
    repo: Path,
    cluster: str,
    snapshot: Path | None = None,
    prune: bool = False,
    changed_since: str | None = None,
    targets: tuple[str, ...] = (),
    commit: str | None = None,
) -> Plan:
    """The plan for one cluster. With `changed_since` (a git ref) the plan is still whole, and
    each change is marked as the spec repository's own since that ref or as pre-existing drift
    (`caused_by_change`, `mark_causes`). `commit`: the checkout's commit when the caller read
    it already (apply reads the checkout once for its audit record); else git is asked here."""
    specs = load_specs(repo, cluster)
    changed = None
    if changed_since is not None:  # gitpython is loaded only for this
        from reconciler.git_repo import changed_files

        # Git is asked before the cluster, so a ref git does not know fails without a round trip
        changed = changed_files(repo, changed_since)
    if snapshot is not None:  # a snapshot holds no evidence of use: the plan says so
        state = read_state(specs.cluster, snapshot)
        whole = make_plan(
            specs.desired,
            state,
            specs.cluster,
            prune=prune,
            warnings=specs.warnings,
            targets=targets,
        )
        if deleted := deleted_partitions(whole):
            whole = _with(whole, evidence_not_read(len(deleted)))
    else:  # one connection: the state, the in-use evidence and the creates' visibility
        from reconciler.apply.check import leftovers
        from reconciler.cluster import adapter

        with adapter.Cluster(connection(specs.cluster)) as kafka:
            state = leftovers.observe(kafka, kafka.read_state())
            # the deletes' log end offsets are watched for SAMPLE_MS: a write there is in use
            whole = planned(specs, state, sampled(kafka), prune, targets, specs.warnings)
            # a topic the principal may not Describe looks absent: say so
            kafka.check_visible([c.topic for c in whole.changes if c.action is Action.CREATE])
    source = PlanSource(commit or head_commit(repo), specs_digest(repo))
    whole = dataclasses.replace(whole, source=source)
    if changed_since is None or changed is None:
        return whole
    from reconciler.changed_since import caused_by_change, policy_at
    from reconciler.planning.policy_changes import policy_changes

    ours = caused_by_change(repo, cluster, specs.desired, whole, changed_since, changed)
    # the policy section compares with the base too, when reconciler.yaml there can be read
    policy = specs.cluster.policy
    base = policy_at(repo, cluster, changed_since)
    whole = dataclasses.replace(
        whole, policy_changes=policy_changes(policy, base, policy.acknowledge)
    )
    return mark_causes(whole, changed_since, ours)


def evidence_not_read(deletes: int) -> Diagnostic:
    """The warning of a plan made from a snapshot that deletes: no evidence of use was read."""
    return IN_USE_NOT_READ(
        f"the plan deletes {deletes} topic(s) but is made from a snapshot, which holds no "
        "evidence of use (consumer groups, newest records), so no in_use hazard is shown; "
        "apply reads that evidence live and refuses a delete of a topic in use"
    )


# An evidence reader: the topics (name -> partition count), and whether the plan deletes any
# of them (the writes sample is for deletes alone: a partition increase needs only the groups)
EvidenceRead = Callable[[Mapping[str, int], bool], "Evidence"]


def sampled(kafka: EvidenceReader) -> EvidenceRead:
    """Plan's evidence reader: when the plan deletes, the log end offsets watched for SAMPLE_MS
    (cluster/evidence.py); otherwise one read."""
    from reconciler.cluster.evidence import SAMPLE_MS

    return lambda partitions, deletes: kafka.evidence(partitions, SAMPLE_MS if deletes else 0)


def planned(
    specs: Specs,
    state: ClusterState,
    read_evidence: EvidenceRead,
    prune: bool,
    targets: tuple[str, ...],
    warnings: Iterable[Diagnostic] = (),
) -> Plan:
    """The plan the specs give for a live `state`: when it deletes or grows topics, the
    evidence of use of exactly those topics is read now and the plan made again with it (the
    planner stays pure; plan and apply share this one path)."""
    first = make_plan(
        specs.desired, state, specs.cluster, prune=prune, warnings=warnings, targets=targets
    )
    wanted = evidence_topics(first)
    if not wanted:
        return first
    evidence = read_evidence(wanted, bool(deleted_partitions(first)))
    return make_plan(
        specs.desired,
        state,
        specs.cluster,
        prune=prune,
        warnings=warnings,
        targets=targets,
        evidence=evidence,
    )


def _with(plan: Plan, diagnostic: Diagnostic) -> Plan:
    found = sorted((*plan.diagnostics, diagnostic), key=diagnostic_order)
    return dataclasses.replace(plan, diagnostics=tuple(found))


@dataclass(frozen=True, slots=True)
class Reported:
    """What init learnt from the cluster: its id and the replication factor its topics have
    now (each None when unknown), and why it learnt nothing (`refused`: the cluster's own
    sentence, a refused login among them), None when it answered."""

    cluster_id: str | None
    replication_factor: int | None
    refused: str | None = None


def init_client(root: Path, cluster: str) -> tuple[tuple[str, str], ...]:
    """The `client:` settings of the reconciler.yaml init is about to write (in `root`, a
    scratch folder), expanded and checked exactly as plan's are (`${VAR}` from the
    environment, R509 literal secrets, logins no client can make)."""
    from reconciler.cluster import client_settings
    from reconciler.spec.rules import LITERAL_SECRET

    config, found = load_repo_config(root, os.environ, Settings.of(cluster))
    # a literal secret, only a warning in a repository that has one, is refused before init
    # writes it into a file made to be committed
    problems = [d.message for d in found if d.is_error or d.code == LITERAL_SECRET.code]
    if config is None or problems:
        raise ConfigError(f"init --client: {'; '.join(problems)}; nothing was written")
    chosen = select_cluster(config, cluster)
    client_settings.check(cluster, dict(chosen.client))
    return chosen.client


def reported_cluster(
    name: str, bootstrap: str, client: tuple[tuple[str, str], ...] = (), timeout: float = 10.0
) -> Reported:
    """What init writes from the cluster at `bootstrap`, reached with `client` settings (as
    plan would): see `Reported`. A cluster that does not answer within `timeout` seconds, or
    refuses the login or the read, gives what it gave and says why."""
    from reconciler.cluster import adapter
    from reconciler.errors import ClusterError

    connection = adapter.Connection(name, bootstrap, client, timeout)
    try:
        with adapter.Cluster(connection) as kafka:
            try:
                state = kafka.read_state()  # it carries the cluster id: one read for both
            except ClusterError as exc:  # e.g. not authorized to describe the topics' configs
                return Reported(kafka.describe().cluster_id, None, str(exc))
    except ClusterError as exc:
        return Reported(None, None, str(exc))
    return Reported(state.cluster_id, current_replication_factor(state))


def current_replication_factor(state: ClusterState) -> int | None:
    """The floor init writes as policy.min_replication_factor: the smallest replication factor
    of the cluster's topics (Kafka's internal ones left out), else, with no topic yet, the
    brokers' default.replication.factor; None when neither is known."""
    factors = [t.replication_factor for t in state.topics.values() if not t.internal]
    if factors:
        return min(factors)
    default = state.broker_defaults.get("default.replication.factor", "")
    return int(default) if default.isdigit() and int(default) > 0 else None


def pin_advice(repo: Path, cluster: str, reported: str | None) -> str | None:
    """The warning plan and apply show for a cluster reconciler.yaml does not pin, with the
    line to add; None when it is pinned (or the cluster reported no id)."""
    from reconciler.spec.pin_cluster import pin_line

    if reported is None:
        return None
    config = cluster_config(repo, cluster)
    if config.cluster_id is not None:
        return None
    line = f" (line {config.location.line})" if config.location is not None else ""
    return (
        f"cluster '{cluster}' has no cluster_id, so its bootstrap may reach any cluster: add "
        f"`{pin_line(reported)}` under `{cluster}:`{line} in {REPO_CONFIG}, and every command "
        "then refuses another cluster"
    )


# ---------------------------------------------------------------------------- apply


def load_plan(path: Path) -> Plan:
    """A saved plan (`plan -o PLAN.json`); ConfigError when the file is not one.

    The file is untrusted input (it travels through CI artifacts): its shape and every value
    are checked here, before any request (planning.plan_input); whether it is the plan the
    specs give is checked at apply (apply.verify)."""
    from reconciler import readable
    from reconciler.planning.plan_input import check_document  # jsonschema: apply's alone

    text = readable.read_text(
        path,
        readable.PLAN_CAP,
        "a saved plan",
        "plan fewer topics per saved plan (`plan --topic REGEX -o PLAN.json`)",
    )

    def unreadable(why: str) -> ConfigError:
        return ConfigError(
            f"{path} is not a saved plan this reconciler can read ({why}); save one with "
            "`reconciler plan --cluster NAME -o PLAN.json`"
        )

    try:
        document = json.loads(text)
    except RecursionError as exc:
        raise unreadable("it is nested too deeply") from exc
    except ValueError as exc:  # not JSON, or an integer beyond Python's digit limit
        digits = f"a number has more than {sys.get_int_max_str_digits()} digits"
        why = f"not JSON: {exc}" if isinstance(exc, json.JSONDecodeError) else digits
        raise unreadable(why) from exc
    try:
        check_document(document)
        assert isinstance(document, dict)  # check_document holds it to the schema
        return from_json(document)
    except RecursionError as exc:  # the checks walk the document
        raise unreadable("it is nested too deeply") from exc
    except ValueError as exc:
        raise ConfigError(
            f"{path}: {exc}. The plan file was edited or damaged: plan again "
            "(`reconciler plan --cluster NAME -o PLAN.json`), review it and apply that. "
            "Nothing was changed."
        ) from exc


# Seconds apply's reads keep retrying through a controller or broker outage, beyond the
# request timeout: a controller restart, a broker's rolling upgrade
READ_OUTAGE = 120.0


def apply(
    repo: Path,
    cluster: str,
    saved: Plan,
    *,
    checkout: Checkout | None = None,
    fail_fast: bool = False,
    force_unlock: bool = False,
    throttle: int | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> ApplyResult:
    """Apply `saved` (a reviewed plan, or one just made and confirmed) to `cluster`;
    `checkout` (reconciler.git_repo, read once by the command) is what the audit record names.

    The specs are loaded again: for the cluster's connection, and to derive the plan again
    under the lock from them and the state read there, which the saved plan's remaining work
    must equal (reconciler.apply.check.verify: limits, policies and hazards are judged again, so a
    plan file edited after review is refused). reconciler.apply.run lists the steps.
    """
    from reconciler.apply import Options, apply_plan
    from reconciler.apply.check.in_use import diverged_deletes
    from reconciler.apply.check.preflight import check_plan
    from reconciler.apply.check.verify import made_with_prune
    from reconciler.apply.check.verify import verify as verify_plan
    from reconciler.cluster import adapter

    specs = load_specs(repo, cluster)
    _same_specs(repo, saved)

    with adapter.Cluster(connection(specs.cluster)) as kafka:

        def since_saved(partitions: Mapping[str, int], _deletes: bool) -> Evidence:
            """The evidence now, each topic's writes counted since the saved plan read its
            log end offsets: any record appended since is a write (cluster/evidence.py); no
            sample of its own, the saved plan's read is the window's start."""
            now = kafka.evidence(partitions)
            before = {
                s.topic: s.evidence
                for c in saved.changes
                for s in c.changes
                if isinstance(s, DeleteTopic) and s.evidence is not None
            }
            topics = {
                name: since(found, before[name]) if name in before else found
                for name, found in now.topics.items()
            }
            return dataclasses.replace(now, topics=topics)

        def derive(state: ClusterState, prune: bool) -> Plan:
            return planned(specs, state, since_saved, prune, saved.targets)

        seen: list[ClusterState] = []  # the state read under the lock, for the re-check

        def verified(state: ClusterState) -> None:
            seen.append(state)
            verify_plan(saved, state, derive)

        def in_use_now(topics: Sequence[str]) -> dict[str, str]:
            """Right before the deletes: the topics of `topics` now in use beyond what the
            saved plan showed (apply.in_use), with why."""
            state = seen[-1] if seen else kafka.read_state()
            derived = derive(state, made_with_prune(saved))
            return diverged_deletes(saved, derived, topics)

        kafka.ride_outages(READ_OUTAGE, progress)  # reads, never mutations: retrying is safe
        if not saved.changes:
            # Nothing to lock for, but an emptied plan file is not "no changes" either
            check_plan(saved, specs.cluster.name)
            verify_plan(saved, kafka.read_state(), derive)
        return apply_plan(
            saved,
            kafka,
            checkout=checkout,
            force_unlock=force_unlock,
            options=Options(fail_fast=fail_fast, throttle=throttle),
            progress=progress,
            verify=verified,
            in_use=in_use_now,
        )


def cancel_reassignments(
    repo: Path, cluster: str, force_unlock: bool, progress: Callable[[str], None]
) -> Cancelled:
    """`apply --cancel-reassignments`: cancel the partition moves in progress of the topics the
    specs name for `cluster`, under the apply lock (reconciler.apply.cancel)."""
    from reconciler.apply.cancel import cancel
    from reconciler.cluster import adapter

    specs = load_specs(repo, cluster)
    with adapter.Cluster(connection(specs.cluster)) as kafka:
        return cancel(kafka, sorted(specs.desired.topics), force_unlock, progress)


def _same_specs(repo: Path, saved: Plan) -> None:
    """Refuse a saved plan made from other spec files than `repo`'s (spec/identity.py), before
    any connection: reviewers approved the plan of those files."""
    if saved.source is None:  # saved before plans recorded it: verify alone judges
        return
    here = specs_digest(repo)
    if here == saved.source.specs:
        return
    made = f"specs {saved.source.specs[:19]}"
    if saved.source.commit is not None:
        made = f"commit {saved.source.commit[:12]}, {made}"
    now = head_commit(repo)
    found = f"specs {here[:19]}" + (f" at commit {now[:12]}" if now is not None else "")
    raise PlanMismatch(
        f"the saved plan was made from other spec files ({made}) than these ({found}): the "
        "specs changed after the plan was made (a push after the review, or another merge); "
        "plan again, review the new plan and apply it. Nothing was changed."
    )


# ---------------------------------------------------------------------------- drift


@dataclass(frozen=True, slots=True)
class DriftRun:
    report: DriftReport
    state: ClusterState  # what was read, for --snapshot-out


def drift(repo: Path, cluster: str) -> DriftRun:
    """What differs between the specs and the live cluster: the planner's findings, as drift."""
    specs = load_specs(repo, cluster)
    state = read_state(specs.cluster)
    found = make_plan(specs.desired, state, specs.cluster, fingerprint(state, state.topics))
    return DriftRun(find_drift(found, specs.desired, state), state)


# ---------------------------------------------------------------------------- import


@dataclass(frozen=True, slots=True)
class ImportRun:
    files: tuple[import_cluster.ImportFile, ...]  # written, in order
    skipped: tuple[str, ...]  # topics a spec already names
    # Topics whose plan after import is not empty, or diagnostics on the written files: what
    # import could not say exactly (each explained by the topic's notes or the diagnostic)
    inexact: tuple[str, ...]
    problems: tuple[Diagnostic, ...]
    # The cluster id written into reconciler.yaml (the cluster had none); None: not written
    pinned: str | None = None
    unpinned: str | None = None  # the id to pin by hand: reconciler.yaml's layout left no line

    @property
    def topics(self) -> tuple[import_cluster.ImportedTopic, ...]:
        return tuple(t for f in self.files for t in f.topics)


def import_topics(
    repo: Path,
    cluster: str,
    out: Path | None = None,
    include: str | None = None,
    exclude: str | None = None,
) -> ImportRun:
    """Write spec files for the cluster's topics that no spec names yet, then plan over them.

    1. load and validate the repository (every cluster's topics: a name any spec declares for
       this cluster is skipped, and the repository must be valid to know which those are;
       this cluster's settings alone);
    2. read the cluster (batched, as for plan); pin its id in reconciler.yaml if unpinned;
    3. choose the topics and lay them out in new files (import_cluster, pure);
    4. write them, never over an existing file;
    5. load the specs again, through the discovery plan uses, and plan against the state
       already read: a written file plan would not read, and any imported topic with a change
       or a diagnostic, is reported, so "import, then plan shows no changes" is checked every
       time rather than hoped for.

    An `out` the loader would not read (outside the topics directory, or a hidden folder) is
    refused before the cluster is read: its files would look unmanaged to plan and be imported
    again by the next import.
    """
    from reconciler import import_cluster, writable

    include_re = _option_regex("--include", include)
    exclude_re = _option_regex("--exclude", exclude)
    loaded = load_repo(repo, None, settings=Settings.of(cluster))
    if any(d.is_error for d in loaded.diagnostics) or loaded.config is None:
        raise InvalidSpecs(loaded.diagnostics)
    config = loaded.config
    chosen = select_cluster(config, cluster)
    out_dir = (out if out is not None else config.topics_dir).absolute()
    why = folder_not_read(config.root, config.topics_dir, out_dir)
    if why is not None:  # refused before the cluster is read: nothing is written
        where = relative(config.topics_dir, config.root)
        raise ConfigError(
            f"--out {out}: validate and plan never read topic files there ({why}), so the "
            f"imported topics would look unmanaged and a second import would write them again; "
            f"pass --out {where} or a folder under it whose name does not start with '.'"
        )
    writable.check_dir(out if out is not None else config.topics_dir, "--out")  # before reading
    state = read_state(chosen)
    pinned = unpinned = None
    if chosen.cluster_id is None and state.cluster_id is not None:
        from reconciler.spec.pin_cluster import pin_cluster_id

        config_file = config.root / REPO_CONFIG
        if pin_cluster_id(config_file, chosen, state.cluster_id, os.environ):
            pinned = state.cluster_id
        else:
            unpinned = state.cluster_id
    policy = chosen.policy  # its patterns were validated with reconciler.yaml
    ignore = [UserPattern(p, policy.pattern_source("ignore", p)) for p in policy.ignore]
    mine = loaded.desired[cluster]
    # A topic declared only for other clusters is declared: a second spec would duplicate it
    topics, skipped = import_cluster.select(
        state, {*mine.topics, *mine.elsewhere}, ignore, include_re, exclude_re
    )
    schema = config.root / "schemas" / "topics.schema.json"
    files = import_cluster.layout(
        [import_cluster.imported_topic(t, state) for t in topics],
        out_dir,
        cluster,
        clusters_field=len(config.clusters) > 1,
        schema=schema if schema.is_file() else None,
        name_max=writable.name_max(out_dir),
    )
    write_new(
        out_dir,
        tuple(NewFile(f.path.relative_to(out_dir).as_posix(), f.text) for f in files),
        advice="a file appeared while importing; run import again (it picks other names)",
    )
    inexact: list[str] = []
    problems: list[Diagnostic] = []
    if files:
        names = {t.name for f in files for t in f.topics}
        written = {f.path.resolve() for f in files}
        # Loaded again through the discovery plan uses: what it wrote must be what plan reads
        again = load_repo(repo, cluster)
        problems = [
            d
            for d in again.diagnostics
            if d.is_error
            and d.location is not None
            and (config.root / d.location.file).resolve() in written
        ]
        declared = again.desired[cluster].topics if cluster in again.desired else {}
        for f in files:
            if any(t.name not in declared for t in f.topics):
                rel = relative(f.path, config.root)
                problems.append(
                    IGNORED_FILE(
                        f"{rel} was written but validate and plan do not read it; move it "
                        "under the topics directory, outside hidden folders",
                        Location(rel, 1, 1),
                        severity=Severity.ERROR,
                    )
                )
        if again.config is not None and cluster in again.desired and not problems:
            after = make_plan(again.desired[cluster], state, chosen)
            inexact = sorted({c.topic for c in after.changes if c.topic in names})
    return ImportRun(files, tuple(skipped), tuple(inexact), tuple(problems), pinned, unpinned)


def _option_regex(option: str, pattern: str | None) -> UserPattern | None:
    """The option's pattern, bounded like every user pattern (reconciler/patterns.py)."""
    if pattern is None:
        return None
    why = problem(pattern)
    if why is not None:
        raise ConfigError(
            f"{option} {pattern!r} is not a regular expression ({why}); topic names are matched "
            "with Python's re.search syntax, e.g. --include '^payments\\.'"
        )
    return UserPattern(pattern, option)


# ---------------------------------------------------------------------------- compile and fleet

# Here, not at the top, to keep the fleet's part of this module in one place; only `fleet drift`
# loads the summary module (the job itself, which imports pyspark, is imported lazily too).
if TYPE_CHECKING:
    from reconciler.fleet.summary import FleetResult


@dataclass(frozen=True, slots=True)
class Compiled:
    cluster: str
    path: Path  # OUT/NAME.jsonl
    topics: int  # topic lines written (tombstones included)


def compile_desired(
    repo: Path, cluster: str | None, out: Path
) -> tuple[tuple[Compiled, ...], tuple[Diagnostic, ...]]:
    """Write the desired state of `cluster` (None: of every cluster reconciler.yaml defines) as
    OUT/NAME.jsonl for the fleet pipeline; (what was written, the specs' warnings). The specs
    must be valid: InvalidSpecs otherwise, and nothing is written."""
    from reconciler import compile as compiler

    loaded = load_repo(repo, cluster)
    if any(d.is_error for d in loaded.diagnostics) or loaded.config is None:
        raise InvalidSpecs(loaded.diagnostics)
    names = [cluster] if cluster is not None else sorted(loaded.config.clusters)
    chosen = [select_cluster(loaded.config, name) for name in names]  # an unknown name fails
    written = tuple(
        Compiled(c.name, compiler.write(out, c, loaded.desired[c.name]),
                 len(loaded.desired[c.name].topics))
        for c in chosen
    )  # fmt: skip
    return written, loaded.diagnostics


def fleet_drift(
    desired: str,
    snapshots: str,
    out: str,
    *,
    master: str | None = None,
    since: str | None = None,
    conf: tuple[tuple[str, str], ...] = (),
    log: Path | None = None,
) -> FleetResult:
    """Run the fleet drift job (reconciler.fleet.job) on a SparkSession of its own: `master`
    defaults to local[*]; `log` receives the JVM's output. PySpark is an optional extra: an
    EnvironmentProblem says how to install it when it is missing."""
    from reconciler.fleet.guard import require_pyspark

    require_pyspark()
    from reconciler.fleet import job

    return job.execute(desired, snapshots, out, master=master, since=since, conf=conf, log=log)
