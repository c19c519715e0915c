"""The specs' identity: what a saved plan records it was made from, and apply checks.

A saved plan travels from a pull request's check to the apply on merge (a CI artifact). Apply
derives the plan again and refuses one that differs (apply/check/verify.py), but a plan can also be
the same for other specs (a change the cluster already shows, an approval added), and what was
reviewed is the plan of particular files. So `reconciler plan` records the digest of the spec
files (reconciler.yaml, every topic file discovery loads and every file it warns it does not
load, by path and content: a comment counts, the environment's secrets do not) and the git
commit it ran at (reconciler/git_repo.py head_commit); apply refuses a plan whose digest is
not the one of the files it finds, before it connects.

The digest is of the bytes the command's load read (spec_files.py), of the files that load
found: never of a second read, which could see a file edited in between.
"""

from __future__ import annotations

import hashlib
import sys

from reconciler import readable
from reconciler.errors import ConfigError
from reconciler.spec.loader import LoadResult
from reconciler.spec.repo_config import REPO_CONFIG
from reconciler.spec.source import MAX_FILE_BYTES, real_path
from reconciler.spec.spec_files import SpecFiles


def specs_digest(loaded: LoadResult, files: SpecFiles) -> str:
    """The digest ("sha256:...") of reconciler.yaml and the topic files `loaded` read (their
    bytes from `files`, the reads of that load), and of the files discovery warned it does not
    read (R013): their presence stops every delete. `loaded` must be valid."""
    assert loaded.config is not None, "a digest of an invalid repository"
    root = loaded.config.root
    named = {REPO_CONFIG: (root / REPO_CONFIG, MAX_FILE_BYTES)}
    named.update((p.relative_to(root).as_posix(), (p, MAX_FILE_BYTES)) for p in loaded.paths)
    unread = (n.path for n in loaded.not_read if n.could_hold_specs)
    # never parsed, so no spec file's cap: read whole, as they are
    named.update((f"unread:{name}", (root / name, sys.maxsize)) for name in unread)
    digest = hashlib.sha256()
    for name, (path, cap) in sorted(named.items()):
        try:  # a hidden folder: its name alone
            content = files.read(real_path(path), cap) if path.is_file() else b""
        except OSError as exc:  # validated a moment ago: it changed under us
            why = f"cannot read {path} ({exc.strerror}); run the command again"
            raise ConfigError(why) from exc
        except readable.Unfit as exc:  # an unread name became a FIFO or a device meanwhile
            raise ConfigError(f"{path} {exc.why}; move it away and run the command again") from exc
        key = name.encode()
        # Lengths first, so no two (path, content) lists give the same bytes
        digest.update(b"%d:%s%d:" % (len(key), key, len(content)))
        digest.update(content)
    return f"sha256:{digest.hexdigest()}"
