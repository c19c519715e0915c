"""Whether a pid is still the process reconciler started: pids get reused, and `down` must never
signal someone else's process. A node (state.py) and a sidecar (sidecars.py) are each trusted
only while /proc shows the pid alive and started with its own config file.
"""

from __future__ import annotations

from pathlib import Path


def is_our_process(pid: int, config: Path) -> bool:
    """True if pid is alive and was started with `config` on its command line."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    if status.split(") ", 1)[-1].startswith("Z"):
        return False  # a zombie has exited; it only waits to be reaped
    return str(config).encode() in cmdline
