"""A cluster's address: what a sentence about it names (its name, bootstrap servers, and the
principal reconciler is there).

Every port is reached at one (`Reachable.connection`). The adapter's `Connection` is one (it
also carries the `client:` settings its clients are made from); `Address` is the plain value,
for what names a cluster without talking to it (the in-memory fake).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class ClusterAddress(Protocol):
    @property
    def name(self) -> str:
        """The cluster's name in reconciler.yaml: every message names it."""
        ...

    @property
    def bootstrap(self) -> str: ...

    @property
    def principal(self) -> str:
        """The principal Kafka sees, as kafka-acls names it where it can (User:NAME)."""
        ...


@dataclass(frozen=True, slots=True)
class Address:
    name: str
    bootstrap: str
    principal: str = "User:ANONYMOUS"
