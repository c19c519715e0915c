"""`fleet drift --out` may not be an input folder, lie inside one or contain one.

The job writes its tables under `--out`; were that inside `--snapshots` (or `--desired`), the
next night's run would read its own Parquet output as snapshot lines and fail every night
after the first. Checked before Spark starts: local paths compared resolved (symlinks and `..`
followed, so two spellings of one folder are one folder), remote URIs (`s3a://...`) compared
as strings, a local path and a remote URI never overlapping.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse

from reconciler.errors import ConfigError
from reconciler.printable import printable


def _comparable(path: str) -> tuple[str, str]:
    """(where, path) with '/' at the end: "local" and the resolved path, or the URI's scheme
    and the URI as written."""
    parsed = urlparse(path)
    if parsed.scheme in ("", "file"):
        local = parsed.path if parsed.scheme == "file" else path
        return "local", os.path.realpath(os.path.expanduser(local)).rstrip("/") + "/"
    return parsed.scheme, path.rstrip("/") + "/"


def check(out: str, inputs: dict[str, str]) -> None:
    """ConfigError when `out` equals, lies inside or contains one of `inputs` (option -> path)."""
    where, target = _comparable(out)
    for option, path in inputs.items():
        other_where, other = _comparable(path)
        if other_where != where:
            continue
        if target == other:
            how = f"is the {option} folder"
        elif target.startswith(other):
            how = f"lies inside {option} {printable(path)}"
        elif other.startswith(target):
            how = f"contains {option} {printable(path)}"
        else:
            continue
        raise ConfigError(
            f"--out {printable(out)} {how}: the job would read its own tables as input on the "
            "next run; write them to a folder outside the inputs"
        )
