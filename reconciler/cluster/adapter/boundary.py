"""The one boundary every call into a Kafka client library goes through.

    with boundary.librdkafka(connection, "DescribeConfigs"):
        futures = admin.describe_configs(resources, request_timeout=seconds)
    with boundary.kafka_python(connection, "ListPartitionReassignments", admin):
        listed = admin.list_partition_reassignments(timeout_ms=millis)

What a block raises passes through unchanged when it is already classified: reconciler's own
errors (a ClusterError said by the code inside), librdkafka's `KafkaException` (Kafka's or
librdkafka's error code: connection.py and failures.py turn it into a sentence, as before),
kafka-python's errors that carry Kafka's answer or a condition of the network (an error code,
a refused login, a timeout, a broker it cannot reach), and `NoAnswer`. Anything else is the
library failing to make a request or to read the broker's answer: a KeyError, AttributeError,
TypeError (an unexpected None), ValueError, IndexError or struct.error out of its decoding,
kafka-python's protocol errors (a frame it cannot parse, a correlation id it did not expect), a
library's bare TimeoutError. That becomes `LibraryFailed`, a ClusterError of one sentence naming
the request, the cluster and its bootstrap servers, the Kafka release the brokers' ApiVersions
answer shows (broker_version.py), the library and its version, and what to do; the library's
exception stays its cause (`--debug` prints the traceback). Such a failure is not retried: a
client that cannot read an answer reads the next one the same way. `internal error` is left for
reconciler's own bugs.

tests/cluster/test_boundary.py walks this package's source and fails on a call into a client
library outside such a block, then makes each call site raise each kind of failure.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, ParamSpec, Protocol, TypeVar

from reconciler.cluster.adapter import broker_version
from reconciler.cluster.adapter.failures import NoAnswer
from reconciler.errors import ClusterError, ReconcilerError


class Connection(broker_version.Where, Protocol):
    """What the boundary names: a connect.Connection (connect.py imports this module)."""

    @property
    def name(self) -> str: ...


Library = Literal["confluent-kafka", "kafka-python"]

# kafka-python's errors that say the client itself could not make or read a request (the
# others carry Kafka's error code or a network condition, which connection.py says already)
_KAFKA_PYTHON_OWN = (
    "KafkaProtocolError",  # CorrelationIdError, InvalidReceiveError: a frame it cannot parse
    "UnsupportedCodecError",
    "IllegalStateError",
    "IllegalArgumentError",
    "UnrecognizedBrokerVersion",
)


@dataclass(frozen=True, slots=True)
class LibraryFailure:
    """A client library failed making `request` to a cluster or reading its answer."""

    cluster: str
    bootstrap: str
    request: str  # Kafka's name of the request (DescribeConfigs, ...), else what it was doing
    library: str  # "kafka-python 3.0.12", "confluent-kafka 2.16.1 (librdkafka 2.16.1)"
    kafka: str | None  # the brokers' release as their ApiVersions answer shows it, None: unknown
    error: str  # the library's exception, as "KeyError: 'endpoint_type'"
    mutation: bool = False  # the request changes the cluster: it may have been made

    def sentence(self) -> str:
        runs = (
            f"its brokers run Kafka {self.kafka} as their ApiVersions answer shows"
            if self.kafka is not None
            else "its brokers' Kafka release is unknown: they did not answer ApiVersions"
        )
        effect = (
            "the request may have been carried out: run `reconciler plan` to see what the "
            "cluster shows now"
            if self.mutation
            else "nothing was changed"
        )
        name = self.library.split(" ", 1)[0]
        what = f"the {self.request} request" if self.request.isidentifier() else self.request
        return (
            f"{self.library} failed on {what} for cluster '{self.cluster}' at {self.bootstrap} "
            f"({self.error}; {runs}): this is a client library's failure "
            f"making this request or reading this broker's answer, not a problem of the "
            f"cluster or of the specs, and {effect}; report it with the output of the same "
            f"command run with --debug, and meanwhile upgrade {name} (or downgrade it to the "
            "release that last worked with this cluster)."
        )


class LibraryFailed(ClusterError):
    """A ClusterError whose cause is a client library's own failure (LibraryFailure)."""

    def __init__(self, failure: LibraryFailure) -> None:
        super().__init__(failure.sentence())
        self.failure = failure


def librdkafka(connection: Connection, request: str, *, mutation: bool = False) -> Call:
    """The boundary around calls into confluent-kafka (librdkafka) for `request`."""
    return Call(connection, request, "confluent-kafka", None, mutation)


def kafka_python(
    connection: Connection, request: str, admin: Any = None, *, mutation: bool = False
) -> Call:
    """The boundary around calls into kafka-python for `request`; `admin`, the client making
    it (when there is one yet), tells the brokers' release it inferred."""
    return Call(connection, request, "kafka-python", admin, mutation)


class Call:
    """A block of calls into one client library for one request (a context manager)."""

    def __init__(
        self, connection: Connection, request: str, library: Library, client: Any, mutation: bool
    ) -> None:
        self.connection = connection
        self.request = request
        self.library: Library = library
        self.client = client
        self.mutation = mutation

    def __enter__(self) -> Call:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None or classified(exc):
            return
        if (interrupt := _interrupt_in(exc)) is not None:
            # a signal handler raised inside the library's C code, which reports it as its
            # own SystemError ("returned a result with an exception set"): the stop, not a
            # library failure
            raise interrupt.with_traceback(None) from None
        raise LibraryFailed(self.failure(exc)) from exc

    def failure(self, exc: BaseException) -> LibraryFailure:
        """The typed value of the library's failure `exc`."""
        known = broker_version.of_client(self.client) if self.client is not None else None
        return LibraryFailure(
            self.connection.name,
            self.connection.bootstrap,
            self.request,
            library_version(self.library),
            known or broker_version.asked(self.connection),
            _said(exc),
            self.mutation,
        )


P = ParamSpec("P")
T = TypeVar("T")


def calls(
    request: str, library: Library, *, mutation: bool = False
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """The boundary around a whole function (its argument `connection` names the cluster), for
    functions whose every line is a call into the library, such as building a client."""

    def decorate(function: Callable[P, T]) -> Callable[P, T]:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
            connection = signature.bind(*args, **kwargs).arguments["connection"]
            with Call(connection, request, library, None, mutation):
                return function(*args, **kwargs)

        return guarded

    return decorate


def classified(exc: BaseException) -> bool:
    """Whether `exc` passes the boundary unchanged (see the module's docstring)."""
    if not isinstance(exc, Exception) or isinstance(exc, ReconcilerError | NoAnswer):
        return True  # interrupts and exits, and what reconciler said itself
    from confluent_kafka import KafkaException

    if isinstance(exc, KafkaException):
        return True
    errors = sys.modules.get("kafka.errors")  # loaded only where kafka-python is used
    if errors is not None and isinstance(exc, errors.KafkaError):
        own = tuple(getattr(errors, name) for name in _KAFKA_PYTHON_OWN)
        return not isinstance(exc, own)
    return False


def _interrupt_in(exc: BaseException) -> BaseException | None:
    """The interrupt (KeyboardInterrupt, SystemExit: not an Exception) among `exc`'s causes."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if not isinstance(cause, Exception):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def library_versions() -> tuple[tuple[str, str], ...]:
    """Each client library's version by name, librdkafka's as confluent-kafka loaded it (a
    saved plan records them: planning.plan.MadeBy)."""
    from importlib.metadata import version

    import confluent_kafka

    return (
        ("confluent-kafka", version("confluent-kafka")),
        ("librdkafka", confluent_kafka.libversion()[0]),
        ("kafka-python", version("kafka-python")),
    )


def library_version(library: Library) -> str:
    """The library's name and version, as `pip show` names it (librdkafka's too)."""
    from importlib.metadata import version

    if library == "kafka-python":
        return f"kafka-python {version('kafka-python')}"
    import confluent_kafka

    c = confluent_kafka.libversion()[0]
    return f"confluent-kafka {version('confluent-kafka')} (librdkafka {c})"


def _said(exc: BaseException) -> str:
    """The exception as one short line: its type (with its module, unless a builtin: struct.error,
    kafka.errors.KafkaProtocolError) and (the start of) its message."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= 200 else text[:197] + "..."
    kind = type(exc)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    return f"{name}: {text}" if text else name
