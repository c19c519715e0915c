"""The command line: parses arguments, calls the library, prints, and maps errors to exit codes.

Only this module prints or prompts. Exit codes: 0 success or no changes, 1 error,
2 changes present (plan --detailed-exitcode, drift).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from reconciler import __version__
from reconciler.errors import ConfigError, InvalidSpecs, NotBuiltYet, ReconcilerError
from reconciler.local.commands import local

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class Ctx:
    """What the global options set, handed to every command."""

    def __init__(self, repo: Path, debug: bool) -> None:
        self.repo = repo
        self.debug = debug


pass_ctx = click.make_pass_decorator(Ctx)


def _not_built(command: str, issue: str) -> NoReturn:
    raise NotBuiltYet(
        f"`reconciler {command}` ({issue}) is planned but not built in this version "
        f"({__version__}). Nothing was read or changed."
    )


def _color() -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _progress(message: str) -> None:
    """A status line on stderr for people watching a terminal; silent in pipes and CI logs."""
    if sys.stderr.isatty():
        click.echo(f"{message} ...", err=True)


def _write_json(path: Path, document: object) -> None:
    try:
        path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror}") from exc


def cluster_option(required: bool = True) -> Callable[[F], F]:
    return click.option(
        "--cluster",
        "-c",
        metavar="NAME",
        required=required,
        help="Cluster name from reconciler.yaml.",
    )


def format_option(choices: tuple[str, ...] = ("text", "json", "markdown")) -> Callable[[F], F]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(choices),
        default="text",
        show_default=True,
        help="Output format.",
    )


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="reconciler")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default="current directory",
    help="Spec repository (holds reconciler.yaml and topics/).",
)
@click.option(
    "--debug", is_flag=True, help="Show tracebacks, and the Kafka clients' own logs, on stderr."
)
@click.pass_context
def cli(ctx: click.Context, repo: Path, debug: bool) -> None:
    """Declarative GitOps for Apache Kafka topics.

    Topic specs live as YAML in git. `validate` checks them, `plan` shows the difference
    against a live cluster like `terraform plan`, `apply` makes it in a dependency-safe order,
    and `drift` reports what changed behind your back. `local` runs a real Kafka cluster on
    this machine to try it all.

    Exit codes: 0 success or no changes, 1 error, 2 changes present (plan
    --detailed-exitcode, drift).
    """
    ctx.obj = Ctx(repo=repo, debug=debug)
    if debug:
        import logging

        logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(name)s %(message)s")


# ---------------------------------------------------------------------------- a new repository


@cli.command(context_settings=CONTEXT)
@click.argument(
    "directory", metavar="[DIR]", required=False, type=click.Path(file_okay=False, path_type=Path)
)
@click.option(
    "--bootstrap",
    metavar="HOST:PORT[,...]",
    required=True,
    help="The cluster's bootstrap servers (CI overrides them with $KAFKA_BOOTSTRAP).",
)
@click.option(
    "--cluster",
    "-c",
    metavar="NAME",
    default="default",
    show_default=True,
    help="The cluster's name in reconciler.yaml.",
)
def init(directory: Path | None, bootstrap: str, cluster: str) -> None:
    """Start a spec repository in DIR (default: the current directory).

    Writes reconciler.yaml with one cluster, an empty topics/, the JSON Schemas (so the
    editor modeline works offline) and the GitHub workflows: plan comments on pull requests,
    apply on merge, scheduled drift. Never overwrites a file: refuses, writing nothing, if any
    of them exists. Next: `reconciler import --cluster NAME` to adopt the cluster's topics.
    """
    from reconciler.init_repo import scaffold, write_new

    root = directory or Path(".")
    written = write_new(root, scaffold(cluster, bootstrap))
    for path in written:
        click.echo(f"created {path}")
    click.echo(
        f"\nA spec repository for cluster '{cluster}' is ready in {root}. Next:\n"
        f"  reconciler --repo {root} validate\n"
        f"  reconciler --repo {root} import --cluster {cluster}   # specs for the existing topics\n"
        f"  reconciler --repo {root} plan --cluster {cluster}\n"
        "Then commit, push, and create the GitHub environments the workflows name (secrets "
        "KAFKA_BOOTSTRAP, KAFKA_USERNAME, KAFKA_PASSWORD)."
    )


# ---------------------------------------------------------------------------- spec and plan


@cli.command(context_settings=CONTEXT)
@cluster_option(required=False)
@format_option(("text", "json"))
@pass_ctx
def validate(ctx: Ctx, cluster: str | None, fmt: str) -> None:
    """Check reconciler.yaml and every topic file against the schemas and Kafka's rules.

    Reports every problem at once as `path:line:col: error[CODE]: message`. With --cluster,
    templates are rendered for that cluster only; without, for every cluster. Reads no cluster.
    Exit 0 when valid (warnings alone do not fail), 1 otherwise.
    """

    from reconciler import diagnostics, workflow
    from reconciler.spec.loader import load_repo

    def counted(count: int, noun: str) -> str:
        return f"{count} {noun}{'' if count == 1 else 's'}"

    result = load_repo(ctx.repo, cluster)
    if cluster is not None and result.config is not None:
        workflow.select_cluster(result.config, cluster)  # an unknown name is an error
    topics = {name: len(state.topics) for name, state in sorted(result.desired.items())}
    if fmt == "json":
        # schemas/validate.schema.json; each diagnostic in the plan's shape (diagnostics.to_json)
        document = {
            "valid": result.valid,
            "files": result.files,
            "topics": topics,
            "diagnostics": [diagnostics.to_json(d) for d in result.diagnostics],
        }
        click.echo(json.dumps(document, indent=2))
    else:
        for diagnostic in result.diagnostics:
            click.echo(str(diagnostic))
        files = counted(result.files, "file")
        if result.valid:
            warned = f" ({counted(result.warnings, 'warning')})" if result.warnings else ""
            click.echo(
                f"ok: {counted(len(result.topic_names), 'topic')} in {files} for "
                f"{counted(len(topics), 'cluster')} ({', '.join(topics)}){warned}"
            )
        else:
            problems = f"{counted(result.errors, 'error')}, {counted(result.warnings, 'warning')}"
            click.echo(f"{problems} in {files}")
    if not result.valid:
        click.get_current_context().exit(1)


@cli.command(context_settings=CONTEXT)
@cluster_option()
@format_option()
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save the plan (JSON) for `apply`.",
)
@click.option(
    "--detailed-exitcode", is_flag=True, help="Exit 2 when there are changes, 0 when none."
)
@click.option(
    "--state",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Plan offline against a snapshot file instead of the live cluster.",
)
@click.option(
    "--changed-since",
    metavar="GIT_REF",
    help="Mark each change as this change's own (its spec file changed since GIT_REF) or as "
    "pre-existing drift; the whole plan is still shown.",
)
@click.option(
    "--prune", is_flag=True, help="Also plan deletes of unmanaged topics (policy permitting)."
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=2000),
    default=60_000,
    show_default=True,
    help="Longest Markdown output (a GitHub comment holds 65,536 characters); what does not "
    "fit is counted.",
)
@pass_ctx
def plan(
    ctx: Ctx,
    cluster: str,
    fmt: str,
    out: Path | None,
    detailed_exitcode: bool,
    state: Path | None,
    changed_since: str | None,
    prune: bool,
    max_chars: int,
) -> None:
    """Show what apply would change on a cluster, like `terraform plan`.

    Creates, partition increases, config changes, replication-factor changes and deletes, with
    the limit and policy violations they would cause. Reads the cluster in a fixed number of
    round trips, whatever the number of topics.

    Exit 1 when the plan is not applyable (an error, or a hazard the specs do not acknowledge:
    apply would refuse it) or when planning failed; with --detailed-exitcode, exit 2 when there
    are changes and 0 when there are none. With --format markdown, a failure still prints a
    Markdown comment that says what failed.
    """
    from reconciler import workflow
    from reconciler.planning.json_plan import to_json
    from reconciler.render.json import render_json
    from reconciler.render.markdown import render_markdown
    from reconciler.render.text import render_text

    _progress(f"planning cluster '{cluster}'" + (f" against {state}" if state else ""))
    try:
        result = workflow.plan(ctx.repo, cluster, state, prune, changed_since)
    except ReconcilerError as exc:
        _failure_comment("plan", cluster, fmt, exc, max_chars)
        raise
    if out is not None:
        _write_json(out, to_json(result))
    if fmt == "json":
        click.echo(render_json(result))
    elif fmt == "markdown":
        click.echo(render_markdown(result, max_chars).rstrip("\n"))
    else:
        click.echo(render_text(result, color=_color()).rstrip("\n"))
    if out is not None:
        click.echo(f"Saved the plan to {out}; apply it with `reconciler apply --cluster "
                   f"{cluster} {out}`.", err=True)  # fmt: skip
    # Not applyable (errors or unacknowledged hazards): the apply on merge would refuse it, so
    # the pull-request check fails now
    if not result.applyable:
        click.get_current_context().exit(1)
    if detailed_exitcode and result.changes:
        click.get_current_context().exit(2)


@cli.command(context_settings=CONTEXT)
@cluster_option()
@click.argument(
    "plan_file",
    metavar="[PLAN.json]",
    required=False,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@click.option("--auto-approve", is_flag=True, help="Do not ask for confirmation.")
@click.option("--fail-fast", is_flag=True, help="Stop at the first failed operation.")
@click.option("--prune", is_flag=True, help="Also delete unmanaged topics (policy permitting).")
@click.option("--force-unlock", is_flag=True, help="Break the lock of a crashed apply.")
@click.option(
    "--throttle",
    metavar="RATE",
    help="Limit the replication traffic of replication-factor changes to RATE bytes/s per "
    "broker (e.g. 50MiB); removed when they finish.",
)
@click.option(
    "--audit-json",
    metavar="FILE",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="Also write the audit record as JSON to FILE ('-': standard output).",
)
@pass_ctx
def apply(
    ctx: Ctx,
    cluster: str,
    plan_file: Path | None,
    auto_approve: bool,
    fail_fast: bool,
    prune: bool,
    force_unlock: bool,
    throttle: str | None,
    audit_json: Path | None,
) -> None:
    """Apply a saved plan (or plan and confirm), in a dependency-safe order.

    Pre-flight checks the plan is not stale, takes a per-cluster lock and lets Kafka validate
    creates and partition increases before anything changes. A re-run after an interruption
    converges. Without PLAN.json, plans, shows the plan and asks for confirmation (on a
    terminal; elsewhere --auto-approve is required). Exit 0 when everything was applied, 1 when
    anything failed or was refused. docs/apply.md has the details.
    """
    from reconciler import workflow
    from reconciler.render.text import render_text
    from reconciler.spec.units import parse_size_bytes

    rate = None
    if throttle is not None:
        try:
            rate = parse_size_bytes(throttle)
        except ValueError as exc:
            raise ConfigError(
                f"--throttle {throttle!r}: {exc}; give bytes per second, e.g. 50MiB"
            ) from exc
        if rate <= 0:
            raise ConfigError(f"--throttle {throttle!r}: the rate must be above 0, e.g. 50MiB")

    def progress(message: str) -> None:
        click.echo(message, err=True)

    from reconciler.apply.audit import git_info

    checkout = git_info(ctx.repo)
    if checkout is not None and checkout["dirty"]:
        from reconciler.words import listing

        click.echo(
            f"warning: the spec repository has uncommitted changes "
            f"({listing(checkout['changed_files'])}): the audit record "
            f"names commit {checkout['commit'][:12]}, which does not hold exactly what is "
            "applied; commit first so the record can be traced.",
            err=True,
        )
    if plan_file is not None:
        reviewed = workflow.load_plan(plan_file)
    else:
        try:
            reviewed = workflow.plan(ctx.repo, cluster, prune=prune)
        except InvalidSpecs as exc:
            for diagnostic in exc.diagnostics:
                click.echo(str(diagnostic), err=True)
            raise
        click.echo(render_text(reviewed, color=_color()).rstrip("\n"))
        # An empty or unapplyable plan (errors, unacknowledged hazards) needs no confirmation:
        # apply says so, or pre-flight refuses it with the reason.
        if reviewed.changes and reviewed.applyable and not auto_approve:
            if not sys.stdin.isatty():
                raise ConfigError(
                    "apply without a saved plan asks for confirmation, but there is no terminal "
                    "here; review the plan and pass --auto-approve, or apply a saved plan "
                    "(`reconciler plan -o PLAN.json`)"
                )
            if not click.confirm(f"Apply these changes to cluster '{cluster}'?", default=False):
                click.echo("Apply cancelled; nothing was changed.", err=True)
                click.get_current_context().exit(1)
    result = workflow.apply(
        ctx.repo,
        cluster,
        reviewed,
        fail_fast=fail_fast,
        force_unlock=force_unlock,
        throttle=rate,
        progress=progress,
    )
    if not result.results:
        click.echo(f"No changes: cluster '{cluster}' already matches the plan.")
    for done in result.results:
        note = f": {done.message}" if done.message else ""
        click.echo(f"{done.status.value:>12}  {done.operation.summary}{note}")
    if result.results:
        click.echo(
            f"Apply {'complete' if result.ok else 'incomplete'}: {len(result.applied)} applied, "
            f"{len(result.unchanged)} already done, {len(result.failed)} failed, "
            f"{len(result.skipped)} skipped."
        )
    if result.audit_error:
        click.echo(f"warning: the audit record was not written: {result.audit_error}", err=True)
    if audit_json is not None and result.audit:
        if str(audit_json) == "-":
            click.echo(json.dumps(result.audit, indent=1))
        else:
            _write_json(audit_json, result.audit)
    if not result.ok:
        click.get_current_context().exit(1)


@cli.command(context_settings=CONTEXT)
@cluster_option()
@format_option()
@click.option(
    "--snapshot-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the cluster state that was read, as a snapshot file.",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=1000),
    default=60_000,
    show_default=True,
    help="Longest Markdown output (a GitHub issue body holds 65,536 characters).",
)
@pass_ctx
def drift(ctx: Ctx, cluster: str, fmt: str, snapshot_out: Path | None, max_chars: int) -> None:
    """Report what differs between the specs and the live cluster: the scheduled job's command.

    Config, partition counts, replication factors and (where a spec sets `assignments`) replica
    placement changed outside git, spec'd topics missing from the cluster, tombstoned topics
    still present, and unmanaged topics, each with its spec file and line. Changes nothing.

    Exit 0 in sync, 2 drift, 1 error. With --format markdown, an error still prints a Markdown
    report that says what failed.
    """
    from reconciler import workflow
    from reconciler.cluster.snapshot import write_snapshot
    from reconciler.planning.drift import to_json
    from reconciler.render.drift import render_drift_markdown, render_drift_text

    _progress(f"checking cluster '{cluster}' for drift")
    try:
        found = workflow.drift(ctx.repo, cluster)
    except ReconcilerError as exc:
        _failure_comment("drift", cluster, fmt, exc, max_chars)
        raise
    if snapshot_out is not None:
        write_snapshot(snapshot_out, cluster, found.state)
    report = found.report
    if fmt == "json":
        click.echo(json.dumps(to_json(report), indent=1))
    elif fmt == "markdown":
        click.echo(render_drift_markdown(report, max_chars))
    else:
        click.echo(render_drift_text(report))
    if not report.in_sync:
        click.get_current_context().exit(2)


def _failure_comment(command: str, cluster: str, fmt: str, exc: Exception, max_chars: int) -> None:
    """Invalid specs print their diagnostics on stderr; with --format markdown, stdout also gets
    a comment that says what failed, so a pull request or an issue never shows an empty body."""
    from reconciler.render.markdown import render_failure

    diagnostics = exc.diagnostics if isinstance(exc, InvalidSpecs) else ()
    for diagnostic in diagnostics:
        click.echo(str(diagnostic), err=True)
    if fmt == "markdown":
        click.echo(render_failure(command, cluster, str(exc), diagnostics, max_chars=max_chars))


@cli.command("import", context_settings=CONTEXT)
@cluster_option()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for the new spec files (default: the repository's topics directory).",
)
@click.option(
    "--include", metavar="REGEX", help="Only topics whose name matches (Python re.search)."
)
@click.option("--exclude", metavar="REGEX", help="Leave out topics whose name matches.")
@pass_ctx
def import_(
    ctx: Ctx, cluster: str, out: Path | None, include: str | None, exclude: str | None
) -> None:
    """Write spec files for the topics a live cluster has, to adopt an existing cluster.

    One file per name prefix (payments.yaml for payments.*), topics sorted by name; each spec
    says the topic's partitions, replication factor and its own config overrides (never a
    broker or Kafka default; human units where exact, like 7d), and manual assignments only
    where the placement is not one Kafka would choose. Topics a spec already names, internal
    and ignored topics are left out, and no existing file is overwritten. Afterwards the new
    specs are planned against the state just read: `plan` shows no changes for them.
    Changes nothing on the cluster. Exit 0 when the new specs are exact, 1 otherwise.
    """
    from reconciler import workflow
    from reconciler.words import listing

    _progress(f"reading cluster '{cluster}'")
    try:
        run = workflow.import_topics(ctx.repo, cluster, out, include, exclude)
    except InvalidSpecs as exc:
        for diagnostic in exc.diagnostics:
            click.echo(str(diagnostic), err=True)
        raise
    for done in run.files:
        click.echo(f"created {done.path} ({len(done.topics)} topic(s))")
    if run.skipped:
        click.echo(
            f"skipped {len(run.skipped)} topic(s) a spec already names: {listing(run.skipped)}"
        )
    for topic in run.topics:
        for note in topic.notes:
            click.echo(f"note: {topic.name}: {note}", err=True)
    count = len(run.topics)
    if not count:
        click.echo(f"Nothing to import: every topic of cluster '{cluster}' that reconciler "
                   "manages is already in a spec.")  # fmt: skip
        return
    click.echo(f"Imported {count} topic(s) of cluster '{cluster}' into {len(run.files)} file(s).")
    if not run.checked:
        click.echo(
            f"note: {out} is outside the topics directory, so validate and plan do not read "
            "these files; move them under it to manage the topics",
            err=True,
        )
    for diagnostic in run.problems:
        click.echo(str(diagnostic), err=True)
    if run.inexact:
        click.echo(
            f"warning: a plan would still change {len(run.inexact)} imported topic(s) "
            f"({listing(list(run.inexact))}); the notes above say why",
            err=True,
        )
    if run.problems or run.inexact:
        raise ConfigError(
            "the imported specs do not describe the cluster exactly (see above); edit them, "
            "or fix the topics on the cluster, then run `reconciler validate` and `plan`"
        )
    if run.checked:
        click.echo(f"Next: `reconciler plan --cluster {cluster}` shows no changes for them.")


@cli.command(context_settings=CONTEXT)
@cluster_option()
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Snapshot file (default: standard output).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("json", "jsonl")),
    help="json (what `plan --state` reads) or jsonl (one topic a line, what `fleet drift` "
    "reads).  [default: jsonl for a FILE ending in .jsonl, else json]",
)
@pass_ctx
def snapshot(ctx: Ctx, cluster: str, out: Path | None, fmt: str | None) -> None:
    """Write the cluster's state (brokers, topics, configs, reassignments) to a file.

    JSON (schemas/snapshot.schema.json): `plan --state FILE` plans against it offline. JSON
    Lines (schemas/snapshot-line.schema.json): one topic a line with its own config overrides
    in canonical form, the input of `reconciler fleet drift`, stored as
    SNAPSHOTS/cluster=NAME/date=YYYY-MM-DD/*.jsonl. Reads the cluster in a fixed number of
    round trips, whatever the number of topics.
    """
    from reconciler import workflow
    from reconciler.cluster import jsonl
    from reconciler.cluster.snapshot import dumps, write_snapshot

    config = workflow.cluster_config(ctx.repo, cluster)
    _progress(f"reading cluster '{cluster}' at {config.bootstrap}")
    state = workflow.read_state(config)
    if out is None:
        text = jsonl.dumps(cluster, state) if fmt == "jsonl" else dumps(cluster, state)
        click.echo(text, nl=False)
        return
    write_snapshot(out, cluster, state, fmt)
    click.echo(
        f"wrote {out}: {len(state.topics)} topics on {len(state.brokers)} brokers of cluster "
        f"'{cluster}'",
        err=True,
    )


@cli.command("compile", context_settings=CONTEXT)
@cluster_option(required=False)
@click.option(
    "--all-clusters", is_flag=True, help="Every cluster reconciler.yaml defines, one file each."
)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for NAME.jsonl (created if missing; existing files are replaced).",
)
@pass_ctx
def compile_(ctx: Ctx, cluster: str | None, all_clusters: bool, out: Path) -> None:
    """Write each cluster's desired state, after templates and defaults, as OUT/NAME.jsonl.

    One topic a line (tombstones included) with canonical config values, after a first line
    holding the cluster's limits and policy.ignore patterns (schemas/desired-line.schema.json):
    the desired side of `reconciler fleet drift`. Reads no cluster. The specs must be valid;
    otherwise their diagnostics are printed and nothing is written (exit 1).
    """
    from reconciler import workflow

    if (cluster is None) == (not all_clusters):
        raise ConfigError("compile needs exactly one of --cluster NAME and --all-clusters")
    try:
        written, diagnostics = workflow.compile_desired(ctx.repo, cluster, out)
    except InvalidSpecs as exc:
        for diagnostic in exc.diagnostics:
            click.echo(str(diagnostic), err=True)
        raise
    for diagnostic in diagnostics:
        click.echo(str(diagnostic), err=True)
    for done in written:
        click.echo(f"wrote {done.path}: {done.topics} topic(s) of cluster '{done.cluster}'")


@cli.group(context_settings=CONTEXT)
def fleet() -> None:
    """Fleet-wide analysis on Spark (PySpark), over many clusters' snapshots."""


def _since(_: click.Context, __: click.Parameter, value: str | None) -> str | None:
    import datetime

    if value is None:
        return None
    try:
        return datetime.date.fromisoformat(value).isoformat()
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date YYYY-MM-DD") from None


def _conf(
    _: click.Context, __: click.Parameter, values: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    pairs = []
    for value in values:
        key, sep, setting = value.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{value!r} is not KEY=VALUE, e.g. spark.driver.memory=4g")
        pairs.append((key, setting))
    return tuple(pairs)


@fleet.command("drift", context_settings=CONTEXT)
@click.option(
    "--desired",
    required=True,
    metavar="DIR",
    help="Compiled desired state: NAME.jsonl per cluster (`reconciler compile`).",
)
@click.option(
    "--snapshots",
    required=True,
    metavar="DIR",
    help="Snapshot lines stored as DIR/cluster=NAME/date=YYYY-MM-DD/*.jsonl.",
)
@click.option("--out", required=True, metavar="DIR", help="Where the tables and summary.md go.")
@click.option(
    "--master",
    metavar="URL",
    help="Spark master, e.g. spark://host:7077.  [default: local[*], or spark-submit's]",
)
@click.option(
    "--since", metavar="YYYY-MM-DD", callback=_since, help="Only snapshots of this date or later."
)
@click.option(
    "--conf",
    "conf",
    metavar="KEY=VALUE",
    multiple=True,
    callback=_conf,
    help="A Spark setting, e.g. spark.driver.memory=4g (repeatable).",
)
@pass_ctx
def fleet_drift(
    ctx: Ctx,
    desired: str,
    snapshots: str,
    out: str,
    master: str | None,
    since: str | None,
    conf: tuple[tuple[str, str], ...],
) -> None:
    """Drift, unmanaged topics, broker load and cross-cluster consistency, as a Spark job.

    Reads every cluster's compiled desired state and its nightly snapshots, and writes Parquet
    tables OUT/drift (with first_seen: since when each difference holds), OUT/unmanaged,
    OUT/broker_load (replicas per broker against KIP-578 limits, with the trend) and
    OUT/consistency (topics that differ between clusters where the specs do not make them
    differ), plus OUT/summary.md. Drift is the planner's, row for row. Bad input lines are
    counted in the summary, not fatal. Needs the `fleet` extra (PySpark) and Java 17+.
    Exit 0 when the tables were written, 1 on error. docs/fleet.md has the details.
    """
    import tempfile

    from reconciler import workflow

    log: Path | None = None
    if not ctx.debug:  # with --debug the JVM's own output stays on the terminal
        handle, name = tempfile.mkstemp(prefix="reconciler-fleet-", suffix=".log")
        os.close(handle)
        log = Path(name)
    _progress(f"running the fleet drift job on {master or 'local[*]'}")
    result = workflow.fleet_drift(
        desired, snapshots, out, master=master, since=since, conf=conf, log=log
    )
    if log is not None:
        log.unlink(missing_ok=True)  # kept, and named in the error, only when the job failed
    done = result.summary
    click.echo(
        f"{len(done.clusters)} cluster(s), {done.snapshots_read} snapshot(s): "
        f"{result.drift_rows:,} drift row(s) on {len(done.drifted)} drifted cluster(s), "
        f"{result.consistency_rows:,} consistency row(s), {done.bad_lines:,} bad input line(s)."
    )
    for table in result.tables:
        click.echo(f"wrote {table}")
    click.echo(f"wrote {result.out.rstrip('/')}/summary.md")


cli.add_command(local)


# ---------------------------------------------------------------------------- entry point


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; only here are errors turned into messages and exit codes."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        code = cli.main(args=argv, prog_name="reconciler", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(1 if exc.exit_code == 2 else exc.exit_code)  # usage errors are errors: exit 1
    except ReconcilerError as exc:
        if debug:
            traceback.print_exc()
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception:  # the one broad catch, at the top
        # A bug, not bad input: say so plainly and ask for a report; --debug shows the trace.
        if debug:
            traceback.print_exc()
        else:
            click.echo(
                "internal error: reconciler hit a bug; rerun with --debug for the traceback "
                "and report it.",
                err=True,
            )
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
