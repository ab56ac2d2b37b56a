"""The harness's own child processes (a tournament's workers, the page drawers): how many cores they may
use, which of them a worker is pinned to, and how each dies with its parent."""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence

PR_SET_PDEATHSIG = 1


def parent_of(argv: list[str]) -> int:
    """The ``--parent=PID`` a child was started with (default: its parent now)."""
    return next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--parent=")), os.getppid())


def parent_cpus(argv: list[str]) -> frozenset[int] | None:
    """The ``--cpus=LIST`` a child was started with: the CPUs its parent pins it to (None: not pinned)."""
    given = next((a.split("=", 1)[1] for a in argv if a.startswith("--cpus=")), None)
    return None if given is None else parse_cpu_list(given)


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


def cpu_sets(n: int, need: float = 1.0, cpus: Sequence[int] | None = None) -> list[frozenset[int]] | None:
    """The CPUs each of ``n`` children is pinned to: ``cpus`` (default: this process's) split into ``n``
    equal runs (one each, round robin, when there are more children than CPUs). None (no pinning) where
    there is nothing to split, or a run would be narrower than ``need``, the most cores one match's bot
    keeps busy.

    Issue 18: a match is a ping-pong between a worker and its bots, one of them busy at a time. On one
    core each hand-off is a wake-up on the same CPU; spread over cores, each is a wake-up of another CPU,
    which a virtual machine charges for (an inter-processor interrupt and an exit to the hypervisor).

    >>> cpu_sets(2, cpus=[0, 1]), cpu_sets(3, cpus=[0, 1])
    ([frozenset({0}), frozenset({1})], [frozenset({0}), frozenset({1}), frozenset({0})])
    >>> cpu_sets(2, cpus=[0, 1, 2, 3, 4])
    [frozenset({0, 1}), frozenset({2, 3, 4})]
    >>> cpu_sets(2, need=2, cpus=[0, 1]), cpu_sets(1, cpus=[0, 1]), cpu_sets(2, cpus=[5])
    (None, None, None)
    """
    if cpus is None:
        try:
            cpus = sorted(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not Linux
            return None
    if n < 2 or len(cpus) < 2:
        return None
    if n >= len(cpus):
        runs = [frozenset({cpus[i % len(cpus)]}) for i in range(n)]
    else:
        base, extra = divmod(len(cpus), n)  # the last ``extra`` runs get one CPU more
        starts = [i * base + max(0, i - (n - extra)) for i in range(n + 1)]
        runs = [frozenset(cpus[starts[i]:starts[i + 1]]) for i in range(n)]
    return None if min(len(r) for r in runs) < need else runs


def pin(cpus: frozenset[int]) -> str | None:
    """Run this process (and every thread and process it starts from now on) on ``cpus`` only; the
    reason when the kernel refuses (None when done)."""
    try:
        os.sched_setaffinity(0, cpus)
    except (AttributeError, OSError, ValueError) as e:
        return str(e) or type(e).__name__
    return None


def cpu_list(cpus: frozenset[int]) -> str:
    """``cpus`` as the kernel writes a CPU list, and as ``--cpus=`` reads it back.

    >>> cpu_list(frozenset({0})), cpu_list(frozenset({0, 1, 2, 5})), sorted(parse_cpu_list("0-2,5"))
    ('0', '0-2,5', [0, 1, 2, 5])
    """
    runs: list[list[int]] = []
    for c in sorted(cpus):
        if runs and c == runs[-1][-1] + 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def parse_cpu_list(text: str) -> frozenset[int]:
    """The CPUs of a list such as ``0-2,5``; ValueError when it is not one."""
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    if not cpus:
        raise ValueError(f"no CPU in {text!r}")
    return frozenset(cpus)
