"""Commands about the spec repository itself: init, validate, import, compile."""

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
    format_option,
    pass_ctx,
    show_progress,
)
from reconciler.cli.width import emit
from reconciler.errors import ConfigError
from reconciler.writable import check_dir


@click.command(context_settings=CONTEXT)
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
@click.option(
    "--branch",
    metavar="NAME",
    help="The branch apply.yml applies merges to [default: the git repository's branch, else "
    "git's init.defaultBranch, else asked (main without a terminal)].",
)
@click.option(
    "--client",
    "client_options",
    metavar="KEY=VALUE",
    multiple=True,
    help="A client property, as under `client:` in reconciler.yaml (repeatable): init logs in "
    "with it and writes it there. Give secrets as ${VAR}, read from the environment, e.g. "
    "--client 'sasl.password=${KAFKA_PASSWORD}'.",
)
def init(
    directory: Path | None,
    bootstrap: str,
    cluster: str,
    branch: str | None,
    client_options: tuple[str, ...],
) -> None:
    """Start a spec repository in DIR (default: the current directory).

    Writes reconciler.yaml with one cluster, an empty topics/, the JSON Schemas (so the
    editor modeline works offline) and the GitHub workflows: plan comments on pull requests,
    apply on merge, scheduled drift. Never overwrites a file: refuses, writing nothing, if any
    of them exists. Next: `reconciler import --cluster NAME` to adopt the cluster's topics.
    """
    import tempfile  # here: its imports would be a part of every command's start-up

    from reconciler.init_repo import check_arguments, client_pairs, next_steps, scaffold, write_new
    from reconciler.workflow.connection import init_client, reported_cluster

    check_arguments(cluster, bootstrap)
    given = client_pairs(client_options)
    root = directory or Path(".")
    check_dir(root, "DIR")
    # The client settings as plan will read them from the reconciler.yaml written below: that
    # file, in a scratch folder, read by plan's own loader (${VAR}, literal secrets, logins)
    with tempfile.TemporaryDirectory(prefix="reconciler-init-") as scratch:
        for new in scaffold(cluster, bootstrap, client=given)[:2]:  # reconciler.yaml, topics/
            (Path(scratch) / new.path).parent.mkdir(parents=True, exist_ok=True)
            (Path(scratch) / new.path).write_text(new.text, encoding="utf-8")
        client = init_client(Path(scratch), cluster)
    branch, how = _branch(root, branch)
    show_progress(f"asking {bootstrap} for its cluster id")
    reported = reported_cluster(cluster, bootstrap, client)
    cluster_id, factor = reported.cluster_id, reported.replication_factor
    files = scaffold(cluster, bootstrap, cluster_id, branch, factor, given)
    written = write_new(root, files)
    for path in written:
        click.echo(f"created {path}")
    if cluster_id is not None:
        click.echo(f"pinned cluster '{cluster}' to cluster_id {cluster_id} (what it reported)")
    else:
        why = reported.refused or f"{bootstrap} did not answer."
        click.echo(
            f"warning: cluster '{cluster}' is not pinned yet: {why} `reconciler import` writes "
            "its cluster_id once the cluster answers.",
            err=True,
        )
    if factor is not None:
        click.echo(
            f"policy.min_replication_factor: {factor}, the smallest replication factor the "
            "cluster's topics have now"
        )
    else:
        click.echo(
            "note: policy.min_replication_factor is 1, which refuses nothing, as the cluster's "
            "replication factors could not be read: set it in reconciler.yaml",
            err=True,
        )
    click.echo(
        f"\nA spec repository for cluster '{cluster}' is ready in {root}. Next:\n"
        f"  reconciler --repo {root} validate\n"
        f"  reconciler --repo {root} import --cluster {cluster}   # specs for the existing topics\n"
        f"  reconciler --repo {root} plan --cluster {cluster}\n"
        "Then commit, and:"
    )
    for line in next_steps(cluster, bootstrap, branch, how):
        click.echo(line)


def _branch(root: Path, given: str | None) -> tuple[str, str]:
    """The branch for apply.yml and how it was chosen: --branch, else what git says
    (reconciler/git_repo.py), else asked on a terminal, else main."""
    import sys

    from reconciler import git_repo

    if given is not None:
        return given, "--branch"
    found = git_repo.default_branch(root.absolute())
    if found is not None:
        return found
    if sys.stdin.isatty():
        answer = click.prompt(
            "Git names no default branch here. Which branch should apply.yml apply merges to?",
            default="main",
        )
        return answer.strip(), "your answer"
    return "main", "git names no default branch here; pass --branch to choose another"


@click.command(context_settings=CONTEXT)
@cluster_option("Cluster name from reconciler.yaml [default: every cluster].")
@format_option(("text", "json"))
@pass_ctx
def validate(ctx: Ctx, cluster: str | None, fmt: str) -> None:
    """Check reconciler.yaml and every topic file against the schemas and Kafka's rules.

    Reports every problem at once as `path:line:col: error[CODE]: message`. With --cluster,
    templates are rendered and settings (`bootstrap`, `client:`) expanded for that cluster
    only; without, for every cluster, and an unset variable is then a warning naming its
    cluster. Reads no cluster. Exit 0 when valid (warnings alone do not fail), 1 otherwise.
    """

    from reconciler.render.validate_report import validate_document, validate_lines
    from reconciler.spec.repo_config import select_cluster

    result = ctx.context.load(cluster)
    if cluster is not None and result.config is not None:
        select_cluster(result.config, cluster)  # an unknown name is an error
    if result.config is not None:  # a login no client can make: its one sentence, exit 1
        from reconciler.cluster import client_settings

        for name, chosen in sorted(result.config.clusters.items()):
            if cluster in (None, name):
                client_settings.check(name, dict(chosen.client))
    if fmt == "json":
        click.echo(json.dumps(validate_document(result), indent=2))
    else:  # each diagnostic's message continues under its file:line
        emit(validate_lines(result))
    if not result.valid:
        click.get_current_context().exit(1)


@click.command("import", context_settings=CONTEXT)
@cluster_option()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for the new spec files (default: the repository's topics directory).",
)
@click.option(
    "--include",
    metavar="REGEX",
    help="Only topics whose name matches (Python re.search, bounded); with --access, only "
    "the bindings on them and their principals' (`reconciler help access`).",
)
@click.option(
    "--exclude", metavar="REGEX", help="Leave out topics (and with --access their bindings) "
    "whose name matches.",
)  # fmt: skip
@click.option(
    "--keep-assignments",
    is_flag=True,
    help="Write every imported topic's placement as `assignments`, even where Kafka chose it.",
)
@click.option(
    "--access",
    is_flag=True,
    help="Also write each topic's `access:` from the ACLs on it (DescribeAcls; needs an "
    "authorizer), where the table of `reconciler help access` says them exactly.",
)
@click.option(
    "--users",
    is_flag=True,
    help="Instead of topic files: print the cluster's SCRAM users as `users:` entries for "
    "reconciler.yaml, each password a ${RECONCILER_USER_NAME} variable to set.",
)
@click.option(
    "--quotas",
    is_flag=True,
    help="Instead of topic files: print the cluster's client quotas (within policy.manage) as "
    "`quotas:` entries for reconciler.yaml.",
)
@click.option(
    "--refresh",
    is_flag=True,
    help="Instead of new files: write the cluster's current values of drifted topics into the "
    "spec lines they come from (accepting drift as a reviewed change).",
)
@click.option(
    "--topic",
    "topics",
    metavar="REGEX",
    multiple=True,
    help="With --refresh: only topics whose name matches (Python re.search; repeatable).",
)
@format_option(("text", "json"))
@pass_ctx
def import_(
    ctx: Ctx,
    cluster: str | None,
    out: Path | None,
    include: str | None,
    exclude: str | None,
    keep_assignments: bool,
    access: bool,
    users: bool,
    quotas: bool,
    refresh: bool,
    topics: tuple[str, ...],
    fmt: str,
) -> None:
    """Write spec files for the topics a live cluster has, to adopt an existing cluster.

    One file per name prefix (payments.yaml for payments.*), topics sorted by name; each spec
    says the topic's partitions, replication factor and its own config overrides (never a
    broker or Kafka default; human units where exact, like 7d); placement is left to Kafka
    unless it looks placed by hand (one broker leading every partition, a partition on fewer
    racks than it could use) or --keep-assignments asks, and import names each topic that
    keeps its assignments. Topics a spec already names, internal
    and ignored topics are left out, and no existing file is overwritten. Afterwards the new
    specs are planned against the state just read: `plan` shows no changes for them.
    With --access, each topic's `access:` says who produces and consumes it, from the ACLs
    on it, when every one of them fits `help access`'s table (else the topic's ACLs are left
    unmanaged, and import says why). Changes nothing on the cluster. Exit 0 when the new specs
    are exact, 1 otherwise.

    With --users, writes no file: prints the SCRAM credentials the cluster has as `users:`
    entries to paste under the cluster in reconciler.yaml, each password a placeholder variable
    (Kafka never shows a secret): set it to the user's current password; the first plan says
    "secret not known to reconciler" and the first apply records its digest.

    With --quotas, writes no file: prints the client quotas the cluster has (the entities its
    policy.manage covers; all without it) as `quotas:` entries to paste under the cluster in
    reconciler.yaml; pasted, they plan no change.

    With --refresh, writes no new file: the cluster's current values of drifted topics go
    into the spec files they come from, editing only the lines that change (comments, order
    and units kept). A value from `defaults:`, a YAML anchor or a template is named with its
    file:line, not rewritten; missing and unmanaged topics are named and left. Exit 0 when
    every drifted value was written and plans to nothing, 1 otherwise.
    """
    from reconciler.render import import_report
    from reconciler.workflow.import_topics import import_topics

    if refresh:
        given = [o for o, v in (("--out", out), ("--include", include), ("--exclude", exclude),
                                ("--keep-assignments", keep_assignments),
                                ("--access", access)) if v]  # fmt: skip
        if given:
            raise ConfigError(
                f"import --refresh edits the specs that exist and takes no {' or '.join(given)} "
                "(those choose new files); scope it with --topic REGEX"
            )
    elif topics:
        raise ConfigError("--topic scopes import --refresh; a new import takes --include REGEX")
    if users and quotas:
        raise ConfigError("import prints either --users or --quotas: run it once for each")
    if (users or quotas) and (refresh or out or include or exclude or keep_assignments
                              or access or fmt != "text"):  # fmt: skip
        raise ConfigError(
            f"import {'--users' if users else '--quotas'} prints the "
            f"{'users:' if users else 'quotas:'} block alone: it takes none of --refresh, "
            "--out, --include, --exclude, --keep-assignments, --access, --format json"
        )
    cluster = chosen_cluster(ctx.context, cluster)
    show_progress(f"reading cluster '{cluster}'")
    if users or quotas:
        from reconciler.workflow import import_blocks

        what = "SCRAM users" if users else "client quotas"
        also = " and set each variable to the user's current password" if users else ""
        click.echo(f"# {what} of cluster {cluster}: paste under clusters.{cluster}: in "
                   f"reconciler.yaml{also}")  # fmt: skip
        printed = import_blocks.import_users if users else import_blocks.import_quotas
        click.echo(printed(ctx.context, cluster), nl=False)
        return
    if refresh:
        from reconciler.workflow.refresh import refresh as refresh_specs

        with Heartbeat(f"reading cluster '{cluster}'"):
            refreshed = refresh_specs(ctx.context, cluster, topics)
        if fmt == "json":
            click.echo(json.dumps(import_report.refresh_json(refreshed), indent=2))
            if not refreshed.complete:
                click.get_current_context().exit(1)
            return
        emit(import_report.refresh_lines(refreshed))
        failed = import_report.refresh_incomplete(refreshed)
        if failed is not None:
            raise ConfigError(failed)
        return
    with Heartbeat(f"reading cluster '{cluster}'"):
        run = import_topics(
            ctx.context, cluster, out, include, exclude, keep_assignments=keep_assignments,
            access=access,
        )  # fmt: skip
    if fmt == "json":
        root = ctx.context.repo.absolute()
        click.echo(json.dumps(import_report.import_json(run, cluster, root), indent=2))
        if run.inexact or run.problems:
            click.get_current_context().exit(1)
        return
    emit(import_report.import_lines(run, cluster))  # stderr's lines are not wrapped
    if not run.topics:
        return
    if run.problems or run.inexact:
        raise ConfigError(
            "the imported specs do not describe the cluster exactly (see above); edit them, "
            "or fix the topics on the cluster, then run `reconciler validate` and `plan`"
        )
    scoped = bool(ctx.context.cluster_config(cluster).policy.manage) if include else True
    chose_acls = (include is not None or exclude is not None) and any(
        not f.topics for f in run.files
    )
    emit(import_report.import_next_lines(cluster, include, scoped, chose_acls))


@click.command("compile", context_settings=CONTEXT)
@cluster_option("Cluster name from reconciler.yaml [default: its only cluster].")
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
    from reconciler.workflow.fleet import compile_desired

    if cluster is not None and all_clusters:
        raise ConfigError("compile takes --cluster NAME or --all-clusters, not both")
    if not all_clusters:
        cluster = chosen_cluster(ctx.context, cluster)
    check_dir(out, "--out")
    written, diagnostics = compile_desired(ctx.context, cluster, out)
    for diagnostic in diagnostics:
        click.echo(str(diagnostic), err=True)
    for done in written:
        click.echo(f"wrote {done.path}: {done.topics} topic(s) of cluster '{done.cluster}'")
