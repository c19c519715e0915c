"""Topic ids in Kafka's form: encoded in one place, read in either base64 alphabet."""

from __future__ import annotations

import base64
import uuid

import pytest

from reconciler import topic_ids


def test_kafka_form_is_url_safe_and_unpadded() -> None:
    raw = base64.b64decode("W39X6ZmjT36+ZeEcGS+CEA==")
    assert topic_ids.encode(raw) == "W39X6ZmjT36-ZeEcGS-CEA"


def test_confluent_kafkas_uuid_reads_as_kafkas_form() -> None:
    from confluent_kafka import Uuid

    raw = uuid.UUID("ffeeddcc-bbaa-9988-7766-554433221100").bytes
    most = int.from_bytes(raw[:8], "big", signed=True)
    least = int.from_bytes(raw[8:], "big", signed=True)
    printed = str(Uuid(most, least))
    assert "/" in printed or "+" in printed  # the standard alphabet, not Kafka's
    assert topic_ids.canonical(printed) == topic_ids.encode(raw)


@pytest.mark.parametrize(
    "written", ["W39X6ZmjT36-ZeEcGS-CEA", "W39X6ZmjT36+ZeEcGS+CEA==", "W39X6ZmjT36+ZeEcGS+CEA"]
)
def test_either_alphabet_reads_as_kafkas_form(written: str) -> None:
    assert topic_ids.canonical(written) == "W39X6ZmjT36-ZeEcGS-CEA"


@pytest.mark.parametrize(
    "name",
    [
        "payments.orders.v1",  # a topic name standing in for an id (Kafka before 2.8)
        "abcdefghijklmnopqrstub",  # 22 characters, but spare bits set: not an encoder's output
        "abcdefghij_klmnopq-stu",  # 22 URL-safe characters: unchanged either way
        "W39X6ZmjT36+ZeEcGS+CEA=",  # one pad character: not base64 of 16 bytes
    ],
)
def test_anything_else_is_left_as_written(name: str) -> None:
    assert topic_ids.canonical(name) == name
