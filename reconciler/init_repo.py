"""`reconciler init`: the files of a new spec repository, and writing them without overwriting.

    reconciler.yaml                 one cluster, its bootstrap from --bootstrap (CI overrides it
                                    with $KAFKA_BOOTSTRAP), its cluster_id when the cluster
                                    answered, commented limits and policies
    topics/.gitkeep                 the empty topics directory (git keeps no empty directory)
    schemas/*.json                  the JSON Schemas, so the editor modeline works offline
    .github/workflows/reconciler-*.yml   the reusable workflows (copies of the package's)
    .github/workflows/{plan,apply,drift}.yml   their callers for this repository's cluster
    .github/reconciler-requirements.txt   the hash-locked dependencies of this reconciler
                                    version, which the workflows install with --require-hashes
    .gitignore                      the local cluster's state and saved plans

`scaffold()` computes the files (pure); `write_new()` writes them only when none exists yet, so
init never overwrites anything and never leaves half a repository behind because of a clash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reconciler import __version__
from reconciler.cluster import acls
from reconciler.errors import ConfigError
from reconciler.resources import SCHEMA_NAMES, scaffold_text, schema_text
from reconciler.spec.pin_cluster import pin_line
from reconciler.words import listing

DISTRIBUTION = "kafka-topic-reconciler"  # the name on the package index (pyproject.toml)
REUSABLE = ("reconciler-plan.yml", "reconciler-apply.yml", "reconciler-drift.yml")
CALLERS = ("plan.yml", "apply.yml", "drift.yml")
LOCK = ".github/reconciler-requirements.txt"  # the reusable workflows' default `lock` input
CLUSTER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # schemas/reconciler.schema.json
BOOTSTRAP = re.compile(r"^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$")

_CONFIG = """\
# yaml-language-server: $schema=schemas/reconciler.schema.json
# The spec repository's root: where topic files live and the clusters they apply to.
# Made by `reconciler init` (reconciler {version}); every field: `reconciler help spec`.
# `reconciler validate` checks this file and every topic file.
topics: topics/

clusters:
  {cluster}:
    # CI sets KAFKA_BOOTSTRAP (and KAFKA_USERNAME / KAFKA_PASSWORD) from the GitHub
    # environment's secrets; the default is what you gave `reconciler init --bootstrap`.
    bootstrap: "${{KAFKA_BOOTSTRAP:-{bootstrap}}}"
{pin}    # Extra librdkafka properties; ${{ENV}} is expanded and secrets are redacted in all output.
{client}    vars: {{}}                          # Jinja2 variables for topics/**/*.yaml.j2
    limits:
      max_broker_partitions: 4000     # partition replicas hosted per broker (KIP-578)
      max_partitions: 200000          # partitions in the whole cluster (KIP-578)
    policy:
      allow_delete: false             # deletes need this AND a tombstone (state: absent) or --prune
      max_deletes: 5                  # a plan deleting more is refused
{floor}
      max_partitions_per_topic: 1000
      ignore: ['^_', '^connect-']     # never touched, never reported as unmanaged
"""

_GITIGNORE = """\
# reconciler: the local cluster's state (`reconciler local up`) and saved plans
.reconciler/
plan-*.json
"""


_INIT_ADVICE = (
    "run init in an empty directory (or move those files away), or edit the existing ones by hand"
)


@dataclass(frozen=True, slots=True)
class NewFile:
    path: str  # relative to the new repository, with '/'
    text: str


_NO_CLIENT = """\
    client: {}
    # client:
    #   security.protocol: SASL_SSL
    #   sasl.mechanism: SCRAM-SHA-512
    #   sasl.username: "${KAFKA_USERNAME}"
    #   sasl.password: "${KAFKA_PASSWORD}"
"""


def client_block(client: Sequence[tuple[str, str]]) -> str:
    """reconciler.yaml's `client:` lines: the settings `init --client` was given, as given
    (`${VAR}` references stay references), else `{}` and a commented SASL example."""
    if not client:
        return _NO_CLIENT
    lines = ["    client:"]
    lines += [f"      {json.dumps(key)}: {json.dumps(value)}" for key, value in client]
    return "\n".join(lines) + "\n"


def client_pairs(given: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """`init --client KEY=VALUE` options as pairs; a ConfigError for one without `=`."""
    pairs = []
    for item in given:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"--client {item!r}: give KEY=VALUE, a librdkafka property as under client: in "
                "reconciler.yaml, e.g. --client security.protocol=SASL_SSL"
            )
        pairs.append((key.strip(), value))
    return tuple(pairs)


_PINNED = """\
    # The id its brokers reported to `reconciler init`: every command refuses another cluster.
    {line}
"""
_UNPINNED = """\
    # cluster_id: the id its brokers report; `reconciler import` writes it once they answer.
"""


# policy.min_replication_factor: never silently below what the cluster's topics have now
_FLOOR = """\
      # the smallest replication factor of the cluster's topics when init ran (their broker
      # default with none): creates and replication-factor changes below it are refused
      min_replication_factor: {factor}"""
_NO_FLOOR = """\
      # the cluster did not answer init, so its replication factors are unknown: set this to
      # the factor your topics need (3 on most production clusters); 1 refuses nothing
      min_replication_factor: 1"""


def scaffold(
    cluster: str,
    bootstrap: str,
    cluster_id: str | None = None,
    branch: str = "main",
    replication_factor: int | None = None,
    client: Sequence[tuple[str, str]] = (),
) -> tuple[NewFile, ...]:
    """The files of a new spec repository whose one cluster is `cluster` at `bootstrap`,
    pinned to `cluster_id` when the cluster answered, whose policy.min_replication_factor is
    the `replication_factor` its topics have now (workflow.current_replication_factor), and
    whose apply workflow applies what is merged to `branch`."""
    check_arguments(cluster, bootstrap)
    package = f"{DISTRIBUTION}=={__version__}"
    pin = _PINNED.format(line=pin_line(cluster_id)) if cluster_id is not None else _UNPINNED
    floor = (
        _FLOOR.format(factor=replication_factor) if replication_factor is not None else _NO_FLOOR
    )
    files = [
        NewFile(
            "reconciler.yaml",
            _CONFIG.format(
                version=__version__,
                cluster=cluster,
                bootstrap=bootstrap,
                pin=pin,
                floor=floor,
                client=client_block(client),
            ),
        ),
        NewFile("topics/.gitkeep", ""),
        NewFile(".gitignore", _GITIGNORE),
    ]
    files += [NewFile(f"schemas/{name}", schema_text(name)) for name in SCHEMA_NAMES]
    files += [
        NewFile(f".github/workflows/{name}", scaffold_text("workflows", name)) for name in REUSABLE
    ]
    # the dependencies of this version, hash-locked: what the workflows install (docs/workflows.md)
    files.append(NewFile(LOCK, scaffold_text("reconciler-requirements.txt")))
    for name in CALLERS:
        template = scaffold_text("workflows", name)
        text = template.replace("{{ cluster }}", cluster).replace("{{ package }}", package)
        text = text.replace("{{ branch }}", branch)
        files.append(NewFile(f".github/workflows/{name}", text))
    return tuple(files)


def check_arguments(cluster: str, bootstrap: str) -> None:
    """init's --cluster and --bootstrap, checked before anything is asked of the cluster."""
    if not CLUSTER_NAME.match(cluster):
        raise ConfigError(
            f"--cluster {cluster!r}: a cluster name is letters, digits, '.', '_' and '-', "
            "starting with a letter or digit (e.g. prod)"
        )
    if not BOOTSTRAP.match(bootstrap):
        raise ConfigError(
            f"--bootstrap {bootstrap!r}: give HOST:PORT[,HOST:PORT...], e.g. "
            "kafka-1.example.com:9092"
        )


def next_steps(cluster: str, bootstrap: str, branch: str, how: str) -> list[str]:
    """What to do after init, the things only a person can do: the GitHub environments the
    workflows name and their secrets, the branch apply.yml watches, and the ACLs of the plan
    and apply principals (the table of `reconciler help security`) as `kafka-acls` commands."""
    secrets = "secrets KAFKA_BOOTSTRAP, KAFKA_USERNAME, KAFKA_PASSWORD"
    plan, apply = "User:reconciler-plan", "User:reconciler-apply"
    return [
        f"Push to branch '{branch}': apply.yml applies what is merged there ({how}).",
        "  On each merged pull request it applies the plan that pull request's check made, and "
        "fails with a fresh plan as a comment when that plan is stale; a direct push applies "
        "nothing (Actions > apply > Run workflow plans again and applies).",
        "Create the GitHub environments the workflows name (Settings > Environments):",
        f"  {cluster}-plan  the READ-ONLY principal, for plan on pull requests and drift; "
        f"{secrets}",
        f"  {cluster}       the principal that may change the cluster, for apply; {secrets}; "
        f"allow only branch '{branch}' to deploy",
        "Grant the principals their ACLs (User:reconciler-plan and User:reconciler-apply "
        "stand for yours):",
        *(f"  {line}" for line in acls.commands(bootstrap, plan, "plan")),
        *(f"  {line}" for line in acls.commands(bootstrap, apply, "apply")),
        "  once policy.allow_delete is true, for apply also:",
        *(f"    {line}" for line in acls.commands(bootstrap, apply, "delete")),
        "apply takes its lock by creating the topic _reconciler_lock (deleted again when it is "
        "done), and on its first run creates the topic _reconciler_audit, whose records (one "
        "per apply) are kept forever (retention.ms -1).",
        "Require a code owner's review of what decides what applies: reconciler.yaml holds "
        "each cluster's policy (its gates) and .github/ the workflows that hold the cluster's "
        "credentials. A CODEOWNERS file in .github/ such as:",
        "  /reconciler.yaml  @your-org/kafka-platform",
        "  /.github/         @your-org/kafka-platform",
        f"  with branch protection on '{branch}' requiring code owners' review (Settings > "
        "Branches).",
        "Every page of the documentation: `reconciler help` (the workflows: `reconciler help "
        "workflows`; the ACLs: `reconciler help security`).",
    ]


def write_new(
    root: Path, files: tuple[NewFile, ...], advice: str = _INIT_ADVICE
) -> tuple[Path, ...]:
    """Write `files` under `root`, creating directories; refuse, writing nothing, if any exists
    (`advice` then says what to do).

    .gitignore is the exception: an existing one is left as it is (it is not ours to change).
    """
    targets = [(root / f.path, f) for f in files]
    clashes = [
        f.path
        for path, f in targets
        if (path.exists() or path.is_symlink()) and f.path != ".gitignore"
    ]
    if clashes:
        raise ConfigError(
            f"{root} already has {listing(clashes)}; reconciler never overwrites files: {advice}"
        )
    written: list[Path] = []
    try:
        for path, new in targets:
            if path.exists():
                continue  # an existing .gitignore
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("x", encoding="utf-8") as handle:  # "x": never replace a file
                handle.write(new.text)
            written.append(path)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {exc.filename}: {exc.strerror}; {len(written)} file(s) were written "
            "before it (none was overwritten)"
        ) from exc
    return tuple(written)
