"""Files a command will write, checked before the work they record starts.

A path that cannot be written (its folder missing, a file where a folder should be, no
permission, a read-only file system, a name too long) is refused in one sentence before the
cluster is read or changed, so a typo costs nothing and no report or apply is lost to it. The
file system is asked, not imitated: a new file is created and removed again, an existing one
opened for appending (never truncated), a folder gets a temporary file.

Used by the CLI for `plan -o`, `apply --audit-json`, `drift --snapshot-out`, `snapshot -o`,
`import --out` and `compile --out`.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from reconciler.errors import ConfigError

# `-` for a file option: standard output where the command has nothing else to print there
# (`snapshot -o -`, `apply --audit-json -`), refused in one sentence where it would mix with
# the command's own report (`plan -o -`, `drift --snapshot-out -`) or names a folder
STDOUT = "-"


def is_stdout(path: Path | str) -> bool:
    """Whether a file option names standard output."""
    return str(path) == STDOUT


def check_file(path: Path, option: str, stdout: str | None = None) -> None:
    """Refuse (ConfigError) unless `path` can be written as a file. `-` is standard output
    when `stdout` is None; otherwise `stdout` says why it cannot be, and `-` is refused."""
    if is_stdout(path):
        if stdout is None:
            return
        raise ConfigError(f"{option} - cannot write to standard output: {stdout}")
    try:
        if os.path.lexists(path):
            mode = os.stat(path).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
            if not stat.S_ISREG(mode):  # /dev/null, a FIFO: opening one could block
                if not os.access(path, os.W_OK):
                    raise PermissionError(errno.EACCES, "permission denied", str(path))
                return
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            os.unlink(path)
    except OSError as exc:
        raise ConfigError(_sentence(path, option, exc)) from exc


def check_dir(path: Path, option: str) -> None:
    """Refuse unless files can be created in folder `path` (made, with its parents, if missing)."""
    import tempfile  # only here: its imports are a part of every command's start-up

    if is_stdout(path):
        raise ConfigError(
            f"{option} - cannot write to standard output: it takes a folder of files; give a "
            "folder name (./- for a folder called -)"
        )
    existing = path.absolute()
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    try:
        if not existing.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(existing))
        handle, name = tempfile.mkstemp(dir=existing, prefix=".reconciler-write-check-")
        os.close(handle)
        os.unlink(name)
    except OSError as exc:
        if exc.errno == errno.ENOENT and existing.is_dir():
            # the folder is there but takes no new file (/proc and other pseudo file systems)
            raise ConfigError(
                _sentence(path, option, exc, f"files cannot be created in {existing}")
            ) from exc
        raise ConfigError(_sentence(path, option, exc)) from exc


def _sentence(path: Path, option: str, exc: OSError, reason: str | None = None) -> str:
    why = reason or {
        errno.ENOENT: f"its folder {path.parent} does not exist",
        errno.ENOTDIR: f"{_file_in(path)} is a file, not a folder",
        errno.EISDIR: "it is a folder",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EROFS: "the file system is read-only",
        errno.ENAMETOOLONG: "the name is too long for the file system",
    }.get(exc.errno or 0, exc.strerror or type(exc).__name__)
    return (
        f"cannot write {option} {path}: {why}; nothing was read or changed, give a path that "
        "can be written"
    )


def _file_in(path: Path) -> Path:
    """The first component of `path` that exists and is not a folder."""
    for part in reversed((path, *path.parents)):
        if os.path.lexists(part) and not part.is_dir():
            return part
    return path.parent


def name_max(folder: Path) -> int:
    """The longest file name (in bytes) the file system of `folder` (or of its nearest existing
    parent) takes; 255 where it does not say."""
    existing = folder.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    try:
        return os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255
