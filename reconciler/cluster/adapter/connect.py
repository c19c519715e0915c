"""Kafka clients for one cluster, built from its bootstrap servers and `client:` properties.

`client:` in reconciler.yaml holds librdkafka properties. kafka-python (used only for KIP-455
reassignments) takes the security-related subset, translated by `_KAFKA_PYTHON_KEYS`; other
librdkafka-only properties are not passed to it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from kafka.admin import KafkaAdminClient
from kafka.errors import KafkaError as KafkaPythonError

from reconciler.errors import ClusterError

DEFAULT_CLIENT_ID = "reconciler"

# librdkafka and kafka-python log connection trouble on their own; the error that matters reaches
# the user as one ClusterError sentence. Their logs go to Python logging, silent unless the CLI's
# --debug adds a handler.
LIBRDKAFKA_LOG = logging.getLogger("reconciler.librdkafka")
for _name in ("reconciler", "kafka"):
    logging.getLogger(_name).addHandler(logging.NullHandler())

# librdkafka property -> kafka-python KafkaAdminClient argument.
_KAFKA_PYTHON_KEYS = {
    "security.protocol": "security_protocol",
    "sasl.mechanism": "sasl_mechanism",
    "sasl.mechanisms": "sasl_mechanism",
    "sasl.username": "sasl_plain_username",
    "sasl.password": "sasl_plain_password",
    "ssl.ca.location": "ssl_cafile",
    "ssl.certificate.location": "ssl_certfile",
    "ssl.key.location": "ssl_keyfile",
    "ssl.key.password": "ssl_password",
    "client.id": "client_id",
}


@dataclass(frozen=True, slots=True)
class Connection:
    """Where a cluster is and how to talk to it. `name` appears in every error message."""

    name: str
    bootstrap: str
    client: tuple[tuple[str, str], ...] = ()  # librdkafka properties (may hold secrets)
    timeout: float | None = None  # seconds per request; None: request.timeout.ms or 30 s

    def __post_init__(self) -> None:
        if self.timeout is None:
            millis = dict(self.client).get("request.timeout.ms", "30000")
            seconds = int(millis) / 1000 if millis.isdigit() and int(millis) > 0 else 30.0
            object.__setattr__(self, "timeout", seconds)

    @property
    def seconds(self) -> float:
        """The per-request timeout: `client: {request.timeout.ms: ...}`, default 30 s."""
        return self.timeout if self.timeout is not None else 30.0

    @property
    def client_id(self) -> str:
        return dict(self.client).get("client.id", DEFAULT_CLIENT_ID)

    def admin(self) -> AdminClient:
        """A librdkafka admin client; connections open lazily on the first request."""
        conf: dict[str, Any] = {
            "bootstrap.servers": self.bootstrap,
            "client.id": DEFAULT_CLIENT_ID,
            "logger": LIBRDKAFKA_LOG,
            "socket.connection.setup.timeout.ms": int(min(self.seconds, 10.0) * 1000),
        }
        conf.update(dict(self.client))
        return AdminClient(conf)

    @contextmanager
    def reassignments_admin(self) -> Iterator[KafkaAdminClient]:
        """A kafka-python admin client (KIP-455), closed on exit."""
        args: dict[str, Any] = {
            "bootstrap_servers": self.bootstrap.split(","),
            "client_id": DEFAULT_CLIENT_ID,
            "request_timeout_ms": int(self.seconds * 1000),
            "bootstrap_timeout_ms": int(self.seconds * 1000),
        }
        for key, value in self.client:
            if key in _KAFKA_PYTHON_KEYS:
                args[_KAFKA_PYTHON_KEYS[key]] = value
        try:
            admin = KafkaAdminClient(**args)
        except KafkaPythonError as exc:
            raise self.error("connect to", exc) from exc
        try:
            yield admin
        finally:
            admin.close()

    def error(self, action: str, exc: BaseException) -> ClusterError:
        """A ClusterError naming the cluster, its bootstrap servers and Kafka's reason."""
        return ClusterError(
            f"could not {action} cluster '{self.name}' at {self.bootstrap}: {reason(exc)}. "
            "Is it running and reachable from here, and are its `client:` settings right?"
        )


def reason(exc: BaseException) -> str:
    """Kafka's own words for a failure, from either client library."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        error: KafkaError = exc.args[0]
        return f"{error.name()}: {error.str()}"
    if isinstance(exc, KafkaError):
        return f"{exc.name()}: {exc.str()}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def error_code(exc: KafkaException) -> int | None:
    """librdkafka's error code of a failed future (e.g. KafkaError.UNKNOWN_TOPIC_OR_PART)."""
    error = exc.args[0] if exc.args else None
    return error.code() if isinstance(error, KafkaError) else None
