"""What the tool writes as YAML (import's files, `import --quotas` and `--users` blocks) is
read back by its own YAML 1.2 reader as written: a name that is a number, a boolean or null
to YAML 1.2 is quoted, whatever PyYAML (YAML 1.1) thinks of it. CI, 2026-11-30: a token
`26217e5174` written plain by PyYAML was read back as infinity."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.spec.quotas import ClientQuota, QuotaEntity, quotas_block
from reconciler.spec.scram_users import users_block
from reconciler.spec.yaml_reader import parse_yaml
from reconciler.spec.yaml_writer import Flow, dump

# Plain words YAML 1.2's core schema reads as something else; some PyYAML leaves unquoted
MISREAD = ["26217e5174", "1e5", "08", "0o17", "0x1F", "1_000", ".5", "+12", "-0",
           "null", "Null", "~", "true", "False", ".inf", "-.Inf", ".NaN", "1.5e-3", ""]  # fmt: skip


def _read(text: str) -> Any:
    document, problems = parse_yaml(text, "written.yaml")
    assert document is not None and not [p for p in problems if p.severity.name == "ERROR"]
    return document.data


@pytest.mark.parametrize("word", MISREAD)
def test_a_string_reads_back_as_the_same_string(word: str) -> None:
    data = {"topics": [{"name": word, "config": {"k": word}}], "flow": Flow([word, 1])}
    assert _read(dump(data)) == data


@pytest.mark.parametrize("word", MISREAD)
def test_the_import_blocks_keep_the_names(word: str) -> None:
    quota = ClientQuota(QuotaEntity(user=word or "u", client_id=word or "c"),
                        (("request_percentage", 50.0),))  # fmt: skip
    assert _read(quotas_block([quota]))["quotas"][0]["user"] == (word or "u")
    assert _read(quotas_block([quota]))["quotas"][0]["client_id"] == (word or "c")
    name = word or "u"
    assert _read(users_block([(name, "SCRAM-SHA-512", 4096)]))["users"][0]["name"] == name


def test_numbers_and_plain_words_stay_plain() -> None:
    text = dump({"name": "orders.v1", "partitions": 3, "ratio": 0.5, "on": True})
    assert text == "name: orders.v1\npartitions: 3\nratio: 0.5\n'on': true\n"
