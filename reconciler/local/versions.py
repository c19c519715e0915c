"""Which Kafka a local cluster runs, and what that version needs from the launcher.

`reconciler local up --kafka-version V` takes any release on Maven Central; this module says,
from V alone, how to fetch and run it:

- the Scala build of the broker jar: `kafka_2.13` exists from 2.4.0, older releases only as
  `kafka_2.12`;
- the logging backend to add (the broker's is never transitive): Log4j 2 from Kafka 4.0, Log4j 1
  (reload4j) below it;
- how the metadata is kept: KRaft from 3.9, the first release with what the launcher uses
  (`controller.quorum.bootstrap.servers` and `format --standalone`, KIP-853); ZooKeeper below it
  (KRaft before 3.9 needs a static voter set, and before 3.3 was not production-ready; 4.0 has
  no ZooKeeper mode at all);
- the ZooKeeper client: Kafka before 2.4 ships ZooKeeper 3.4, whose client cannot connect on
  Java 14+ (ZOOKEEPER-3779), so 3.5.7 (Kafka 2.4's) replaces it;
- the line a broker logs once it serves clients.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from reconciler.errors import LocalClusterError

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
KRAFT_SINCE = (3, 9)
LOG4J2_SINCE = (4, 0)
SCALA_2_13_SINCE = (2, 4)

Metadata = Literal["kraft", "zookeeper"]


@dataclass(frozen=True, slots=True)
class KafkaVersion:
    text: str
    parts: tuple[int, int, int]

    @property
    def scala(self) -> str:
        return "2.13" if self.parts[:2] >= SCALA_2_13_SINCE else "2.12"

    @property
    def log4j2(self) -> bool:
        return self.parts[:2] >= LOG4J2_SINCE

    @property
    def zookeeper_client(self) -> str | None:
        """A ZooKeeper version to fetch instead of the one Kafka depends on, if any."""
        return "3.5.7" if self.parts[:2] < SCALA_2_13_SINCE else None

    @property
    def metadata(self) -> Metadata:
        return "kraft" if self.parts[:2] >= KRAFT_SINCE else "zookeeper"

    @property
    def started_line(self) -> str:
        """What the broker logs once it serves clients (KafkaRaftServer or KafkaServer)."""
        return "Kafka Server started" if self.metadata == "kraft" else "started (kafka.server."


def parse(text: str) -> KafkaVersion:
    found = _VERSION.match(text.strip())
    if not found:
        raise LocalClusterError(
            f"--kafka-version {text!r} is not a Kafka release number such as 4.1.1 or 2.4.1."
        )
    major, minor, patch = (int(g) for g in found.groups())
    return KafkaVersion(text.strip(), (major, minor, patch))
