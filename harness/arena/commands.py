"""Bodies of ``arena match`` and ``arena replay`` (argparse is wired in harness/cli.py).

``cmd_match`` reads these attributes of ``args`` (defaults apply when one is missing):
bots (one command or ``remote:NAME`` per player), game ("sixtysix"), seed (int or None = random), move_time (s, 1.0),
time_bank (s, 10.0), rule (list of name=value), out (dir, "results"), listen ("127.0.0.1:0" or
``unix:PATH``), hello_time (s, 10.0 for commands), live (bool, True).
``cmd_replay`` reads ``args.file``.
"""

from __future__ import annotations

import asyncio
import random
import re
import shlex
import sys
from argparse import Namespace
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.games.base import Game
from harness.games.registry import get as get_game
from harness.names import RULE, valid_name
from harness.render import deal_view, match_summary

from . import sandbox
from .entrant import REMOTE_HELLO_S, REMOTE_PREFIX, Entrant
from .match import play_match
from .record import verify
from .render import LiveView, live_view, replay_view, result_text
from .result import Cause, Clock, MatchResult
from .server import Arena


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


def _record_path(out: Path, match_id: str) -> Path:
    path = out / f"{match_id}.jsonl"
    n = 2
    while path.exists():
        path = out / f"{match_id}.{n}.jsonl"
        n += 1
    return path


def cmd_match(args: Namespace) -> int:
    """Play one match between bots, shown live; write its record. Exit 0 when the match ended
    (forfeits included), 2 on bad arguments, 130 when interrupted."""
    err = Console(stderr=True, soft_wrap=True)  # one line, never wrapped
    try:
        game = get_game(getattr(args, "game", None) or "sixtysix")
        values = dict(_assignment(a) for a in getattr(args, "rule", None) or [])
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
    for spec in bots:
        if spec.startswith(REMOTE_PREFIX) and not valid_name(spec[len(REMOTE_PREFIX):]):
            err.print(f"arena: bad remote bot name {spec[len(REMOTE_PREFIX):][:60]!r} ({RULE})", markup=False)
            return 2
    move, bank = getattr(args, "move_time", 1.0), getattr(args, "time_bank", 10.0)
    if move <= 0 or bank < 0:
        err.print("arena: --move-time must be > 0 and --time-bank >= 0", markup=False)
        return 2
    seed = args.seed if getattr(args, "seed", None) is not None else random.randrange(1 << 31)
    hello = getattr(args, "hello_time", None)
    if hello is None:
        hello = REMOTE_HELLO_S if any(b.startswith(REMOTE_PREFIX) for b in bots) else Clock().hello_s
    clock = Clock(move_ms=round(move * 1000), bank_ms=round(bank * 1000), hello_s=hello)
    try:
        return asyncio.run(_match(args, bots, seating, game, rules, seed, clock))
    except KeyboardInterrupt:
        err.print("arena: interrupted")
        return 130


def _assignment(item: str) -> tuple[str, str]:
    """``name=value`` as a pair; ValueError names a malformed one."""
    name, sep, value = item.partition("=")
    if not sep:
        raise ValueError(f"rule option {item!r} is not written name=value")
    return name.strip(), value.strip()


async def _match(args: Namespace, bots: list[str], seating: list[int], game: Game[Any, Any, Any], rules: Any,
                 seed: int, clock: Clock) -> int:
    console = Console()
    hello = getattr(args, "hello_time", None)
    arena = Arena()
    address = await arena.start(getattr(args, "listen", None) or "127.0.0.1:0")
    entrants = tuple(Entrant.parse(spec, name, arena=arena, hello_s=hello) for spec, name in zip(bots, bot_names(*bots)))
    names = tuple(entrants[i].name for i in seating)
    for e in entrants:
        if e.remote_name is not None:
            console.print(f"waiting for remote bot [bold]{e.name}[/]: ARENA_ADDRESS={address} "
                          f"ARENA_TOKEN={e.token}", highlight=False)
    match_id = f"{'-vs-'.join(e.name for e in entrants)}-s{seed}"
    out = Path(getattr(args, "out", None) or "results")
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
                         record_path=_record_path(out, match_id), on_event=on_event)
    finally:
        if show_live:
            live.stop()
        await asyncio.gather(*(e.stop() for e in entrants))
        await arena.stop()
    r = result[0]
    console.print(match_summary(names, r.scores, r.ranks, teams=r.teams))
    console.print(result_text(r))
    console.print(f"record: {r.record}", highlight=False)
    return 0 if r.cause is not Cause.INTERRUPTED else 130


def cmd_replay(args: Namespace) -> int:
    """Re-deal and re-apply a record, print it deal by deal; exit 0 if it verifies, 1 if not."""
    rep = verify(args.file)
    console = Console()
    for item in replay_view(rep):
        console.print(item)
    for w in rep.warnings:
        print(f"arena: {args.file}: warning: {w}", file=sys.stderr)
    if not rep.ok:
        print(f"arena: {args.file}: {rep.divergence}", file=sys.stderr)
    return 0 if rep.ok else 1
