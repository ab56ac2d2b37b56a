"""``arena check-bot BOT``: a compliance run for one bot, a command or ``remote:NAME``.

It uses the arena's own server, sessions and bot processes (:mod:`harness.arena`): the bot is
launched as a match would launch it (limits, sandbox, token), and every request is the one the
match loop would send (:mod:`harness.checkbot_positions`). The checks, in order:

``hello``          a Hello within the start-up limit
``protocol``       protocol version 2
``games``          the games it lists include every ``--game`` (default: every game it lists that the
                   arena plays)
``decisions:G``    a legal answer at every drawn position of game G (every kind of decision point);
                   one request at a time, each in its own match
``request_ids``    every reply echoes its request's id; no reply to a request never sent or answered
``latency``        p50/p99 of those answers; fails when p99 is over the move limit
``concurrency``    ``max_concurrent`` requests at once (as its Hello declares, at most 64), every one
                   answered legally with its id, p99 within the move limit
``goodbye``        after a Goodbye the bot ends (its process exits; a remote bot closes its stream)
``sigterm``        after SIGTERM its process exits within the grace (commands only)
``dropped``        after its stream is cut (the server it is connected to stops) its process exits within
                   the grace (commands only)
``strays``         none of its processes outlives it after Goodbye, SIGTERM or the cut stream, and none
                   is left once the run is over

After a failing decision the bot is stopped and the next check starts a fresh process. Latency is
measured at the arena and reported; a check fails on time only against the move limit.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import time
from argparse import Namespace
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import psutil

from harness.assignments import assignments
from harness.arena.commands import bot_names
from harness.arena.entrant import REMOTE_HELLO_S, REMOTE_PREFIX, Entrant
from harness.arena.limits import Limits
from harness.arena.match import check_reply
from harness.arena.process import BotProcess, describe_exit, group_members
from harness.arena.result import Cause, Clock, Fault
from harness.arena.server import PROTOCOL_VERSION, Arena, Session
from harness import checkbot_positions as positions
from harness import eventloop
from harness.games import registry
from harness.checkbot_report import FAIL, PASS, SKIP, Check, Report, percentile, table

MAX_CONCURRENCY = 64  # the most requests sent at once, whatever a Hello declares
WAVES = 3  # rounds of concurrent requests


@dataclass(frozen=True)
class Options:
    """How to check: the games (empty: every game the bot lists that the arena plays), decisions per
    game, the clock, the grace to exit after Goodbye/SIGTERM/a cut stream, the seed of the drawn
    positions, the bots' resource limits and where to listen."""

    games: tuple[str, ...] = ()
    decisions: int = 200
    move_ms: int = 1000
    bank_ms: int = 10000
    hello_s: float | None = None  # default: 10 s for a command, 300 s for a remote bot
    grace_s: float = 2.0
    seed: int = 0
    limits: Limits = Limits()
    listen: str = "127.0.0.1:0"
    on_remote: Callable[[str, str, str], None] | None = None  # (name, address, token) of a remote bot to start
    on_step: Callable[[str], None] | None = None  # told what is being checked


def new_report(spec: str, opts: Options) -> Report:
    rows = [("hello", "Hello within the limit"), ("protocol", f"protocol version {PROTOCOL_VERSION}"),
            ("games", "games listed")]
    rows += [(f"decisions:{g}", f"decisions: {g}") for g in opts.games]
    rows += [("request_ids", "request ids echoed"), ("latency", "latency against the move limit"),
             ("concurrency", "concurrency as declared"), ("goodbye", "ends on Goodbye"),
             ("sigterm", "exits on SIGTERM"), ("dropped", "exits when the stream drops"),
             ("strays", "no stray processes")]
    settings = {"move_ms": opts.move_ms, "bank_ms": opts.bank_ms, "decisions": opts.decisions,
                "grace_s": opts.grace_s, "games": list(opts.games), "limits": opts.limits.to_dict()}
    return Report(spec, opts.seed, [Check(i, t) for i, t in rows], settings=settings)


async def check_bot(spec: str, opts: Options) -> Report:
    """Run every check against the bot ``spec``; never raises because of the bot."""
    remote = spec.startswith(REMOTE_PREFIX)
    hello_s = opts.hello_s if opts.hello_s is not None else (REMOTE_HELLO_S if remote else Clock().hello_s)
    arena = Arena(hello_read_s=max(1.0, hello_s))
    await arena.start(opts.listen)
    run = _Run(spec, opts, arena, hello_s)
    try:
        await run.all()
    finally:
        await run.stop_all()
        await arena.stop()
    run.sweep()
    return run.report


@dataclass
class _Launch:
    """A started bot: its entrant (process) and its session (stream)."""

    entrant: Entrant
    session: Session


@dataclass
class _Run:
    spec: str
    opts: Options
    arena: Arena
    hello_s: float
    report: Report = field(init=False)
    remote: bool = field(init=False)
    name: str = field(init=False)
    current: _Launch | None = None
    entrants: list[Entrant] = field(default_factory=list)
    pgids: list[int] = field(default_factory=list)
    watched: list[tuple[int, float]] = field(default_factory=list)  # (pid, start time) seen in lifecycle checks
    rules: dict[str, Any] = field(default_factory=dict)
    drawn: dict[str, list[positions.Position]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.report = new_report(self.spec, self.opts)
        self.remote = self.spec.startswith(REMOTE_PREFIX)
        self.name = bot_names(self.spec)[0]

    def step(self, what: str) -> None:
        if self.opts.on_step is not None:
            self.opts.on_step(what)

    # -- launching ---------------------------------------------------------------------------

    async def launch(self, arena: Arena | None = None) -> _Launch | Fault:
        """A fresh bot, on ``arena`` (default: the run's); a remote bot connects once: later calls
        reuse its stream while it lives."""
        if self.remote:
            if self.current is not None and self.current.session.alive:
                return self.current
            if self.entrants:
                return Fault(Cause.DISCONNECT, "the remote bot's stream is gone (start it again to check again)")
        e = Entrant.parse(self.spec, self.name, arena=arena or self.arena, hello_s=self.hello_s,
                          stop_grace_s=self.opts.grace_s, limits=self.opts.limits)
        self.entrants.append(e)
        if self.remote and self.opts.on_remote is not None and self.arena.address is not None:
            self.opts.on_remote(self.name, self.arena.address, e.token)
        got = await e.ensure()
        pgid = e.process.pid if e.process is not None else None
        if pgid is not None:
            self.pgids.append(pgid)
        if isinstance(got, Fault):
            await e.stop()
            return got
        self.current = _Launch(e, got)
        return self.current

    async def live(self) -> _Launch | Fault:
        """The current bot if its stream is fine, else a fresh one."""
        if self.current is not None and self.current.session.alive:
            return self.current
        await self.retire()
        return await self.launch()

    async def retire(self) -> None:
        """Stop the current bot (a remote bot is kept while its stream is usable)."""
        cur, self.current = self.current, None
        if cur is None:
            return
        if self.remote and cur.session.alive:
            self.current = cur
            return
        await cur.entrant.stop()

    async def stop_all(self) -> None:
        self.current = None
        await asyncio.gather(*(e.stop() for e in self.entrants), return_exceptions=True)

    # -- the checks ----------------------------------------------------------------------------

    async def all(self) -> None:
        r = self.report
        self.step("Hello")
        t0 = time.monotonic()
        got = await self.launch()
        took = time.monotonic() - t0
        if isinstance(got, Fault):
            self.refused(got, took)
            return
        s = got.session
        r.hello = {"name": s.name, "version": s.version, "games": list(s.games), "max_concurrent": s.max_concurrent}
        r.get("hello").set(PASS, f"after {took * 1000:.0f} ms (limit {self.hello_s:g} s)", ms=round(took * 1000, 1))
        r.get("protocol").set(PASS, f"version {PROTOCOL_VERSION}")
        games = self.games(s)
        for g in games:
            await self.decisions(g)
        ok = all(r.get(f"decisions:{g}").status == PASS for g in games) and r.get("request_ids").status != FAIL
        answered = sum(r.get(f"decisions:{g}").data.get("answered", 0) for g in games)
        if r.get("request_ids").status == SKIP and answered:
            r.get("request_ids").set(PASS, f"every reply echoed its request's id ({answered} requests one at a time)")
        self.latency()
        if not games:
            for row in ("request_ids", "latency", "concurrency"):
                r.get(row).set(SKIP, "not run: no game to check")
        elif ok and r.get("latency").status != FAIL:
            await self.concurrency(games)
        else:
            r.get("concurrency").set(SKIP, "not run: single decisions already fail")
        await self.lifecycle("goodbye")
        if self.remote:
            for row in ("sigterm", "dropped", "strays"):
                r.get(row).set(SKIP, "a remote bot is not a process of the arena")
            return
        await self.lifecycle("sigterm")
        await self.lifecycle("dropped")

    def refused(self, fault: Fault, took: float) -> None:
        """The first launch gave no session: which check that fails, and everything after it skipped."""
        r = self.report
        detail = fault.detail
        if detail.startswith("bad Hello: protocol_version"):
            r.get("hello").set(PASS, f"after {took * 1000:.0f} ms (refused)")
            r.get("protocol").set(FAIL, detail[len("bad Hello: "):])
            why = "protocol version"
        elif detail.startswith("bad Hello:"):
            r.get("hello").set(PASS, f"after {took * 1000:.0f} ms (refused)")
            r.get("protocol").set(PASS, f"version {PROTOCOL_VERSION}")
            r.get("games").set(FAIL, detail[len("bad Hello: "):])
            why = "games listed"
        else:
            r.get("hello").set(FAIL, detail)
            why = "Hello"
        for c in r.checks:
            if c.status == SKIP:
                c.detail = f"not run: no session ({why} failed)"

    def games(self, s: Session) -> list[str]:
        """The games to check; the games row."""
        r = self.report
        known = registry.ids()
        listed = [g for g in s.games if g in known]
        other = [g for g in s.games if g not in known]
        wanted = list(self.opts.games) or listed
        missing = [g for g in wanted if g not in s.games]
        for g in wanted:
            if f"decisions:{g}" not in {c.id for c in r.checks}:
                r.checks.insert(self.report.checks.index(r.get("request_ids")), Check(f"decisions:{g}", f"decisions: {g}"))
        said = f"lists {' '.join(s.games) or 'no game'}"
        if other:
            said += f" (not played here: {' '.join(other)})"
        if missing:
            r.get("games").set(FAIL, f"does not list {' '.join(missing)} ({said}): the arena gives it no match of "
                                     f"{'that game' if len(missing) == 1 else 'those games'}")
            for g in missing:
                r.get(f"decisions:{g}").set(SKIP, f"not run: the bot does not list {g}")
        else:
            r.get("games").set(PASS, said)
        r.settings["games"] = [g for g in wanted if g not in missing]
        return [g for g in wanted if g not in missing]

    async def decisions(self, game: str) -> None:
        """Every drawn position of ``game``, one request at a time, each in its own match."""
        r = self.report
        row = r.get(f"decisions:{game}")
        g = registry.get(game)
        rules = self.rules[game] = g.rules()
        drawn = self.drawn[game] = positions.draw(game, rules, self.opts.decisions,
                                                  random.Random(f"{self.opts.seed}/{game}"))
        points, families = positions.coverage(drawn)
        self.step(f"decisions: {game} ({len(drawn)})")
        got = await self.live()
        if isinstance(got, Fault):
            row.set(FAIL, f"could not start the bot again: {got.detail}")
            return
        times: list[float] = []
        with got.entrant.metered(got.session):  # the game's decisions are charged as one match (cpu_s)
            fault, i, p = await self._sequence(got, drawn, rules, times)
        if fault is not None and p is not None:
            where = f"decision {i} of {len(drawn)} ({p.where()})"
            if _about_ids(fault):
                r.get("request_ids").set(FAIL, f"{where}: {fault.detail}")
                row.set(SKIP, f"stopped at decision {i}: see request ids")
            else:
                row.set(FAIL, f"{where}: {fault.cause}: {fault.detail}")
            await self.retire()
        else:
            row.set(PASS, f"{len(drawn)} legal answers; points {' '.join(points)}; actions {' '.join(families)}; "
                          "a match's first decision")
        row.data.update(answered=len(times), points=points, actions=families)
        if times:
            row.data["latency_ms"] = _figures(times)
        self.report.get("latency").data.setdefault("by_game", {})[game] = times

    async def _sequence(self, got: _Launch, drawn: Sequence[positions.Position], rules: Any,
                        times: list[float]) -> tuple[Fault | None, int, positions.Position | None]:
        """Ask ``drawn`` one at a time; the first fault with its number and position, if any."""
        for i, p in enumerate(drawn, 1):
            a = positions.ask(p, rules, self.name, self.opts.move_ms, self.opts.bank_ms)
            fault, took = await self.one(got, a)
            if fault is not None:
                return fault, i, p
            times.append(took)
        return None, len(drawn), None

    async def one(self, launch: _Launch, a: positions.Ask) -> tuple[Fault | None, float]:
        """Ask one decision as the match loop does; the fault (or None) and the seconds it took."""
        s = launch.session
        for n in a.notices:
            s.post(n)
        legal = a.position.legal
        timeout = (self.opts.move_ms + self.opts.bank_ms + Clock().grace_ms) / 1000
        reply, took = await s.decide(a.request, timeout)
        if isinstance(reply, Fault):
            if reply.cause is Cause.DISCONNECT:
                reply = await launch.entrant.explain(reply, s)
            return reply, took
        s.post(a.end)
        action = check_reply(reply, legal)
        if isinstance(action, Fault):
            return action, took
        error = getattr(reply, "error", "")
        if error:
            return Fault(getattr(Cause, "ERROR", Cause.INVALID),
                         f"the bot reported an error of its own code: {' '.join(error.split())[:200]}"), took
        return None, took

    def latency(self) -> None:
        row = self.report.get("latency")
        by_game: dict[str, list[float]] = row.data.pop("by_game", {})
        times = [t for ts in by_game.values() for t in ts]
        if not times:
            row.set(SKIP, "not run: no decision was answered")
            return
        f = _figures(times)
        row.data.update(f, by_game={g: _figures(ts) for g, ts in by_game.items() if ts})
        said = f"p50 {f['p50']:.1f} ms, p99 {f['p99']:.1f} ms, max {f['max']:.1f} ms over {len(times)} answers"
        if f["p99"] > self.opts.move_ms:
            row.set(FAIL, f"{said}: p99 is over the {self.opts.move_ms} ms move limit")
        else:
            row.set(PASS, f"{said} (move limit {self.opts.move_ms} ms)")

    async def concurrency(self, games: Sequence[str]) -> None:
        """``max_concurrent`` requests at once (each its own match), ``WAVES`` times."""
        row = self.report.get("concurrency")
        got = await self.live()
        if isinstance(got, Fault):
            row.set(FAIL, f"could not start the bot again: {got.detail}")
            return
        declared = got.session.max_concurrent
        k = min(declared, MAX_CONCURRENCY)
        row.data.update(declared=declared, at_once=k)
        if k <= 1:
            row.set(PASS, "max_concurrent 1: one request at a time (as in the decisions above)")
            return
        self.step(f"concurrency: {k} at once")
        pool = [p for g in games for p in self.drawn[g]]
        times: list[float] = []
        for w in range(WAVES):
            batch = [pool[(w * k + j) % len(pool)] for j in range(k)]
            asks = [positions.ask(p, self.rules[p.game], self.name, self.opts.move_ms, self.opts.bank_ms) for p in batch]
            with got.entrant.metered(got.session):
                results = await asyncio.gather(*(self.one(got, a) for a in asks))
            for (fault, took), a in zip(results, asks):
                if fault is not None:
                    row.set(FAIL, f"wave {w + 1} of {k} requests at once ({a.position.where()}): "
                                  f"{fault.cause}: {fault.detail}")
                    await self.retire()
                    return
                times.append(took)
        f = _figures(times)
        row.data["latency_ms"] = f
        said = f"{k} at once (declared {declared}), {WAVES} waves: p50 {f['p50']:.1f} ms, p99 {f['p99']:.1f} ms"
        if f["p99"] > self.opts.move_ms:
            row.set(FAIL, f"{said}: p99 is over the {self.opts.move_ms} ms move limit")
        else:
            row.set(PASS, said)

    async def lifecycle(self, event: str) -> None:
        """Goodbye, SIGTERM or a cut stream: the bot must end within the grace, leaving nothing behind."""
        row = self.report.get(event)
        what = {"goodbye": "Goodbye", "sigterm": "SIGTERM", "dropped": "the stream was cut"}[event]
        self.step(f"{what}")
        own: Arena | None = None  # the stream is cut by stopping an arena of its own (the transport closes)
        if event == "dropped":
            own = Arena(hello_read_s=max(1.0, self.hello_s), max_message_bytes=self.arena.max_message_bytes)
            await own.start("127.0.0.1:0")
        try:
            await self._lifecycle(event, what, row, own)
        finally:
            if own is not None:
                await own.stop(0)

    async def _lifecycle(self, event: str, what: str, row: Check, own: Arena | None) -> None:
        got = await (self.live() if event == "goodbye" else self._fresh(own))
        if isinstance(got, Fault):
            row.set(FAIL if not self.remote else SKIP, f"could not start the bot: {got.detail}")
            return
        grace = self.opts.grace_s
        s, proc = got.session, got.entrant.process
        watched = _bot_processes(proc) if proc is not None else []
        self.watched += watched
        t0 = time.monotonic()
        if event == "goodbye":
            await s.goodbye("check-bot: goodbye", wait_s=grace)
        elif event == "sigterm" and proc is not None:
            _sigterm(proc)
        elif own is not None:
            await own.stop(0)
        if proc is None:  # a remote bot: its stream must close
            try:
                await asyncio.wait_for(s.closed.wait(), max(0.0, grace - (time.monotonic() - t0)))
                row.set(PASS, f"closed its stream {1000 * (time.monotonic() - t0):.0f} ms after Goodbye")
            except TimeoutError:
                row.set(FAIL, f"its stream was still open {grace:g} s after Goodbye")
            return
        code = await proc.wait_exit(max(0.0, grace - (time.monotonic() - t0)))
        took = time.monotonic() - t0
        if code is None:
            row.set(FAIL, f"still running {grace:g} s after {what} (the arena then kills its process group)")
        else:
            row.set(PASS, f"{describe_exit(code)} {took * 1000:.0f} ms after {what}", exit=code)
        if code is not None:
            left = await _outliving(watched, proc, t0 + grace + 1.0)
            strays = self.report.get("strays")
            if left:
                strays.set(FAIL, f"after {what}: {len(left)} of its processes outlived it: {'; '.join(left[:3])}")
        self.current = None
        await got.entrant.stop()

    async def _fresh(self, arena: Arena | None = None) -> _Launch | Fault:
        await self.retire()
        return await self.launch(arena)

    def sweep(self) -> None:
        """The strays row: nothing of any launch is left once the run is over."""
        strays = self.report.get("strays")
        if self.remote or strays.status == SKIP and strays.detail:
            return
        left = sorted({p for g in self.pgids for p in group_members(g)} | set(_alive(self.watched)))
        if left:
            strays.set(FAIL, f"{len(left)} processes left after the arena stopped the bot: {left[:5]}")
        elif self.pgids:
            strays.set(PASS, f"none after Goodbye, SIGTERM or the cut stream, none left after {len(self.pgids)} "
                             f"launches", launches=len(self.pgids))


def _about_ids(fault: Fault) -> bool:
    """A fault of the request-id rule (server.Session._take)."""
    return fault.cause is Cause.INVALID and ("request id" in fault.detail or "unsolicited reply" in fault.detail)


def _figures(seconds: Sequence[float]) -> dict[str, float]:
    ms = [t * 1000 for t in seconds]
    return {"n": len(ms), "p50": round(percentile(ms, 50), 2), "p99": round(percentile(ms, 99), 2),
            "max": round(max(ms), 2)}


def _bot_processes(proc: BotProcess) -> list[tuple[int, float]]:
    """The bot's live processes (its group and every descendant, the sandbox's own left out), each
    with its start time so that a reused pid is not mistaken for it."""
    if proc.pid is None:
        return []
    skip = proc.overhead
    pids = set(group_members(proc.pid, tree=proc.returncode is None)) - skip
    out = []
    for pid in sorted(pids):
        try:
            out.append((pid, psutil.Process(pid).create_time()))
        except psutil.Error:
            continue
    return out


def _sigterm(proc: BotProcess) -> None:
    """SIGTERM as the arena sends it (to the bot's process group), but past the sandbox's own
    processes, so that it is the bot that must end itself."""
    if proc.pid is None:
        return
    if not proc.sandboxed:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
        return
    for pid, _ in _bot_processes(proc):
        try:
            os.kill(pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass


def _alive(watched: Sequence[tuple[int, float]]) -> list[int]:
    """The watched processes still running (not zombies, same start time)."""
    out = []
    for pid, started in watched:
        try:
            p = psutil.Process(pid)
            if p.create_time() == started and p.status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.Error:
            continue
    return out


async def _outliving(watched: Sequence[tuple[int, float]], proc: BotProcess, until: float) -> list[str]:
    """The bot's processes still running at ``until`` (or none as soon as all are gone), described."""
    while True:
        left = sorted(set(_alive(watched)) | set(group_members(proc.pid) if proc.pid is not None else ()))
        if not left or time.monotonic() >= until:
            break
        await asyncio.sleep(0.05)
    out = []
    for pid in left:
        try:
            argv = psutil.Process(pid).cmdline()  # the program by name: its path can be long
            out.append(f"pid {pid} ({' '.join([os.path.basename(argv[0]), *argv[1:]] if argv else [])[:80]})")
        except psutil.Error:
            out.append(f"pid {pid}")
    return out


# -- the command ----------------------------------------------------------------------------------


def cmd_check_bot(args: Namespace) -> int:
    """``arena check-bot``: exit 0 when every check passes, 1 when one fails, 2 on bad input (one line)."""
    from rich.console import Console

    try:
        limits = _arguments(args)
    except ValueError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    err = Console(stderr=True, soft_wrap=True, highlight=False)
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)

    def on_remote(name: str, address: str, token: str) -> None:
        err.print(f"waiting for remote bot [bold]{name}[/]: ARENA_ADDRESS={address} ARENA_TOKEN={token}")

    def on_step(what: str) -> None:
        if not args.json and sys.stderr.isatty():
            err.print(f"[dim]checking {what}[/]")

    opts = Options(games=tuple(dict.fromkeys(args.game or ())), decisions=args.decisions,
                   move_ms=round(args.move_time * 1000), bank_ms=round(args.time_bank * 1000),
                   hello_s=args.hello_time, grace_s=args.grace, seed=seed, limits=limits, listen=args.listen,
                   on_remote=on_remote, on_step=on_step)
    try:
        report = eventloop.run(check_bot(args.bot, opts))
    except KeyboardInterrupt:
        err.print("arena: interrupted")
        return 130
    if args.json:
        import json

        print(json.dumps(report.to_dict(), indent=1))
    else:
        Console(soft_wrap=False).print(table(report))
    return 0 if report.ok else 1


def _arguments(args: Namespace) -> Limits:
    """Check the arguments (ValueError names a bad one); the bots' limits."""
    from harness.preflight import check_bot as preflight
    from harness.tournament.config import ConfigError, limits_of

    for g in args.game or ():
        if g not in registry.ids():
            raise ValueError(f"unknown game {g!r} (games: {', '.join(registry.ids())})")
    if args.decisions < 1:
        raise ValueError(f"--decisions must be at least 1, not {args.decisions}")
    if not args.move_time > 0 or not args.time_bank >= 0 or not args.grace > 0:
        raise ValueError("--move-time and --grace must be > 0 and --time-bank >= 0")
    if args.hello_time is not None and not args.hello_time > 0:
        raise ValueError("--hello-time must be > 0")
    preflight(args.bot)  # PreflightError is a ValueError
    try:
        return limits_of(assignments(args.limit, "limit"))
    except ConfigError as e:
        raise ValueError(str(e)) from None

