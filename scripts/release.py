#!/usr/bin/env python3
"""`make release` (and .github/workflows/release.yml): a release's files, built from this checkout.

    python scripts/release.py [OUT]      OUT defaults to dist/; it must hold no file of this version

writes into OUT:

    kafka_topic_reconciler-VERSION-py3-none-any.whl     the wheel (uv build, from the sdist)
    kafka_topic_reconciler-VERSION.tar.gz               the sdist
    kafka_topic_reconciler-VERSION-requirements.txt     the lock: every runtime dependency pinned
                                                        with the sha256 of each of its files
    SHA256SUMS                                          `sha256sum -c` lines of the three

The lock is reconciler/scaffold/reconciler-requirements.txt as committed (`make lock` writes it;
`make env` installs the suite's dependencies at its pins), checked first against pyproject.toml:
every dependency locked at a version its specifier allows, every locked package with hashes.
The wheel's own sha256 (SHA256SUMS) is what the reusable workflows' `package-sha256` input takes:
the wheel cannot carry its own hash, so the lock inside it pins the dependencies only.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "reconciler" / "scaffold" / "reconciler-requirements.txt"
DISTRIBUTION = "kafka_topic_reconciler"
HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})\b")


def normalise(name: str) -> str:
    """A project name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(text: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """The lock's packages: normalised name -> (pinned version, sha256 hashes)."""
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    name = ""
    for line in text.splitlines():
        if re.match(r"[A-Za-z0-9]", line):
            match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", line)
            if match is None:
                raise ValueError(f"lock: {line.strip()!r} is not pinned with ==")
            name = normalise(match.group(1))
            found[name] = (match.group(2), ())
        elif name and (hashes := HASH.findall(line)):
            version, known = found[name]
            found[name] = (version, (*known, *hashes))
    return found


def lock_problems(pyproject: str, lock: str) -> list[str]:
    """What is wrong with the lock for pyproject.toml's runtime dependencies (none: [])."""
    from packaging.requirements import Requirement

    problems = []
    try:
        pins = locked(lock)
    except ValueError as exc:
        return [str(exc)]
    for package, (version, hashes) in sorted(pins.items()):
        if not hashes:
            problems.append(f"{package}=={version} has no --hash=sha256")
    for text in tomllib.loads(pyproject)["project"]["dependencies"]:
        wanted = Requirement(text)
        pin = pins.get(normalise(wanted.name))
        if pin is None:
            problems.append(f"{wanted.name} ({text}) is not in the lock")
        elif not wanted.specifier.contains(pin[0], prereleases=True):
            problems.append(f"{wanted.name} is locked at {pin[0]}, outside {wanted.specifier}")
    return problems


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def uv() -> str:
    beside = Path(sys.executable).parent / "uv"  # the dev dependencies' pinned uv
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if found is None:
        raise SystemExit("error: no uv: run `make env` (it is a dev dependency) or pip install uv")
    return found


def build(out: Path) -> list[Path]:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    problems = lock_problems((ROOT / "pyproject.toml").read_text(), LOCK.read_text())
    if problems:
        raise SystemExit(
            f"error: {LOCK.relative_to(ROOT)} does not lock pyproject.toml's dependencies "
            f"({'; '.join(problems)}): run `make lock` and commit it"
        )
    names = [
        f"{DISTRIBUTION}-{version}-py3-none-any.whl",
        f"{DISTRIBUTION}-{version}.tar.gz",
        f"{DISTRIBUTION}-{version}-requirements.txt",
    ]
    out.mkdir(parents=True, exist_ok=True)
    if clashes := [n for n in [*names, "SHA256SUMS"] if (out / n).exists()]:
        raise SystemExit(f"error: {out} already has {', '.join(clashes)}: remove them first")
    with tempfile.TemporaryDirectory() as work:
        # uv builds the sdist, then the wheel from the unpacked sdist: the wheel holds only
        # what the sdist ships
        subprocess.run([uv(), "build", "--quiet", "--out-dir", work, str(ROOT)], check=True)
        for name in names[:2]:
            shutil.move(Path(work) / name, out / name)
    shutil.copyfile(LOCK, out / names[2])
    paths = [out / n for n in names]
    sums = "".join(f"{sha256(p)}  {p.name}\n" for p in paths)
    (out / "SHA256SUMS").write_text(sums, encoding="utf-8")
    return [*paths, out / "SHA256SUMS"]


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print("usage: scripts/release.py [OUT]", file=sys.stderr)
        return 1
    for path in build(Path(argv[0] if argv else ROOT / "dist")):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
