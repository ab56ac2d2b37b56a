"""Resource limits for spawned bots, applied to the bot's process group at launch and watched after.

Kernel limits (``setrlimit`` in the launched process, inherited by every child, soft = hard so a
bot cannot raise them): address space (RLIMIT_AS) and open files (RLIMIT_NOFILE) per process.

Watched limits (the arena polls /proc every ``poll_s`` and SIGKILLs the whole group):

* ``processes``: live processes in the bot's process group. RLIMIT_NPROC is not used: it counts
  every process of the *user* (the arena and all other bots included) and root ignores it.
* ``cpu_s``: CPU seconds per match. RLIMIT_CPU is not used: it is per process lifetime, and one
  bot process serves many matches, possibly at once. Instead, while a match runs, the CPU time of
  the whole group (user + system, reaped children included) is measured from /proc/<pid>/stat;
  if more than ``cpu_s`` is used between the start of a match and now, the group is killed. A
  process serving several matches at once is charged all of its CPU in each of them (the
  conservative reading), so set ``cpu_s`` with concurrency in mind.

A process that leaves its group (``setsid``) escapes both the watch and the group kill; only a
container or cgroup can stop that, and this module does not pretend to.
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

LAUNCHER = Path(__file__).with_name("launch.py")
GiB = 1 << 30
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-bot resource limits; ``None`` switches one off.

    ``address_space_bytes``: RLIMIT_AS of every process of the bot (default 2 GiB).
    ``cpu_s``: CPU seconds the bot's process group may use during one match (default None: unlimited;
    the time control already bounds each decision's wall time).
    ``open_files``: RLIMIT_NOFILE of every process (default 256).
    ``processes``: live processes in the bot's process group (default 64), watched from /proc.
    ``poll_s``: how often the watched limits are checked (default 0.1 s).
    """

    address_space_bytes: int | None = 2 * GiB
    cpu_s: float | None = None
    open_files: int | None = 256
    processes: int | None = 64
    poll_s: float = 0.1

    def __post_init__(self) -> None:
        for name in ("address_space_bytes", "open_files", "processes"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise ValueError(f"limit {name} must be a positive integer or None, not {v!r}")
        if self.cpu_s is not None and not self.cpu_s > 0:
            raise ValueError(f"limit cpu_s must be > 0 seconds or None, not {self.cpu_s!r}")
        if not self.poll_s > 0:
            raise ValueError(f"limit poll_s must be > 0 seconds, not {self.poll_s!r}")

    @property
    def watched(self) -> bool:
        """Whether a watchdog must poll the group."""
        return self.cpu_s is not None or self.processes is not None

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` behind the launcher that applies the kernel limits and then execs it."""
        opts = []
        if self.address_space_bytes is not None:
            opts.append(f"--as={self.address_space_bytes}")
        if self.open_files is not None:
            opts.append(f"--nofile={self.open_files}")
        if not opts:
            return argv
        return [sys.executable, "-I", "-S", str(LAUNCHER), *opts, "--", *argv]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def group_stats(pgid: int) -> list[tuple[int, list[bytes]]]:
    """Every process of group ``pgid`` with its /proc stat fields from field 3 (state) on (proc(5))."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2:].split()  # state ppid pgrp ...
        if int(fields[2]) == pgid:
            found.append((int(name), fields))
    return found


def group_usage(pgid: int) -> tuple[int, float]:
    """Live (non-zombie) processes in group ``pgid`` and their CPU seconds (user + system, reaped
    children included; zombies' own time counted too), from one pass over /proc."""
    live, ticks = 0, 0
    for _, fields in group_stats(pgid):
        live += fields[0] != b"Z"
        ticks += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return live, ticks / _TICK
