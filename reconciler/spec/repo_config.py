"""reconciler.yaml: where topic files live and the clusters they apply to.

Loading steps: read the file safely (source.py, yaml_reader.py), check it against
schemas/reconciler.schema.json, then the semantic rules a schema cannot express: the topics
directory stays inside the repository, `${VAR}` / `${VAR:-default}` references in `bootstrap`
and `client` values resolve (a variable neither set nor defaulted is an error), and the
`name_pattern` / `ignore` regular expressions compile. Only the clusters a command is for have
their `bootstrap` and `client` read and expanded (settings_scope.py), and only theirs are
checked for secrets written literally (literal_secrets.py, R509) or sent in clear
(secret_in_clear.py, R510). Cluster names are keys of one mapping,
so a cluster defined twice is the duplicate-key error of the YAML loader.

The result is built even when some parts are wrong (a bad part falls back to its default), so
topic files are still checked against the cluster names and `vars` that are known; the
diagnostics say what was wrong, and any error makes the repository invalid.

Client properties may hold secrets (`${KAFKA_PASSWORD}` expanded): reconciler.redaction hides
their values in any output.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler import patterns, redaction
from reconciler.diagnostics import Diagnostic, Location, Severity
from reconciler.errors import ConfigError
from reconciler.spec import r_codes, schema
from reconciler.spec.literal_secrets import literal_secret
from reconciler.spec.model import Acknowledgment, ClusterConfig, Limits, Policy, RepoConfig
from reconciler.spec.quotas import read_quotas
from reconciler.spec.scram_users import read_users
from reconciler.spec.secret_in_clear import secret_in_clear
from reconciler.spec.settings_scope import EVERY, Settings, Unread
from reconciler.spec.source import read_source, real_path
from reconciler.spec.spec_files import SpecFiles
from reconciler.spec.units import UnitError, parse_duration_ms
from reconciler.spec.yaml_reader import JsonPath, YamlDocument, parse_yaml
from reconciler.spec.yaml_scalars import shown_integer

REPO_CONFIG = "reconciler.yaml"
DEFAULT_TOPICS_DIR = "topics/"
REDACTED = "***"
_LONG_MAX = 2**63 - 1

# An optional security-protocol prefix (librdkafka accepts one), a host, a port.
_SERVER = re.compile(
    r"(?:(?:PLAINTEXT|SSL|SASL_PLAINTEXT|SASL_SSL)://)?(?P<host>\[[^\]]*\]|[^:\[\]]+):"
    r"(?P<port>[0-9]+)"
)
_HOST = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)(?:\.(?!-)[A-Za-z0-9_-]{1,63}(?<!-))*\.?")
_REFERENCE = re.compile(r"\$\{(?P<body>[^}]*)(?P<close>\}?)")
_VARIABLE = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>.*))?", re.DOTALL)


def is_secret(key: str) -> bool:
    """Whether a client property's value must never be shown (reconciler.redaction's rule)."""
    return redaction.is_secret(key)


def expand_env(text: str, env: Mapping[str, str], shown: bool = True) -> tuple[str, list[str]]:
    """`text` with `${VAR}` and `${VAR:-default}` replaced, and the problems found.

    As in a POSIX shell, `${VAR:-default}` uses the default when VAR is unset or empty. A
    default cannot contain '}' or '${': a nested reference (`${X:-${Y}}`) is an error, not
    text. There is no escape for a literal '${'. `shown=False` (a secret's value): the problems
    quote no text of the value, only variable names.
    """
    problems: list[str] = []

    def substitute(match: re.Match[str]) -> str:
        body, closed = match.group("body"), match.group("close")
        if not closed:
            quoted = f"'${{{body}'" if shown else "a '${'"
            problems.append(f"{quoted} is not closed: write ${{NAME}} or ${{NAME:-default}}")
            return match.group(0)
        variable = _VARIABLE.fullmatch(body)
        if variable is None:
            quoted = f"'${{{body}}}'" if shown else "a '${...}' (not shown: the value is a secret)"
            problems.append(
                f"{quoted} is not a variable reference: write ${{NAME}} or "
                "${NAME:-default}, NAME made of letters, digits and '_'"
            )
            return match.group(0)
        name, default = variable.group("name"), variable.group("default")
        if default is not None and "${" in default:
            # `${X:-${Y}}` would otherwise read as default '${Y' plus a literal '}'.
            quoted = f"'{match.group(0)}}}'" if shown else f"the default of ${{{name}:-...}}"
            problems.append(
                f"{quoted} nests a reference in a default, which is not supported: "
                f"write a literal default (${{{name}:-host:9092}}), or set {name}"
            )
            return match.group(0)
        value = env.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value is None:
            problems.append(
                f"environment variable {name} is not set and '${{{name}}}' has no default: "
                f"set it, or write ${{{name}:-default}}"
            )
        return ""

    return _REFERENCE.sub(substitute, text), problems


def load_repo_config(
    root: Path,
    env: Mapping[str, str],
    settings: Settings = EVERY,
    files: SpecFiles | None = None,
) -> tuple[RepoConfig | None, list[Diagnostic]]:
    """reconciler.yaml of the repository at `root`; None only when it is missing or unreadable.
    `settings`: the clusters whose `bootstrap` and `client:` are read and expanded; `files`:
    the command's reads (spec_files.py)."""
    root = root.absolute()
    path = root / REPO_CONFIG
    start = Location(REPO_CONFIG, 1, 1)
    if not os.path.lexists(path):  # a dangling symlink is read_source's to report
        return None, [
            r_codes.MISSING_REPO_CONFIG(
                f"no {REPO_CONFIG} in {root}: a spec repository starts with one (see "
                "`reconciler help spec`); create it, or pass --repo DIR",
                start,
            )
        ]
    source, found = read_source(path, root, files)
    if source is None:
        return None, found
    doc, problems = parse_yaml(source.text, REPO_CONFIG)
    found += problems
    if doc is None:
        return None, found
    if doc.data is None:
        found.append(
            r_codes.MISSING_REPO_CONFIG(
                f"{REPO_CONFIG} is empty: it must define at least one cluster under clusters:",
                start,
            )
        )
        return None, found
    found += schema.validate(doc, schema.REPO_SCHEMA)
    if not isinstance(doc.data, dict):
        return None, found
    topics_dir, problems = _topics_dir(doc, root)
    found += problems
    clusters: dict[str, ClusterConfig] = {}
    raw_clusters = doc.data.get("clusters")
    if isinstance(raw_clusters, dict):
        for name, raw in raw_clusters.items():
            if isinstance(raw, dict):
                clusters[name], problems = _cluster(doc, ("clusters", name), raw, env, settings)
                found += problems
    return RepoConfig(root=root, topics_dir=topics_dir, clusters=clusters, location=start), found


def _topics_dir(doc: YamlDocument, root: Path) -> tuple[Path, list[Diagnostic]]:
    value = doc.data.get("topics", DEFAULT_TOPICS_DIR)
    if not isinstance(value, str) or not value:
        return root / DEFAULT_TOPICS_DIR, []  # the schema error says why
    at = doc.value_at(("topics",))
    if "\x00" in value:  # no path can hold one (and os functions raise ValueError)
        return root / DEFAULT_TOPICS_DIR, [
            r_codes.INVALID_TOPICS_DIR(
                f"topics: {value!r} contains a NUL character, which no path can hold: fix the path",
                at,
            )
        ]
    # Kept unresolved, so diagnostics show paths as the user sees them (not via symlinks).
    directory = Path(os.path.normpath(root / value))
    if not real_path(directory).is_relative_to(real_path(root)):
        return directory, [
            r_codes.INVALID_TOPICS_DIR(
                f"topics: '{value}' leads outside the repository ({real_path(directory)}); "
                "topic files must live in it",
                at,
            )
        ]
    try:
        is_dir = stat.S_ISDIR(os.stat(directory).st_mode)
    except FileNotFoundError:
        is_dir = False
    except OSError as exc:  # no search permission on a parent, a loop: not a silent "no topics"
        return directory, [
            r_codes.INVALID_TOPICS_DIR(
                f"topics: '{value}' cannot be examined ({exc.strerror}): give the reconciler's "
                "user read and search permission on it",
                at,
            )
        ]
    if not is_dir:
        return directory, [
            r_codes.INVALID_TOPICS_DIR(
                f"topics: '{value}' is not a directory of this repository: create it or fix "
                "the path",
                at,
            )
        ]
    return directory, []


def _cluster(
    doc: YamlDocument,
    path: JsonPath,
    raw: dict[str, Any],
    env: Mapping[str, str],
    settings: Settings,
) -> tuple[ClusterConfig, list[Diagnostic]]:
    name = str(path[-1])
    read = settings.reads(name)
    # Another cluster's references are checked for their syntax alone: its variables are
    # never looked up (a CI job holds only its own environment's secrets)
    values: Mapping[str, str] = env if read else Unread()
    found: list[Diagnostic] = []
    bootstrap = ""
    raw_bootstrap = raw.get("bootstrap")
    if isinstance(raw_bootstrap, str):
        at = doc.value_at((*path, "bootstrap"))
        expanded, problems = _expanded(raw_bootstrap, values, at, name, settings.unset)
        found += problems
        if not read and "${" in raw_bootstrap:
            expanded = None  # the environment's value: checked by the commands for this cluster
        bootstrap = (expanded or "").strip()
        if expanded is not None and not bootstrap:
            found.append(
                r_codes.EMPTY_BOOTSTRAP(
                    f"bootstrap of cluster {name} is empty once environment variables are "
                    "expanded: set the variable, or give a default with ${NAME:-host:port}",
                    at,
                )
            )
        elif bootstrap:
            problem = bootstrap_problem(bootstrap)
            if problem is not None:
                found.append(
                    r_codes.INVALID_BOOTSTRAP(
                        f"bootstrap of cluster {name}: {problem}; write a comma-separated list "
                        "of host:port (port 1-65535, an IPv6 address in brackets: [::1]:9092)",
                        at,
                    )
                )
    client: list[tuple[str, str]] = []
    raw_client = raw.get("client")
    for key, value in raw_client.items() if isinstance(raw_client, dict) else ():
        at = doc.value_at((*path, "client", key))
        if isinstance(value, str):
            expanded, problems = _expanded(
                value, values, at, name, settings.unset, shown=not is_secret(key)
            )
            found += problems
            client.append((key, expanded or ""))
            written, unset = expand_env(value, {}, shown=False)  # what the file itself holds
            if read and all("is not set" in problem for problem in unset):
                found += _literal(name, key, value, written, at)
        elif isinstance(value, bool):
            client.append((key, "true" if value else "false"))
        elif isinstance(value, int | float):
            client.append((key, str(value)))
            if read:
                found += _literal(name, key, str(value), str(value), at)
    if read and bootstrap:
        at = doc.value_at((*path, "client", "security.protocol"))
        if not isinstance(raw_client, dict) or "security.protocol" not in raw_client:
            at = doc.value_at((*path, "bootstrap"))
        found += _listed(secret_in_clear(name, bootstrap, dict(client), at))
    variables = raw.get("vars")
    policy, problems = _policy(doc, (*path, "policy"), raw.get("policy"))
    found += problems
    found += _counts_in_range(doc, path, raw)
    quotas, problems = read_quotas(doc, (*path, "quotas"), raw.get("quotas"), name)
    found += problems
    users, problems = read_users(
        doc, (*path, "users"), raw.get("users"), name, values, settings.unset
    )
    found += problems
    cluster = ClusterConfig(
        name=name,
        bootstrap=bootstrap if read else "",
        client=tuple(sorted(client)) if read else (),
        vars=dict(variables) if isinstance(variables, dict) else {},
        limits=_limits(raw.get("limits")),
        policy=policy,
        cluster_id=raw["cluster_id"] if isinstance(raw.get("cluster_id"), str) else None,
        location=doc.key_at(path),
        confirm="name" if raw.get("confirm") == "name" else "yes",  # the schema allows these
        settings_read=read,
        quotas=quotas,
        users=users,
    )
    return cluster, found


def _literal(cluster: str, key: str, raw: str, written: str, at: Location) -> list[Diagnostic]:
    return _listed(literal_secret(cluster, key, raw, written, at))


def _listed(diagnostic: Diagnostic | None) -> list[Diagnostic]:
    return [] if diagnostic is None else [diagnostic]


def bootstrap_problem(bootstrap: str) -> str | None:
    """Why an expanded bootstrap is not a comma list of host:port, or None when it is one."""
    for item in bootstrap.split(","):
        server = item.strip()
        shown = _shown_server(server)
        match = _SERVER.fullmatch(server)
        if match is None:
            if not server:
                return "an entry is empty (a stray comma?)"
            if server.count(":") > 1 and not server.startswith("["):
                return f"{shown} looks like an IPv6 address without brackets"
            return f"{shown} is not host:port"
        host, port = match.group("host"), match.group("port")
        if host.startswith("["):
            try:
                ipaddress.IPv6Address(host[1:-1].split("%")[0])
            except ValueError:
                return f"{shown} has no valid IPv6 address in its brackets"
        elif not _HOST.fullmatch(host):
            return f"{shown} has no valid host name"
        if len(port) > 5 or not 1 <= int(port) <= 65535:
            return f"{shown} has port {port if len(port) <= 10 else port[:10] + '...'}, not 1-65535"
    return None


def _shown_server(server: str) -> str:
    return repr(server) if len(server) <= 60 else repr(server[:57] + "...")


def _expanded(
    value: str,
    env: Mapping[str, str],
    at: Location,
    cluster: str,
    unset: Severity,
    shown: bool = True,
) -> tuple[str | None, list[Diagnostic]]:
    """The expanded value, or None when a reference is wrong (and why). An unset variable is
    an `unset` diagnostic: a warning naming the cluster when every cluster is read."""
    text, problems = expand_env(value, env, shown)
    found = []
    for problem in problems:
        if "is not set" not in problem:
            found.append(r_codes.INVALID_ENV_REFERENCE(problem, at))
            continue
        # Every cluster read (validate): which one's commands fail, so the job for it is known
        tail = (
            ""
            if unset is Severity.ERROR
            else (f"; commands for cluster {cluster} fail until it is set where they run")
        )
        found.append(r_codes.UNDEFINED_ENV_VAR(problem + tail, at, severity=unset))
    return (None if problems else text), found


def _counts_in_range(doc: YamlDocument, path: JsonPath, raw: dict[str, Any]) -> list[Diagnostic]:
    """Limits and policy counts are compared with Kafka's numbers, which are Java longs at
    most: a larger one is a mistake, not "unlimited" (the schema gives only the minimum)."""
    found: list[Diagnostic] = []
    for section in ("limits", "policy"):
        entries = raw.get(section)
        for key, value in entries.items() if isinstance(entries, dict) else ():
            if isinstance(value, int) and not isinstance(value, bool) and value > _LONG_MAX:
                found.append(
                    r_codes.SCHEMA_CONSTRAINT(
                        f"clusters.{path[-1]}.{section}.{key}: must be at most {_LONG_MAX} "
                        f"(a Java long); got {shown_integer(value)}",
                        doc.value_at((*path, section, key)),
                    )
                )
    return found


def _count(value: object, minimum: int) -> int | None:
    """An integer the schema accepts (bool is not one), or None."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= _LONG_MAX:
        return None
    return value


def _limits(raw: object) -> Limits:
    if not isinstance(raw, dict):
        return Limits()
    return Limits(
        max_broker_partitions=_count(raw.get("max_broker_partitions"), 1),
        max_partitions=_count(raw.get("max_partitions"), 1),
    )


def _policy(doc: YamlDocument, path: JsonPath, raw: object) -> tuple[Policy, list[Diagnostic]]:
    if not isinstance(raw, dict):
        return Policy(), []
    default = Policy()
    found: list[Diagnostic] = []
    pattern_at: list[tuple[str, Location]] = []
    pattern = raw.get("name_pattern")
    if isinstance(pattern, str):
        problem = _regex_problem(pattern, doc.value_at((*path, "name_pattern")))
        if problem is not None:
            found.append(problem)
            pattern = None
        else:
            pattern_at.append((pattern, doc.value_at((*path, "name_pattern"))))
    ignore = default.ignore
    if isinstance(raw.get("ignore"), list):
        kept = []
        for i, item in enumerate(raw["ignore"]):
            if isinstance(item, str):
                problem = _regex_problem(item, doc.value_at((*path, "ignore", i)))
                if problem is None:
                    kept.append(item)
                    pattern_at.append((item, doc.value_at((*path, "ignore", i))))
                else:
                    found.append(problem)
        ignore = tuple(kept)
    manage: list[str] = []  # the ownership scope: checked as the ignore patterns are
    raw_manage = raw.get("manage")
    for i, item in enumerate(raw_manage if isinstance(raw_manage, list) else []):
        if isinstance(item, str):
            problem = _regex_problem(item, doc.value_at((*path, "manage", i)))
            if problem is None:
                manage.append(item)
            else:
                found.append(problem)
    system: list[str] = []  # more system topics (planning/system_topics.py): checked likewise
    raw_system = raw.get("system_topics")
    for i, item in enumerate(raw_system if isinstance(raw_system, list) else []):
        if isinstance(item, str):
            problem = _regex_problem(item, doc.value_at((*path, "system_topics", i)))
            if problem is None:
                system.append(item)
                pattern_at.append((item, doc.value_at((*path, "system_topics", i))))
            else:
                found.append(problem)
    allow_delete = raw.get("allow_delete")
    max_deletes = _count(raw.get("max_deletes"), 0)
    min_rf = _count(raw.get("min_replication_factor"), 1)
    idle = _idle(raw.get("idle_before_delete"), doc.value_at((*path, "idle_before_delete")), found)
    policy = Policy(
        allow_delete=allow_delete if isinstance(allow_delete, bool) else default.allow_delete,
        max_deletes=max_deletes if max_deletes is not None else default.max_deletes,
        min_replication_factor=min_rf if min_rf is not None else default.min_replication_factor,
        max_partitions_per_topic=_count(raw.get("max_partitions_per_topic"), 1),
        name_pattern=pattern if isinstance(pattern, str) else None,
        ignore=ignore,
        manage=tuple(manage),
        system_topics=tuple(system),
        idle_before_delete_ms=idle if idle is not None else default.idle_before_delete_ms,
        severity=_severity(raw.get("severity")),
        acknowledge=_policy_approvals(doc, path, raw.get("acknowledge")),
        pattern_at=tuple(pattern_at),
    )
    return policy, found


def _policy_approvals(doc: YamlDocument, path: JsonPath, raw: object) -> tuple[Acknowledgment, ...]:
    """`policy.acknowledge:` items the schema accepted: `{policy_gate_off: {key, from, to}}`."""
    found = []
    for i, item in enumerate(raw if isinstance(raw, list) else []):
        if (
            isinstance(item, dict)
            and len(item) == 1
            and isinstance(next(iter(item.values())), dict)
        ):
            at = doc.value_at((*path, "acknowledge", i))
            found.append(dataclasses.replace(Acknowledgment.of(item), location=at))
    return tuple(found)


def _idle(raw: object, at: Location, found: list[Diagnostic]) -> int | None:
    """`policy.idle_before_delete` in milliseconds (a duration: 7d, 36h; or milliseconds);
    None when absent or not a duration (then an error is added to `found`)."""
    if raw is None:
        return None
    try:
        millis = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
        millis = millis if millis is not None else parse_duration_ms(str(raw))
    except UnitError as exc:
        millis = None
        why = str(exc)
    else:
        why = "it must be positive"
    if millis is None or millis <= 0:
        found.append(
            r_codes.SCHEMA_CONSTRAINT(
                f"policy.idle_before_delete {raw!r} is not a duration ({why}); write one such "
                "as 7d, 36h or 90m (a record newer than it makes a delete in_use)",
                at,
            )
        )
        return None
    return millis


def _severity(raw: object) -> tuple[tuple[str, str], ...]:
    """`policy.severity` as sorted (name, level) pairs; unknown names and levels are left to the
    schema's error. false means off too: YAML 1.1 tools, and files written for them, read an
    unquoted `off` as false (this reader, YAML 1.2, reads the text "off" and warns: R015)."""
    if not isinstance(raw, dict):
        return ()
    levels = []
    for name, value in raw.items():
        level = "off" if value is False else value
        if isinstance(name, str) and level in ("error", "warning", "off"):
            levels.append((name, level))
    return tuple(sorted(levels))


def _regex_problem(pattern: str, at: Location) -> Diagnostic | None:
    """Why `pattern` is not a regular expression user patterns compile (reconciler/patterns.py,
    Python's syntax); None when it is one."""
    why = patterns.problem(pattern)
    if why is not None:
        return r_codes.INVALID_REGEX(
            f"'{pattern}' is not a valid regular expression ({why}); fix it (Python syntax)", at
        )
    return None


def select_cluster(config: RepoConfig, cluster: str) -> ClusterConfig:
    """The named cluster of reconciler.yaml; a ConfigError listing the known ones if absent."""
    if cluster not in config.clusters:
        known = ", ".join(sorted(config.clusters)) or "none"
        raise ConfigError(
            f"unknown cluster '{cluster}': reconciler.yaml defines {known}; pass one of them "
            "with --cluster"
        )
    return config.clusters[cluster]
