"""The watch over every spawned bot of one arena: one scan of the processes per tick serves them all.

Each watched bot (:class:`harness.arena.process.BotProcess` with ``Limits.watched``) is checked every
``poll_s`` for its live processes and, while a match is metered, its CPU time (the limits themselves
are described in :mod:`harness.arena.limits`). A bot used to scan for itself; with four to twenty bots
per arena those scans took more of the arena's CPU than the match loop (issue 18). Now one task per
event loop wakes at the shortest ``poll_s`` asked, and each tick takes one census for every bot:

* On Linux, :class:`Census` lists ``/proc`` once, asks every process its group (one system call
  each), and reads the parent of only the processes it has not seen before. Each bot's tree is kept
  from tick to tick: its group, and every process born of a process of the bot while it lived (so a
  descendant that left the group with ``setsid`` is still counted, also after its parent died). A
  bot's tree is first seeded by walking ``/proc/PID/task/TID/children`` from its leader.
* Elsewhere, each bot is scanned as before (:func:`harness.arena.limits.group_usage`, psutil).

A census of this machine's ~70 processes takes about 0.2 ms of CPU, less than handing it to a thread
and back (every wake-up counts on a busy two-core machine), so it runs on the event loop until one takes
longer than :data:`INLINE_S`, and in a worker thread from then on. The verdicts (kill for too many
processes or too much CPU) are the bot's own (:meth:`BotProcess.judge`), on the event loop.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from .limits import PROC_CHILDREN, group_usage, proc_descendants, proc_stat, watchable

INLINE_S = 0.001  # a census that takes longer than this (a machine of many processes) moves to a thread


class Watched(Protocol):
    """What the watch needs of a bot process."""

    @property
    def watch_key(self) -> tuple[int, float, frozenset[int], bool, bool, int | None] | None:
        """(group id, poll_s, pids not counted, tree, times, process limit), or None once the bot is gone."""
        ...

    def judge(self, live: int, cpu: float) -> None:
        """Act on one scan: live processes and CPU seconds (0.0 when times were not asked)."""
        ...


@dataclass(slots=True)
class Snapshot:
    """One pass over the processes: each one's group and its parent (as first seen), and which are new."""

    groups: dict[int, int]
    parents: dict[int, int]
    new: list[int]

    def group(self, pgid: int) -> set[int]:
        """The processes whose group is ``pgid``."""
        return {pid for pid, g in self.groups.items() if g == pgid}


@dataclass(slots=True)
class Census:
    """Passes over ``/proc`` that remember the parent of every process seen, so that only newcomers are read."""

    parents: dict[int, int] = field(default_factory=dict)

    def take(self) -> Snapshot:
        groups: dict[int, int] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                pid = int(name)
                try:
                    groups[pid] = os.getpgid(pid)
                except OSError:
                    pass  # gone since the listing
        old, parents, new = self.parents, {}, []
        for pid in groups:
            parent = old.get(pid)
            if parent is None:
                parent = _parent(pid)
                if parent is None:
                    continue  # gone since it was asked its group
                new.append(pid)
            parents[pid] = parent
        self.parents = parents
        return Snapshot({p: g for p, g in groups.items() if p in parents}, parents, new)


def _parent(pid: int) -> int | None:
    """The parent of ``pid`` (field 4 of ``/proc/PID/stat``); None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        return int(data[data.rfind(b")") + 2:].split(None, 2)[1])
    except (OSError, IndexError, ValueError):
        return None


def tree(snap: Snapshot, pgid: int, known: set[int], seeded: bool) -> set[int]:
    """The processes of the bot led by ``pgid`` in ``snap``: its group, what ``known`` held that still
    lives, and every newcomer whose parent is one of those (transitively). Without ``seeded`` (the first
    scan of this bot) the leader's descendants are walked in /proc first."""
    found = snap.group(pgid)
    if pgid in snap.groups:
        found.add(pgid)
    found.update(pid for pid in known if pid in snap.groups)
    if not seeded:
        found.update(pid for pid in proc_descendants(pgid) or () if pid in snap.groups)
    pending = [pid for pid in snap.new if pid not in found]
    grew = True
    while grew and pending:
        grew = False
        rest = []
        for pid in pending:
            if snap.parents[pid] in found:
                found.add(pid)
                grew = True
            else:
                rest.append(pid)
        pending = rest
    return found


def usage(members: Iterable[int], exclude: frozenset[int], times: bool, limit: int | None) -> tuple[int, float]:
    """Live processes of ``members`` not in ``exclude``, and their CPU seconds (everyone's, zombies' own
    time too) when ``times``. Zombies are told apart only when it matters: with ``times``, or when the
    count with them is over ``limit``."""
    members = list(members)
    counted = [pid for pid in members if pid not in exclude]
    if not times and (limit is None or len(counted) <= limit):
        return len(counted), 0.0
    live, cpu = 0, 0.0
    for pid in members if times else counted:
        got = proc_stat(pid)
        if got is None:
            continue  # gone since the census
        zombie, seconds = got
        live += not zombie and pid not in exclude
        cpu += seconds
    return live, cpu if times else 0.0


class Watch:
    """The watch of one event loop's bots (see the module's docstring)."""

    def __init__(self) -> None:
        self._bots: set[Watched] = set()
        self._trees: dict[int, set[int]] = {}  # group id -> the bot's processes at the last census
        self._census = Census()
        self._task: asyncio.Task[None] | None = None
        self._inline = True  # scan on the event loop while a scan takes less than INLINE_S

    def add(self, bot: Watched) -> None:
        loop = asyncio.get_running_loop()
        key = bot.watch_key
        if key is None or not watchable():  # watchable() said why, once
            return
        self._bots.add(bot)
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run())

    def discard(self, bot: Watched) -> None:
        self._bots.discard(bot)

    async def _run(self) -> None:
        """Every tick (the shortest ``poll_s`` asked) one census judges every bot: a bot may be looked at
        more often than its own ``poll_s``, never less (but for the time a loaded machine takes)."""
        loop = asyncio.get_running_loop()
        try:
            while live := self._live():
                await asyncio.sleep(min(key[1] for _, key in live))
                if not (live := self._live()):
                    break
                if self._inline:  # a quick census: a thread hand-off would cost more than it
                    started = time.thread_time()
                    results = self._scan([key for _, key in live])
                    self._inline = time.thread_time() - started < INLINE_S
                else:
                    results = await asyncio.to_thread(self._scan, [key for _, key in live])
                for (bot, _), (count, cpu) in zip(live, results):
                    if bot in self._bots:
                        bot.judge(count, cpu)
        finally:
            if _WATCHES.get(loop) is self:
                del _WATCHES[loop]

    def _live(self) -> list[tuple[Watched, tuple[int, float, frozenset[int], bool, bool, int | None]]]:
        """Each bot still watched with what to scan for it; bots that are gone are dropped."""
        keys = [(bot, bot.watch_key) for bot in list(self._bots)]
        self._bots.difference_update(bot for bot, key in keys if key is None)
        return [(bot, key) for bot, key in keys if key is not None]

    def _scan(self, keys: list[tuple[int, float, frozenset[int], bool, bool, int | None]]) -> list[tuple[int, float]]:
        """(live, cpu) of each bot of ``keys``, from one census on Linux (their trees brought up to date)."""
        if not PROC_CHILDREN:
            return [group_usage(pgid, exclude, tree_ok, times) for pgid, _, exclude, tree_ok, times, _ in keys]
        snap = self._census.take()
        trees: dict[int, set[int]] = {}
        out = []
        for pgid, _, exclude, tree_ok, times, limit in keys:
            if tree_ok:
                members = trees[pgid] = tree(snap, pgid, self._trees.get(pgid, set()), pgid in self._trees)
            else:
                members = snap.group(pgid)
            out.append(usage(members, exclude, times, limit))
        self._trees = trees
        return out


_WATCHES: dict[asyncio.AbstractEventLoop, Watch] = {}


def watch() -> Watch:
    """The watch of the running event loop."""
    loop = asyncio.get_running_loop()
    w = _WATCHES.get(loop)
    if w is None:
        for old in [old for old in _WATCHES if old.is_closed()]:  # a loop that closed before its watch ran
            del _WATCHES[old]
        w = _WATCHES[loop] = Watch()
    return w
