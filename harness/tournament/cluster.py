"""A tournament's units played on a Ray cluster (issue 15): the :class:`Ray` executor.

Ray is imported only here, and only when a run asks for it (``--ray ADDRESS`` or ``[cluster]``).
The driver (this process) keeps the schedule and the one SQLite store: :func:`harness.tournament.runner.run`
records every unit in schedule order, whoever played it, so the standings are those of a local run.

Each match slot is a Ray actor (:class:`Slot`, ``num_cpus = match_cpus``, spread over the nodes). On its
node it does what a local worker process does (:mod:`harness.tournament.worker`): it starts an arena
server and the bots under the job's limits and sandbox, keeps them from unit to unit, and plays each
unit's legs with the job's clock. Its records are written on the node and come back as bytes in the
:class:`~harness.tournament.executor.UnitResult`; the driver writes them where a local run would.

The bots' files reach the nodes through Ray's runtime environment: ``working_dir`` (the bots' relative
commands run there) and the ``harness`` package itself (so every node runs the driver's arena). A slot
whose bots cannot start (a command missing on its node) fails :meth:`Ray.start` with one line naming
the entrant and the node, before the first match.

Faults: a slot whose node dies (or whose actor dies) loses only its units in flight; they come back
``lost`` and the writer submits them again to the other slots, and a replacement actor is asked for.
A bot that crashes is a forfeit inside the result, never a retry.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.tournament.config import Cluster
from harness.tournament.executor import Job, StartError, Unit, UnitPlayer, UnitResult, failure, set_aside, summed

INSTALL = "Ray is not installed: pip install -e '.[ray]' (or pip install 'ray>=2.9'), on every node"
HARNESS = str(Path(__file__).resolve().parents[1])  # this package, shipped to the nodes
NEVER_SHIPPED = (".git", ".venv", "venv", "__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache", "/results")


class ClusterError(Exception):
    """The cluster cannot play this tournament; the message is one line."""


def import_ray() -> Any:
    """The ``ray`` module, or ClusterError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ClusterError(INSTALL) from None
    return ray


def loopback(address: str) -> bool:
    """Whether a cluster address stays on this machine's loopback (``local``, or 127.0.0.1/localhost/::1):
    then Ray itself is kept on 127.0.0.1 (it would otherwise swap a loopback address for the machine's)."""
    if address == "local":
        return True
    host = address.removeprefix("ray://").rpartition(":")[0].strip("[]")
    return host in ("127.0.0.1", "localhost", "::1")


def fit(cpus: float, match_cpus: float) -> int:
    """Matches of ``match_cpus`` that fit in ``cpus``, counted as Ray does (in 1/10000 CPUs: no float
    rounding, so 2 CPUs hold 20 matches of 0.1)."""
    return int(round(cpus * 10_000)) // max(1, int(round(match_cpus * 10_000)))


def reach(address: str, timeout: float = 10.0) -> None:
    """StartError in one line if a HOST:PORT cluster address does not answer (Ray itself retries forever)."""
    import socket

    if address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise StartError(f"cannot reach the Ray cluster at '{address}': {e.strerror or e}") from None


def only(wd: Path, files: tuple[str, ...]) -> list[str]:
    """Exclude patterns (anchored at ``wd``) that leave only ``files`` (paths under ``wd``, files or whole
    directories) and the directories leading to them; ClusterError names one that is not there."""
    keep: set[tuple[str, ...]] = set()
    for f in files:
        path = (wd / f).resolve()
        if not path.exists() or not path.is_relative_to(wd):
            raise ClusterError(f"cluster files: '{f}' is not in the working directory '{wd}'")
        keep.add(path.relative_to(wd).parts)
    out: list[str] = []

    def walk(d: Path, prefix: tuple[str, ...]) -> None:
        for child in sorted(d.iterdir()):
            parts = (*prefix, child.name)
            if parts in keep or any(parts[:len(k)] == k for k in keep):
                continue  # kept, or inside a kept directory
            if child.is_dir() and not child.is_symlink() and any(k[:len(parts)] == parts for k in keep):
                walk(child, parts)  # on the way to a kept path
            else:
                out.append("/" + "/".join(parts))

    if () not in keep:
        walk(wd, ())
    return out


def runtime_env(cluster: Cluster, private: tuple[str, ...] = ()) -> dict[str, Any]:
    """What every node gets: the working directory (without the never-shipped paths, the ``private``
    ones under it and the config's ``excludes``) and this ``harness`` package."""
    wd = cluster.working_dir.resolve()
    if not wd.is_dir():
        raise ClusterError(f"cluster working_dir '{cluster.working_dir}' is not a directory")
    excludes = list(NEVER_SHIPPED)
    for p in private:
        rel = Path(p).resolve()
        if rel.is_relative_to(wd) and rel != wd:
            excludes.append("/" + rel.relative_to(wd).as_posix())
    excludes += list(cluster.excludes)
    if cluster.files:
        excludes += only(wd, cluster.files)
    return {"working_dir": str(wd), "excludes": excludes,
            "py_modules": [HARNESS], "env_vars": {"PYTHONUNBUFFERED": "1"}}


@dataclass(frozen=True)
class SlotReady:
    node: str  # the node's short id and address, for the live view
    error: str = ""  # why its bots could not start (one line), or ""


class SlotActor:
    """One match slot on a node (a Ray actor; see the module docstring). Async: stop and cancel reach it
    while a unit plays."""

    def __init__(self, job: Job, label: str) -> None:
        self.job, self.label = job, label
        self.node = label
        self.bots: Any = None
        self.player: UnitPlayer | None = None
        self.tasks: set[asyncio.Task[UnitResult]] = set()
        self.tmp = Path(tempfile.mkdtemp(prefix="arena-ray-"))

    async def start(self) -> SlotReady:
        """Start the arena server and the bots on this node."""
        import ray

        from harness.arena.match import play_match
        from harness.arena.sandbox import keep_private
        from harness.tournament.runner import Bots

        ctx = ray.get_runtime_context()
        self.node = f"{ctx.get_node_id()[:8]} ({ray.util.get_node_ip_address()})"
        keep_private(*self.job.private, self.tmp)
        logs = self._log_dir()
        job = replace(self.job, record_dir=self.tmp / "records", log_dir=logs, slots=1)
        job.record_dir.mkdir(parents=True, exist_ok=True)
        self.bots = Bots(job.entrants, hello_s=job.hello_s, limits=job.limits, per_leg=job.per_leg, log_dir=logs)
        try:
            await self.bots.start(job.game)
        except Exception as e:  # noqa: BLE001 - the driver reports it in one line
            await self.bots.close()
            return SlotReady(self.node, str(e) if isinstance(e, StartError) else failure(e))
        from functools import partial

        play = partial(play_match, strict=True) if job.strict else play_match
        self.player = UnitPlayer(self.bots.seat, play, job, self.bots.crashes, self.node)
        return SlotReady(self.node)

    def _log_dir(self) -> Path | None:
        """The bots' logs: under the job's log directory where this node can write it, else on the node."""
        if self.job.log_dir is None:
            return None
        for d in (self.job.log_dir / f"ray-{self.label}", self.tmp / "logs"):
            try:
                d.mkdir(parents=True, exist_ok=True)
                return d
            except OSError:
                continue
        return None

    async def play(self, unit: Unit) -> UnitResult:
        """Play one unit; its records come back as bytes and its results name the driver's record paths."""
        assert self.player is not None and self.bots is not None, "start() first"
        task = asyncio.ensure_future(self.player.unit(unit))
        self.tasks.add(task)
        try:
            res = await task
        except asyncio.CancelledError:
            return UnitResult(unit.index, crashes=self.bots.crashes(), worker=self.node, void=True)
        except Exception as e:  # noqa: BLE001 - the writer raises it
            return UnitResult(unit.index, crashes=self.bots.crashes(), worker=self.node, void=True, error=failure(e))
        finally:
            self.tasks.discard(task)
        records: dict[str, bytes] = {}
        results = []
        for r in res.results:
            if r.record is not None:
                path = Path(r.record)
                try:
                    records[r.match_id] = path.read_bytes()
                    path.unlink()
                except OSError:
                    pass
                r = replace(r, record=str(self.job.record_dir / path.name))
            results.append(r)
        return replace(res, results=tuple(results), records={} if res.void else records)

    async def stop(self) -> None:
        if self.player is not None:
            self.player.stopping = True

    async def cancel(self) -> None:
        await self.stop()
        for t in list(self.tasks):
            t.cancel()

    async def close(self) -> None:
        await self.cancel()
        if self.bots is not None:
            await self.bots.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class _Slot:
    def __init__(self, actor: Any, label: str) -> None:
        self.actor, self.label = actor, label
        self.node = label
        self.units: dict[int, Unit] = {}
        self.crashes: dict[str, int] = {}
        self.ready = False
        self.spare = False  # a replacement that has not played a whole unit yet


class Ray:
    """Units as calls to match-slot actors on a Ray cluster; see the module docstring."""

    kind = ("Ray node", "Ray nodes")  # what the live view calls the places units run

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.match_cpus = cluster.match_cpus or 1.0  # CPUs a slot reserves (build() fills in the entrants')
        self.capacity = 1  # set by start(): two units per slot, so no slot idles while the writer records
        self._ray: Any = None
        self._job: Job | None = None
        self._remote: Any = None
        self._slots: list[_Slot] = []
        self._pending: list[asyncio.Task[None]] = []  # replacements being started
        self._waiting: list[Unit] = []  # submitted while no slot was free
        self._results: asyncio.Queue[UnitResult] = asyncio.Queue()
        self._gone: dict[str, dict[str, int]] = {}
        self._done: dict[str, int] = {}
        self._stopping = False
        self._closing = False
        self._made = 0
        self._replacements = 0
        self._calls: set[asyncio.Task[None]] = set()
        self.note = ""  # one line for the live view when the cluster shrinks

    async def start(self, job: Job) -> None:
        """Connect to the cluster, start one slot per ``match_cpus`` (or ``matches``) and wait until every
        slot has its bots up; StartError with one line if the cluster or a node cannot."""
        if loopback(self.cluster.address):  # before Ray is imported: it reads this once
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        try:
            ray = import_ray()
            env = runtime_env(self.cluster, job.private)
        except ClusterError as e:
            raise StartError(str(e)) from None
        from harness.arena.sandbox import resolve

        # every node plays under the sandbox this machine chose (the legs policy counts on it): a node
        # without bubblewrap then fails its slots' start in one line, instead of running bots unsandboxed
        job = replace(job, limits=replace(job.limits, sandbox=resolve(job.limits.sandbox)))
        self._ray, self._job = ray, job
        reach(self.cluster.address)
        try:
            self._init(ray, env)  # in the main thread: Ray sets signal handlers there
        except Exception as e:  # noqa: BLE001 - Ray's errors are many and long: one line
            if self.cluster.address == "auto" and isinstance(e, ConnectionError):
                raise StartError("no Ray cluster is running on this machine (--ray auto): start one with "
                                 "`ray start --head`, or use --ray local for a private one") from None
            raise StartError(f"cannot reach the Ray cluster at '{self.cluster.address}': "
                             f"{' '.join(str(e).split())[:300]}") from None
        # a slot lives on one node: what counts is how many fit on each (a match of 2 CPUs fits on no
        # node of 1 CPU, however many there are: its slot would wait forever)
        nodes = [float(x.get("Resources", {}).get("CPU", 0)) for x in ray.nodes() if x.get("Alive")]
        cpus = sum(nodes)
        room = sum(fit(c, self.match_cpus) for c in nodes)
        n = self.cluster.matches or room
        if room < 1:
            await self.close()
            raise StartError(f"no node of the Ray cluster at '{self.cluster.address}' has room for one match: it "
                             f"reserves {self.match_cpus:g} CPUs (match_cpus, or the most cpus an entrant declares), "
                             f"the largest node has {max(nodes, default=0):g}")
        if n > room:  # the slots beyond would wait for CPUs forever, and start() with them
            await self.close()
            raise StartError(f"the Ray cluster at '{self.cluster.address}' has {cpus:g} CPUs: room for "
                             f"{room} matches at once, not {n} (matches = {n}, match_cpus = "
                             f"{self.match_cpus:g}); lower matches, or leave it out")
        self._remote = ray.remote(SlotActor).options(num_cpus=self.match_cpus, max_restarts=0,
                                                     scheduling_strategy="SPREAD", max_concurrency=64)
        self.capacity = 2 * n
        self._slots = [self._new_slot() for _ in range(n)]
        try:
            readies = await asyncio.gather(*(self._ready(s) for s in self._slots), return_exceptions=True)
        except BaseException:
            await self.close()
            raise
        bad = [r for r in readies if isinstance(r, SlotReady) and r.error]
        died = [(s, r) for s, r in zip(list(self._slots), readies) if isinstance(r, BaseException)]
        for s, _ in died:  # its node died while it started (or was already going): play with the others
            self._slots.remove(s)
            self._kill(s)
        if bad or not self._slots:
            why = f"on Ray node {bad[0].node}: {bad[0].error}" if bad else \
                f"no match slot could start on the Ray cluster at '{self.cluster.address}': " \
                f"{' '.join(str(died[0][1]).split())[:200]}"
            await self.close()
            raise StartError(why)

    def _init(self, ray: Any, env: dict[str, Any]) -> None:
        address = self.cluster.address
        extra: dict[str, Any] = {}
        if address == "local":
            extra = {"include_dashboard": False, "_node_ip_address": "127.0.0.1"}
        ray.init(address=address, runtime_env=env, log_to_driver=False, logging_level=logging.ERROR,
                 configure_logging=True, **extra)

    def _new_slot(self) -> _Slot:
        assert self._job is not None
        self._made += 1
        label = f"s{self._made}"
        return _Slot(self._remote.remote(self._job, label), label)

    async def _ready(self, s: _Slot) -> SlotReady:
        r: SlotReady = await s.actor.start.remote()
        s.node, s.ready = r.node, not r.error
        return r

    def submit(self, unit: Unit) -> None:
        if self._stopping:
            self._results.put_nowait(UnitResult(unit.index, worker="ray", void=True))
            return
        self._waiting.append(unit)
        self._dispatch()

    def _dispatch(self) -> None:
        while self._waiting:
            free = [s for s in self._slots if s.ready and len(s.units) < 2]
            if not free:
                if not self._slots:  # every slot gone and none coming: the writer gives these up (pending)
                    for unit in self._waiting:
                        self._results.put_nowait(UnitResult(unit.index, worker="ray", lost=True))
                    self._waiting.clear()
                return
            s = min(free, key=lambda x: len(x.units))
            unit = self._waiting.pop(0)
            s.units[unit.index] = unit
            call = asyncio.ensure_future(self._call(s, unit))
            self._calls.add(call)
            call.add_done_callback(self._calls.discard)

    async def _call(self, s: _Slot, unit: Unit) -> None:
        ray = self._ray
        try:
            res: UnitResult = await s.actor.play.remote(unit)
        except asyncio.CancelledError:
            s.units.pop(unit.index, None)
            self._results.put_nowait(UnitResult(unit.index, worker=s.node, void=True))
            raise
        except Exception as e:  # the actor or its node died: the unit is lost, played again elsewhere
            s.units.pop(unit.index, None)
            if isinstance(e, ray.exceptions.TaskCancelledError) or self._closing:
                self._results.put_nowait(UnitResult(unit.index, worker=s.node, void=True))
            else:
                self._lose(s, e)
                self._results.put_nowait(UnitResult(unit.index, worker=s.node, lost=True))
            self._dispatch()
            return
        s.units.pop(unit.index, None)
        s.crashes = res.crashes
        if res.complete:
            try:
                self._write(res)
            except Exception as e:  # noqa: BLE001 - the writer raises it, as locally (never a hang)
                res = replace(res, void=True, error=failure(e))
            else:
                self._done[s.node] = self._done.get(s.node, 0) + len(res.results)
                if s.spare:  # the replacement works: a later death may ask for another one
                    s.spare = False
                    self._replacements -= 1
        self._results.put_nowait(replace(res, worker=s.node, records={}))
        self._dispatch()

    def _write(self, res: UnitResult) -> None:
        """The unit's record files, written where a local run writes them (never over another one)."""
        assert self._job is not None
        self._job.record_dir.mkdir(parents=True, exist_ok=True)
        for match_id, data in res.records.items():
            path = self._job.record_dir / f"{match_id}.jsonl"
            set_aside(path, "interrupted")
            with open(path, "xb") as f:
                f.write(data)

    def _lose(self, s: _Slot, e: BaseException) -> None:
        """A slot died: forget it, and ask for a replacement (it starts when the cluster has the CPUs)."""
        if s not in self._slots:
            return
        self._slots.remove(s)
        self._kill(s)  # gone, or unreachable: either way its units are played elsewhere, not by it
        self._gone[s.label] = s.crashes
        left = len([x for x in self._slots if x.ready])
        # at most one replacement per slot started is unproven at a time: a cluster that keeps killing
        # them is not fed forever (one that has played a whole unit gives its credit back)
        again = not self._stopping and not self._closing and self._replacements < self.capacity // 2
        self.note = (f"Ray slot on node {s.node} died ({type(e).__name__}); {left} slots left, " +
                     ("a replacement is asked for" if again else "no replacement is asked for"))
        print(f"arena: {self.note}", file=sys.stderr)
        if again:
            self._replacements += 1
            task = asyncio.ensure_future(self._replace())
            self._pending.append(task)

    async def _replace(self) -> None:
        s = self._new_slot()
        s.spare = True
        self._slots.append(s)
        try:
            r = await self._ready(s)
        except Exception as e:  # noqa: BLE001 - this one died too
            self._lose(s, e)
            self._dispatch()
            return
        if r.error:
            self._slots.remove(s)
            self._kill(s)
            print(f"arena: a replacement slot on node {r.node} could not start: {r.error}", file=sys.stderr)
            self._dispatch()
            return
        self.note = ""
        self._dispatch()

    def _kill(self, s: _Slot) -> None:
        try:
            self._ray.kill(s.actor)
        except Exception:  # noqa: BLE001 - already gone
            pass

    async def next_result(self) -> UnitResult:
        return await self._results.get()

    def stop(self) -> None:
        self._stopping = True
        for unit in self._waiting:
            self._results.put_nowait(UnitResult(unit.index, worker="ray", void=True))
        self._waiting.clear()
        for s in self._slots:
            if s.ready:
                s.actor.stop.remote()

    def cancel(self) -> None:
        self.stop()
        for s in self._slots:
            if s.ready:
                s.actor.cancel.remote()

    def crashes(self) -> dict[str, int]:
        return summed([*self._gone.values(), *(s.crashes for s in self._slots)])

    def usage(self) -> dict[str, int]:
        """Matches played per node (the live view)."""
        nodes = {s.node: 0 for s in self._slots if s.ready}
        return nodes | self._done

    def labels(self) -> list[str]:
        return sorted({s.node for s in self._slots if s.ready})

    async def close(self) -> None:
        """Stop every slot's bots and release the actors; leaves the cluster (a ``local`` one ends)."""
        self._closing = True
        for t in self._pending:
            t.cancel()
        ray = self._ray
        if ray is None or not ray.is_initialized():
            return
        slots = list(self._slots)
        try:  # a slot still waiting for CPUs (a replacement) has nothing to close
            await asyncio.wait_for(asyncio.gather(*(s.actor.close.remote() for s in slots if s.ready),
                                                  return_exceptions=True), 30)
        except asyncio.TimeoutError:
            pass
        for s in slots:
            self._kill(s)
        for c in list(self._calls):
            c.cancel()
        await asyncio.gather(*self._calls, *self._pending, return_exceptions=True)
        ray.shutdown()

