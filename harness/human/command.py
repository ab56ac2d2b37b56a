"""``arena play``: a person plays bots in the terminal, through the normal match loop over real gRPC.

``cmd_play`` reads these attributes of ``args``: bots (one command or ``remote:NAME``, used for every
other seat, or one per other seat in player order), game ("sixtysix"), seat (the person's player
index, 0), players (twenty_two only; default one more than the bots given, or the game's 4 for one
bot), name ("human"), seed (None = random), move_time (1.0), time_bank (10.0), hello_time (None),
rule (list of name=value), out ("results").
"""

from __future__ import annotations

import asyncio
import random
from argparse import Namespace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from harness import eventloop, preflight
from harness.arena import sandbox
from harness.arena.commands import bot_names, match_clock, record_path
from harness.assignments import assignments
from harness.arena.entrant import Entrant, Player
from harness.arena.match import play_match
from harness.arena.render import result_text
from harness.arena.result import Clock, MatchResult
from harness.arena.server import Arena
from harness.games.base import Game
from harness.games.registry import get as get_game
from harness.names import RULE, valid_name
from harness.render import deal_view, match_summary

from .session import Human, HumanSession

HUMAN = "human"


class PlayError(ValueError):
    """Bad arguments for ``arena play`` (one line, exit status 2)."""


def seating(game: Game[Any, Any, Any], args: Namespace) -> tuple[Any, list[str], int]:
    """The rules, the bot command for every other seat (player order, the person's seat left out)
    and the person's seat; PlayError names a bad argument."""
    bots = list(getattr(args, "bots", None) or [])
    try:
        values = assignments(getattr(args, "rule", None))
        players = getattr(args, "players", None)
        if "players" in game.rules_map(game.rules()):  # Twenty-Two seats 2..8
            if players is not None:
                values["players"] = str(players)
            elif "players" not in values and len(bots) > 1:
                values["players"] = str(len(bots) + 1)
        elif players is not None:
            raise PlayError(f"--players is not an option of {game.id}")
        rules = game.rules(values)
    except ValueError as e:
        raise PlayError(str(e)) from None
    seats = game.players(rules)
    seat = getattr(args, "seat", 0) or 0
    if not 0 <= seat < seats:
        raise PlayError(f"--seat {seat} is not a seat of {game.title} (0-{seats - 1})")
    if len(bots) == 1:
        bots = bots * (seats - 1)
    if len(bots) != seats - 1:
        raise PlayError(f"{game.title} seats {seats}: give one BOT for every other seat ({seats - 1}) "
                        f"or one BOT for all of them, not {len(bots)}")
    preflight.check_bots(zip(bot_names(*bots), bots))  # the same checks as `arena match` (issue 14)
    return rules, bots, seat


def cmd_play(args: Namespace) -> int:
    """Play a match against bots in the terminal; write its record. Exit 0 when the match ended or the
    person quit with q, 2 on bad arguments, 130 on Ctrl-C."""
    err = Console(stderr=True, soft_wrap=True)
    try:
        game = get_game(getattr(args, "game", None) or "sixtysix")
        rules, bots, seat = seating(game, args)
        name = getattr(args, "name", None) or HUMAN
        if not valid_name(name):
            raise PlayError(f"bad --name {name[:60]!r} ({RULE})")
        move, bank = getattr(args, "move_time", 1.0), getattr(args, "time_bank", 10.0)
        if move <= 0 or bank < 0:
            raise PlayError("--move-time must be > 0 and --time-bank >= 0")
    except (ValueError, PlayError) as e:
        err.print(f"arena: {e}", markup=False)
        return 2
    seed = args.seed if getattr(args, "seed", None) is not None else random.randrange(1 << 31)
    clock = match_clock(args, bots)
    names = list(bot_names(*bots))
    if name in names:
        err.print(f"arena: --name {name} is also a bot's name; choose another", markup=False)
        return 2
    try:
        return eventloop.run(_play(args, game, rules, bots, names, seat, name, seed, clock))
    except KeyboardInterrupt:  # a second Ctrl-C while stopping
        err.print("arena: interrupted")
        return 130


async def _play(args: Namespace, game: Game[Any, Any, Any], rules: Any, bots: list[str], bot_names_: list[str],
                seat: int, name: str, seed: int, clock: Clock) -> int:
    console = Console()
    arena = Arena()
    address = await arena.start("127.0.0.1:0")
    hello = getattr(args, "hello_time", None)
    entrants = [Entrant.parse(spec, n, arena=arena, hello_s=hello) for spec, n in zip(bots, bot_names_)]
    session = HumanSession(name, game.id, console)
    session.task = asyncio.current_task()
    players: list[Player] = list(entrants)
    players.insert(seat, Human(session))
    names = tuple(p.name for p in players)
    for e in entrants:
        if e.remote_name is not None:
            console.print(f"waiting for remote bot [bold]{e.name}[/]: ARENA_ADDRESS={address} "
                          f"ARENA_TOKEN={e.token}", highlight=False)
    match_id = f"{'-vs-'.join(names)}-s{seed}"
    out = Path(getattr(args, "out", None) or "results")
    sandbox.keep_private(out)
    record = record_path(out, match_id)
    console.rule(Text.assemble((game.title, "bold"), f" · seed {seed} · you are {name}, player {seat} · against ",
                               ", ".join(bot_names_)))
    console.print(Text("starting the bots… (type q and Enter, or Ctrl-C, to leave)", "dim"))
    result: list[MatchResult] = []

    def on_event(ev: dict[str, Any]) -> None:
        if ev["type"] == "deal_end":
            console.print()
            console.print(deal_view(game.id, ev["rules"], ev["record"], names))
        elif ev["type"] == "end":
            result.append(ev["result"])

    interrupted = False
    session.keyboard.start()
    try:
        await play_match(players, match_id=match_id, seed=seed, game=game.id, rules=rules, clock=clock,
                         record_path=record, on_event=on_event)
    except asyncio.CancelledError:
        interrupted = True
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
    finally:
        session.keyboard.stop()
        await asyncio.gather(*(e.stop() for e in entrants), return_exceptions=True)
        await arena.stop()
    console.print()
    if result:
        r = result[0]
        if r.ranks is not None:
            console.print(match_summary(names, r.scores, r.ranks, teams=r.teams))
        console.print(result_text(r))
        console.print(f"record: {r.record}", highlight=False)
    if interrupted and not session.quit:
        return 130
    return 0
