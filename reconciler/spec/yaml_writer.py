"""YAML the tool writes (import's topic and ACL files, `import --quotas` and `--users` blocks)
and reads back as written.

PyYAML quotes what YAML 1.1 would misread, but specs are read as YAML 1.2 (yaml_scalars.py),
which misreads other plain words: a topic, user or client id named `08`, `1e5` or
`26217e5174` (a float too large: infinity). Every string the YAML 1.2 core schema would read
as something else is written quoted.
"""

from __future__ import annotations

from typing import Any

import yaml

from reconciler.spec.yaml_scalars import core_value


class Flow(list[Any]):
    """A list written inline (`[1, 2, 3]`): replica lists and cluster names read best so."""


class Quoting(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting each string YAML 1.2 would read as something else."""


class Dumper(Quoting):
    """Block style with sequences indented under their key, as people write YAML."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _flow(dumper: yaml.SafeDumper, data: Flow) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


def _text(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    node = dumper.represent_str(data)
    if node.style is None and core_value(data) != data:
        node.style = "'"
    return node


Quoting.add_representer(str, _text)
Dumper.add_representer(Flow, _flow)


def dump(data: object, **options: Any) -> str:
    """`data` as block-style YAML, keys in their order, that a YAML 1.2 reader reads back as
    `data`; `options` as yaml.dump's (width, allow_unicode...)."""
    settings: dict[str, Any] = {"sort_keys": False, "default_flow_style": False}
    text: str = yaml.dump(data, Dumper=Dumper, **{**settings, **options})
    return text
