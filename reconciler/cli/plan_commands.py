"""Commands that plan and change a cluster: plan, apply."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from reconciler.cli.cluster_choice import chosen_cluster, plan_cluster
from reconciler.cli.heartbeat import Heartbeat
from reconciler.cli.shared import (
    CONTEXT,
    Ctx,
    F,
    cluster_option,
    failure_comment,
    format_option,
    pass_ctx,
    show_progress,
    use_color,
    verbose_option,
    write_json,
)
from reconciler.cli.width import echo as width_echo
from reconciler.cli.width import emit, text_width
from reconciler.errors import ConfigError, ReconcilerError
from reconciler.render.apply_report import apply_lines, cancel_lines
from reconciler.words import counted
from reconciler.writable import check_file, is_stdout

if TYPE_CHECKING:
    from reconciler.planning.plan import Plan
    from reconciler.workflow.context import Context


def topic_option(what: str) -> Callable[[F], F]:
    return click.option(
        "--topic",
        "topics",
        metavar="REGEX",
        multiple=True,
        help=f"{what} (Python re.search; repeatable), and the topics they depend on: a partial "
        "plan, as terraform's -target.",
    )


def targets(topics: tuple[str, ...], prune: bool) -> tuple[str, ...]:
    if topics and prune:
        raise ConfigError(
            "--prune deletes every unmanaged topic, --topic plans only some: give one of them"
        )
    return tuple(topics)


def saved_sentence(plan: Plan, out: Path) -> str:
    """What `plan -o` says after saving: how to apply it, or, when apply would refuse it, why
    (never an invitation to run an apply that refuses)."""
    if plan.applyable:
        return (
            f"Saved the plan to {out}; apply it with `reconciler apply --cluster {plan.cluster} "
            f"{out}`."
        )
    why = []
    if plan.errors:
        why.append(counted(len(plan.errors), "error") + " to fix")
    if plan.unacknowledged_hazards:
        why.append(counted(len(plan.unacknowledged_hazards), "hazard") + " to approve")
    return (
        f"Saved the plan to {out}, but it cannot be applied yet: apply refuses it while it has "
        f"{' and '.join(why)} (the plan names each); change the specs as it says, then plan "
        "and save again."
    )


def scoping(changed_since: str | None, whole_plan: bool, topics: tuple[str, ...]) -> bool:
    """Whether the plan is scoped to the changes since --changed-since (the default with it);
    a ConfigError for a combination that says two things."""
    if whole_plan and changed_since is None:
        raise ConfigError(
            "--whole-plan keeps the drift --changed-since sets apart, so it needs "
            "--changed-since GIT_REF; without --changed-since the plan is whole already"
        )
    scoped = changed_since is not None and not whole_plan
    if scoped and topics:
        raise ConfigError(
            "--changed-since scopes the plan to the topics changed since it, --topic to the "
            "topics matching a pattern: give one of them (or add --whole-plan to plan the "
            "--topic topics, each marked as this change's own or drift)"
        )
    return scoped


def partial_warning(plan: Plan) -> None:
    """A partial plan says so, on every run that shows or applies one."""
    if plan.scoped:
        count = len(plan.targets)
        click.echo(
            f"warning: this plan is scoped to {count} topic(s) whose specs changed since "
            f"{plan.changed_since} (and what they depend on); pre-existing drift on other "
            "topics is shown apart and never applied with it.",
            err=True,
        )
    elif plan.targets:
        click.echo(
            f"warning: this plan is partial: only topics matching --topic "
            f"{' '.join(repr(t) for t in plan.targets)} and what they depend on were planned; "
            "changes to other topics are neither shown nor applied.",
            err=True,
        )


@click.command(context_settings=CONTEXT)
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
    help="Plan (and save) only the topics whose spec files changed since GIT_REF, and what "
    "they depend on; pre-existing drift on other topics is shown apart, never applied with it "
    "and never blocking it.",
)
@click.option(
    "--whole-plan",
    is_flag=True,
    help="With --changed-since: plan every topic as without it, each change marked as this "
    "change's own or as drift (drift is then applied, and blocks, with the rest).",
)
@click.option(
    "--prune", is_flag=True, help="Also plan deletes of unmanaged topics (policy permitting)."
)
@topic_option("Plan only topics matching REGEX")
@click.option(
    "--max-chars",
    type=click.IntRange(min=2000, max=10_000_000),
    default=60_000,
    show_default=True,
    help="Longest Markdown output (a GitHub comment holds 65,536 characters); what does not "
    "fit is counted.",
)
@verbose_option()
@pass_ctx
def plan(
    ctx: Ctx,
    cluster: str | None,
    fmt: str,
    out: Path | None,
    detailed_exitcode: bool,
    state: Path | None,
    changed_since: str | None,
    whole_plan: bool,
    prune: bool,
    max_chars: int,
    topics: tuple[str, ...],
    verbose: bool,
) -> None:
    """Show what apply would change on a cluster, like `terraform plan`.

    Creates, partition increases, config changes, replication-factor changes and deletes, with
    the limit and policy violations they would cause. Reads the cluster in a fixed number of
    round trips, whatever the number of topics.

    Exit 1 when the plan is not applyable (an error, or a hazard the specs do not acknowledge:
    apply would refuse it) or when planning failed; with --detailed-exitcode, exit 2 when there
    are changes and 0 when there are none. With --changed-since both count only the plan's
    own topics: drift on others never makes it exit 1 or 2. With --format markdown, a failure
    still prints a Markdown comment that says what failed.
    """
    from reconciler.planning.json_plan import to_json
    from reconciler.workflow.plan import pin_advice
    from reconciler.workflow.plan import plan as plan_for

    if out is not None:
        check_file(
            out,
            "-o",
            stdout="the plan is printed there; give a file name for the saved plan "
            "(--format json prints the plan as JSON)",
        )
    try:
        scoping(changed_since, whole_plan, topics)
        cluster = chosen_cluster(ctx.context, cluster)
        show_progress(f"planning cluster '{cluster}'" + (f" against {state}" if state else ""))
        with Heartbeat(f"planning cluster '{cluster}'"):
            result = plan_for(
                ctx.context,
                cluster,
                state,
                prune,
                changed_since,
                targets(topics, prune),
                whole_plan=whole_plan,
            )
    except ReconcilerError as exc:
        failure_comment("plan", cluster or "(not chosen)", fmt, exc, max_chars)
        raise
    if out is not None:
        write_json(out, to_json(result))
    partial_warning(result)
    # only the chosen format's renderer is imported
    if fmt == "json":
        from reconciler.render.json import render_json

        click.echo(render_json(result))
    elif fmt == "markdown":
        from reconciler.render.markdown import render_markdown

        click.echo(render_markdown(result, max_chars).rstrip("\n"))
    else:
        from reconciler.render.text import render_text

        shown = render_text(result, color=use_color(), width=text_width(), verbose=verbose)
        click.echo(shown.rstrip("\n"))
    if (advice := pin_advice(ctx.context, cluster, result.cluster_id)) is not None:
        click.echo(f"warning: {advice}", err=True)
    if out is not None:
        click.echo(saved_sentence(result, out), err=True)
    # Not applyable (errors or unacknowledged hazards): the apply on merge would refuse it, so
    # the pull-request check fails now
    if not result.applyable:
        click.get_current_context().exit(1)
    if detailed_exitcode and result.changes:
        click.get_current_context().exit(2)


@click.command(context_settings=CONTEXT)
@cluster_option(
    "Cluster name from reconciler.yaml [default: PLAN.json's own, else the only cluster]."
)
@click.argument(
    "plan_file",
    metavar="[PLAN.json]",
    required=False,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@click.option("--auto-approve", is_flag=True, help="Do not ask for confirmation.")
@click.option("--fail-fast", is_flag=True, help="Stop at the first failed operation.")
@click.option("--prune", is_flag=True, help="Also delete unmanaged topics (policy permitting).")
@topic_option("Apply only topics matching REGEX")
@click.option("--force-unlock", is_flag=True, help="Break the lock of a crashed apply.")
@click.option(
    "--cancel-reassignments",
    is_flag=True,
    help="Apply nothing: cancel the partition moves in progress of the topics the specs name "
    "(Kafka puts them back on their original replicas).",
)
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
@verbose_option()
@pass_ctx
def apply(
    ctx: Ctx,
    cluster: str | None,
    plan_file: Path | None,
    auto_approve: bool,
    fail_fast: bool,
    prune: bool,
    force_unlock: bool,
    throttle: str | None,
    audit_json: Path | None,
    topics: tuple[str, ...],
    verbose: bool,
    cancel_reassignments: bool,
) -> None:
    """Apply a saved plan (or plan and confirm), in a dependency-safe order.

    Pre-flight checks the plan is not stale, takes a per-cluster lock and lets Kafka validate
    creates and partition increases before anything changes. A re-run after an interruption
    converges. Without PLAN.json, plans, shows the plan and asks for confirmation (on a
    terminal; elsewhere --auto-approve is required). Exit 0 when everything was applied, 1 when
    anything failed or was refused, 130/143 after SIGINT/SIGTERM (it stops after the request in
    flight, releases the lock and writes the audit record; a second signal aborts at once).
    `reconciler help apply` has the details.
    """
    from reconciler import stopping
    from reconciler.render.text import render_text
    from reconciler.spec.units import parse_size_bytes
    from reconciler.workflow.apply import apply as apply_to
    from reconciler.workflow.connection import made_by
    from reconciler.workflow.plan import pin_advice
    from reconciler.workflow.plan import plan as plan_for
    from reconciler.workflow.saved_plan import load_plan, other_libraries

    if cancel_reassignments:
        others = {
            "PLAN.json": plan_file is not None,
            "--prune": prune,
            "--throttle": throttle is not None,
            "--topic": bool(topics),
            "--fail-fast": fail_fast,
            "--audit-json": audit_json is not None,
        }
        given = [name for name, on in others.items() if on]
        if given:
            raise ConfigError(
                f"--cancel-reassignments applies nothing, so it takes no {', '.join(given)}: "
                "run it on its own, then plan again"
            )
        _cancel(ctx.context, chosen_cluster(ctx.context, cluster), auto_approve, force_unlock)
        return

    if audit_json is not None:
        check_file(audit_json, "--audit-json")  # a bad path refuses before anything is done
    rate = None
    if throttle is not None:
        try:
            rate = parse_size_bytes(throttle)
        except ValueError as exc:
            raise ConfigError(
                f"--throttle {throttle!r}: {exc}; give bytes per second, e.g. 50MiB"
            ) from exc
        if not 0 < rate < 2**63:  # Kafka holds the rate as a Java long
            raise ConfigError(
                f"--throttle {throttle!r}: the rate must be above 0 and below 8 EiB (Kafka's "
                "limit), e.g. 50MiB"
            )

    def progress(message: str) -> None:
        beat.touch()  # the heartbeat speaks only when apply's own progress is silent
        width_echo(message, width, err=True)

    from reconciler.git_repo import checkout as read_checkout

    checkout = read_checkout(ctx.repo)  # once: the warning here and the audit record
    if checkout is not None and checkout.dirty:
        from reconciler.words import listing

        click.echo(
            f"warning: the spec repository has uncommitted changes "
            f"({listing(checkout.changed_files)}): the audit record "
            f"names commit {checkout.commit[:12]}, which does not hold exactly what is "
            "applied; commit first so the record can be traced.",
            err=True,
        )
    width = text_width()
    if plan_file is not None:
        reviewed = load_plan(plan_file)
        cluster = plan_cluster(cluster, reviewed.cluster, plan_file)
        if (libraries := other_libraries(reviewed.made_by, made_by(clients=True))) is not None:
            click.echo(f"warning: {libraries}", err=True)
        if verbose:
            width_echo(f"Applying {plan_file}, based on {reviewed.based_on}", width)
        if topics and reviewed.scoped:
            raise ConfigError(
                f"{plan_file} is scoped to the changes since {reviewed.changed_since}; drop "
                "--topic (a saved plan keeps its own scope) or plan again"
            )
        if topics and tuple(topics) != reviewed.targets:
            raise ConfigError(
                f"{plan_file} was planned for --topic {list(reviewed.targets) or 'every topic'}"
                f", not {list(topics)}; drop --topic (a saved plan keeps its own) or plan again"
            )
    else:
        cluster = chosen_cluster(ctx.context, cluster)
        with Heartbeat(f"planning cluster '{cluster}'"):
            reviewed = plan_for(
                ctx.context,
                cluster,
                prune=prune,
                targets=targets(topics, prune),
                commit=checkout.commit if checkout is not None else None,
                ask_kafka=False,  # apply's pre-flight asks Kafka, under the lock (once)
            )
        # Without its verdict: were the plan refused, apply's refusal below says why, once
        shown = render_text(
            reviewed, color=use_color(), width=width, verbose=verbose, verdict=False
        )
        click.echo(shown.rstrip("\n"))
        # An empty or unapplyable plan (errors, unacknowledged hazards) needs no confirmation:
        # apply says so, or pre-flight refuses it with the reason.
        if reviewed.changes and reviewed.applyable and not auto_approve:
            if not sys.stdin.isatty():
                raise ConfigError(
                    "apply without a saved plan asks for confirmation, but there is no terminal "
                    "here; review the plan and pass --auto-approve, or apply a saved plan "
                    "(`reconciler plan -o PLAN.json`)"
                )
            # terraform's rule: only the whole word approves (a stray `y` or Enter does not);
            # clusters marked `confirm: name` want their own name typed instead
            word = "yes" if ctx.context.cluster_config(cluster).confirm == "yes" else cluster
            typed = click.prompt(
                f"Apply these changes to cluster '{cluster}'? Only '{word}' approves",
                default="",
                show_default=False,
            )
            if typed.strip() != word:
                click.echo(
                    f"Apply cancelled (only '{word}' approves); nothing was changed.", err=True
                )
                click.get_current_context().exit(1)
    if (advice := pin_advice(ctx.context, cluster, reviewed.cluster_id)) is not None:
        click.echo(f"warning: {advice}", err=True)
    partial_warning(reviewed)
    beat = Heartbeat(f"applying to cluster '{cluster}'")
    with stopping.armed(), beat:  # SIGINT/SIGTERM now ask apply to stop (cli/signals.py)
        result = apply_to(
            ctx.context,
            cluster,
            reviewed,
            checkout=checkout,
            fail_fast=fail_fast,
            force_unlock=force_unlock,
            throttle=rate,
            progress=progress,
        )
    stopped_by = stopping.asked()
    emit(apply_lines(result, cluster, stopped_by), width)
    if result.audit_error:
        click.echo(f"warning: the audit record was not written: {result.audit_error}", err=True)
    if audit_json is not None and result.audit:
        if is_stdout(audit_json):
            click.echo(json.dumps(result.audit, indent=1))
        else:
            try:
                write_json(audit_json, result.audit)
            except ConfigError as exc:  # the changes are made and recorded on the cluster
                click.echo(
                    f"warning: {exc}; the audit record is on the cluster's audit topic "
                    f"(apply_id {result.audit.get('apply_id')})",
                    err=True,
                )
    code = stopping.exit_code()
    if code is not None:
        click.get_current_context().exit(code)
    if not result.ok:
        click.get_current_context().exit(1)


def _cancel(context: Context, cluster: str, auto_approve: bool, force_unlock: bool) -> None:
    """apply --cancel-reassignments (reconciler/apply/cancel.py): confirmed like an apply."""
    from reconciler.workflow.apply import cancel_reassignments

    if not auto_approve:
        if not sys.stdin.isatty():
            raise ConfigError(
                "--cancel-reassignments asks for confirmation, but there is no terminal here; "
                "pass --auto-approve"
            )
        typed = click.prompt(
            f"Cancel the partition moves in progress of the managed topics of cluster "
            f"'{cluster}'? Only 'yes' approves",
            default="",
            show_default=False,
        )
        if typed.strip() != "yes":
            click.echo("Nothing was cancelled (only 'yes' approves).", err=True)
            click.get_current_context().exit(1)
    width = text_width()
    done = cancel_reassignments(
        context, cluster, force_unlock, lambda m: width_echo(m, width, err=True)
    )
    emit(cancel_lines(done, cluster), width)
    if not done.moves:
        return
    if not done.ok:
        click.get_current_context().exit(1)
