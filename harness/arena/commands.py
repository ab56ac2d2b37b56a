"""Bodies of ``arena match`` and ``arena replay`` (argparse is wired in harness/cli.py).

``cmd_match`` reads these attributes of ``args`` (defaults apply when one is missing):
bots (one command or ``remote:NAME`` per player), game ("sixtysix"), seed (int or None = random), move_time (s, 1.0),
time_bank (s, 10.0), rule (list of name=value), out (dir, "results"), listen ("127.0.0.1:0" or
``unix:PATH``), hello_time (s, 10.0 for commands), live (bool, True), quiet (bool, False: bots' new
stderr lines are shown), strict (bool, False: a bot's reported error is a forfeit), deals (a deal book's path,
None: one match per entry of the book, in order, instead of one on ``seed``).
``cmd_replay`` reads ``args.file``.
"""

from __future__ import annotations

import asyncio
import random
import re
import shlex
import sys
import time
from argparse import Namespace
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.games.base import Game
from harness.games.registry import get as get_game
from harness import eventloop, preflight
from harness.assignments import assignments
from harness.render import deal_view, match_summary

from . import sandbox
from .entrant import REMOTE_HELLO_S, REMOTE_PREFIX, Entrant
from .match import play_match
from .record import verify
from .render import LiveView, live_view, replay_view, result_text
from .result import Cause, Clock, MatchResult
from .server import Arena


SHOWN_PER_S = 40  # stderr lines of one bot shown live per second by `arena match` (the rest: its log)


def bot_names(*specs: str) -> tuple[str, ...]:
    """Short names from bot specs: a script's stem or the remote name; made distinct.

    >>> bot_names("python sample_bots/random_bot.py", "python sample_bots/random_bot.py")
    ('random_bot-1', 'random_bot-2')
    """
    def one(spec: str) -> str:
        if spec.startswith(REMOTE_PREFIX):
            return spec[len(REMOTE_PREFIX):] or "remote"
        words = shlex.split(spec)
        word = next((w for w in words[1:] if not w.startswith("-")), words[0]) if words else "bot"
        return re.sub(r"[^A-Za-z0-9_.-]", "_", Path(word).stem) or "bot"

    names = [one(s) for s in specs]
    return tuple(f"{n}-{i + 1}" if names.count(n) > 1 else n for i, n in enumerate(names))


def record_path(out: Path, match_id: str) -> Path:
    """A new record file for ``match_id`` in ``out``, created empty so that no other run (even one
    started at the same moment) takes it: ``<match_id>.jsonl``, else ``<match_id>.2.jsonl``, ...
    A record is never overwritten (issue 14)."""
    out.mkdir(parents=True, exist_ok=True)
    n = 1
    while True:
        path = out / (f"{match_id}.jsonl" if n == 1 else f"{match_id}.{n}.jsonl")
        try:
            with open(path, "x", encoding="utf-8"):
                return path
        except FileExistsError:
            n += 1


def match_clock(args: Namespace, bots: list[str]) -> Clock:
    """The clock of ``--move-time``, ``--time-bank`` and ``--hello-time`` (default: 10 s to say Hello, 300 s
    when a bot is remote)."""
    move, bank = getattr(args, "move_time", 1.0), getattr(args, "time_bank", 10.0)
    hello = getattr(args, "hello_time", None)
    if hello is None:
        hello = REMOTE_HELLO_S if any(b.startswith(REMOTE_PREFIX) for b in bots) else Clock().hello_s
    return Clock(move_ms=round(move * 1000), bank_ms=round(bank * 1000), hello_s=hello)


def cmd_match(args: Namespace) -> int:
    """Play one match between bots, shown live; write its record. Exit 0 when the match ended
    (forfeits included), 2 on bad arguments, 130 when interrupted."""
    err = Console(stderr=True, soft_wrap=True)  # one line, never wrapped
    try:
        game = get_game(getattr(args, "game", None) or "sixtysix")
        values = assignments(getattr(args, "rule", None))
        if "players" in game.rules_map(game.rules()) and "players" not in values:  # 22: one seat per bot
            values["players"] = str(len(getattr(args, "bots", None) or []))
        rules = game.rules(values)
    except ValueError as e:
        err.print(f"arena: {e}", markup=False)
        return 2
    bots = list(getattr(args, "bots", None) or [])
    seats, teams = game.players(rules), game.teams(rules)
    seating = list(range(seats))  # the bot in each seat (player index)
    if getattr(args, "partners", None) == "self":
        if len(set(teams)) == len(teams):
            err.print(f"arena: --partners is for partnership games; {game.title} has none", markup=False)
            return 2
        seating = list(teams)  # bot i plays every seat of team i (4H-1: seats 0 and 2, 1 and 3)
    if len(bots) != len(set(seating)):
        more = " with --partners self" if len(set(seating)) < seats else ""
        err.print(f"arena: {game.title} is played by {len(set(seating))} bots{more}, {len(bots)} given",
                  markup=False)
        return 2
    try:  # issue 14: the same preflight as tournament and league add, before anything starts
        for name, spec in zip(bot_names(*bots), bots):  # the names are made from the specs: only those are checked
            preflight.check_bot(spec, name)
        preflight.check_listen(getattr(args, "listen", None) or "127.0.0.1:0")
    except preflight.PreflightError as e:
        err.print(f"arena: {e}", markup=False)
        return 2
    move, bank = getattr(args, "move_time", 1.0), getattr(args, "time_bank", 10.0)
    if move <= 0 or bank < 0:
        err.print("arena: --move-time must be > 0 and --time-bank >= 0", markup=False)
        return 2
    seed = args.seed if getattr(args, "seed", None) is not None else random.randrange(1 << 31)
    clock = match_clock(args, bots)
    book = None
    if getattr(args, "deals", None):  # a deal book: one match per entry, in order (harness.deals)
        from harness.deals import BookError, load

        try:
            if getattr(args, "seed", None) is not None:
                raise BookError("--seed and --deals both choose the deals: give one")
            book = load(args.deals)
        except BookError as e:
            err.print(f"arena: {e}", markup=False)
            return 2
    try:
        if book is None:
            return eventloop.run(_match(args, bots, seating, game, rules, seed, clock))
        for entry in book.entries:
            Console().print(f"[bold]deal book {book.name}[/]: entry {entry.no} of {len(book)} (line {entry.line}"
                            f"{', ' + entry.label if entry.label else ''}): seed {entry.seed}", highlight=False,
                            soft_wrap=True)
            code = eventloop.run(_match(args, bots, seating, game, rules, entry.seed, clock, entry.header(book)))
            if code != 0:
                return code
        return 0
    except KeyboardInterrupt:
        err.print("arena: interrupted")
        return 130


async def _match(args: Namespace, bots: list[str], seating: list[int], game: Game[Any, Any, Any], rules: Any,
                 seed: int, clock: Clock, book: dict[str, Any] | None = None) -> int:
    console = Console()
    hello = getattr(args, "hello_time", None)
    arena = Arena()
    address = await arena.start(getattr(args, "listen", None) or "127.0.0.1:0")
    out = Path(getattr(args, "out", None) or "results")
    match_id = f"{'-vs-'.join(bot_names(*bots))}-s{seed}"
    record_file = record_path(out, match_id)
    # issue 14: each bot's stdout and stderr in out/logs/<record>/NAME.log; new stderr lines shown unless --quiet
    log_dir = out / "logs" / record_file.name.removesuffix(".jsonl")

    shown_at: dict[str, list[float]] = {}  # per bot: [start of the current second, lines shown in it, lines held back]

    def show_stderr(name: str, line: str) -> None:
        """Print a bot's stderr line, at most SHOWN_PER_S a second per bot (a flood must not hold up the
        match loop); what is held back is counted, and every line is in the log."""
        if not line.strip():
            return
        now = time.monotonic()
        w = shown_at.setdefault(name, [now, 0, 0])
        if now - w[0] >= 1.0:
            if w[2]:
                console.print(f"{name}| ({w[2]:.0f} more lines, in its log)", style="dim", markup=False,
                              highlight=False)
            w[:] = [now, 0, 0]
        if w[1] >= SHOWN_PER_S:
            w[2] += 1
            return
        w[1] += 1
        console.print(f"{name}| {line[:500]}", style="dim", markup=False, highlight=False, soft_wrap=True)

    shown = None if getattr(args, "quiet", False) else show_stderr
    entrants = tuple(Entrant.parse(spec, name, arena=arena, hello_s=hello, log_dir=log_dir, on_stderr=shown)
                     for spec, name in zip(bots, bot_names(*bots)))
    names = tuple(entrants[i].name for i in seating)
    for e in entrants:
        if e.remote_name is not None:
            console.print(f"waiting for remote bot [bold]{e.name}[/]: ARENA_ADDRESS={address} "
                          f"ARENA_TOKEN={e.token}", highlight=False)
    sandbox.keep_private(out)  # issue 11: empty for sandboxed bots
    view = LiveView(players=names, seed=seed, title=game.title, banks_ms=[clock.bank_ms] * len(names))
    result: list[MatchResult] = []
    show_live = getattr(args, "live", True)
    from harness.live import live_display

    live = live_display(lambda: live_view(view), console, 8, transient=True)

    def on_event(ev: dict[str, Any]) -> None:
        kind = ev["type"]
        if kind == "deal":
            view.deal_no, view.scores, view.match = ev["deal_no"], ev["scores"], ev["match"]
            view.status = "playing"
        elif kind == "action":
            view.decisions = ev["decision_no"]
            view.banks_ms[ev["player"]] = ev["bank_ms"]
            view.last.append(ev["action"])
            del view.last[:-24]
            if ev["match"] is not None:
                view.match = ev["match"]
        elif kind == "deal_end":
            view.last.clear()
            view.scores = ev["scores"]
            console.print(deal_view(game.id, ev["rules"], ev["record"], names))
        elif kind == "end":
            result.append(ev["result"])

    try:
        if show_live:
            live.start()
        await play_match([entrants[i] for i in seating], match_id=match_id, seed=seed, game=game.id, rules=rules, clock=clock,
                         record_path=record_file, on_event=on_event, strict=getattr(args, "strict", False),
                         book=book)
    finally:
        if show_live:
            live.stop()
        await asyncio.gather(*(e.stop() for e in entrants))
        await arena.stop()
    r = result[0]
    console.print(match_summary(names, r.scores, r.ranks, teams=r.teams))
    console.print(result_text(r))
    console.print(f"record: {r.record}", highlight=False)
    for e in entrants:
        if e.log_path is not None:
            console.print(f"log of {e.name}: {e.log_path}", highlight=False, soft_wrap=True)
    if r.errors:  # replies in which a bot's SDK said its code failed; play went on (--strict: a forfeit)
        said = ", ".join(f"{n} {k}" for n, k in zip(r.players, r.errors) if k)
        console.print(f"[yellow]bot errors (act() failed, the SDK answered for it): {said}[/] (see the logs)",
                      highlight=False)
    return 0 if r.cause is not Cause.INTERRUPTED else 130


def cmd_replay(args: Namespace) -> int:
    """Re-deal and re-apply a record, print it deal by deal; exit 0 if it verifies, 1 if not, 2 (one
    line, nothing printed) when the file cannot be read or is not a match record at all."""
    problem = _not_a_record(Path(args.file))
    if problem is not None:
        print(f"arena: {args.file}: {problem}", file=sys.stderr)
        return 2
    rep = verify(args.file)
    console = Console()
    for item in replay_view(rep):
        console.print(item)
    for w in rep.warnings:
        print(f"arena: {args.file}: warning: {w}", file=sys.stderr)
    if not rep.ok:
        print(f"arena: {args.file}: {rep.divergence}", file=sys.stderr)
    return 0 if rep.ok else 1


def _not_a_record(path: Path) -> str | None:
    """Why ``path`` cannot be replayed at all (missing, unreadable, empty, or no header line first),
    else None: a record that starts right is verified, and its damage is a divergence (exit 1)."""
    from .record import read_checked

    try:
        lines, damage = read_checked(path)
    except OSError as e:
        return f"cannot read it: {e.strerror or e}"
    if not lines:
        return f"not a match record ({damage})" if damage else "not a match record (the file is empty)"
    if lines[0].get("type") != "header":
        return f"not a match record (line 1 is a {str(lines[0].get('type'))[:40]!r} line, not the header)"
    return None
