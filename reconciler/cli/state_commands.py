"""Commands that read a cluster and report: drift, snapshot."""

from __future__ import annotations

import json
from pathlib import Path

import click

from reconciler.cli.cluster_choice import chosen_cluster
from reconciler.cli.heartbeat import Heartbeat
from reconciler.cli.shared import (
    CONTEXT,
    Ctx,
    cluster_option,
    failure_comment,
    format_option,
    pass_ctx,
    show_progress,
    verbose_option,
)
from reconciler.cli.width import text_width
from reconciler.errors import ReconcilerError
from reconciler.writable import check_file, is_stdout


@click.command(context_settings=CONTEXT)
@cluster_option()
@format_option()
@click.option(
    "--snapshot-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the cluster state that was read, as a snapshot file.",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=1000, max=10_000_000),
    default=60_000,
    show_default=True,
    help="Longest Markdown output (a GitHub issue body holds 65,536 characters).",
)
@verbose_option()
@pass_ctx
def drift(
    ctx: Ctx,
    cluster: str | None,
    fmt: str,
    snapshot_out: Path | None,
    max_chars: int,
    verbose: bool,
) -> None:
    """Report what differs between the specs and the live cluster: the scheduled job's command.

    Config, partition counts, replication factors and (where a spec sets `assignments`) replica
    placement changed outside git, spec'd topics missing from the cluster, tombstoned topics
    still present, unmanaged topics, and every error of the plan (a difference it refuses or
    blocks), each with its spec file and line. Changes nothing.

    Exit 0 in sync, 2 drift, 1 error. With --format markdown, an error still prints a Markdown
    report that says what failed.
    """
    from reconciler.cluster.snapshot import write_snapshot
    from reconciler.planning.drift import to_json
    from reconciler.render.drift_report import render_drift_markdown, render_drift_text
    from reconciler.workflow.drift import drift

    if snapshot_out is not None:
        # refused before the cluster is read
        check_file(
            snapshot_out,
            "--snapshot-out",
            stdout="the drift report is printed there; give a file name for the snapshot",
        )
    try:
        cluster = chosen_cluster(ctx.context, cluster)
        show_progress(f"checking cluster '{cluster}' for drift")
        with Heartbeat(f"checking cluster '{cluster}' for drift"):
            found = drift(ctx.context, cluster)
    except ReconcilerError as exc:
        failure_comment("drift", cluster or "(not chosen)", fmt, exc, max_chars)
        raise
    report = found.report
    if fmt == "json":
        click.echo(json.dumps(to_json(report), indent=1))
    elif fmt == "markdown":
        click.echo(render_drift_markdown(report, max_chars))
    else:
        click.echo(render_drift_text(report, text_width(), verbose))
    if snapshot_out is not None:  # after the report, so a late failure (a full disk) loses none
        write_snapshot(snapshot_out, cluster, found.state)
    if not report.in_sync:
        click.get_current_context().exit(2)


@click.command(context_settings=CONTEXT)
@cluster_option()
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Snapshot file (default, or `-`: standard output).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("json", "jsonl")),
    help="json (what `plan --state` reads) or jsonl (one topic a line, what `fleet drift` "
    "reads).  [default: jsonl for a FILE ending in .jsonl, else json]",
)
@pass_ctx
def snapshot(ctx: Ctx, cluster: str | None, out: Path | None, fmt: str | None) -> None:
    """Write the cluster's state (brokers, topics, configs, reassignments, access) to a file.

    JSON (schemas/snapshot.schema.json): `plan --state FILE` plans against it offline. JSON
    Lines (schemas/snapshot-line.schema.json): one topic a line with its own config overrides
    in canonical form, the input of `reconciler fleet drift`, stored as
    SNAPSHOTS/cluster=NAME/date=YYYY-MM-DD/*.jsonl. Reads the cluster in a fixed number of
    round trips, whatever the number of topics. Access: the ACL bindings, the client quotas
    and the SCRAM credentials' users, mechanisms and iterations (never a secret, salt or
    digest), one request each; a part the cluster cannot answer is recorded with the reason.
    """
    from reconciler.cluster import jsonl
    from reconciler.cluster.snapshot import pieces, write_snapshot
    from reconciler.workflow.connection import snapshot_state

    if out is not None and is_stdout(out):
        out = None  # `-o -`: standard output, as without -o
    if out is not None:
        check_file(out, "-o")
    cluster = chosen_cluster(ctx.context, cluster)
    config = ctx.context.cluster_config(cluster)
    show_progress(f"reading cluster '{cluster}' at {config.bootstrap}")
    with Heartbeat(f"reading cluster '{cluster}' at {config.bootstrap}"):
        state = snapshot_state(config)
    for part, why in state.unread:  # the file says so too (`unread`); said here when taken
        click.echo(f"note: the snapshot holds no {part}: not read, {why}", err=True)
    if out is None:  # a topic at a time, as write_snapshot writes a file
        text = (
            (f"{line}\n" for line in jsonl.lines(cluster, state))
            if fmt == "jsonl"
            else pieces(cluster, state)
        )
        for piece in text:
            click.echo(piece, nl=False)
        return
    write_snapshot(out, cluster, state, fmt)
    click.echo(
        f"wrote {out}: {len(state.topics)} topics on {len(state.brokers)} brokers of cluster "
        f"'{cluster}'",
        err=True,
    )
