"""What ships in the package: the run-time files are there, and equal to their sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.resources import SCHEMA_NAMES, package_file, schema_text

ROOT = Path(__file__).resolve().parents[2]


def test_every_schema_of_schemas_dir_is_packaged() -> None:
    assert sorted(SCHEMA_NAMES) == sorted(p.name for p in (ROOT / "schemas").glob("*.json"))


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_packaged_schema_is_identical_to_the_source(name: str) -> None:
    source = (ROOT / "schemas" / name).read_text(encoding="utf-8")
    assert schema_text(name) == source, (
        f"reconciler/schemas/{name} differs from schemas/{name} (the source): run `make schemas`"
    )


def test_maven_pom_is_packaged() -> None:
    assert "<kafka.version>" in package_file("local", "pom.xml").read_text(encoding="utf-8")


def test_msk_iam_verifier_source_is_packaged() -> None:
    """`local up --security msk-iam` compiles it from the installed package."""
    source = package_file("local", "java", "dev", "reconciler", "local", "MskIamVerifier.java")
    assert "implements AuthenticateCallbackHandler" in source.read_text(encoding="utf-8")
