"""The specs' identity: what a saved plan records it was made from, and apply checks.

A saved plan travels from a pull request's check to the apply on merge (a CI artifact). Apply
derives the plan again and refuses one that differs (apply/check/verify.py), but a plan can also be
the same for other specs (a change the cluster already shows, an approval added), and what was
reviewed is the plan of particular files. So `reconciler plan` records the digest of the spec
files (reconciler.yaml, every topic file discovery loads and every file it warns it does not
load, by path and content: a comment counts, the environment's secrets do not) and the git
commit it ran at (reconciler/git_repo.py head_commit); apply refuses a plan whose digest is
not the one of the files it finds, before it connects.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from reconciler.errors import ConfigError
from reconciler.spec.discovery import find_topic_files
from reconciler.spec.repo_config import REPO_CONFIG, load_repo_config
from reconciler.spec.settings_scope import NONE


def specs_digest(repo: Path) -> str:
    """The digest ("sha256:...") of reconciler.yaml and the topic files of `repo`, and of the
    files discovery warns it does not read (R013): their presence stops every delete."""
    root = Path(repo).absolute()
    config, _ = load_repo_config(root, os.environ, NONE)  # the topics directory alone
    topics_dir = config.topics_dir if config is not None else root / "topics"
    files = {REPO_CONFIG: root / REPO_CONFIG}
    if os.path.isdir(topics_dir):
        found = find_topic_files(root, topics_dir)
        files.update((p.relative_to(root).as_posix(), p) for p in found.paths)
        unread = (n.path for n in found.not_read if n.could_hold_specs)
        files.update((f"unread:{name}", root / name) for name in unread)
    digest = hashlib.sha256()
    for name, path in sorted(files.items()):
        try:
            content = path.read_bytes() if path.is_file() else b""  # a hidden folder: its name
        except OSError as exc:  # validated a moment ago: it changed under us
            why = f"cannot read {path} ({exc.strerror}); run the command again"
            raise ConfigError(why) from exc
        key = name.encode()
        # Lengths first, so no two (path, content) lists give the same bytes
        digest.update(b"%d:%s%d:" % (len(key), key, len(content)))
        digest.update(content)
    return f"sha256:{digest.hexdigest()}"
