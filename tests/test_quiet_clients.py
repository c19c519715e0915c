"""Every librdkafka client the product or a test makes is given a logger.

Without one, librdkafka prints its own lines to the process's stderr: a user would see raw
`%3|...|FAIL|rdkafka#producer-...` lines beside reconciler's sentences, and `make test`
printed one when a test's client outlived the broker its test stopped. The check reads the
source (ast): a client made without `logger=` anywhere in reconciler/ or tests/ fails it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = {"AdminClient", "Producer", "Consumer"}


def _unlogged(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if called in CLIENTS and not any(k.arg == "logger" for k in node.keywords):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {called}(...) without logger=")
    return found


def test_every_librdkafka_client_is_given_a_logger() -> None:
    files = sorted((ROOT / "reconciler").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    unlogged = [line for path in files for line in _unlogged(path)]
    assert not unlogged, "\n".join(unlogged)


def test_the_check_finds_a_client_without_a_logger(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from confluent_kafka import Producer\n"
        "Producer({'bootstrap.servers': 'x'})\n"
        "Producer({'bootstrap.servers': 'x'}, logger=None)\n"
    )
    assert [line.split(": ", 1)[0] for line in _unlogged(sample, tmp_path)] == ["sample.py:2"]
