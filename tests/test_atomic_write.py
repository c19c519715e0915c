"""Files replaced whole (reconciler/atomic_write.py): what a stopped writer leaves behind."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.atomic_write import replace_whole


def _stopped_midway(stop: BaseException) -> Iterator[str]:
    yield "first half\n"
    raise stop


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), OSError(28, "No space left on device")])
def test_a_writer_stopped_midway_leaves_the_old_file_and_no_sibling(
    tmp_path: Path, stop: BaseException
) -> None:
    path = tmp_path / "plan.json"
    path.write_text("the reviewed plan\n")
    with pytest.raises(type(stop)):
        replace_whole(path, _stopped_midway(stop))
    assert path.read_text() == "the reviewed plan\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]


def test_the_replaced_file_keeps_its_mode_and_a_new_one_gets_the_umasks(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text("{}")
    old.chmod(0o600)
    replace_whole(old, b'{"a": 1}')
    assert old.read_bytes() == b'{"a": 1}'
    assert stat.S_IMODE(old.stat().st_mode) == 0o600
    new = tmp_path / "new.jsonl"
    replace_whole(new, (f"{n}\n" for n in range(3)))
    assert new.read_text() == "0\n1\n2\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


def test_a_link_is_followed_and_kept(tmp_path: Path) -> None:
    (tmp_path / "plans").mkdir()
    real = tmp_path / "plans" / "plan.json"
    real.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    replace_whole(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert sorted(p.name for p in (tmp_path / "plans").iterdir()) == ["plan.json"]


def test_what_is_not_a_regular_file_is_written_in_place_never_renamed_over(tmp_path: Path) -> None:
    """`-o /dev/null` must not replace the device (as root, a rename would): a FIFO stands in."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_bytes()))
    reader.start()
    replace_whole(fifo, "through the pipe\n")
    reader.join(10)
    assert read == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
