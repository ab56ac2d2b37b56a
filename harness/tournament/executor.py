"""Who plays the units of a tournament: this process, or worker processes (issue 18), or Ray (issue 15).

The unit of work is a whole *unit*: a duplicate pair, or a table in all its seat rotations
(:attr:`Pairing.pair_id`, :func:`harness.tournament.schedule.legs_of`). A unit is never split between a
finished and a lost half: its legs come back together, or the unit comes back *void* (a stop or an
interruption cut it short) or *lost* (the process playing it died) and nothing of it is recorded.

An :class:`Executor` is started with a picklable :class:`Job` (the entrants, game, rules, clock,
limits, legs policy, where records and logs go), is handed :class:`Unit` objects with
:meth:`~Executor.submit`, and gives back :class:`UnitResult` objects with :meth:`~Executor.next_result`,
in whatever order they finish. The single writer (:func:`harness.tournament.runner.run`) keeps at most
:attr:`~Executor.capacity` units submitted and records them in schedule order through a reorder buffer,
so the store, the ratings and the standings do not depend on which executor played.

- :class:`InProcess`: today's behaviour, the bots of :class:`harness.tournament.runner.Bots` in this
  process, ``concurrency`` matches at once. Used with remote entrants (they dial this arena) and
  with ``--workers 1``.
- :class:`Workers`: ``N`` worker processes (:mod:`harness.tournament.worker`), each with its own arena
  server and its own bot processes (kept from unit to unit; one per leg index where the legs policy says
  ``per_leg``), sharing the ``concurrency`` matches between them. Unless told not to (``pin``), each
  worker and its bots run on their own share of the CPUs (:func:`harness.lifeline.cpu_sets`). A worker
  dies with the arena: it asks the kernel for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``) and
  also exits when its command pipe reaches EOF; its bots are supervised by :mod:`harness.arena.launch`
  ``--parent`` in turn.

Ray mapping (issue 15; the interface does not change). ``Ray.start(job)`` connects to the cluster and
ships ``job`` (picklable: it holds no open object) to a Ray actor per node slot, or to each task; the
bots' files reach the nodes through Ray's runtime environment. ``submit(unit)`` runs one Ray task
``play_unit(job, unit) -> UnitResult``: the task starts (or reuses, in an actor) the arena server and the
bots on its node under the job's limits and sandbox, plays the unit's legs with the job's clock, and
returns the :class:`UnitResult` (the legs' :class:`MatchResult` objects, the crash counts of its bots,
the node's name as ``worker``) plus the record files' bytes in ``records`` (the driver writes them under
``job.record_dir``, so ``MatchResult.record`` paths stay those of a local run). ``next_result`` awaits
whichever task finishes first (``ray.wait``); a task lost with its node comes back as
``UnitResult(lost=True)`` and the writer submits the unit again; a bot's crash is a forfeit inside the
result, never a retry. ``stop()`` submits nothing new and lets tasks finish; ``cancel()`` cancels them
(``ray.cancel``), which voids their units; ``close()`` releases the actors. Concurrency per node is the
``capacity`` the driver asks for (``match_cpus`` per match).
"""

from __future__ import annotations

import asyncio
import os
import pickle
import struct
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from harness import eventloop
from harness.arena.limits import Limits
from harness.arena.result import Cause, Clock, MatchResult
from harness.lifeline import cpu_list, cpu_sets
from harness.tournament.config import EntrantSpec, match_cpus
from harness.tournament.schedule import Pairing


class StartError(Exception):
    """An entrant could not be started; the message is one line naming it."""


def set_aside(path: Path, label: str) -> Path | None:
    """Rename ``path`` to ``path.label-N`` (first free N) so a replay cannot overwrite it."""
    if not path.exists():
        return None
    n = 1
    while (target := path.with_name(f"{path.name}.{label}-{n}")).exists():
        n += 1
    path.replace(target)
    return target


@dataclass(frozen=True)
class Job:
    """Everything a process needs to play units of one tournament: picklable, no open objects."""

    entrants: tuple[EntrantSpec, ...]
    game: str
    rules: dict[str, Any]  # the game's rules as a map (``Game.rules_map``)
    clock: Clock
    limits: Limits
    per_leg: bool  # one bot process per leg index (runner.legs_policy)
    hello_s: float
    record_dir: Path  # absolute: <record_dir>/<match_id>.jsonl
    log_dir: Path | None = None  # bots' logs; a worker process writes under log_dir/worker-N/
    strict: bool = False  # a bot's reported error is a forfeit
    slots: int = 1  # matches at once in one process
    private: tuple[str, ...] = ()  # hidden from sandboxed bots in every process (sandbox.keep_private: out, db)


@dataclass(frozen=True)
class Unit:
    """One unit to play: the legs of a duplicate pair or table, in leg order."""

    index: int  # its position among the units submitted in this run (schedule order)
    legs: tuple[Pairing, ...]
    book: dict[str, Any] | None = None  # the deal book entry's header (harness.deals), if any

    @property
    def pair_id(self) -> str:
        return self.legs[0].pair_id


@dataclass(frozen=True)
class UnitResult:
    """A unit as it came back. Complete when every leg has a result that is not INTERRUPTED."""

    index: int
    results: tuple[MatchResult, ...] = ()
    crashes: dict[str, int] = field(default_factory=dict)  # this worker's bots, cumulative, by entrant
    worker: str = "main"
    void: bool = False  # cut short by a stop or an interruption: record nothing, it stays pending
    lost: bool = False  # the process playing it died: submit it again
    records: dict[str, bytes] = field(default_factory=dict)  # Ray: record files by match id (locally empty)
    error: str = ""  # the harness itself failed playing it (a bug, not a bot's fault): the writer raises it

    @property
    def complete(self) -> bool:
        return not self.void and not self.lost and bool(self.results) and \
            all(r.cause != Cause.INTERRUPTED for r in self.results)


class Executor(Protocol):
    """Plays units; see the module docstring."""

    capacity: int  # units the writer keeps submitted

    async def start(self, job: Job) -> None: ...

    def submit(self, unit: Unit) -> None: ...

    async def next_result(self) -> UnitResult: ...

    def stop(self) -> None: ...  # start no new match; matches in flight finish, their units come back

    def cancel(self) -> None: ...  # interrupt the matches in flight (their units come back void)

    def crashes(self) -> dict[str, int]: ...  # bot restarts so far, every process summed

    def usage(self) -> dict[str, int]: ...  # complete units' matches by worker, for the live view

    async def close(self) -> None: ...


PlayFn = Callable[..., Any]  # harness.arena.match.play_match and partials of it


class UnitPlayer:
    """Plays units on started bots in this process, ``slots`` matches at once (legs in order)."""

    def __init__(self, seat: Callable[[str, int], Any], play: PlayFn, job: Job, crashes: Callable[[], dict[str, int]],
                 worker: str = "main") -> None:
        self.seat, self.play, self.job, self.crashes, self.worker = seat, play, job, crashes, worker
        self.sem = asyncio.Semaphore(max(1, job.slots))
        self.stopping = False

    async def unit(self, unit: Unit) -> UnitResult:
        """Play every leg; the unit is void if a stop kept a leg from starting or a leg was interrupted."""
        async def leg(p: Pairing) -> MatchResult | None:
            async with self.sem:
                if self.stopping:
                    return None
                set_aside(self.job.record_dir / f"{p.match_id}.jsonl", "interrupted")  # left by a killed run
                seated = tuple(self.seat(n, p.leg) for n in p.players)
                extra = {} if unit.book is None else {"book": unit.book}
                r: MatchResult = await self.play(seated, match_id=p.match_id, seed=p.seed, game=self.job.game,
                                                 rules=self.job.rules, clock=self.job.clock,
                                                 record_dir=self.job.record_dir, **extra)
                return r

        got = await asyncio.gather(*(leg(p) for p in unit.legs))
        done = tuple(r for r in got if r is not None)
        void = len(done) < len(unit.legs) or any(r.cause == Cause.INTERRUPTED for r in done)
        return UnitResult(unit.index, done, dict(self.crashes()), self.worker, void=void)


def failure(e: BaseException) -> str:
    """One line for an exception of the harness while playing a unit, with where it happened."""
    import traceback

    where = traceback.extract_tb(e.__traceback__)[-1:] if e.__traceback__ is not None else []
    at = f" at {Path(where[0].filename).name}:{where[0].lineno}" if where else ""
    return f"{type(e).__name__}: {e}{at}"


class InProcess:
    """Units played by bots already started in this process (:class:`harness.tournament.runner.Bots`)."""

    def __init__(self, seat: Callable[[str, int], Any], play: PlayFn, crashes: Callable[[], dict[str, int]],
                 concurrency: int) -> None:
        self._seat, self._play, self._crashes = seat, play, crashes
        self.capacity = max(1, concurrency)
        self._concurrency = self.capacity
        self._player: UnitPlayer | None = None
        self._results: asyncio.Queue[UnitResult] = asyncio.Queue()
        self._tasks: set[asyncio.Task[None]] = set()
        self._done = 0

    async def start(self, job: Job) -> None:
        self._player = UnitPlayer(self._seat, self._play, replace(job, slots=self._concurrency), self._crashes)

    def submit(self, unit: Unit) -> None:
        assert self._player is not None, "start() first"
        player = self._player

        async def go() -> None:
            try:
                res = await player.unit(unit)
            except asyncio.CancelledError:
                res = UnitResult(unit.index, worker="main", void=True)
            except Exception as e:  # noqa: BLE001 - handed to the writer, which raises it
                res = UnitResult(unit.index, worker="main", void=True, error=failure(e))
            self._results.put_nowait(res)

        task = asyncio.ensure_future(go())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def next_result(self) -> UnitResult:
        res = await self._results.get()
        if res.complete:
            self._done += len(res.results)
        return res

    def stop(self) -> None:
        if self._player is not None:
            self._player.stopping = True

    def cancel(self) -> None:
        self.stop()
        for t in list(self._tasks):
            t.cancel()

    def crashes(self) -> dict[str, int]:
        return dict(self._crashes())

    def usage(self) -> dict[str, int]:
        return {"main": self._done}

    async def close(self) -> None:
        self.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


# -- worker processes ------------------------------------------------------------------------------

HEADER = struct.Struct(">I")


def frame(obj: Any) -> bytes:
    """One message on a worker's pipe: a 4-byte length, then the pickle."""
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


async def read_frame(reader: asyncio.StreamReader) -> Any:
    """The next message, or None at EOF."""
    try:
        head = await reader.readexactly(HEADER.size)
        return pickle.loads(await reader.readexactly(HEADER.unpack(head)[0]))
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


def summed(counts: Sequence[dict[str, int]]) -> dict[str, int]:
    """Crash counts by entrant, summed over processes (live ones and those gone)."""
    out: dict[str, int] = {}
    for one in counts:
        for name, c in one.items():
            out[name] = out.get(name, 0) + c
    return out


class _Proc:
    def __init__(self, label: str, proc: asyncio.subprocess.Process, slots: int) -> None:
        self.label, self.proc, self.slots = label, proc, slots
        self.units: dict[int, Unit] = {}  # in flight
        self.crashes: dict[str, int] = {}
        self.done = 0
        self.reader: asyncio.Task[None] | None = None
        self.cpus: frozenset[int] | None = None  # where it is pinned (None: every CPU)


class Workers:
    """``n`` worker processes sharing ``concurrency`` matches; units go to the least busy one."""

    def __init__(self, n: int, concurrency: int, pin: bool = True) -> None:
        self.n = max(1, min(n, concurrency))
        self.pin = pin  # each worker, and its bots, on its own share of the CPUs (lifeline.cpu_sets)
        self.capacity = 2 * max(self.n, concurrency)  # a unit waiting in each slot: no worker idles while the writer records
        self._concurrency = concurrency
        self._procs: list[_Proc] = []
        self._results: asyncio.Queue[UnitResult] = asyncio.Queue()
        self._gone: dict[str, dict[str, int]] = {}  # crash counts of workers that died
        self._closing = False

    async def start(self, job: Job) -> None:
        """Start every worker and wait until each has its bots started; StartError if one cannot."""
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
        cpus = cpu_sets(self.n, match_cpus(job.entrants)) if self.pin else None
        for i in range(self.n):
            slots = self._concurrency // self.n + (i < self._concurrency % self.n)
            label = f"w{i + 1}"
            pinned = () if cpus is None else (f"--cpus={cpu_list(cpus[i])}",)
            proc = await eventloop.spawn(
                sys.executable, "-m", "harness.tournament.worker", f"--parent={os.getpid()}", *pinned,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env)
            w = _Proc(label, proc, slots)
            self._procs.append(w)
            logs = None if job.log_dir is None else job.log_dir / f"worker-{i + 1}"
            assert proc.stdin is not None
            proc.stdin.write(frame(("job", replace(job, slots=slots, log_dir=logs), label)))
        try:
            for w in self._procs:
                assert w.proc.stdout is not None
                hello = await read_frame(w.proc.stdout)
                if hello is None or hello[0] != "ready":
                    why = hello[1] if hello is not None else f"worker {w.label} exited ({await w.proc.wait()})"
                    raise StartError(why)
                w.cpus = hello[2]  # where the worker runs: the kernel may have refused the pinning
                where = "" if w.cpus is None else f", cpu{'s' if len(w.cpus) > 1 else ''} {cpu_list(w.cpus)}"
                w.label = f"{w.label} (pid {w.proc.pid}{where})"
        except BaseException:
            await self.close()
            raise
        for w in self._procs:
            w.reader = asyncio.ensure_future(self._read(w))

    async def _read(self, w: _Proc) -> None:
        assert w.proc.stdout is not None
        while (msg := await read_frame(w.proc.stdout)) is not None:
            if msg[0] == "result":
                res: UnitResult = replace(msg[1], worker=w.label)
                w.units.pop(res.index, None)
                w.crashes = res.crashes
                if res.complete:
                    w.done += len(res.results)
                self._results.put_nowait(res)
        # EOF: the worker is gone; its units are lost (the writer submits them again elsewhere)
        if not self._closing:
            status = await w.proc.wait()
            n = len(w.units)
            print(f"arena: worker {w.label} exited (status {status}); {'its unit' if n == 1 else f'its {n} units'} "
                  f"in flight {'is' if n == 1 else 'are'} played again", file=sys.stderr)
        self._procs.remove(w)
        self._gone[w.label] = w.crashes
        for u in w.units.values():
            self._results.put_nowait(UnitResult(u.index, worker=w.label, lost=True))
        w.units.clear()

    def submit(self, unit: Unit) -> None:
        if not self._procs:
            self._results.put_nowait(UnitResult(unit.index, lost=True))
            return
        w = min(self._procs, key=lambda p: len(p.units) / p.slots)
        w.units[unit.index] = unit
        self._send(w, ("unit", unit))

    def _send(self, w: _Proc, msg: Any) -> None:
        if w.proc.stdin is not None and not w.proc.stdin.is_closing():
            w.proc.stdin.write(frame(msg))

    async def next_result(self) -> UnitResult:
        return await self._results.get()

    def stop(self) -> None:
        for w in self._procs:
            self._send(w, ("stop",))

    def cancel(self) -> None:
        for w in self._procs:
            self._send(w, ("cancel",))

    def crashes(self) -> dict[str, int]:
        return summed([*self._gone.values(), *(w.crashes for w in self._procs)])

    def usage(self) -> dict[str, int]:
        return {w.label: w.done for w in self._procs}

    def labels(self) -> list[str]:
        return [w.label for w in self._procs]

    async def close(self) -> None:
        """EOF to every worker (it interrupts its matches, stops its bots and exits); kill a slow one."""
        self._closing = True
        procs = list(self._procs)
        for w in procs:
            if w.proc.stdin is not None and not w.proc.stdin.is_closing():
                w.proc.stdin.close()
        for w in procs:
            try:
                await asyncio.wait_for(w.proc.wait(), 15)
            except asyncio.TimeoutError:
                w.proc.kill()
                await w.proc.wait()
        for w in procs:
            if w.reader is not None:
                w.reader.cancel()
        await asyncio.gather(*(w.reader for w in procs if w.reader is not None), return_exceptions=True)


def workers_for(requested: int, concurrency: int, remote: bool) -> int:
    """How many worker processes a run uses: none (in process, 1) with remote entrants, else at most one
    per match at once."""
    return 1 if remote else max(1, min(requested, concurrency))


def job_of(entrants: Sequence[EntrantSpec], game: str, rules: dict[str, Any], clock: Clock, limits: Limits,
           per_leg: bool, hello_s: float, record_dir: Path, log_dir: Path | None, strict: bool = False,
           slots: int = 1, private: Sequence[Path] = ()) -> Job:
    return Job(tuple(entrants), game, rules, clock, limits, per_leg, hello_s, Path(record_dir).absolute(),
               None if log_dir is None else Path(log_dir).absolute(), strict, slots,
               tuple(str(Path(p).absolute()) for p in private))
