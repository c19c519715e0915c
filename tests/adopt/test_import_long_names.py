"""`import` of a topic whose 249-character name is its own file prefix, when `PREFIX.yaml` is
taken: the next file name is cut to the file system's limit instead of failing with `File name
too long` (issue 26, class 5). Real three-broker cluster."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from reconciler.writable import name_max
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import run_cli

pytestmark = pytest.mark.kafka


def test_import_of_a_249_character_name_needing_a_numbered_file(
    kafka3: LocalCluster, tmp_path: Path
) -> None:
    name = f"q{uuid.uuid4().hex}".ljust(249, "x")  # letters and digits only: one prefix
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for future in admin.create_topics([NewTopic(name, 1, 1)]).values():
        future.result()
    try:
        (tmp_path / "topics").mkdir()
        (tmp_path / "reconciler.yaml").write_text(
            "topics: topics/\nclusters:\n  test:\n    bootstrap: '${KAFKA_BOOTSTRAP}'\n"
            f"    policy: {{ignore: ['^(?!{name}$)']}}\n"
        )
        (tmp_path / "topics" / f"{name}.yaml").write_text("topics: []\n")  # the name is taken
        done = run_cli(tmp_path, kafka3.bootstrap, "import", "--cluster", "test")
        assert done.code == 0, done.stderr
        assert "File name too long" not in done.stderr
        written = tmp_path / "topics" / f"{name[: name_max(tmp_path) - 7]}-2.yaml"
        assert f"created {written} (1 topic(s))" in done.stdout
        assert f"name: {name}" in written.read_text()
        plan = run_cli(tmp_path, kafka3.bootstrap, "plan", "--cluster", "test",
                       "--detailed-exitcode")  # fmt: skip
        assert plan.code == 0, plan.stdout + plan.stderr
    finally:
        for future in admin.delete_topics([name]).values():
            future.result()
