"""Pinning a cluster's id in reconciler.yaml: one line inserted in place, nothing else touched.

`reconciler import` writes `cluster_id:` for a cluster that has none (init writes it in the
file it makes). The file is the user's, with their comments and layout, so it is not dumped
again from data: one line, `cluster_id: "ID"`, goes right under the cluster's `NAME:` key,
indented as the mapping's first entry. A cluster written in flow style (`NAME: {bootstrap:
...}`) has no line to insert into: it is left alone and the plan's warning shows the line.
The result is read back, and the original is put back unless it now pins exactly this id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from reconciler.spec.model import ClusterConfig
from reconciler.spec.spec_files import SpecFiles

# The first entry under the key: its indentation is the mapping's
_ENTRY = re.compile(r"^(?P<indent>[ ]+)[^\s#]")


def pin_cluster_id(
    config_file: Path,
    cluster: ClusterConfig,
    cluster_id: str,
    env: Mapping[str, str],
    files: SpecFiles | None = None,
) -> bool:
    """Insert `cluster_id: "ID"` under `cluster`'s key in `config_file`; False (the file as it
    was) when its layout leaves no line to insert into. `files`: the command's reads
    (spec_files.py): the file as the command read it is what is edited, and what is written is
    what the command reads next."""
    from reconciler.spec.repo_config import load_repo_config  # the spec package's own reader
    from reconciler.spec.settings_scope import Settings
    from reconciler.spec.source import MAX_FILE_BYTES, real_path

    if cluster.location is None:
        return False
    files = files or SpecFiles()
    original = files.read(real_path(config_file), MAX_FILE_BYTES)
    text = original.decode("utf-8")
    lines = text.splitlines(keepends=True)
    key = cluster.location.line - 1
    if key >= len(lines) or not lines[key].split("#", 1)[0].rstrip().endswith(":"):
        return False  # `NAME: {...}`: flow style
    indent = None
    for line in lines[key + 1 :]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        found = _ENTRY.match(line)
        indent = found.group("indent") if found else None
        break
    if indent is None or len(indent) < cluster.location.column:
        return False
    newline = "\r\n" if lines[key].endswith("\r\n") else "\n"
    lines.insert(key + 1, f"{indent}{pin_line(cluster_id)}{newline}")
    _replace(config_file, "".join(lines).encode("utf-8"), files)
    config, _ = load_repo_config(config_file.parent, env, Settings.of(cluster.name), files)
    pinned = config.clusters.get(cluster.name) if config is not None else None
    if pinned is None or pinned.cluster_id != cluster_id:
        _replace(config_file, original, files)
        return False
    return True


def pin_line(cluster_id: str) -> str:
    """The line that pins `cluster_id` (quoted: an id of digits must stay a string)."""
    return f'cluster_id: "{cluster_id}"'


def _replace(path: Path, content: bytes, files: SpecFiles) -> None:
    """Replace `path` with `content`: never half a file."""
    from reconciler.atomic_write import replace_whole
    from reconciler.spec.source import real_path

    replace_whole(path, content)
    files.wrote(real_path(path), content)
