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

The watch counts the bot's process group and every descendant of its first process, so a child
that calls ``setsid`` is still counted while its parent lives. Without the sandbox an orphaned
``setsid`` child escapes the watch and the group kill; in the sandbox (``sandbox``, see
:mod:`harness.arena.sandbox`) the whole PID namespace dies with the bot. The watch reads /proc:
where there is none (not Linux) the arena says so once and only the kernel limits apply.
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
SANDBOXES = ("auto", "bwrap", "none")


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-bot resource limits; ``None`` switches one off.

    ``address_space_bytes``: RLIMIT_AS of every process of the bot (default 2 GiB).
    ``cpu_s``: CPU seconds the bot's process group may use during one match (default None: unlimited;
    the time control already bounds each decision's wall time).
    ``open_files``: RLIMIT_NOFILE of every process (default 256).
    ``processes``: live processes in the bot's process group (default 64), watched from /proc.
    ``poll_s``: how often the watched limits are checked (default 0.1 s).
    ``sandbox``: ``bwrap`` (bubblewrap, :mod:`harness.arena.sandbox`), ``none``, or ``auto`` (the
    default: bwrap where it works, else none with one line saying so).
    """

    address_space_bytes: int | None = 2 * GiB
    cpu_s: float | None = None
    open_files: int | None = 256
    processes: int | None = 64
    poll_s: float = 0.1
    sandbox: str = "auto"

    def __post_init__(self) -> None:
        for name in ("address_space_bytes", "open_files", "processes"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise ValueError(f"limit {name} must be a positive integer or None, not {v!r}")
        if self.cpu_s is not None and not self.cpu_s > 0:
            raise ValueError(f"limit cpu_s must be > 0 seconds or None, not {self.cpu_s!r}")
        if not self.poll_s > 0:
            raise ValueError(f"limit poll_s must be > 0 seconds, not {self.poll_s!r}")
        if self.sandbox not in SANDBOXES:
            raise ValueError(f"limit sandbox must be one of {', '.join(SANDBOXES)}, not {self.sandbox!r}")

    @property
    def watched(self) -> bool:
        """Whether a watchdog must poll the group."""
        return self.cpu_s is not None or self.processes is not None

    def wrap(self, argv: list[str], die_with_arena: bool = False) -> list[str]:
        """``argv`` behind the launcher that applies the kernel limits and then execs it; with
        ``die_with_arena``, the launched process also dies with this one (see launch.py)."""
        opts = [f"--parent={os.getpid()}"] if die_with_arena else []
        if self.address_space_bytes is not None:
            opts.append(f"--as={self.address_space_bytes}")
        if self.open_files is not None:
            opts.append(f"--nofile={self.open_files}")
        if not opts:
            return argv
        return [sys.executable, "-I", "-S", str(LAUNCHER), *opts, "--", *argv]

    def to_dict(self) -> dict[str, Any]:
        """Every limit; ``sandbox`` only when chosen (records from before it existed mean ``auto``)."""
        d = asdict(self)
        if d["sandbox"] == "auto":
            del d["sandbox"]
        return d


def group_stats(pgid: int, tree: bool = True) -> list[tuple[int, list[bytes]]]:
    """The processes of a bot started as group leader ``pgid``: its process group and, with
    ``tree`` (only while process ``pgid`` is known not to be reaped: its pid cannot be reused), every
    descendant of it; each with its /proc stat fields from field 3 (state) on (proc(5))."""
    every: dict[int, list[bytes]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        every[int(name)] = stat[stat.rindex(b")") + 2:].split()  # state ppid pgrp ...
    found = {pid for pid, fields in every.items() if int(fields[2]) == pgid}
    if tree:
        children: dict[int, list[int]] = {}
        for pid, fields in every.items():
            children.setdefault(int(fields[1]), []).append(pid)
        todo = list(found | ({pgid} & every.keys()))
        found.update(todo)
        while todo:
            for kid in children.get(todo.pop(), ()):
                if kid not in found:
                    found.add(kid)
                    todo.append(kid)
    return [(pid, every[pid]) for pid in sorted(found)]


def group_usage(pgid: int, exclude: frozenset[int] = frozenset(), tree: bool = True) -> tuple[int, float]:
    """Live (non-zombie) processes of the bot led by ``pgid`` (see :func:`group_stats`; the pids in
    ``exclude``, the sandbox's own, are not counted) and their CPU seconds (user + system, reaped
    children included; zombies' own time counted too), from one pass over /proc."""
    live, ticks = 0, 0
    for pid, fields in group_stats(pgid, tree):
        live += fields[0] != b"Z" and pid not in exclude
        ticks += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return live, ticks / _TICK
