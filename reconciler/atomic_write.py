"""Files replaced whole: the content goes to a hidden sibling that is then renamed over the
target, so a reader (apply reading a saved plan, a Spark job globbing `*.jsonl`, git, the next
command) sees the old file or the new one, never half of one, whatever stops the writer (a full
disk, Ctrl-C, a kill). The one place that does this; callers turn OSError into their sentence.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO


def replace_whole(path: Path, content: str | bytes | Iterable[str]) -> None:
    """Write `content` (text is UTF-8; an iterable of text is written piece by piece, for files
    too large to hold twice) to `path` through a sibling `.NAME.PID.partial`, keeping the mode of
    the file it replaces. The sibling starts with a dot: globs such as `*.jsonl` and Spark's
    readers skip it. A symbolic link is followed (the file it names is replaced, the link
    stays); what is not a regular file (/dev/null, a FIFO) is written in place, never renamed
    over. Raises OSError, leaving `path` as it was and no sibling behind."""
    target = Path(os.path.realpath(path))
    try:
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None  # a new file: the umask's mode, as open() gives
    if mode is not None and not stat.S_ISREG(mode):
        with target.open("wb") as out:
            _write(out, content)
        return
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with partial.open("wb") as out:
            _write(out, content)
        if mode is not None:
            os.chmod(partial, stat.S_IMODE(mode))
        os.replace(partial, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()  # only there when something failed


def _write(out: BinaryIO, content: str | bytes | Iterable[str]) -> None:
    if isinstance(content, bytes):
        out.write(content)
    elif isinstance(content, str):
        out.write(content.encode("utf-8"))
    else:
        for piece in content:
            out.write(piece.encode("utf-8"))
