"""A cluster's `users:` in reconciler.yaml: SCRAM credentials as code (`reconciler help access`).

Each entry is one SCRAM credential Kafka keeps for a user: its name, mechanism (SCRAM-SHA-256
or SCRAM-SHA-512; a user with both is listed once per mechanism) and iteration count. The
password is never in the repository: `password:` is exactly one `${VAR}` reference, and the
model keeps the variable's name only, so no repr, log line or output of the spec can hold the
secret. Its value is read from the environment when it is needed (the plan's digest check,
apply's upsertion: planning/scram_secrets.py), and an unset variable is R502 like any other.

The rules (R812, R813): a password that is not one bare reference (a literal secret, a
default `${VAR:-x}` that writes a secret in the file, text around the reference), and a
credential (name and mechanism) listed twice. The messages never quote the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reconciler.diagnostics import Diagnostic, Location, Severity
from reconciler.spec import r_codes, yaml_writer
from reconciler.spec.yaml_reader import JsonPath, YamlDocument

MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
DEFAULT_MECHANISM = "SCRAM-SHA-512"
# Kafka's bounds for both mechanisms (ScramMechanism: 4096 to 16384); the schema holds them too
MIN_ITERATIONS, MAX_ITERATIONS = 4096, 16384
_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class ScramUser:
    """One SCRAM credential as the spec declares it; `variable` names where its secret is."""

    name: str
    mechanism: str
    iterations: int
    variable: str
    location: Location | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple[str, str]:
        """(user, mechanism): what Kafka keeps one credential under."""
        return (self.name, self.mechanism)


def read_users(
    doc: YamlDocument,
    path: JsonPath,
    value: object,
    cluster: str,
    env: Mapping[str, str],
    unset: Severity,
) -> tuple[tuple[ScramUser, ...] | None, list[Diagnostic]]:
    """The cluster's `users:` at `path`, None when absent (no credential is then read or
    changed), with the problems found. `env`: the environment its settings are checked
    against (every name set when the cluster's settings are not read)."""
    if not isinstance(value, list):
        return None, []
    found: list[Diagnostic] = []
    users: list[ScramUser] = []
    first: dict[tuple[str, str], Location] = {}
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            continue
        at: JsonPath = (*path, index)
        name, password = item.get("name"), item.get("password")
        if not isinstance(name, str) or not name or not isinstance(password, str):
            continue  # the schema said so (R70x)
        mechanism = item.get("mechanism", DEFAULT_MECHANISM)
        iterations = item.get("iterations", MIN_ITERATIONS)
        if mechanism not in MECHANISMS or not isinstance(iterations, int):
            continue  # the schema said so
        reference = _REFERENCE.fullmatch(password.strip())
        where = doc.value_at((*at, "password"))
        if reference is None:
            found.append(
                r_codes.USER_PASSWORD_NOT_VARIABLE(
                    f"password of user {name} of cluster {cluster} is not one ${{VAR}} "
                    "reference (its value is not shown): reconciler.yaml lives in git, so write "
                    f'`password: "${{{_suggested(name)}}}"` and set that variable where '
                    "plan and apply run (a default, ${VAR:-...}, would write the secret here)",
                    where,
                )
            )
            continue
        variable = reference.group("name")
        if not env.get(variable):
            tail = (
                ""
                if unset is Severity.ERROR
                else (f"; commands for cluster {cluster} fail until it is set where they run")
            )
            found.append(
                r_codes.UNDEFINED_ENV_VAR(
                    f"environment variable {variable} (the password of user {name}) is not set "
                    f"or empty: set it where plan and apply run{tail}",
                    where,
                    severity=unset,
                )
            )
        user = ScramUser(name, mechanism, iterations, variable, doc.value_at(at))
        if user.key in first:
            found.append(
                r_codes.DUPLICATE_USER(
                    f"user {name} ({mechanism}) of cluster {cluster} is listed twice (first at "
                    f"{first[user.key]}): a user has one credential per mechanism; remove one",
                    doc.value_at(at),
                )
            )
            continue
        first[user.key] = doc.value_at(at)
        users.append(user)
    return tuple(users), found


def _suggested(name: str) -> str:
    """The variable name import writes for a user: RECONCILER_USER_ and the name in capitals,
    every character outside [A-Z0-9] an underscore."""
    return "RECONCILER_USER_" + re.sub(r"[^A-Z0-9]", "_", name.upper())


placeholder = _suggested


def users_block(credentials: Sequence[tuple[str, str, int]]) -> str:
    """`import --users`: the `users:` entries of these (user, mechanism, iterations), each
    password a placeholder variable (`placeholder`; a second user whose name maps to the same
    variable gets `_2`, ...): the secrets are Kafka's and never readable."""
    variables: dict[str, str] = {}
    taken: set[str] = set()
    entries = []
    for name, mechanism, iterations in sorted(credentials):
        if name not in variables:
            base, number = placeholder(name), 1
            variable = base
            while variable in taken:
                number += 1
                variable = f"{base}_{number}"
            variables[name] = variable
            taken.add(variable)
        entry: dict[str, object] = {"name": name}
        if mechanism != DEFAULT_MECHANISM:
            entry["mechanism"] = mechanism
        if iterations != MIN_ITERATIONS:
            entry["iterations"] = iterations
        entry["password"] = f"${{{variables[name]}}}"
        entries.append(entry)
    return yaml_writer.dump({"users": entries})
