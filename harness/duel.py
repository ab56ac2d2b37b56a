"""``arena duel A B``: A/B testing of two bots (two versions of one, usually) in duplicate pairs,
with Elo, LOS and a sequential probability ratio test that stops as soon as it can decide.

**What a duel is.** Two *sides*, A and B. A pair is two matches on the same deals with the sides'
seats swapped (leg ``a``: A holds the seats of side 0; leg ``b``: B does), so luck of the cards
cancels within the pair. Two-player games (Sixty-Six, Schnapsen, Twenty-Two with ``players=2``, which
is the default here) seat one bot per side. A partnership game (four-handed) seats each bot on both
seats of its team, as ``partners = "self"`` does in a tournament. A game of more sides (three-handed,
Twenty-Two of 3 to 8) has no duel: there the strength of A against B depends on who else sits at the
table, so the duel refuses it in one line and points to ``arena tournament``.

**Fair legs** (issue 11), as in tournaments (:func:`harness.tournament.runner.legs_policy`): the legs
of a pair share deals only when no process can carry them from one leg to the other: with the
bubblewrap sandbox each leg index has its own bot process per side, or with ``--duplicate trusted``.
Otherwise, and for remote bots, each leg has deals of its own (and the statistics still count pairs).
Deals from a deal book (``--deals``) are the book's: both legs play each entry.

**Scoring.** A scores 1 for a match it ranks above B, 1/2 for a tie, 0 below (a forfeit ranks the
offender last). A pair is counted when both legs have a result; its score is a pentanomial cell
(:mod:`harness.sprt`). A leg without a result (both bots failed to start, or stopped) voids its pair.

**Stopping.** After every counted pair, the SPRT's log-likelihood ratio is compared with its bounds;
the duel stops when it accepts H0 or H1 (the matches in flight are abandoned: their records say
``interrupted`` and they count for nothing) or after ``--pairs`` pairs.

**Output** under ``--out``: ``records/pair-NNNNN-{a,b}.jsonl`` (ordinary match records, replayable)
and ``duel.json``: the settings, the pentanomial counts, the estimate, the SPRT and every pair.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import signal
import sys
from argparse import Namespace
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from harness import eventloop
from harness.assignments import assignments
from harness.deals import Book
from harness.games.base import Game
from harness.games.registry import get as get_game
from harness.sprt import PAIR_SCORES, Estimate, Sprt, cell, estimate, llr
from harness.tournament.schedule import unit_seed

LEGS = "ab"
DEFAULT_PAIRS = 100
DEFAULT_SPRT_PAIRS = 5000
SUMMARY = "duel.json"
MAX_PAIRS = 1_000_000


class DuelError(ValueError):
    """A duel that cannot be played as asked; the message is one line."""


def sides_of(game: Game[Any, Any, Any], rules: Any) -> tuple[int, ...]:
    """The side (0 or 1) of each player in leg ``a``; DuelError for a game of more than two sides.

    >>> from harness.games.registry import get
    >>> sides_of(get("sixtysix"), get("sixtysix").rules()), sides_of(get("four_handed"), get("four_handed").rules())
    ((0, 1), (0, 1, 0, 1))
    """
    teams = game.teams(rules)
    distinct = sorted(set(teams))
    if len(distinct) != 2:
        raise DuelError(f"{game.title} with {game.players(rules)} players has {len(distinct)} sides; a duel is "
                        "two sides (two players, or two teams): use arena tournament for tables of more")
    return tuple(distinct.index(t) for t in teams)


@dataclass(frozen=True, slots=True)
class Leg:
    """One match of a duel: pair ``pair`` (1-based), leg 0 (a) or 1 (b), its seed, and the side of
    each player (0 = A, 1 = B)."""

    pair: int
    leg: int
    seed: int
    sides: tuple[int, ...]
    entry: int | None = None  # the deal book's entry number (1-based), if any

    @property
    def match_id(self) -> str:
        return f"pair-{self.pair:05d}-{LEGS[self.leg]}"


def legs(pairs: int, sides: Sequence[int], secret: int, shared: bool, book: Book | None = None) -> list[Leg]:
    """Every match of ``pairs`` pairs in order (a then b). Seeds: the book's entries in order, else keyed
    from ``secret`` (:func:`harness.tournament.schedule.unit_seed`), one per pair when ``shared``, one per
    leg otherwise.

    >>> [(x.match_id, x.sides) for x in legs(1, (0, 1), 7, True)]
    [('pair-00001-a', (0, 1)), ('pair-00001-b', (1, 0))]
    >>> a, b = legs(1, (0, 1), 7, False)
    >>> a.seed != b.seed
    True
    """
    out = []
    for k in range(1, pairs + 1):
        for leg in (0, 1):
            seated = tuple(s if leg == 0 else 1 - s for s in sides)
            if book is not None:
                e = book.entry(k - 1)
                out.append(Leg(k, leg, e.seed, seated, e.no))
            else:
                out.append(Leg(k, leg, unit_seed(secret, f"duel/{k}", None if shared else leg), seated))
    return out


def leg_score(ranks: Sequence[int] | None, sides: Sequence[int]) -> float | None:
    """A's score in one match from the players' ranks: 1 above B, 1/2 level, 0 below; None without a
    result. A side's rank is its best player's (teammates share a rank).

    >>> leg_score((0, 1), (0, 1)), leg_score((0, 1), (1, 0)), leg_score((1, 1), (0, 1)), leg_score(None, (0, 1))
    (1.0, 0.0, 0.5, None)
    """
    if ranks is None:
        return None
    best = [min(r for r, s in zip(ranks, sides) if s == side) for side in (0, 1)]
    return 1.0 if best[0] < best[1] else 0.5 if best[0] == best[1] else 0.0


@dataclass
class Tally:
    """The duel so far: the counted pairs' pentanomial counts and the SPRT's verdict."""

    sprt: Sprt | None = None
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    legs: dict[int, dict[int, float | None]] = field(default_factory=dict)  # pair -> leg -> A's score
    order: list[int] = field(default_factory=list)  # pairs in the order they were counted
    void: list[int] = field(default_factory=list)
    decision: str | None = None  # "H0" or "H1" once the SPRT accepts one
    decided_at: int | None = None  # counted pairs when it did
    llr: float = 0.0

    def add(self, pair: int, leg: int, score: float | None) -> int | None:
        """Note one leg's result; returns the pair's cell once both legs are in (None before, or when
        the pair is void). Updates the LLR and, the first time it crosses a bound, the decision."""
        got = self.legs.setdefault(pair, {})
        got[leg] = score
        if len(got) < 2:
            return None
        if None in got.values():
            self.void.append(pair)
            return None
        c = cell([s for _, s in sorted(got.items()) if s is not None])
        self.counts[c] += 1
        self.order.append(pair)
        if self.sprt is not None:
            self.llr = llr(self.counts, self.sprt)
            if self.decision is None:
                self.decision = self.sprt.decide(self.llr)
                if self.decision is not None:
                    self.decided_at = self.pairs
        return c

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def estimate(self) -> Estimate:
        return estimate(self.counts)


def _signed(v: float, places: int = 1) -> str:
    return ("+inf" if v > 0 else "-inf") if not math.isfinite(v) else f"{v:+.{places}f}"


def status_line(t: Tally, names: Sequence[str], planned: int) -> str:
    """The one-line summary: pairs, score, Elo with its 95% interval, LOS, pentanomial counts and LLR."""
    e = t.estimate()
    elo = f"Elo {_signed(e.elo)} (95% {_signed(e.elo_low)}…{_signed(e.elo_high)})" if t.pairs else "Elo –"
    nelo = "nElo –" if not t.pairs else f"nElo {_signed(e.nelo)}" + (
        f" ± {e.nelo_margin:.1f}" if math.isfinite(e.nelo_margin) and math.isfinite(e.nelo) else "")
    parts = [f"{names[0]} vs {names[1]}", f"pairs {t.pairs}/{planned}", f"score {100 * e.score:.1f}%", elo, nelo,
             f"LOS {100 * e.los:.1f}%", "ptnml " + " ".join(str(c) for c in t.counts)]
    if t.sprt is not None:
        parts.append(f"LLR {t.llr:+.2f} [{t.sprt.lower:.2f}, {t.sprt.upper:.2f}]")
        if t.decision is not None:
            parts.append(f"{t.decision} accepted")
    return " · ".join(parts)


def verdict(t: Tally, names: Sequence[str]) -> str:
    """What the SPRT concluded, in words."""
    if t.sprt is None:
        return "no SPRT (fixed number of pairs)"
    s = t.sprt
    unit = "nElo" if s.model == "normalized" else "Elo"
    if t.decision == "H1":
        return f"H1 accepted after {t.decided_at} pairs: {names[0]} is at least {s.elo1:g} {unit} stronger than {names[1]} " \
               f"(alpha={s.alpha:g})"
    if t.decision == "H0":
        return f"H0 accepted after {t.decided_at} pairs: {names[0]} is not {s.elo1:g} {unit} stronger than " \
               f"{names[1]} (beta={s.beta:g})"
    return f"no decision: LLR {t.llr:+.2f} inside [{s.lower:.2f}, {s.upper:.2f}]"


# -- in process: the built-in players, for tests and quick checks ------------------------------------


Strategy = Callable[[Any], str]


def simulate(make_a: Callable[[random.Random], Strategy], make_b: Callable[[random.Random], Strategy], *,
             game: str = "sixtysix", rules: Mapping[str, Any] | None = None, pairs: int = 100,
             sprt: Sprt | None = None, secret: int = 0, book: Book | None = None) -> Tally:
    """A duel of two in-process strategies (``make_x(rng)`` gives one for a match), duplicate legs on
    shared deals, stopped by the SPRT like the real one. Deterministic for deterministic strategies."""
    g = get_game(game)
    values = dict(rules or {})
    if "players" in g.rules_map(g.rules()) and "players" not in values:
        values["players"] = 2
    r = g.rules(values)
    sides = sides_of(g, r)
    tally = Tally(sprt)
    for leg in legs(pairs, sides, secret, True, book):
        rng = random.Random(f"{leg.seed}/{leg.leg}")
        side = (make_a(rng), make_b(rng))
        players = [side[s] for s in leg.sides]
        m = g.start(leg.seed, r)
        while (p := g.to_act(m)) is not None:
            m = g.apply(m, players[p](g.observe(m, p)))
        outcome = g.outcome(m)
        tally.add(leg.pair, leg.leg, leg_score(None if outcome is None else outcome.ranks, leg.sides))
        if tally.decision is not None:
            break
    return tally


# -- with bot processes --------------------------------------------------------------------------------------


PlayFn = Callable[..., Awaitable[Any]]


@dataclass
class Duel:
    """A duel to run: the two bots (names and specs), the game, the plan and where it goes."""

    names: tuple[str, str]
    specs: tuple[str, str]
    game: str
    rules: Any
    plan: list[Leg]
    pairs: int
    sprt: Sprt | None
    clock: Any
    concurrency: int
    out: Path
    book: Book | None = None
    policy: str = ""

    @property
    def records(self) -> Path:
        return self.out / "records"


async def play(duel: Duel, *, seat: Callable[[str, int], Any], play_match: PlayFn, stop: asyncio.Event,
               on_pair: Callable[[Tally], None] | None = None) -> tuple[Tally, list[dict[str, Any]]]:
    """Play the duel's legs, ``concurrency`` at once in plan order, until the SPRT decides, the plan
    ends or ``stop`` is set (then the matches in flight finish first). Returns the tally and one row per
    finished match."""
    tally = Tally(duel.sprt)
    queue: asyncio.Queue[Leg] = asyncio.Queue()
    for leg in duel.plan:
        queue.put_nowait(leg)
    rows: list[dict[str, Any]] = []
    decided = asyncio.Event()

    async def worker() -> None:
        while not stop.is_set() and not decided.is_set():
            try:
                leg = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            seated = [seat(duel.names[s], leg.leg) for s in leg.sides]
            extra: dict[str, Any] = {}
            if leg.entry is not None and duel.book is not None:
                extra["book"] = duel.book.entries[leg.entry - 1].header(duel.book)
            result = await play_match(seated, match_id=leg.match_id, seed=leg.seed, game=duel.game,
                                      rules=duel.rules, clock=duel.clock, record_dir=duel.records, **extra)
            score = leg_score(result.ranks, leg.sides)
            rows.append({"pair": leg.pair, "leg": LEGS[leg.leg], "score": score, "cause": str(result.cause),
                         "offender": None if result.offender is None else result.players[result.offender],
                         "record": result.record, **({"entry": leg.entry} if leg.entry else {})})
            if str(result.cause) == "interrupted":
                continue
            if tally.add(leg.pair, leg.leg, score) is not None and on_pair is not None:
                on_pair(tally)
            if tally.decision is not None:
                decided.set()

    workers = [asyncio.create_task(worker()) for _ in range(max(1, min(duel.concurrency, len(duel.plan))))]
    done_waiting = asyncio.ensure_future(decided.wait())
    try:
        everything: asyncio.Future[Any] = asyncio.gather(*workers)
        waiting: set[asyncio.Future[Any]] = {everything, done_waiting}
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if decided.is_set():  # the SPRT decided: the matches in flight count for nothing
            for w in workers:
                w.cancel()
        await asyncio.gather(everything, return_exceptions=True)
    finally:
        done_waiting.cancel()
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    return tally, rows


def summary(duel: Duel, tally: Tally, rows: list[dict[str, Any]], *, stopped: bool) -> dict[str, Any]:
    """The JSON summary of a duel (``duel.json``)."""
    by_pair: dict[int, dict[str, Any]] = {}
    for r in sorted(rows, key=lambda r: (r["pair"], r["leg"])):
        p = by_pair.setdefault(r["pair"], {"pair": r["pair"], **({"entry": r["entry"]} if "entry" in r else {}),
                                           "legs": {}})
        p["legs"][r["leg"]] = {k: r[k] for k in ("score", "cause", "offender", "record")}
    counted = set(tally.order)
    for p in by_pair.values():
        p["counted"] = p["pair"] in counted
        if p["counted"]:
            p["pair_score"] = sum(leg["score"] for leg in p["legs"].values())
    return {
        "a": {"name": duel.names[0], "bot": duel.specs[0]},
        "b": {"name": duel.names[1], "bot": duel.specs[1]},
        "game": duel.game,
        "rules": get_game(duel.game).rules_map(duel.rules),
        "clock": duel.clock.to_dict(),
        "legs": duel.policy,
        **({"book": duel.book.to_dict()} if duel.book is not None else {}),
        "planned_pairs": duel.pairs,
        "pairs": tally.pairs,
        "void_pairs": len(tally.void),
        "pentanomial": dict(zip(PAIR_SCORES, tally.counts)),
        "estimate": tally.estimate().to_dict(),
        "sprt": None if tally.sprt is None else {**tally.sprt.to_dict(), "llr": round(tally.llr, 4),
                                                  "decision": tally.decision, "decided_at": tally.decided_at},
        "verdict": verdict(tally, duel.names),
        "stopped": stopped,
        "pair_results": list(by_pair.values()),
    }


def write_summary(out: Path, data: dict[str, Any]) -> Path:
    path = out / SUMMARY
    out.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def free_out(base: Path) -> Path:
    """``base``, or ``base-2``, ``base-3``… : the first that holds no duel yet."""
    path, n = base, 2
    while (path / SUMMARY).exists():
        path = base.with_name(f"{base.name}-{n}")
        n += 1
    return path


# -- the command -------------------------------------------------------------------------------------------


def cmd_duel(args: Namespace) -> int:
    """``arena duel A B``: exit 0 when the duel ran (decided or not), 2 on bad input, 130 when stopped."""
    try:
        duel, cfg, secret_note = _prepare(args)
    except (DuelError, ValueError) as e:
        print(f"arena: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    console = Console()
    try:
        return eventloop.run(_run(duel, cfg, console, getattr(args, "live", True), secret_note))
    except DuelError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before the bots were up: nothing was played
        print("arena: interrupted", file=sys.stderr)
        return 130


def _prepare(args: Namespace) -> tuple[Duel, Any, str]:
    """Check every argument (DuelError or ValueError with one line) and plan the duel."""
    from harness import preflight
    from harness.arena.commands import bot_names
    from harness.arena.result import Clock
    from harness.deals import load
    from harness.tournament import config as config_mod
    from harness.tournament.runner import legs_policy

    a, b = args.a, args.b
    first, second = bot_names(a, b)
    names = (first, second)
    for spec, name in zip((a, b), names):
        preflight.check_bot(spec, name)
    game = get_game(args.game)
    try:
        values = assignments(args.rule)
    except ValueError as e:
        raise DuelError(str(e)) from None
    if "players" in game.rules_map(game.rules()) and "players" not in values:
        values["players"] = "2"
    try:
        rules = game.rules(values)
    except (ValueError, TypeError) as e:
        raise DuelError(str(e)) from None
    sides = sides_of(game, rules)
    sprt = Sprt.parse(args.sprt) if args.sprt is not None else None
    book = load(args.deals) if args.deals else None
    if book is not None and args.seed is not None:
        raise DuelError("--seed and --deals both choose the deals: give one")
    pairs = args.pairs
    if pairs is None:
        pairs = len(book) if book is not None else DEFAULT_SPRT_PAIRS if sprt is not None else DEFAULT_PAIRS
    if not 1 <= pairs <= MAX_PAIRS:
        raise DuelError(f"--pairs must be from 1 to {MAX_PAIRS} (got {pairs})")
    if book is not None and pairs > len(book):
        raise DuelError(f"--pairs {pairs} is more than the {len(book)} entries of deal book '{book.name}'")
    move, bank = args.move_time, args.time_bank
    if not (move > 0 and bank >= 0 and math.isfinite(move) and math.isfinite(bank)):
        raise DuelError("--move-time must be > 0 and --time-bank >= 0")
    concurrency = args.concurrency if args.concurrency is not None else (os.cpu_count() or 1)
    if not 1 <= concurrency <= 256:
        raise DuelError(f"--concurrency must be from 1 to 256 (got {concurrency})")
    # The tournament's checks of names, rules, limits and duplicate, and its legs policy.
    try:
        cfg = config_mod.from_flags([f"{n}={s}" for n, s in zip(names, (a, b))], name="duel", game=game.id,
                                    rules=[f"{k}={v}" for k, v in values.items()], limits=args.limit or (),
                                    duplicate=args.duplicate, move_s=move, bank_s=bank, concurrency=concurrency,
                                    partners="self" if len(sides) > 2 else None)
    except config_mod.ConfigError as e:
        raise DuelError(str(e)) from None
    policy = legs_policy(cfg)
    remote = any(s.startswith("remote:") for s in (a, b))
    shared = policy.shared and not remote
    why = policy.why if not remote else "independent deals in every leg: a remote bot cannot be isolated"
    if book is not None:
        shared, why = True, f"both legs play each entry of deal book '{book.name}' (a book's deals are known deals)"
    note = ""
    if args.seed is not None:
        secret = args.seed
        if remote:
            note = "the seed was set by hand and a bot is remote: anyone who knows it can compute every deal"
    else:
        import secrets

        secret = secrets.randbits(128)
    base = Path(args.out) if args.out else Path("results") / "duels" / f"{names[0]}-vs-{names[1]}"
    if args.out and (base / SUMMARY).exists():
        raise DuelError(f"--out {args.out} already holds a duel ({SUMMARY}); choose another directory")
    out = base if args.out else free_out(base)
    hello = args.hello_time if args.hello_time is not None else Clock().hello_s
    if not (hello > 0 and math.isfinite(hello)):
        raise DuelError("--hello-time must be > 0")
    clock = Clock(move_ms=round(move * 1000), bank_ms=round(bank * 1000), hello_s=hello)
    duel = Duel(names=names, specs=(a, b), game=game.id, rules=rules, plan=legs(pairs, sides, secret, shared, book),
                pairs=pairs, sprt=sprt, clock=clock, concurrency=concurrency, out=out, book=book, policy=why)
    return duel, cfg, note


async def _run(duel: Duel, cfg: Any, console: Console, live: bool, note: str) -> int:
    from harness.arena.match import play_match
    from harness.arena.sandbox import keep_private
    from harness.tournament.runner import Bots, StartError, legs_policy

    if note:
        print(f"arena: warning: {note}", file=sys.stderr)
    keep_private(duel.out)  # issue 11: empty for sandboxed bots
    hello = duel.clock.hello_s
    bots = Bots(cfg.entrants, hello_s=hello, limits=cfg.limits, per_leg=legs_policy(cfg).per_leg)
    stop = asyncio.Event()
    rows: list[dict[str, Any]] = []
    tally = Tally(duel.sprt)
    current = [tally]
    try:
        try:
            await bots.start(duel.game)
        except StartError as problem:
            raise DuelError(str(problem)) from None
        for bot in bots.entrants.values():
            if bot.remote_name is not None:
                console.print(f"remote bot {bot.name}: start it with ARENA_ADDRESS={bots.arena.address} "
                              f"ARENA_TOKEN={bot.token}", highlight=False)
        console.print(f"[dim]{duel.policy}[/]", highlight=False, soft_wrap=True)

        def on_signal() -> None:
            stop.set()

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        try:
            work = play(duel, seat=bots.seat, play_match=play_match, stop=stop,
                        on_pair=lambda t: current.__setitem__(0, t))
            if live and console.is_terminal:
                from harness.live import live_display

                with live_display(lambda: Text(status_line(current[0], duel.names, duel.pairs)), console,
                                  transient=True):
                    tally, rows = await work
            else:
                tally, rows = await work
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
    finally:
        await bots.close()
    stopped = stop.is_set() and tally.decision is None and tally.pairs + len(tally.void) < duel.pairs
    path = write_summary(duel.out, summary(duel, tally, rows, stopped=stopped))
    console.print(status_line(tally, duel.names, duel.pairs), highlight=False, soft_wrap=True)
    console.print(verdict(tally, duel.names), highlight=False, soft_wrap=True)
    if tally.void:
        console.print(f"{len(tally.void)} pair(s) without a result in a leg were not counted", highlight=False)
    console.print(f"summary: {path}; records: {duel.records}", highlight=False, soft_wrap=True)
    if stopped:
        return 130
    return 0 if duel.sprt is None or tally.decision == "H1" else 1  # with --sprt: 0 only when A is shown stronger
