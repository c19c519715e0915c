"""`import --quotas`' block (spec/quotas.py quotas_block) and its options: the entities as
reconciler.yaml writes them, read back as the same quotas; the real-broker round trip (import,
paste, "No changes") is tests/cluster/test_client_quotas.py's."""

from __future__ import annotations

from pathlib import Path

import yaml

from reconciler.spec.quotas import ClientQuota, QuotaEntity, quotas_block
from tests.spec_repo import SpecRepo


def test_the_block_writes_each_entity_with_its_values_in_spec_form() -> None:
    quotas = [
        ClientQuota(QuotaEntity(user="b", client_id="<default>"), (("consumer_byte_rate", 2.0e3),)),
        ClientQuota(QuotaEntity(client_id="<default>"), (("request_percentage", 12.5),)),
        ClientQuota(QuotaEntity(user="a"), (("producer_byte_rate", 1048576.0),
                                            ("request_percentage", 50.0))),
    ]  # fmt: skip
    block = quotas_block(quotas)
    assert yaml.safe_load(block) == {
        "quotas": [
            {"client_id": "<default>", "request_percentage": 12.5},
            {"user": "a", "producer_byte_rate": 1048576, "request_percentage": 50},
            {"user": "b", "client_id": "<default>", "consumer_byte_rate": 2000},
        ]
    }
    assert "1048576.0" not in block and "2000.0" not in block  # whole values as Kafka's CLI
    assert quotas_block([]) == "quotas: []\n"


def test_import_quotas_takes_none_of_the_topic_files_options(tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path, "127.0.0.1:1", "t")
    both = repo.run("import", "--quotas", "--users")
    assert both.code == 1 and "either --users or --quotas" in both.stderr, both.stderr
    mixed = repo.run("import", "--quotas", "--out", "topics")
    assert mixed.code == 1, mixed.stderr
    assert "import --quotas prints the quotas: block alone" in mixed.stderr
