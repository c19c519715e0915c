"""The few exceptions of reconciler, all under one root.

    ReconcilerError (exit 1)    anything the user can act on; never shown with a traceback
    ├── ConfigError             reconciler.yaml or a CLI argument is wrong
    ├── EnvironmentProblem      a tool the command needs (java, mvn) is missing or too old
    ├── LocalClusterError       the local KRaft cluster could not be fetched, started or stopped
    ├── ClusterError            talking to a Kafka cluster failed (unreachable, timeout, refused)
    └── NotBuiltYet             a planned command that does not exist yet

Validation problems in spec files are not exceptions: they are collected as `Diagnostic`
values (reconciler.diagnostics) so that every problem is reported in one run. Only the CLI's
top level catches `ReconcilerError`, prints its message and exits with its `exit_code`.
"""

from __future__ import annotations


class ReconcilerError(Exception):
    """Root of every error the CLI turns into a message and an exit code."""

    exit_code = 1


class ConfigError(ReconcilerError):
    """reconciler.yaml, an environment variable or a command-line argument is wrong."""


class EnvironmentProblem(ReconcilerError):
    """A program the command needs is missing or too old; the message says what to install."""


class LocalClusterError(ReconcilerError):
    """The local KRaft cluster could not be assembled, formatted, started or stopped."""


class ClusterError(ReconcilerError):
    """A Kafka cluster could not be reached or refused a request."""


class NotBuiltYet(ReconcilerError):
    """A planned command that this version does not implement yet."""
