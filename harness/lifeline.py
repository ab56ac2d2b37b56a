"""The harness's own child processes (a tournament's workers, the page drawers): how many cores they may
use, and how each dies with its parent."""

from __future__ import annotations

import os
import signal

PR_SET_PDEATHSIG = 1


def parent_of(argv: list[str]) -> int:
    """The ``--parent=PID`` a child was started with (default: its parent now)."""
    return next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--parent=")), os.getppid())


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent dies; exit now if it is gone already."""
    try:
        import ctypes

        prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except OSError:  # pragma: no cover - not Linux: the parent's pipes still end the child
        pass
    if os.getppid() != parent:
        os._exit(1)


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
