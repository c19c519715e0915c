"""Topic ids as Kafka writes them: the one place that encodes or reads one.

Kafka's `Uuid.toString()` (what `kafka-topics.sh --describe` prints as `TopicId:`, and the Java
client's `TopicDescription.topicId()`) is the 16 bytes in URL-safe base64 without padding, 22
characters such as `W39X6ZmjT36-ZeEcGS-CEA`. confluent-kafka's `Uuid` prints the standard
alphabet with padding (`W39X6ZmjT36+ZeEcGS+CEA==`), as reconciler did before; an approval or a
snapshot written then still names the same 16 bytes, so `canonical` reads both forms.
"""

from __future__ import annotations

import base64
import binascii

_UUID_BYTES = 16


def encode(raw: bytes) -> str:
    """Kafka's form of a topic id's 16 bytes."""
    if len(raw) != _UUID_BYTES:
        raise ValueError(f"a topic id has {_UUID_BYTES} bytes, not {len(raw)}")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode(text: str) -> bytes | None:
    """The 16 bytes `text` names in either alphabet, padded or not; None when it is not a
    topic id in its one canonical spelling (a topic name is never one that differs: names
    hold no `+`, `/` or `=`)."""
    body = text.rstrip("=")
    if len(body) != 22 or len(text) not in (22, 24):
        return None
    standard = body.replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(standard + "==", validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != _UUID_BYTES or base64.b64encode(raw).decode("ascii").rstrip("=") != standard:
        return None  # non-zero spare bits: not what an encoder writes
    return raw


def canonical(text: str) -> str:
    """`text` in Kafka's form when it spells a topic id in either alphabet; anything else (a
    topic name standing in for an id on a broker before Kafka 2.8) unchanged."""
    raw = decode(text)
    return text if raw is None else encode(raw)
