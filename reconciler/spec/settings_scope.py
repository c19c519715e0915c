"""Whose connection settings (`bootstrap`, `client:`) a load of reconciler.yaml reads.

In CI each environment's job holds only its own secrets, and reconciler.yaml usually names one
variable per cluster (`${PROD_KAFKA_PASSWORD}`, `${STAGING_KAFKA_PASSWORD}`). So a command for
one cluster reads and expands that cluster's settings alone: another cluster's variables are
never looked up, and only what needs no environment is checked there (the schema, the syntax
of its `${...}` references, a bootstrap written without any). The commands that read every
cluster (`validate` and `compile --all-clusters`) expand every cluster's settings, and an unset
variable is then a warning naming its cluster: the command that uses it fails on it.
`reconciler help spec` ("Environment variables") lists what each command reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from reconciler.diagnostics import Severity


@dataclass(frozen=True, slots=True)
class Settings:
    """The clusters whose settings are read (None: every one), and what an unset variable of
    theirs is."""

    clusters: frozenset[str] | None
    unset: Severity

    @staticmethod
    def of(cluster: str) -> Settings:
        """A command for `cluster`: its settings alone, an unset variable an error (R502)."""
        return Settings(frozenset((cluster,)), Severity.ERROR)

    def reads(self, cluster: str) -> bool:
        return self.clusters is None or cluster in self.clusters


# validate and compile without --cluster: every cluster's settings, unset variables warnings
EVERY = Settings(None, Severity.WARNING)
# What needs only cluster names or the topics directory (the --cluster default, the specs'
# digest): no cluster's settings
NONE = Settings(frozenset(), Severity.ERROR)


class Unread(Mapping[str, str]):
    """The environment a cluster whose settings are not read is checked against: every name
    stands for a set variable, so a reference's syntax is checked and the real environment is
    never consulted."""

    def __getitem__(self, name: str) -> str:
        return "unread"

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0
