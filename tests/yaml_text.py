"""yaml.safe_dump for the spec files tests write: the same text, but a string YAML 1.2 reads
as something else (a random token `26217e5174`: infinity) is quoted, as the tool's own
writer does (reconciler/spec/yaml_writer.py). A test's random names must not change what
its spec says. CI, 2026-11-30: a policy `manage:` token was read as a number."""

from __future__ import annotations

from typing import Any

import yaml

from reconciler.spec.yaml_writer import Quoting


def safe_dump(data: object, **options: Any) -> str:
    text: str = yaml.dump(data, Dumper=Quoting, **options)
    return text
