"""Throwaway spec repositories for end-to-end tests, and running the CLI against them."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reconciler import redaction
from tests import cli_fork, yaml_text

RECONCILER = [sys.executable, "-m", "reconciler"]


def redacted(client: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """Client properties as output would show them: secret-looking values replaced by '***',
    and the secrets remembered so that reconciler.redaction hides them wherever they appear."""
    pairs = list(client.items() if isinstance(client, Mapping) else client)
    redaction.remember_client(pairs)
    return redaction.redacted_properties(pairs)


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


class SpecRepo:
    """A spec repository in a temp dir whose only cluster, `test`, is a fixture cluster.

    Topics outside this test's namespace are ignored (policy.ignore), so plans see only what the
    test made, even though the session's cluster is shared.
    """

    def __init__(self, root: Path, bootstrap: str, ns: str, policy: dict[str, Any] | None = None):
        self.root = root
        self.bootstrap = bootstrap
        self.ns = ns
        cluster = {
            "bootstrap": "${KAFKA_BOOTSTRAP}",
            "policy": {"ignore": [f"^(?!{re.escape(ns)})"], **(policy or {})},
        }
        (root / "topics").mkdir(parents=True, exist_ok=True)
        self.write("reconciler.yaml", {"topics": "topics/", "clusters": {"test": cluster}})

    def write(self, rel: str, data: Any) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            data if isinstance(data, str) else yaml_text.safe_dump(data, sort_keys=False)
        )
        return path

    def topics(self, *topics: dict[str, Any], file: str = "topics/main.yaml") -> None:
        self.write(file, {"topics": list(topics)})

    def run(self, *args: str, timeout: float = 120) -> Result:
        return run_cli(self.root, self.bootstrap, *args, timeout=timeout)


def run_cli(repo: Path, bootstrap: str, *args: str, timeout: float = 120) -> Result:
    """`reconciler --repo REPO ARGS` in a process of its own (forked: tests/cli_fork.py), with
    $KAFKA_BOOTSTRAP set, no colour, and no traceback allowed."""
    env = {**os.environ, "KAFKA_BOOTSTRAP": bootstrap, "NO_COLOR": "1"}
    proc = cli_fork.run(["--repo", str(repo), *args], env=env, timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    return Result(proc.returncode, proc.stdout, proc.stderr)


def schema_validator(name: str) -> Any:
    """A validator for one of the JSON Schemas by file name, whose `plan.schema.json#/...`
    references resolve."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    folder = Path(__file__).resolve().parents[1] / "schemas"
    loaded = [json.loads((folder / n).read_text()) for n in (name, "plan.schema.json")]
    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in loaded
    )
    return Draft202012Validator(loaded[0], registry=registry)
