"""The exceptions of reconciler a user can see, all under one root, each with its exit code.

    ReconcilerError             exit 1  anything the user can act on; never shown with a traceback
    ├── ConfigError             exit 1  reconciler.yaml or a CLI argument is wrong
    ├── InvalidSpecs            exit 1  the spec files have errors (carries the diagnostics)
    ├── InvalidConfigValue      exit 1  a topic config value Kafka would refuse (also ValueError)
    ├── EnvironmentProblem      exit 1  a tool the command needs (java, mvn) is missing or too old
    ├── LocalClusterError       exit 1  the local KRaft cluster could not be fetched, started or
    │                                   stopped
    ├── ClusterError            exit 1  talking to a Kafka cluster failed (unreachable, timeout,
    │   │                               refused)
    │   ├── WrongCluster        exit 1  the brokers report another cluster id than the pinned one
    │   ├── Refused             exit 1  Kafka refused the principal a request (an ACL it lacks)
    │   └── CannotAnswer        exit 1  the cluster cannot answer a read at all (too old, no
    │                                   authorizer): a snapshot records `why` and goes on
    ├── ApplyRefused            exit 1  apply's pre-flight refused the plan; nothing was changed
    │   ├── StalePlan           exit 1  the cluster changed since the saved plan was made
    │   └── PlanMismatch        exit 1  the saved plan is not the plan the specs give now (edited
    │                                   after review, or specs or cluster changed)
    ├── LockHeld                exit 1  another apply holds the cluster's lock
    └── Interrupted       exit 130/143  SIGINT/SIGTERM stopped an apply before its first change

Validation problems in spec files are not exceptions: they are collected as `Diagnostic`
values (reconciler.diagnostics) so that every problem is reported in one run. Only the CLI's
top level catches `ReconcilerError`, prints its message and exits with its `exit_code`.
"""

from __future__ import annotations

from reconciler.diagnostics import Diagnostic


class ReconcilerError(Exception):
    """Root of every error the CLI turns into a message and an exit code."""

    exit_code = 1


class ConfigError(ReconcilerError):
    """reconciler.yaml, an environment variable or a command-line argument is wrong."""


class InvalidSpecs(ReconcilerError):
    """The spec files have error diagnostics; nothing was read from or sent to any cluster."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        errors = sum(1 for d in diagnostics if d.is_error)
        super().__init__(
            f"{errors} error(s) in the spec files; fix them (see `reconciler validate`) and retry"
        )
        self.diagnostics = diagnostics


class InvalidConfigValue(ReconcilerError, ValueError):
    """A topic config value (or key) Kafka would not accept; the message says what is.

    Validation turns it into a diagnostic; one that escapes to the CLI is still a message.
    """

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


class EnvironmentProblem(ReconcilerError):
    """A program the command needs is missing or too old; the message says what to install."""


class LocalClusterError(ReconcilerError):
    """The local KRaft cluster could not be assembled, formatted, started or stopped."""


class ClusterError(ReconcilerError):
    """A Kafka cluster could not be reached or refused a request."""


class Refused(ClusterError):
    """Kafka refused this principal the request: an ACL it lacks, named by the sentence;
    `why` says so in a phrase (`reconciler snapshot` records it for a part it could not read)."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


class CannotAnswer(ClusterError):
    """The cluster cannot answer a read whatever the principal (its brokers are too old for the
    request, or run no authorizer): fatal for a plan that needs the answer; `reconciler
    snapshot` records `why` (a phrase) as the reason that part was not read."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


class WrongCluster(ClusterError):
    """The brokers report a cluster id other than the one reconciler.yaml pins: nothing further
    was read from or sent to them."""


class ApplyRefused(ReconcilerError):
    """Apply's pre-flight refused the plan (another cluster's, errors, unacknowledged hazards,
    Kafka's validate_only); nothing was changed on the cluster."""


class StalePlan(ApplyRefused):
    """The cluster changed since the saved plan was made, beyond the plan's own work."""


class PlanMismatch(ApplyRefused):
    """A saved plan's remaining work differs from the plan derived again at apply from the specs
    and the cluster (apply.verify), or a change's depends_on topic is gone."""


class LockHeld(ReconcilerError):
    """Another apply holds the cluster's lock (or took it again each time it was broken)."""


class Interrupted(ReconcilerError):
    """A signal stopped an apply before its first change (apply/stopping.py); exit 128 + the
    signal's number, as a shell reports a process the signal ended."""

    def __init__(self, message: str, signal_number: int) -> None:
        super().__init__(message)
        self.exit_code = 128 + signal_number
