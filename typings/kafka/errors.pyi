# kafka-python's exceptions that reconciler catches or reads (see ../__init__.pyi).

from typing import ClassVar

class KafkaError(Exception): ...

class BrokerResponseError(KafkaError):
    # Kafka's error code, its name (e.g. REASSIGNMENT_IN_PROGRESS) and its description: set on
    # each subclass, which kafka-python reports per partition as the class itself.
    errno: ClassVar[int | None]
    message: ClassVar[str | None]
    description: ClassVar[str | None]

class UnsupportedVersionError(BrokerResponseError): ...

# kafka-python's verdict on the broker's ApiVersions answer: the request is not in it, or no
# version is shared (tests/compat).
class IncompatibleBrokerVersion(UnsupportedVersionError): ...
class KafkaTimeoutError(KafkaError): ...
class NoError(BrokerResponseError): ...

# The exception class of Kafka's error code (NoError for 0)
def for_code(error_code: int) -> type[BrokerResponseError]: ...
