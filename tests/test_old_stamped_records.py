"""Every test or benchmark that produces records with a timestamp of its own choosing (stamped
in the past, as the in-use gate's tests do) creates its topics with KEEPS_OLD_RECORDS
(tests/kafka_helpers.py): else the broker's time-based retention, checked every 5 minutes,
can delete those records mid-test on a slow run."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _stamps_records(tree: ast.AST) -> bool:
    """A `.produce(..., timestamp=X)` call with X other than the literal 0 (now)."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "produce":
            continue
        for keyword in node.keywords:
            if keyword.arg == "timestamp" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value == 0
            ):
                return True
    return False


def test_modules_writing_chosen_timestamps_keep_their_records() -> None:
    found, missing = [], []
    for folder in ("tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if not _stamps_records(ast.parse(text, str(path))):
                continue
            found.append(path.name)
            if "KEEPS_OLD_RECORDS" not in text:
                missing.append(str(path.relative_to(ROOT)))
    assert found, "no module stamps records: this check has lost what it looks for"
    assert not missing, f"create their topics with KEEPS_OLD_RECORDS: {missing}"
