"""The docs name every diagnostic code and every field of the schemas."""

from __future__ import annotations

import re
from pathlib import Path

from reconciler.spec import r_codes
from reconciler.spec.schema import REPO_SCHEMA, TOPICS_SCHEMA, load_schema

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_code_is_documented_with_its_rule_and_an_example() -> None:
    text = (DOCS / "diagnostics.md").read_text()
    for rule in r_codes.RULES:
        row = f"| {rule.code} | `{rule.name}` | {rule.severity.value} |"
        assert row in text, rule
        assert re.search(rf"^\S+:\d+:\d+: {rule.severity.value}\[{rule.code}\]: ", text, re.M), rule
    documented = set(re.findall(r"^\| (R\d{3}) \|", text, re.M))
    assert documented == {rule.code for rule in r_codes.RULES}


def test_every_schema_field_is_documented() -> None:
    text = (DOCS / "spec.md").read_text()
    topic = load_schema(TOPICS_SCHEMA)["$defs"]["topic"]["properties"]
    cluster = load_schema(REPO_SCHEMA)["$defs"]["cluster"]["properties"]
    fields = [*topic, *cluster, "defaults", "topics", "clusters"]
    fields += [f"policy.{p}" for p in cluster["policy"]["properties"]]
    fields += [f"limits.{p}" for p in cluster["limits"]["properties"]]
    for field in fields:
        # `name`, `clusters.N.policy.ignore`, `defaults:`: the field as a table cell or in prose
        assert re.search(rf"`(?:[\w.]*\.)?{re.escape(field)}:?`", text), field


def test_every_schema_property_has_a_description() -> None:
    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                assert "description" in sub, f"{path}.{name}"
            for key, sub in node.items():
                walk(sub, f"{path}.{key}")
        elif isinstance(node, list):
            for index, sub in enumerate(node):
                walk(sub, f"{path}[{index}]")

    for name in (TOPICS_SCHEMA, REPO_SCHEMA):
        schema = load_schema(name)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"].endswith(name)
        walk(schema, name)
