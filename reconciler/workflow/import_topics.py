"""import: spec files written for the cluster's topics that no spec names yet, then a plan over
them that says where import could not be exact."""

from __future__ import annotations

import os
from pathlib import Path

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic, Location, Severity
from reconciler.errors import ConfigError
from reconciler.import_cluster import ImportFile, ImportRun
from reconciler.init_repo import NewFile, write_new
from reconciler.patterns import UserPattern, problem
from reconciler.planning.plan import make_plan
from reconciler.spec.discovery import folder_not_read
from reconciler.spec.r_codes import IGNORED_FILE
from reconciler.spec.repo_config import REPO_CONFIG, select_cluster
from reconciler.spec.settings_scope import Settings
from reconciler.spec.source import real_path, relative
from reconciler.workflow.connection import read_state
from reconciler.workflow.context import Context


def import_topics(
    context: Context,
    cluster: str,
    out: Path | None = None,
    include: str | None = None,
    exclude: str | None = None,
    *,
    keep_assignments: bool = False,
    access: bool = False,
) -> ImportRun:
    """Write spec files for the cluster's topics that no spec names yet, then plan over them.

    1. load and validate the repository (every cluster's topics: a name any spec declares for
       this cluster is skipped, and the repository must be valid to know which those are;
       this cluster's settings alone);
    2. read the cluster (batched, as for plan); pin its id in reconciler.yaml if unpinned;
    3. choose the topics and lay them out in new files (import_cluster, pure);
    4. write them, never over an existing file;
    5. load the specs again, through the discovery plan uses (the files read in 1 are not
       read again: the context keeps their bytes, and those it wrote), and plan against the
       state already read: a written file plan would not read, and any imported topic with a change
       or a diagnostic, is reported, so "import, then plan shows no changes" is checked every
       time rather than hoped for.

    An `out` the loader would not read (outside the topics directory, or a hidden folder) is
    refused before the cluster is read: its files would look unmanaged to plan and be imported
    again by the next import.
    """
    from reconciler import import_cluster, writable

    include_re = _option_regex("--include", include)
    exclude_re = _option_regex("--exclude", exclude)
    loaded = context.valid(None, Settings.of(cluster))
    assert loaded.config is not None  # valid
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
    state = read_state(chosen, acls=access)  # --access: with the ACLs (DescribeAcls)
    pinned = unpinned = None
    if chosen.cluster_id is None and state.cluster_id is not None:
        from reconciler.spec.pin_cluster import pin_cluster_id

        config_file = config.root / REPO_CONFIG
        if pin_cluster_id(config_file, chosen, state.cluster_id, os.environ, context.files):
            pinned = state.cluster_id
        else:
            unpinned = state.cluster_id
    policy = chosen.policy  # its patterns were validated with reconciler.yaml
    ignore = [UserPattern(p, policy.pattern_source("ignore", p)) for p in policy.ignore]
    mine = loaded.desired[cluster]
    # A topic declared only for other clusters is declared: a second spec would duplicate it
    left_out: list[tuple[str, str]] = []
    topics, skipped = import_cluster.select(
        state, {*mine.topics, *mine.elsewhere}, ignore, include_re, exclude_re, left_out
    )
    schema = config.root / "schemas" / "topics.schema.json"
    files = import_cluster.layout(
        [
            import_cluster.imported_topic(
                t, state, keep_assignments=keep_assignments, access=access
            )
            for t in topics
        ],
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
    for f in files:  # what the next load reads: the bytes written, without opening them
        context.files.wrote(real_path(f.path), f.text.encode("utf-8"))
    if access and state.acls is not None:  # what the topics' `access:` does not say: `acls:`
        acl_file = _acls_file(
            context, cluster, state, out_dir, len(config.clusters) > 1, schema,
            (include_re, exclude_re),
        )  # fmt: skip
        files = (*files, *acl_file)
    inexact: list[str] = []
    problems: list[Diagnostic] = []
    if files:
        names = {t.name for f in files for t in f.topics}
        written = {f.path.resolve() for f in files}
        # Loaded again through the discovery plan uses: what it wrote must be what plan reads
        again = context.reload(cluster)  # with every file written (an `acls:` one too)
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
            # an entry that does not plan exact; with --include/--exclude, among the chosen
            left = import_cluster.chosen_bindings(
                [a.binding for a in after.acls], state.acls.bindings if state.acls else (),
                include_re, exclude_re,
            )  # fmt: skip
            inexact += ["acls:"] if left else []
    return ImportRun(
        files, tuple(skipped), tuple(left_out), tuple(inexact), tuple(problems), pinned, unpinned
    )


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


def _acls_file(
    context: Context,
    cluster: str,
    state: ClusterState,
    out_dir: Path,
    clusters_field: bool,
    schema: Path,
    options: tuple[UserPattern | None, UserPattern | None],
) -> tuple[ImportFile, ...]:
    """The new `acls:` file of `import --access` (written): the bindings inside the scope that
    neither the specs (with the topics just imported) nor their `acls:` give, those the
    --include/--exclude `options` keep (import_cluster.chosen_bindings); none: no file."""
    from reconciler import import_cluster
    from reconciler.planning import raw_acl_changes
    from reconciler.planning.acl_derivation import derived

    assert state.acls is not None
    loaded = context.reload(cluster)
    config = loaded.config
    if config is None or cluster not in loaded.desired:
        return ()
    desired = loaded.desired[cluster]
    wanted = set(derived(desired.topics.values(), state.acls.idempotent_write))
    wanted |= set(raw_acl_changes.bindings(desired.acls or ()))
    policy = config.clusters[cluster].policy
    extra = import_cluster.chosen_bindings(
        raw_acl_changes.unexplained(
            state.acls.bindings, wanted, raw_acl_changes.managed(desired), policy
        ),
        state.acls.bindings,
        *options,
    )
    if not extra:
        return ()
    made = import_cluster.acls_file(extra, out_dir, cluster, clusters_field=clusters_field,
                                    schema=schema if schema.is_file() else None)  # fmt: skip
    write_new(
        out_dir,
        (NewFile(made.path.relative_to(out_dir).as_posix(), made.text),),
        advice="a file appeared while importing; run import again (it picks other names)",
    )
    context.files.wrote(real_path(made.path), made.text.encode("utf-8"))
    return (made,)
