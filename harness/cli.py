"""The ``arena`` command line. Its command bodies show live views through :mod:`harness.live`."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any, NoReturn
from collections.abc import Callable, Sequence

from rich.console import Console

from harness import eventloop
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
    from harness.assignments import assignments

    try:
        return assignments(items)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _position(args: argparse.Namespace) -> tuple[Any, Any]:
    """The game and its deal of ``--deck`` under the game's rules (its preset, then ``--rule``), after
    ``--actions`` (RULES-SPEC section 7)."""
    game = game_of(_known_game(args.game))
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


def _known_game(name: str) -> str:
    """``name`` if it is a game; UsageError naming the nearest game otherwise."""
    if name in GAMES:
        return name
    from harness.games.options import suggestion

    near = suggestion(name, GAMES)
    hint = f"did you mean {near!r}? " if near else ""
    raise UsageError(f"unknown game {name!r} ({hint}games: {', '.join(GAMES)})")


def cmd_rules_options(args: argparse.Namespace) -> int:
    """Every rule option of a game (or of every game) with its default and the values it takes."""
    from harness.games.options import option_table

    chosen = [_known_game(args.game)] if args.game else list(GAMES)
    for i, gid in enumerate(chosen):
        game = game_of(gid)
        rows = option_table(game)
        if i:
            print()
        print(f"{gid} ({game.title}): {len(rows)} rule option{'s' if len(rows) != 1 else ''}, written "
              f"--rule name=value or in a config's [rules]; RULES.md says what each does")
        width = max(len(r[0]) for r in rows)
        dwidth = max(len("default"), *(len(r[1]) for r in rows))
        print(f"  {'option':<{width}}  {'default':<{dwidth}}  values")
        for name, default, values in rows:
            print(f"  {name:<{width}}  {default:<{dwidth}}  {values}")
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


def _lazy(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """A command body imported only when it runs, so `arena rules` starts fast."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        return getattr(importlib.import_module(module), name)(args)

    return run


# -- parser -----------------------------------------------------------------------------


def add_tournament_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``arena tournament``."""
    p.add_argument("config", nargs="?", help="tournament config (TOML); or use --bot")
    p.add_argument("--resume", action="store_true", help="continue the latest tournament of this name (a switch)")
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
    p.add_argument("--adaptive", action="store_true",
                   help="adaptive schedule, with --bot: play where the order is in doubt and stop when every pair "
                        "of neighbours in the standings is ordered at --confidence (a switch; default: round robin)")
    p.add_argument("--confidence", type=float, help="with --adaptive: confidence each neighbour pair needs (default 0.95)")
    p.add_argument("--max-matches", type=int, metavar="N",
                   help="with --adaptive: never more matches (default: 20 round robins' worth)")
    p.add_argument("--min-per-pairing", type=int, metavar="N",
                   help="with --adaptive: full round robins played first (default 2)")
    p.add_argument("--seed", type=int, help="tournament seed, with --bot (default 0)")
    p.add_argument("--move-time", type=float, metavar="SEC", help="seconds per decision, with --bot (default 1)")
    p.add_argument("--time-bank", type=float, metavar="SEC", help="seconds of bank per match, with --bot (default 10)")
    p.add_argument("--hello-time", type=float, metavar="SEC",
                   help="how long each match waits for a bot's Hello (default: the config's [time] hello, else 10 s "
                        "for commands and 300 s for remote bots)")
    p.add_argument("--strict", action="store_true",
                   help="a bot whose SDK reports an error (its act() raised) forfeits that match (a switch; "
                        "default: the error is counted in the failures column and play goes on)")
    p.add_argument("--dry-run", action="store_true",
                   help="check the config and start each bot once (Hello only), play nothing (default: off)")
    p.add_argument("--rule", action="append", metavar="NAME=VALUE", help="a rule option, with --bot (repeatable)")
    p.add_argument("--limit", action="append", metavar="NAME=VALUE", help="a bot resource limit, with --bot (repeatable)")
    p.add_argument("--concurrency", type=int, help="matches at once (default: the config's, else cores)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="worker processes sharing the matches, each with its own arena and bots (default: the "
                        "config's workers, else cores; 1, or any remote entrant: all in this process)")
    p.add_argument("--pin", action=argparse.BooleanOptionalAction, default=None,
                   help="run each worker process and its bots on their own share of the CPUs: a match's "
                        "hand-offs stay on one core (default: the config's pin, else on; --no-pin: any CPU)")
    p.add_argument("--listen", metavar="HOST:PORT",
                   help="where the arena listens for remote entrants (remote:NAME), e.g. 0.0.0.0:50051 for bots on "
                        "other machines (default: 127.0.0.1:0, a free port on this machine only)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="play the matches on a Ray cluster (issue 15; pip install -e '.[ray]'): auto (this machine's "
                        "cluster), local (a private one for this run), ray://HOST:PORT (default: the config's "
                        "[cluster], else this machine without Ray)")
    p.add_argument("--deals", metavar="FILE",
                   help="a deal book (one match seed per line): each duplicate pair or table plays the next entry, "
                        "cycling (default: the config's deals, else secret deals)")
    p.add_argument("--db", help="results database (default: the config's db, else arena.db in the --out "
                                "directory: results/arena.db without --out)")
    p.add_argument("--out", help="directory for leaderboards and records (default: the config's out, else results)")


def add_leaderboard_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``arena leaderboard``."""
    p.add_argument("--db", default="results/arena.db", help="results database (default: results/arena.db)")
    p.add_argument("--out", default="results",
                   help="leaderboard.{md,json,html} go to OUT/<tournament name>/ (default: results)")
    p.add_argument("--tournament", metavar="NAME|ID", help="tournament name or id (default: the latest)")


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
                       help="the game's cards, top first (24 for sixtysix, 20 for schnapsen), e.g. 'AH TH KH ...' "
                            "(required)")
        r.add_argument("--actions", default="", help="space-separated actions from the deal (default: none)")
        r.add_argument("--rule", action="append", metavar="NAME=VALUE",
                       help="a rule option (repeatable; `arena rules options` lists them)")
        r.add_argument("--players", type=int, metavar="N", help="players, for twenty_two only (2-8; required there, no default)")
        if name == "perft":
            r.add_argument("--depth", type=int, required=True, metavar="N", help="sequence length (required)")
        r.set_defaults(func=fn)
    ro = rsub.add_parser("options", help="list every rule option with its default and values")
    ro.add_argument("game", nargs="?", help=f"the game: {', '.join(game_ids())} (default: every game)")
    ro.set_defaults(func=cmd_rules_options)

    match = sub.add_parser("match", help="play one match between bots (one per player), shown live")
    match.add_argument("bots", nargs="+", metavar="BOT",
                       help="one per player, in player order: a command (\"python sample_bots/random_bot.py\") "
                            "or remote:NAME")
    match.add_argument("--game", default="sixtysix", help=f"the game: {', '.join(game_ids())} (default: sixtysix)")
    match.add_argument("--partners", choices=("self",),
                       help="partnership games: one bot per team, playing both of its seats (default: one bot per seat)")
    match.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    match.add_argument("--deals", default=None, metavar="FILE",
                       help="a deal book (one match seed per line): play one match per entry, in order "
                            "(default: one match on --seed)")
    match.add_argument("--move-time", type=float, default=1.0, metavar="SEC", help="limit per decision (default 1)")
    match.add_argument("--time-bank", type=float, default=10.0, metavar="SEC", help="bank per match (default 10)")
    match.add_argument("--hello-time", type=float, default=None, metavar="SEC",
                       help="start-up limit for Hello (default 10 s; 300 s for remote bots)")
    match.add_argument("--rule", action="append", metavar="NAME=VALUE",
                       help="a rule option (repeatable; `arena rules options` lists them)")
    match.add_argument("--listen", default="127.0.0.1:0",
                       help="HOST:PORT or unix:PATH for the arena server (default: 127.0.0.1:0, a free port)")
    match.add_argument("--out", default="results", help="folder for the match record (default: results)")
    match.add_argument("--no-live", dest="live", action="store_false", help="no live view (a switch; default: live)")
    match.add_argument("--quiet", action="store_true",
                       help="do not show the bots' stderr lines as they come (a switch; default: shown; "
                            "every line is in the bot's log file either way)")
    match.add_argument("--strict", action="store_true",
                       help="a bot whose SDK reports an error (its act() raised) forfeits (a switch; default: "
                            "the error is counted and play goes on)")
    match.set_defaults(func=_lazy("harness.arena.commands", "cmd_match"))

    play = sub.add_parser("play", help="play against bots yourself, in the terminal")
    play.add_argument("bots", nargs="+", metavar="BOT",
                      help="a command or remote:NAME; one BOT plays every other seat (one process each), "
                           "or give one per other seat, in player order")
    play.add_argument("--game", default="sixtysix", help=f"the game: {', '.join(game_ids())} (default: sixtysix)")
    play.add_argument("--seat", type=int, default=0, metavar="N", help="your player index (default: 0)")
    play.add_argument("--players", type=int, default=None, metavar="N",
                      help="players, for twenty_two (2-8; default: one more than the BOTs given, 4 for one BOT)")
    play.add_argument("--name", default="human", help="your name in the record (default: human)")
    play.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    play.add_argument("--move-time", type=float, default=1.0, metavar="SEC",
                      help="the bots' limit per decision (default: 1); you have no clock")
    play.add_argument("--time-bank", type=float, default=10.0, metavar="SEC",
                      help="the bots' bank per match (default: 10)")
    play.add_argument("--hello-time", type=float, default=None, metavar="SEC",
                      help="start-up limit for Hello (default 10 s; 300 s for remote bots)")
    play.add_argument("--rule", action="append", metavar="NAME=VALUE", help="a rule option (repeatable; default: none)")
    play.add_argument("--out", default="results", help="folder for the match record (default: results)")
    play.set_defaults(func=_lazy("harness.human.command", "cmd_play"))

    replay = sub.add_parser("replay", help="re-deal a match record, verify it and print it")
    replay.add_argument("file", help="a JSON-lines match record")
    replay.set_defaults(func=_lazy("harness.arena.commands", "cmd_replay"))

    view = sub.add_parser("view", help="write one match record as a self-contained HTML page to step through")
    view.add_argument("record", help="a JSON-lines match record")
    view.add_argument("--out", default=None, metavar="FILE",
                      help="the page to write (default: beside the record, .jsonl replaced by .html)")
    view.add_argument("--seat", type=int, default=None, metavar="N",
                      help="open the page in player N's view, 0-based (default: every hand shown)")
    view.set_defaults(func=_lazy("harness.viewer.command", "cmd_view"))

    duel = sub.add_parser("duel", help="A/B test two bots in duplicate pairs: Elo, LOS and an SPRT that stops early")
    duel.add_argument("a", metavar="A", help="the first bot (usually the new version): a command or remote:NAME")
    duel.add_argument("b", metavar="B", help="the second bot (usually the old version): a command or remote:NAME")
    duel.add_argument("--game", default="sixtysix",
                      help=f"a game of two sides: {', '.join(game_ids())} (default: sixtysix; twenty_two plays 2)")
    duel.add_argument("--pairs", type=int, default=None, metavar="N",
                      help="the most duplicate pairs to play (default: 100; 5000 with --sprt; a --deals book's length)")
    duel.add_argument("--sprt", nargs="*", default=None, metavar="NAME=VALUE",
                      help="stop when the SPRT decides: elo0= elo1= alpha= beta= model=normalized|logistic "
                           "(default: off; given, even alone, each left out is elo0=0 elo1=10 alpha=0.05 beta=0.05 "
                           "model=normalized, bounds in normalized Elo; the exit status is then 0 only when H1 is "
                           "accepted, else 1)")
    duel.add_argument("--deals", default=None, metavar="FILE",
                      help="a deal book: one match seed per line, played in order, a pair each (default: secret deals)")
    duel.add_argument("--seed", type=int, default=None, help="the duel's seed, for reproduction (default: a secret one)")
    duel.add_argument("--duplicate", choices=("auto", "trusted", "off"), default="auto",
                      help="legs on the same deals: auto (only with the sandbox), trusted (your own bots) or off "
                           "(default: auto)")
    duel.add_argument("--concurrency", type=int, default=None, metavar="N", help="matches at once (default: cores)")
    duel.add_argument("--move-time", type=float, default=1.0, metavar="SEC", help="limit per decision (default 1)")
    duel.add_argument("--time-bank", type=float, default=10.0, metavar="SEC", help="bank per match (default 10)")
    duel.add_argument("--hello-time", type=float, default=None, metavar="SEC",
                      help="start-up limit for a spawned bot's Hello (default 10 s; a remote bot gets 300 s)")
    duel.add_argument("--rule", action="append", metavar="NAME=VALUE", help="a rule option (repeatable; default: none)")
    duel.add_argument("--limit", action="append", metavar="NAME=VALUE",
                      help="a bot resource limit, as in a tournament's [limits] (repeatable; default: the defaults)")
    duel.add_argument("--out", default=None,
                      help="folder for duel.json and the records (default: results/duels/A-vs-B, -2, -3… if taken)")
    duel.add_argument("--no-live", dest="live", action="store_false", help="no live line (a switch; default: live)")
    duel.set_defaults(func=_lazy("harness.duel", "cmd_duel"))

    check = sub.add_parser("check-bot", help="a compliance run for one bot: Hello, decisions of every game it lists, "
                                             "request ids, latency, concurrency, Goodbye/SIGTERM/dropped stream")
    check.add_argument("bot", metavar="BOT", help="a command (\"python sample_bots/random_bot.py\") or remote:NAME")
    check.add_argument("--game", action="append", metavar="G",
                       help=f"a game to check: {', '.join(game_ids())} (repeatable; default: every game it lists)")
    check.add_argument("--decisions", type=int, default=200, metavar="N",
                       help="positions asked per game, every kind of decision point included (default: 200)")
    check.add_argument("--move-time", type=float, default=1.0, metavar="SEC", help="limit per decision (default 1)")
    check.add_argument("--time-bank", type=float, default=10.0, metavar="SEC",
                       help="the bank each request announces; a reply later than move + bank fails (default 10)")
    check.add_argument("--hello-time", type=float, default=None, metavar="SEC",
                       help="start-up limit for Hello (default 10 s; 300 s for remote bots)")
    check.add_argument("--grace", type=float, default=2.0, metavar="SEC",
                       help="how long the bot has to end after Goodbye, SIGTERM or a cut stream (default 2)")
    check.add_argument("--seed", type=int, default=None, help="seed of the drawn positions (default: random, shown)")
    check.add_argument("--limit", action="append", metavar="NAME=VALUE",
                       help="a bot resource limit, as in a tournament's [limits] (repeatable; default: the defaults)")
    check.add_argument("--listen", default="127.0.0.1:0",
                       help="HOST:PORT or unix:PATH for the arena server (default: 127.0.0.1:0)")
    check.add_argument("--json", action="store_true", help="print the checks as JSON (a switch; default: a table)")
    check.set_defaults(func=_lazy("harness.checkbot", "cmd_check_bot"))

    tournament = sub.add_parser("tournament", help="a duplicate round-robin tournament, rated with TrueSkill")
    add_tournament_arguments(tournament)
    tournament.set_defaults(func=_lazy("harness.tournament.commands", "cmd_tournament"))

    board = sub.add_parser("leaderboard", help="write leaderboard.md, .json and .html from a results database")
    add_leaderboard_arguments(board)
    board.set_defaults(func=_lazy("harness.tournament.commands", "cmd_leaderboard"))

    listing = sub.add_parser("tournaments", help="list the tournaments in a results database: status, matches, dates")
    listing.add_argument("--db", default="results/arena.db", help="results database (default: results/arena.db)")
    listing.set_defaults(func=_lazy("harness.tournament.commands", "cmd_tournaments"))

    db = sub.add_parser("db", help="results and league databases")
    upgrade = db.add_subparsers(dest="db_command", required=True, parser_class=_Parser).add_parser(
        "upgrade", help="upgrade a database written by an older arena, in place (a backup is kept)")
    upgrade.add_argument("path", help="a results or league database")
    upgrade.set_defaults(func=_lazy("harness.tournament.upgrade", "cmd_upgrade"))

    demo = sub.add_parser("demo", help="the main job on embedded defaults: a tournament of the sample bots")
    demo.add_argument("--out", default=None,
                      help="folder for the database, records and leaderboards (default: results)")
    demo.add_argument("--concurrency", type=int, default=None, metavar="N",
                      help="matches at once (default: the demo config's, 2)")
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
        try:
            eventloop.factory()  # a bad ARENA_EVENT_LOOP is one line before anything starts
        except ValueError as e:
            raise UsageError(str(e)) from None
        return args.func(args)
    except UsageError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
