"""Play the pending matches of a tournament, up to ``concurrency`` at once, and record each one.

Every entrant is one bot process (or one remote bot) serving all its concurrent matches over
its stream; the arena relaunches a crashed one for its next match and counts the crash. The units
(duplicate pairs, tables) are played by an executor (:mod:`harness.tournament.executor`: this process,
or worker processes each with their own bots) and recorded here, by the one writer, in schedule
order; each finished match is committed to the store in one transaction before the next is reported.
A stop request lets the matches in flight finish and starts no new one; a unit cut short by it is not
recorded (it is played again, whole, on resume).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from harness.arena.limits import Limits
from harness.arena.result import Clock, Fault, MatchResult
from harness.rating import Played
from harness.tournament.config import EntrantSpec, TournamentConfig
from harness.tournament.executor import Executor, InProcess, Job, StartError, Unit, UnitResult, set_aside
from harness.tournament.executor import job_of as make_job
from harness.tournament.schedule import Pairing, legs_of, seeded, tables
from harness.tournament.store import Store, Tournament


class PlayFn(Protocol):
    def __call__(self, entrants: Sequence[Any], *, match_id: str, seed: int, game: str, rules: Any, clock: Clock,
                 record_dir: Path | None) -> Awaitable[MatchResult]: ...


@dataclass
class RunReport:
    played: int  # matches recorded by this run
    pending: int  # matches still to play when it ended
    interrupted: bool


def preflight(specs: Sequence[EntrantSpec]) -> None:
    """Fail fast, with one line, on a bad name or a command whose program does not exist
    (the one preflight of :mod:`harness.preflight`)."""
    from harness import preflight as checks

    try:
        checks.check_bots(((e.name, e.label) for e in specs), what="entrant")
    except checks.PreflightError as err:
        raise StartError(str(err)) from None


class Bots:
    """The arena server and the :class:`Entrant` objects of every entrant, for the length of a run.

    With ``per_leg`` (duplicate legs with the sandbox), a spawned entrant has one bot process per leg
    index: the process that plays leg ``a`` of a table never plays another leg of it, so no process
    sees the same deals twice (issue 11). Remote entrants are one connection whatever the leg.
    """

    def __init__(self, specs: Sequence[EntrantSpec], hello_s: float = 10.0,
                 limits: Limits | None = Limits(), per_leg: bool = False, remote_hello_s: float | None = None,
                 log_dir: Path | None = None, listen: str = "127.0.0.1:0") -> None:
        self.specs = list(specs)
        self.listen = listen  # where remote entrants dial (spawned ones use the arena's unix socket)
        self.log_dir = log_dir  # each spawned entrant's stdout and stderr: log_dir/NAME.log (legs: log_dir/leg-N/NAME.log)
        self.hello_s = hello_s
        self.remote_hello_s = remote_hello_s  # None: REMOTE_HELLO_S (harness.arena.entrant)
        self.limits = limits  # applied to every spawned entrant
        self.per_leg = per_leg
        self.arena: Any = None
        self.entrants: dict[str, Any] = {}  # leg 0's
        self.legs: dict[tuple[str, int], Any] = {}  # the others', made when first needed

    def seat(self, name: str, leg: int) -> Any:
        """The Entrant that plays ``name``'s seat in a match of leg ``leg``."""
        first = self.entrants[name]
        if not self.per_leg or leg == 0 or first.command is None:
            return first
        key = (name, leg)
        if key not in self.legs:
            from harness.arena.entrant import Entrant

            self.legs[key] = Entrant(name, first.command, arena=self.arena, hello_s=self.hello_s, limits=self.limits,
                                     log_dir=None if self.log_dir is None else self.log_dir / f"leg-{leg}")
        return self.legs[key]

    async def start(self, game: str = "sixtysix") -> dict[str, Any]:
        """Start the server and every command entrant; StartError if one cannot say Hello or does
        not play ``game`` (a bot is never given a match of a game it did not list)."""
        from harness.arena.entrant import Entrant
        from harness.arena.server import Arena, plays

        self.arena = Arena()
        await self.arena.start(self.listen)
        for s in self.specs:
            self.entrants[s.name] = Entrant(s.name, s.command, s.remote, arena=self.arena,
                                            hello_s=self.remote_hello_s if s.command is None else self.hello_s,
                                            limits=self.limits, log_dir=self.log_dir)
        commands = [e for e in self.entrants.values() if e.command is not None]
        got = await asyncio.gather(*(e.ensure() for e in commands))
        for e, g in zip(commands, got):
            if isinstance(g, Fault):
                raise StartError(f"entrant '{e.name}' could not start: {g.detail}")
            if plays(g, game) is not None:
                raise StartError(f"entrant '{e.name}' does not play {game}: its Hello lists "
                                 f"{', '.join(g.games) or 'no game'}")
        return self.entrants

    def crashes(self) -> dict[str, int]:
        out = {n: e.crashes for n, e in self.entrants.items()}
        for (n, _), e in self.legs.items():
            out[n] += e.crashes
        return out

    async def close(self) -> None:
        every = [*self.entrants.values(), *self.legs.values()]
        await asyncio.gather(*(e.stop() for e in every), return_exceptions=True)
        if self.arena is not None:
            await self.arena.stop()


@dataclass(frozen=True)
class LegsPolicy:
    """Whether the legs of a unit share deals, and how that is kept fair (issue 11)."""

    shared: bool  # the legs of a unit play the same deals (duplicate), except for remote entrants
    per_leg: bool  # each leg index has its own sandboxed bot process
    why: str  # one line for the console and the leaderboard


def legs_policy(cfg: TournamentConfig) -> LegsPolicy:
    """Duplicate legs only where no bot can carry memory from one leg to the next: with the sandbox
    (one process per leg index, no files, no network), or for bots declared ``duplicate = "trusted"``.
    Otherwise every leg gets deals of its own, seats still rotated. A deal book's deals are known deals:
    every leg of a unit plays its entry (still one sandboxed process per leg index where there is a sandbox)."""
    if cfg.book is not None:
        from harness.arena.sandbox import resolve

        return LegsPolicy(True, resolve(cfg.limits.sandbox) == "bwrap",
                          f"every leg plays the deals of deal book '{cfg.book.name}' ({len(cfg.book)} entries, one "
                          "per unit in schedule order, cycling)")
    if cfg.duplicate == "off":
        return LegsPolicy(False, False, 'independent deals in every leg (duplicate = "off")')
    from harness.arena.sandbox import resolve

    if resolve(cfg.limits.sandbox) == "bwrap":
        return LegsPolicy(True, True, "duplicate legs, each played by its own sandboxed bot process "
                                      "(remote entrants: independent deals)")
    if cfg.duplicate == "trusted":
        return LegsPolicy(True, False, 'duplicate legs without the sandbox (duplicate = "trusted": the bots '
                                       "are trusted not to remember deals)")
    return LegsPolicy(False, False, "independent deals in every leg: duplicate legs need the sandbox "
                                    '(bubblewrap) or duplicate = "trusted"')


def schedule(cfg: TournamentConfig, played: Sequence[Played] = ()) -> list[Pairing]:
    """Every match of the tournament in schedule order: duplicate pairs for two seats, tables in all
    their seat rotations for more (:func:`harness.tournament.schedule.tables`), each unit with its own
    seed from the tournament's secret (:func:`harness.tournament.schedule.seeded`). An adaptive
    schedule (issue 17) holds the rounds made so far from the ``played`` matches
    (:func:`harness.tournament.adaptive.plan`)."""
    if cfg.seed is None:
        raise ValueError("the tournament's seed is drawn before it is scheduled")
    policy = legs_policy(cfg)
    remote = {e.name for e in cfg.entrants if e.remote is not None}
    if cfg.schedule == "adaptive":
        from harness.tournament import adaptive

        made: Iterator[Pairing] = iter(adaptive.plan(adaptive.field_of(cfg.identity(), cfg.seats),
                                                     adaptive.settings_of(cfg.identity()), played).pairings)
    else:
        made = tables(cfg.names, cfg.seats, cfg.rounds, cfg.seed, cfg.partners)
    out = list(seeded(made, cfg.seed, lambda p: not policy.shared or any(n in remote for n in p.players)))
    if cfg.book is not None:  # the book's seeds instead, unit by unit (harness.deals)
        from harness.deals import book_seeded

        return book_seeded(out, cfg.book)
    return out


def pending(cfg: TournamentConfig, done: set[str], played: Sequence[Played] = ()) -> list[Pairing]:
    """The scheduled matches not yet recorded, in schedule order."""
    return [p for p in schedule(cfg, played) if p.match_id not in done]


def played_in(store: Store, tid: int) -> list[Played]:
    """The recorded matches of a tournament as the rating sees them."""
    from harness.tournament.publish import played_of

    return [played_of(r) for r in store.matches(tid)]


def pending_in(cfg: TournamentConfig, store: Store, tid: int) -> list[Pairing]:
    """The matches of tournament ``tid`` to play now: the rest of the schedule, or for an adaptive one
    the rest of its current round (the next round once this one is recorded; none when it is over)."""
    played = played_in(store, tid) if cfg.schedule == "adaptive" else []
    return pending(cfg, store.done(tid), played)


def book_entries(cfg: TournamentConfig, store: Store, tid: int) -> dict[str, Any]:
    """The deal book entry of each unit of the schedule (none without a book; :mod:`harness.deals`)."""
    if cfg.book is None:
        return {}
    from harness.deals import unit_entries

    played = played_in(store, tid) if cfg.schedule == "adaptive" else []
    return unit_entries(schedule(cfg, played), cfg.book)


def finish(cfg: TournamentConfig, store: Store, tid: int) -> None:
    """Mark a tournament finished; an adaptive one's schedule is then the matches it played."""
    if cfg.schedule == "adaptive":
        store.set_scheduled(tid, len(store.done(tid)))
    store.finish(tid)


def clock_of(cfg: TournamentConfig) -> Clock:
    return Clock(move_ms=round(cfg.move_s * 1000), bank_ms=round(cfg.bank_s * 1000))


def record_dir(cfg: TournamentConfig, t: Tournament) -> Path:
    return cfg.out / "records" / f"{t.id:04d}-{t.name}"


async def run(
    cfg: TournamentConfig,
    store: Store,
    tournament: Tournament,
    *,
    entrants: dict[str, Any] | None = None,
    seat: Callable[[str, int], Any] | None = None,
    play: PlayFn | None = None,
    stop: asyncio.Event,
    crashes: Callable[[], dict[str, int]] = dict,
    on_result: Callable[[Pairing, MatchResult], None] | None = None,
    executor: Executor | None = None,
) -> RunReport:
    """Play every pending match of ``tournament``, unit by unit (a duplicate pair, a table's rotations), and
    record each one: the single writer of the tournament.

    The units go to ``executor`` (started by the caller: worker processes, or Ray) or, without one, are
    played in this process with the started ``entrants`` (or ``seat``) and ``play``. At most
    ``executor.capacity`` units are out at once; they come back in any order and are recorded in
    schedule order (a reorder buffer), so the store does not depend on who played. ``stop`` being set
    starts no new match: the units in flight are recorded when they come back complete, else they stay
    pending whole (void). A unit lost with its process is submitted again (twice at most).
    """
    owned = executor is None
    if executor is None:
        fixed = entrants or {}
        chooser: Callable[[str, int], Any] = seat if seat is not None else (lambda name, leg: fixed[name])
        assert play is not None, "play (or an executor) is needed"
        executor = InProcess(chooser, play, crashes, cfg.concurrency)
        await executor.start(job_of(cfg, tournament))
    todo = pending_in(cfg, store, tournament.id)
    base = store.restarts(tournament.id)
    played = 0
    entries = book_entries(cfg, store, tournament.id)
    index = 0  # units submitted so far in this run
    recorded_to = 0  # every unit below this index is recorded (or void)

    async def watch_stop() -> None:
        await stop.wait()
        assert executor is not None
        executor.stop()

    watcher = asyncio.ensure_future(watch_stop())
    try:
        while todo:  # an adaptive schedule makes its next round once this one is recorded
            before = played
            units: list[list[Pairing]] = []
            for p in todo:
                if units and units[-1][-1].pair_id == p.pair_id:
                    units[-1].append(p)
                else:
                    units.append([p])
            queue = [Unit(index + i, tuple(legs), None if cfg.book is None else entries[legs[0].pair_id].header(cfg.book))
                     for i, legs in enumerate(units)]
            index += len(queue)
            by_index = {u.index: u for u in queue}
            tries: dict[int, int] = {}
            buffer: dict[int, UnitResult] = {}
            out = 0
            nxt = 0
            while True:
                while not stop.is_set() and nxt < len(queue) and out < executor.capacity:
                    executor.submit(queue[nxt])
                    nxt += 1
                    out += 1
                if out == 0:
                    break
                res = await executor.next_result()
                out -= 1
                if res.error:
                    raise RuntimeError(f"unit {by_index[res.index].pair_id}: {res.error}")
                if res.lost and tries.get(res.index, 0) < 2 and not stop.is_set():
                    tries[res.index] = tries.get(res.index, 0) + 1
                    executor.submit(by_index[res.index])
                    out += 1
                    continue
                buffer[res.index] = res
                while recorded_to in buffer:
                    r = buffer.pop(recorded_to)
                    recorded_to += 1
                    if not r.complete:
                        continue
                    unit = by_index[r.index]
                    now = executor.crashes()
                    for p, result in zip(unit.legs, r.results):
                        store.record(tournament.id, p, result, {n: base.get(n, 0) + c for n, c in now.items() if c})
                        played += 1
                        if on_result is not None:
                            on_result(p, result)
            if cfg.schedule != "adaptive" or stop.is_set() or played == before:
                break
            todo = pending_in(cfg, store, tournament.id)
            entries = book_entries(cfg, store, tournament.id)
    finally:
        watcher.cancel()
        if owned:
            await executor.close()
    left = len(pending_in(cfg, store, tournament.id))
    if left == 0:
        finish(cfg, store, tournament.id)
    return RunReport(played=played, pending=left, interrupted=left > 0)


def job_of(cfg: TournamentConfig, t: Tournament, strict: bool = False) -> Job:
    """The picklable description of what an executor plays for tournament ``t``."""
    from harness.games import registry

    return make_job(cfg.entrants, cfg.game, registry.get(cfg.game).rules_map(cfg.rules), clock_of(cfg),
                    cfg.limits, legs_policy(cfg).per_leg, cfg.hello_s or 10.0, record_dir(cfg, t),
                    cfg.out / cfg.name / "logs", strict, cfg.concurrency, private=(cfg.out, cfg.db.parent))


def void_half_pairs(store: Store, tournament: Tournament, cfg: TournamentConfig | None = None) -> int:
    """Set aside duplicate pairs and tables cut short by a stop (rows and record files); returns how many
    matches."""
    played = played_in(store, tournament.id) if cfg is not None and cfg.schedule == "adaptive" else []
    moved = store.void_half_pairs(tournament.id, legs_of(schedule(cfg, played)) if cfg is not None else None)
    for d in moved:
        if d.get("record"):
            target = set_aside(Path(d["record"]), "voided")
            if target is not None:
                store.set_voided_record(tournament.id, d["match_id"], d["attempt"], str(target))
    return len(moved)
