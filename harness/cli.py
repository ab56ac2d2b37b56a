"""The ``arena`` command line. Its command bodies show live views through :mod:`harness.live`."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any, NoReturn
from collections.abc import Sequence

from rich.console import Console

from harness.games.registry import get as game_of
from harness.games.registry import ids as game_ids

GAMES = game_ids()


class UsageError(Exception):
    """Bad input on the command line: exit status 2 and one line on stderr."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not argparse's usage block
        raise UsageError(message)


# -- arena rules ------------------------------------------------------------------------


def _rule_values(items: Sequence[str]) -> dict[str, str]:
    """``name=value`` strings as a mapping; UsageError names an item not so written."""
    values: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"rule option {item!r} is not written name=value")
        values[name.strip()] = value.strip()
    return values


def _position(args: argparse.Namespace) -> tuple[Any, Any]:
    """The game and its deal of ``--deck`` under the game's rules (its preset, then ``--rule``), after
    ``--actions`` (RULES-SPEC section 7)."""
    if args.game not in GAMES:
        raise UsageError(f"unknown game {args.game!r} (known: {', '.join(GAMES)})")
    game = game_of(args.game)
    values = _rule_values(args.rule or [])
    players = getattr(args, "players", None)
    if "players" in game.rules_map(game.rules()):  # 7.4: --players N is required where the game seats 2..8
        if players is None:
            raise UsageError(f"--players is required for {args.game}")
        values["players"] = str(players)
    elif players is not None:
        raise UsageError(f"--players is not an option of {args.game}")
    try:
        rules = game.rules(values)  # 7.1: the preset, then the options
        return game, game.position(args.deck, (args.actions or "").split(), rules)
    except ValueError as e:
        raise UsageError(str(e)) from None


def cmd_rules_run(args: argparse.Namespace) -> int:
    game, state = _position(args)
    print(json.dumps(game.summary(state)))
    return 0


def cmd_rules_perft(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise UsageError(f"bad depth {args.depth!r} (expected 0 or more)")
    game, state = _position(args)
    print(game.perft(state, args.depth))
    return 0


# -- show: one match in process -------------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job: a duplicate round robin of the sample bots, then the published leaderboards."""
    from harness.tournament.commands import run_demo

    return run_demo(args.out, args.concurrency)


def cmd_show(args: argparse.Namespace) -> int:
    """One seeded match of the built-in players (greedy against random), in process, deal by deal."""
    from harness.games.registry import get
    from harness.render import deal_view, match_summary
    from harness.players import players_for

    try:
        game = get(args.game)
    except ValueError as e:
        raise UsageError(str(e)) from None
    console = Console()
    rules = game.rules()
    if getattr(args, "players", None) is not None:  # twenty_two seats 2..8
        if "players" not in game.rules_map(rules):
            raise UsageError(f"--players is not an option of {game.id}")
        try:
            rules = game.rules({"players": args.players})
        except ValueError as e:
            raise UsageError(str(e)) from None
    bots = players_for(game.id, game.players(rules), random.Random(args.seed))
    names = tuple(name for name, _ in bots)
    m = game.start(args.seed, rules)
    console.rule(f"[bold]{game.title} · {' vs '.join(names)} · seed {args.seed}")
    deal = game.deal(m)
    actions: list[str] = []
    while (player := game.to_act(m)) is not None:
        done = game.deals_done(m)
        action = bots[player][1](game.observe(m, player))
        actions.append(action)
        m = game.apply(m, action)
        if game.deals_done(m) > done:
            line = {"deal_no": deal.deal_no, **deal.record, "actions": actions, "result": game.deal_end(m).record}
            console.print(deal_view(game.id, rules, line, names))
            actions = []
            if game.outcome(m) is None:
                deal = game.deal(m)
    outcome = game.outcome(m)
    assert outcome is not None
    console.print(match_summary(names, outcome.scores, outcome.ranks, teams=outcome.teams))
    return 0


def _lazy(module: str, name: str):
    """A command body imported only when it runs, so `arena rules` starts fast."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        return getattr(importlib.import_module(module), name)(args)

    return run


# -- parser -----------------------------------------------------------------------------


def add_tournament_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``arena tournament``."""
    p.add_argument("config", nargs="?", help="tournament config (TOML); or use --bot")
    p.add_argument("--resume", action="store_true", help="continue the latest tournament of this name")
    p.add_argument("--bot", action="append", metavar="NAME=COMMAND",
                   help="an entrant: a command line or remote:NAME (repeatable; instead of CONFIG)")
    p.add_argument("--name", help="tournament name with --bot (default: tournament)")
    p.add_argument("--game", help=f"the game, with --bot: {', '.join(game_ids())} (default: sixtysix)")
    p.add_argument("--duplicate", choices=("auto", "trusted", "off"),
                   help="legs on the same deals, with --bot: auto (only with the sandbox; the default), trusted "
                        "(your own bots, no sandbox needed) or off")
    p.add_argument("--partners", choices=("self", "rotate"),
                   help="partnership games, with --bot: an entrant plays both seats of a team (self, the "
                        "default) or everyone partners everyone (rotate)")
    p.add_argument("--rounds", type=int, help="duplicate round robins, with --bot (default 1)")
    p.add_argument("--seed", type=int, help="tournament seed, with --bot (default 0)")
    p.add_argument("--move-time", type=float, metavar="SEC", help="seconds per decision, with --bot (default 1)")
    p.add_argument("--time-bank", type=float, metavar="SEC", help="seconds of bank per match, with --bot (default 10)")
    p.add_argument("--rule", action="append", metavar="NAME=VALUE", help="a rule option, with --bot (repeatable)")
    p.add_argument("--limit", action="append", metavar="NAME=VALUE", help="a bot resource limit, with --bot (repeatable)")
    p.add_argument("--concurrency", type=int, help="matches at once (default: the config's, else cores)")
    p.add_argument("--db", help="results database (default: results/arena.db)")
    p.add_argument("--out", help="directory for leaderboards and records (default: results)")


def add_leaderboard_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``arena leaderboard``."""
    p.add_argument("--db", default="results/arena.db", help="results database (default: results/arena.db)")
    p.add_argument("--out", default="results", help="where to write leaderboard.{md,json,html} (default: results)")
    p.add_argument("--tournament", type=int, metavar="ID", help="tournament id (default: the latest)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="arena", description="Sixty-Six Arena: rules tools, matches, tournaments, leaderboards.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    rules = sub.add_parser("rules", help="the rules engine on the command line")
    rsub = rules.add_subparsers(dest="rules_command", required=True, parser_class=_Parser)
    for name, fn, help_ in (
        ("run", cmd_rules_run, "apply actions from a deal and print the position as JSON"),
        ("perft", cmd_rules_perft, "count the action sequences of a given length"),
    ):
        r = rsub.add_parser(name, help=help_)
        r.add_argument("game", help=f"the game: {', '.join(game_ids())}")
        r.add_argument("--deck", required=True,
                       help="the game's cards, top first (24 for sixtysix, 20 for schnapsen), e.g. 'AH TH KH ...'")
        r.add_argument("--actions", default="", help="space-separated actions from the deal")
        r.add_argument("--rule", action="append", metavar="NAME=VALUE", help="a rule option (repeatable)")
        r.add_argument("--players", type=int, metavar="N", help="players, for twenty_two only (2-8, required there)")
        if name == "perft":
            r.add_argument("--depth", type=int, required=True)
        r.set_defaults(func=fn)

    match = sub.add_parser("match", help="play one match between bots (one per player), shown live")
    match.add_argument("bots", nargs="+", metavar="BOT",
                       help="one per player, in player order: a command (\"python sample_bots/random_bot.py\") "
                            "or remote:NAME")
    match.add_argument("--game", default="sixtysix", help=f"the game: {', '.join(game_ids())} (default: sixtysix)")
    match.add_argument("--partners", choices=("self",),
                       help="partnership games: one bot per team, playing both of its seats (default: one bot per seat)")
    match.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    match.add_argument("--move-time", type=float, default=1.0, metavar="SEC", help="limit per decision")
    match.add_argument("--time-bank", type=float, default=10.0, metavar="SEC", help="bank per match")
    match.add_argument("--hello-time", type=float, default=None, metavar="SEC",
                       help="start-up limit for Hello (default 10 s; 300 s for remote bots)")
    match.add_argument("--rule", action="append", metavar="NAME=VALUE", help="a rule option (repeatable)")
    match.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT or unix:PATH for the arena server")
    match.add_argument("--out", default="results", help="folder for the match record")
    match.add_argument("--no-live", dest="live", action="store_false", help="no live view")
    match.set_defaults(func=_lazy("harness.arena.commands", "cmd_match"))

    replay = sub.add_parser("replay", help="re-deal a match record, verify it and print it")
    replay.add_argument("file", help="a JSON-lines match record")
    replay.set_defaults(func=_lazy("harness.arena.commands", "cmd_replay"))

    tournament = sub.add_parser("tournament", help="a duplicate round-robin tournament, rated with TrueSkill")
    add_tournament_arguments(tournament)
    tournament.set_defaults(func=_lazy("harness.tournament.commands", "cmd_tournament"))

    board = sub.add_parser("leaderboard", help="write leaderboard.md, .json and .html from a results database")
    add_leaderboard_arguments(board)
    board.set_defaults(func=_lazy("harness.tournament.commands", "cmd_leaderboard"))

    db = sub.add_parser("db", help="results and league databases")
    upgrade = db.add_subparsers(dest="db_command", required=True, parser_class=_Parser).add_parser(
        "upgrade", help="upgrade a database written by an older arena, in place (a backup is kept)")
    upgrade.add_argument("path", help="a results or league database")
    upgrade.set_defaults(func=_lazy("harness.tournament.upgrade", "cmd_upgrade"))

    demo = sub.add_parser("demo", help="the main job on embedded defaults: a tournament of the sample bots")
    demo.add_argument("--out", default=None, help="folder for the database, records and leaderboards")
    demo.add_argument("--concurrency", type=int, default=None)
    demo.set_defaults(func=cmd_demo)

    show = sub.add_parser("show", help="one seeded match of the built-in players, in process, deal by deal")
    show.add_argument("--seed", type=int, default=66, help="match seed (default: 66)")
    show.add_argument("--game", default="sixtysix", help=f"the game: {', '.join(game_ids())} (default: sixtysix)")
    show.add_argument("--players", type=int, default=None, help="players, for twenty_two (2-8, default 4)")
    show.set_defaults(func=cmd_show)

    from harness.league.commands import add_league_parser  # `arena league serve|register|retire|add|leaderboard`

    add_league_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except UsageError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
