"""`reconciler fleet`: the Spark job over a fleet's snapshots."""

from __future__ import annotations

import os
from pathlib import Path

import click

from reconciler.cli.shared import (
    CONTEXT,
    Ctx,
    pass_ctx,
    show_progress,
)
from reconciler.errors import ReconcilerError


@click.group(context_settings=CONTEXT)
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
@click.option(
    "--out",
    required=True,
    metavar="DIR",
    help="Where the tables, summary.md and report.html go (a folder, or an s3a:// URI).",
)
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
    differ), plus OUT/summary.md and OUT/report.html (the tables as charts). Drift is the
    planner's, row for row. Bad input lines are counted in the summary, not fatal. Needs the
    `fleet` extra (PySpark) and Java 17+. Exit 0 when the tables were written, 1 on error.
    `reconciler help fleet` has the details.
    """
    import tempfile

    from reconciler.fleet import overlap
    from reconciler.workflow.fleet import fleet_drift
    from reconciler.writable import check_dir

    overlap.check(out, {"--desired": desired, "--snapshots": snapshots})
    # a local folder is checked before the job starts; a remote one takes a probe write as
    # soon as the session is up, before any input is read (fleet/storage.check_output)
    if "://" not in out:
        check_dir(Path(out), "--out")
    log: Path | None = None
    if not ctx.debug:  # with --debug the JVM's own output stays on the terminal
        handle, name = tempfile.mkstemp(prefix="reconciler-fleet-", suffix=".log")
        os.close(handle)
        log = Path(name)
    show_progress(f"running the fleet drift job on {master or 'local[*]'}")
    named = False
    try:
        result = fleet_drift(
            desired, snapshots, out, master=master, since=since, conf=conf, log=log
        )
    except ReconcilerError as exc:
        named = log is not None and str(log) in str(exc)
        raise
    finally:
        if log is not None and not named:
            # kept only where the job's error names it: a failure before the JVM started (a
            # missing input) or a Ctrl-C left an empty file in the temporary folder at each run
            log.unlink(missing_ok=True)
    done = result.summary
    click.echo(
        f"{len(done.clusters)} cluster(s), {done.snapshots_read} snapshot(s): "
        f"{result.drift_rows:,} drift row(s) on {len(done.drifted)} drifted cluster(s), "
        f"{result.consistency_rows:,} consistency row(s), {done.bad_lines:,} bad input line(s)."
    )
    for table in result.tables:
        click.echo(f"wrote {table}")
    click.echo(f"wrote {result.out.rstrip('/')}/summary.md")
    click.echo(f"wrote {result.out.rstrip('/')}/report.html")
