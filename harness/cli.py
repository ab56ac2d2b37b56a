"""The ``arena`` command line. It owns the only rich ``Live`` display of the project."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence

from rich.console import Console

from harness.games.sixtysix.cards import CARD_INDEX, parse_deck
from harness.games.sixtysix.engine import MARRY, apply, deal, perft, summary
from harness.games.sixtysix.options import Rules

GAMES = ("sixtysix",)
WORDS = {"exchange", "close", "claim", "draw", "pass", "finish", *MARRY}


class UsageError(Exception):
    """Bad input on the command line: exit status 2 and one line on stderr."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not argparse's usage block
        raise UsageError(message)


# -- arena rules ------------------------------------------------------------------------


def _position(args: argparse.Namespace):
    if args.game not in GAMES:
        raise UsageError(f"unknown game {args.game!r} (known: {', '.join(GAMES)})")
    try:
        rules = Rules.parse(args.rule or [])
    except ValueError as e:
        raise UsageError(str(e)) from None
    try:
        deck = parse_deck(args.deck)
    except ValueError as e:
        raise UsageError(f"bad deck: {e}") from None
    state = deal(deck, rules)
    for i, token in enumerate((args.actions or "").split(), 1):
        if token not in CARD_INDEX and token not in WORDS:
            raise UsageError(f"unknown action {token!r} (action {i})")
        try:
            state = apply(state, token)
        except ValueError as e:
            raise UsageError(f"illegal action {token!r} (action {i}): {e}") from None
    return state


def cmd_rules_run(args: argparse.Namespace) -> int:
    print(json.dumps(summary(_position(args))))
    return 0


def cmd_rules_perft(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise UsageError(f"bad depth {args.depth!r} (expected 0 or more)")
    print(perft(_position(args), args.depth))
    return 0


# -- show: one match in process -------------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job: a duplicate round robin of the sample bots, then the published leaderboards."""
    from harness.tournament.commands import run_demo

    return run_demo(args.out, args.concurrency)


def cmd_show(args: argparse.Namespace) -> int:
    """One seeded match, greedy against random, in process, printed deal by deal."""
    from harness.games.sixtysix.match import match_apply, player_of, start_match
    from harness.games.sixtysix.observe import observe
    from harness.render import deal_panel, match_summary
    from harness.strategies import greedy_action, random_action

    console = Console()
    players = ("greedy", "random")
    rng = random.Random(args.seed)
    m = start_match(args.seed)
    console.rule(f"[bold]Sixty-Six · {players[0]} vs {players[1]} · seed {args.seed}")
    shown = 0
    while m.winner is None:
        seat = m.state.to_act
        obs = observe(m.state, seat)
        action = greedy_action(obs) if player_of(m, seat) == 0 else random_action(obs, rng)
        m = match_apply(m, action)
        if len(m.results) > shown:
            scores = _scores_after(m.results[: shown + 1])
            console.print(deal_panel(m.rules, m.results[shown], players, scores))
            shown += 1
    console.print(match_summary(players, m.scores, m.winner))
    return 0


def _scores_after(results) -> tuple[int, int]:
    s = [0, 0]
    for r in results:
        if r.winner is not None:
            s[r.winner] += r.game_points
    return (s[0], s[1])


def live_display(get_renderable, console: Console, refresh_per_second: float = 4, transient: bool = False):
    """The one place the project creates a rich ``Live`` display; command bodies ask for it here."""
    from rich.live import Live

    return Live(get_renderable=get_renderable, console=console, refresh_per_second=refresh_per_second,
                transient=transient)


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
        r.add_argument("game", help="the game: sixtysix")
        r.add_argument("--deck", required=True, help="24 cards, top first, e.g. 'AH TH KH ...'")
        r.add_argument("--actions", default="", help="space-separated actions from the deal")
        r.add_argument("--rule", action="append", metavar="NAME=VALUE", help="a rule option (repeatable)")
        if name == "perft":
            r.add_argument("--depth", type=int, required=True)
        r.set_defaults(func=fn)

    match = sub.add_parser("match", help="play one match to 7 between two bots, shown live")
    match.add_argument("bot_a", help="a command (\"python sample_bots/random_bot.py\") or remote:NAME")
    match.add_argument("bot_b", help="a command or remote:NAME")
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

    demo = sub.add_parser("demo", help="the main job on embedded defaults: a tournament of the sample bots")
    demo.add_argument("--out", default=None, help="folder for the database, records and leaderboards")
    demo.add_argument("--concurrency", type=int, default=None)
    demo.set_defaults(func=cmd_demo)

    show = sub.add_parser("show", help="one seeded match, greedy against random, in process, deal by deal")
    show.add_argument("--seed", type=int, default=66)
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
