"""Resource limits for spawned bots, applied to the bot's process group at launch and watched after.

Kernel limits (``setrlimit`` in the launched process, inherited by every child, soft = hard so a
bot cannot raise them): address space (RLIMIT_AS, Linux only: elsewhere one line says it is not
applied) and open files (RLIMIT_NOFILE) per process.

Watched limits (the arena looks at the bot's processes every ``poll_s``, :mod:`harness.arena.watch`, and
SIGKILLs the whole group):

* ``processes``: live processes in the bot's process group. RLIMIT_NPROC is not used: it counts
  every process of the *user* (the arena and all other bots included) and root ignores it.
* ``cpu_s``: CPU seconds per match. RLIMIT_CPU is not used: it is per process lifetime, and one
  bot process serves many matches, possibly at once. Instead, while a match runs, the CPU time of
  the whole group (user + system, reaped children included where the platform counts them) is measured;
  if more than ``cpu_s`` is used between the start of a match and now, the group is killed. A
  process serving several matches at once is charged all of its CPU in each of them (the
  conservative reading), so set ``cpu_s`` with concurrency in mind.

The watch counts the bot's process group and every descendant of its first process, so a child
that calls ``setsid`` is still counted; on Linux, where one census of ``/proc`` per tick serves every
bot (:mod:`harness.arena.watch`), also after its parent died. Without the sandbox an orphaned ``setsid``
child escapes the group kill; in the sandbox (``sandbox``, see :mod:`harness.arena.sandbox`, Linux only)
the whole PID namespace dies with the bot. Elsewhere (macOS, the BSDs) each bot is scanned with psutil
(:func:`group_usage`), which is also what stopping a bot uses everywhere; where processes cannot be
listed the arena says so once and only the kernel limits apply.
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psutil

LAUNCHER = Path(__file__).with_name("launch.py")
GiB = 1 << 30
LINUX = sys.platform.startswith("linux")
_SAID: set[str] = set()  # Linux-only limits already said to be off here
SANDBOXES = ("auto", "bwrap", "none")


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-bot resource limits; ``None`` switches one off.

    ``address_space_bytes``: RLIMIT_AS of every process of the bot (default 2 GiB).
    ``cpu_s``: CPU seconds the bot's process group may use during one match (default None: unlimited;
    the time control already bounds each decision's wall time).
    ``open_files``: RLIMIT_NOFILE of every process (default 256).
    ``processes``: live processes in the bot's process group (default 64), watched with psutil.
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

    def wrap(self, argv: list[str], die_with_arena: bool = False, end_group: bool = False) -> list[str]:
        """``argv`` behind the launcher that applies the kernel limits and then execs it; with
        ``die_with_arena``, the launched process also dies with this one, and with ``end_group`` (a
        sandboxed bot) what it leaves in its process group dies when it ends (see launch.py)."""
        opts = [f"--parent={os.getpid()}"] if die_with_arena else []
        if die_with_arena and end_group:
            opts.append("--end-group=1")
        if self.address_space_bytes is not None and LINUX:
            opts.append(f"--as={self.address_space_bytes}")
        elif self.address_space_bytes is not None:
            linux_only("the address-space limit (RLIMIT_AS)")
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


def linux_only(what: str) -> None:
    """Say once, in one line, that ``what`` is Linux-only and is not applied on this platform."""
    if what not in _SAID:
        _SAID.add(what)
        print(f"arena: {what} is Linux-only (this is {sys.platform}): not applied", file=sys.stderr, flush=True)


_UNWATCHED: list[str] = []  # why processes cannot be listed here, once found out (and said)


def _unwatched(why: str) -> None:
    """Say once, in one line, that the watched limits are off and why."""
    if not _UNWATCHED:
        _UNWATCHED.append(why)
        print(f"arena: cannot list processes here ({why}): the process and CPU limits are not watched, "
              "only the kernel limits apply", file=sys.stderr, flush=True)


def watchable() -> bool:
    """Whether this arena can list processes and read their CPU times (psutil works here)."""
    if not _UNWATCHED:
        try:
            psutil.Process().cpu_times()
            psutil.pids()
        except (OSError, psutil.Error) as e:
            _unwatched(f"{type(e).__name__}: {e}")
    return not _UNWATCHED


def group_stats(pgid: int, tree: bool = True, times: bool = True,
                skip: frozenset[int] = frozenset()) -> list[tuple[int, bool, float]]:
    """The processes of a bot started as group leader ``pgid``: its process group and, with
    ``tree`` (only while process ``pgid`` is known not to be reaped: its pid cannot be reused), every
    descendant of it or of a member; each as (pid, is a zombie, CPU seconds: user + system, reaped
    children included where the platform keeps them; 0.0 without ``times``). The group is found from
    every pid's group id (one cheap system call each); the tree and the times are read for those
    processes only: on Linux straight from ``/proc`` (the tree from each thread's ``children`` list,
    :func:`proc_descendants`), elsewhere with psutil. The pids in ``skip`` are listed without reading
    anything of them (as live, 0.0 s). Empty where processes cannot be listed (:func:`watchable`)."""
    if not watchable():
        return []
    try:
        pids = psutil.pids()
    except (OSError, psutil.Error) as e:
        _unwatched(f"{type(e).__name__}: {e}")
        return []
    found = {pid for pid in pids if _pgid(pid) == pgid}
    fast = PROC_CHILDREN
    if tree:
        roots = [pgid] + sorted(found - {pgid})
        seen: set[int] = set()
        for root in roots:
            if root in seen:
                continue  # a descendant of a root already walked: its subtree is in already
            kids = proc_descendants(root) if fast else _descendants(root)
            if root == pgid and kids is not None:
                found.add(pgid)
            seen.update(kids or ())
            found.update(kids or ())
    out = []
    for pid in sorted(found):
        if pid in skip:
            out.append((pid, False, 0.0))
            continue
        got = proc_stat(pid) if fast else _psutil_stat(pid)
        if got is not None:  # else gone since the scan
            out.append((pid, got[0], got[1] if times else 0.0))
    return out


def _psutil_stat(pid: int) -> tuple[bool, float] | None:
    """(is a zombie, CPU seconds) of ``pid`` with psutil; None when it is gone."""
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            zombie = proc.status() == psutil.STATUS_ZOMBIE
            try:
                t = proc.cpu_times()
                cpu = t.user + t.system + getattr(t, "children_user", 0.0) + getattr(t, "children_system", 0.0)
            except psutil.ZombieProcess:  # macOS keeps no times for a zombie
                cpu = 0.0
    except (psutil.NoSuchProcess, psutil.AccessDenied, OSError):
        return None
    return zombie, cpu


def proc_stat(pid: int) -> tuple[bool, float] | None:
    """(is a zombie, CPU seconds: utime + stime + cutime + cstime) of ``pid`` from ``/proc/PID/stat``
    (proc(5)), as psutil reads them; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()  # after "pid (comm) ": state is field 3, utime field 14
    try:
        return fields[0] == b"Z", sum(int(x) for x in fields[11:15]) / CLOCK_TICKS
    except (IndexError, ValueError):
        return None


def proc_descendants(pid: int) -> list[int] | None:
    """Every descendant of ``pid`` from the ``children`` lists of each thread of each process (proc(5),
    Linux 3.5+); None when ``pid`` is gone."""
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            if p == pid:
                return None
            continue  # gone since its parent listed it
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children", "rb") as f:
                    kids = [int(k) for k in f.read().split()]
            except (OSError, ValueError):
                continue  # a thread that ended since the listing
            out.extend(kids)
            todo.extend(kids)
    return out


def _proc_children_readable() -> bool:
    """Whether this kernel lists each thread's children in /proc (CONFIG_PROC_CHILDREN): the cheap watch."""
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children", "rb"):
            return True
    except OSError:
        return False


PROC_CHILDREN = LINUX and _proc_children_readable()
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if PROC_CHILDREN else 100


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _descendants(pid: int) -> list[int] | None:
    """Every descendant of ``pid`` (None when ``pid`` is gone)."""
    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except (psutil.NoSuchProcess, psutil.AccessDenied, OSError):
        return None


def group_usage(pgid: int, exclude: frozenset[int] = frozenset(), tree: bool = True,
                times: bool = True) -> tuple[int, float]:
    """Live (non-zombie) processes of the bot led by ``pgid`` (see :func:`group_stats`; the pids in
    ``exclude``, the sandbox's own, are not counted) and their CPU seconds (zombies' own time too);
    without ``times`` the CPU is not read (0.0), nor anything of the pids in ``exclude``.

    >>> live, cpu = group_usage(os.getpgid(0)); live >= 1 and cpu > 0
    True
    """
    live, cpu = 0, 0.0
    for pid, zombie, seconds in group_stats(pgid, tree, times, frozenset() if times else exclude):
        live += not zombie and pid not in exclude
        cpu += seconds
    return live, cpu
