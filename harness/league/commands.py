"""``arena league ...``: serve a league, register and retire bots, add operator entrants, show
the leaderboard. :func:`add_league_parser` adds the subcommands to the ``arena`` parser; the
bodies import grpc and rich only when they run.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

ADDRESS = "127.0.0.1:50066"


def add_league_parser(sub: Any) -> None:
    """Add ``league`` with its subcommands to ``sub`` (an argparse subparsers action)."""
    from harness.games.registry import ids as game_ids

    league = sub.add_parser("league", help="a long-running league that bots join over the network")
    lsub = league.add_subparsers(dest="league_command", required=True, parser_class=type(league))

    s = lsub.add_parser("serve", help="run the league server (stops gracefully on SIGTERM)")
    s.add_argument("--listen", default=ADDRESS, metavar="HOST:PORT", help=f"address to listen on (default: {ADDRESS})")
    s.add_argument("--db", default="results/league.db", help="the SQLite file (default: results/league.db)")
    s.add_argument("--out", default="results/league", help="folder for leaderboard.{md,json,html} and records (default: results/league)")
    s.add_argument("--round-every", type=float, default=30.0, metavar="SEC", help="seconds between rounds (default 30)")
    s.add_argument("--tls-cert", metavar="FILE", help="PEM certificate: serve with TLS (default: none, plain text)")
    s.add_argument("--tls-key", metavar="FILE", help="PEM private key of --tls-cert (default: none)")
    s.add_argument("--reconnect-grace", type=float, default=30.0, metavar="SEC",
                   help="how long a bot that dropped mid-match may take to reconnect before it forfeits (default 30)")
    s.add_argument("--pair-cap-per-day", type=int, default=24, metavar="N", help="matches per pair per day (default 24)")
    s.add_argument("--max-message-bytes", type=int, default=64 * 1024, metavar="N",
                   help="largest message a client may send (default 65536)")
    s.add_argument("--move-time", type=float, default=1.0, metavar="SEC", help="limit per decision (default 1)")
    s.add_argument("--time-bank", type=float, default=10.0, metavar="SEC", help="bank per match (default 10)")
    s.add_argument("--stop-grace", type=float, default=10.0, metavar="SEC",
                   help="on SIGTERM, how long matches in flight may take to finish before they are interrupted (default 10)")
    s.add_argument("--provisional-below", type=int, default=10, metavar="N",
                   help="entrants with fewer matches are marked provisional (default 10)")
    s.add_argument("--register-rate", type=float, default=10.0, metavar="PER_MIN",
                   help="registrations per minute per host, after a burst of the same size (default 10)")
    s.add_argument("--connect-rate", type=float, default=60.0, metavar="PER_MIN",
                   help="bot connections per minute per host, after a burst of half that (default 60)")
    s.add_argument("--game", default=None,
                   help=f"the game of a new league: {', '.join(game_ids())} (default: sixtysix; an existing league "
                        "keeps the game it was created with)")
    s.add_argument("--rule", action="append", metavar="NAME=VALUE",
                   help="a rule option of a new league (repeatable; default: the game's rules; an existing league "
                        "keeps its rules; `arena rules options GAME` lists them)")
    s.set_defaults(func=cmd_serve)

    r = lsub.add_parser("register", help="register a bot; prints its token once")
    _client_args(r)
    r.add_argument("--name", required=True, help="the bot's name (required)")
    r.add_argument("--owner", default=None, help="owner name (default: your user name)")
    r.add_argument("--owner-secret", default=os.environ.get("ARENA_OWNER_SECRET", ""),
                   help="the owner's secret, once the owner exists (default: $ARENA_OWNER_SECRET)")
    r.set_defaults(func=cmd_register)

    t = lsub.add_parser("retire", help="retire an entrant (its token or its owner's secret is needed)")
    _client_args(t)
    t.add_argument("--name", default=None,
                   help="the entrant's name (default: the entrant the token names; required with --owner-secret)")
    t.add_argument("--owner", default=None,
                   help="owner name (default: the token's owner; with --owner-secret alone, your user name)")
    t.add_argument("--token", default=os.environ.get("ARENA_TOKEN", ""),
                   help="the entrant's token; it identifies the entrant (default: $ARENA_TOKEN)")
    t.add_argument("--owner-secret", default=os.environ.get("ARENA_OWNER_SECRET", ""),
                   help="or the owner's secret (default: $ARENA_OWNER_SECRET)")
    t.set_defaults(func=cmd_retire)

    a = lsub.add_parser("add", help="add an entrant the league runs itself from a command (operator)")
    a.add_argument("--db", default="results/league.db", help="the league's SQLite file (default: results/league.db)")
    a.add_argument("--name", required=True, help="the entrant's name (required)")
    a.add_argument("--game", default=None,
                   help="the game, when this creates the league's database (default: sixtysix); an existing "
                        "league must match")
    a.add_argument("--command", required=True,
                   help="e.g. \"python sample_bots/greedy_bot.py\"; it runs in the current directory (required)")
    a.set_defaults(func=cmd_add)

    b = lsub.add_parser("leaderboard", help="print the league's leaderboard")
    _client_args(b)
    b.add_argument("--all", action="store_true", help="include retired entrants (a switch)")
    b.add_argument("--watch", action="store_true", help="print it again after every round (a switch)")
    b.set_defaults(func=cmd_leaderboard)


def _client_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--league", default=os.environ.get("ARENA_LEAGUE", ADDRESS), metavar="ADDR",
                   help=f"the league's address (default: $ARENA_LEAGUE, else {ADDRESS})")
    p.add_argument("--tls-ca", default=os.environ.get("ARENA_TLS_CA") or None, metavar="FILE",
                   help="connect with TLS, trusting this PEM CA or certificate (default: $ARENA_TLS_CA, else plain text)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="SEC", help="seconds to wait for the league (default 10)")


def _fail(line: str, code: int = 1) -> int:
    print(f"arena: {line}", file=sys.stderr)
    return code


def _owner(args: argparse.Namespace) -> str:
    if args.owner:
        return args.owner
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment
        return "anonymous"


def _stub(args: argparse.Namespace) -> Any:
    import grpc

    from harness.wire import league_pb2_grpc as lpb_grpc

    if args.tls_ca:
        with open(args.tls_ca, "rb") as f:
            creds = grpc.ssl_channel_credentials(root_certificates=f.read())
        channel = grpc.secure_channel(args.league, creds)
    else:
        channel = grpc.insecure_channel(args.league)
    return lpb_grpc.LeagueServiceStub(channel), channel


def _call(args: argparse.Namespace, fn: Any) -> int:
    """Run ``fn(stub)``; a failed RPC or an unreadable CA file is one line on stderr."""
    import grpc

    try:
        stub, channel = _stub(args)
    except OSError as e:
        return _fail(f"cannot read --tls-ca {args.tls_ca}: {e.strerror}", 2)
    try:
        return fn(stub)
    except grpc.RpcError as e:
        return _fail(f"league {args.league}: {e.code().name}: {e.details()}")
    except KeyboardInterrupt:
        return 130
    finally:
        channel.close()


def cmd_serve(args: argparse.Namespace) -> int:
    from harness import eventloop

    from .server import LeagueConfig, serve

    if bool(args.tls_cert) != bool(args.tls_key):
        return _fail("give both --tls-cert and --tls-key", 2)
    for flag, value in (("--round-every", args.round_every), ("--move-time", args.move_time),
                        ("--max-message-bytes", args.max_message_bytes), ("--pair-cap-per-day", args.pair_cap_per_day)):
        if value <= 0:
            return _fail(f"{flag} must be > 0", 2)
    if args.reconnect_grace < 0 or args.time_bank < 0 or args.stop_grace < 0:
        return _fail("--reconnect-grace, --time-bank and --stop-grace must be >= 0", 2)
    cfg = LeagueConfig(
        listen=args.listen, db=args.db, out=args.out, round_every=args.round_every, tls_cert=args.tls_cert,
        tls_key=args.tls_key, reconnect_grace=args.reconnect_grace, pair_cap_per_day=args.pair_cap_per_day,
        max_message_bytes=args.max_message_bytes, move_ms=round(args.move_time * 1000),
        bank_ms=round(args.time_bank * 1000), stop_grace=args.stop_grace, provisional_below=args.provisional_below,
        register_per_minute=args.register_rate, register_burst=max(1, round(args.register_rate)),
        connect_per_minute=args.connect_rate, connect_burst=max(1, round(args.connect_rate / 2)),
        game=args.game, rules=tuple(args.rule or ()))
    for path in (args.tls_cert, args.tls_key):
        if path and not os.path.isfile(path):
            return _fail(f"no such file: {path}", 2)
    return eventloop.run(serve(cfg))


def cmd_register(args: argparse.Namespace) -> int:
    from harness.wire import league_pb2 as lpb

    def go(stub: Any) -> int:
        r = stub.Register(lpb.RegisterRequest(name=args.name, owner=_owner(args), owner_secret=args.owner_secret),
                          timeout=args.timeout)
        print(f"registered {r.entrant}")
        print(f"token: {r.token}")
        if r.owner_secret:
            print(f"owner secret: {r.owner_secret}")
        print("(shown once: the league keeps only hashes; the owner secret is needed to register or retire "
              "under this owner again)" if r.owner_secret else "(shown once: the league keeps only its hash)")
        print(f"join: python YOUR_BOT.py --arena {args.league} --token {r.token}"
              + (f" --tls-ca {args.tls_ca}" if args.tls_ca else ""))
        return 0

    return _call(args, go)


def cmd_retire(args: argparse.Namespace) -> int:
    from harness.wire import league_pb2 as lpb

    if not args.token and not args.owner_secret:
        return _fail("give --token or --owner-secret", 2)
    if not args.token and not args.name:
        return _fail("give --name with --owner-secret", 2)
    owner = args.owner or ("" if args.token else _owner(args))  # issue 14: the token names its owner

    def go(stub: Any) -> int:
        r = stub.Retire(lpb.RetireRequest(owner=owner, name=args.name or "", token=args.token,
                                          owner_secret=args.owner_secret), timeout=args.timeout)
        print(f"retired {r.entrant}")
        return 0

    return _call(args, go)


def cmd_add(args: argparse.Namespace) -> int:
    from harness import preflight

    from .keys import name_problem
    from .store import OPERATOR, Store, StoreError

    problem = name_problem(args.name)
    if problem is not None:
        return _fail(f"bad name: {problem}", 2)
    try:  # issue 14: the same preflight as arena match and arena tournament
        preflight.check_bot(args.command, args.name)
    except preflight.PreflightError as e:
        return _fail(str(e), 2)
    try:
        store = Store(args.db, getattr(args, "game", None))
    except (StoreError, ValueError) as e:
        return _fail(str(e), 2)
    try:
        new, old = store.register(OPERATOR, args.name, command=args.command, cwd=os.getcwd())
    finally:
        store.close()
    print(f"added {new.label}" + (f" (retired {old.label})" if old else "") + f": {args.command}")
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from rich.console import Console

    from harness.wire import league_pb2 as lpb

    console = Console(width=None if sys.stdout.isatty() else 160)

    def go(stub: Any) -> int:
        if not args.watch:
            console.print(table(stub.GetLeaderboard(lpb.GetLeaderboardRequest(include_retired=args.all),
                                                    timeout=args.timeout)))
            return 0
        for board in stub.WatchLeaderboard(lpb.WatchLeaderboardRequest(include_retired=args.all)):
            console.print(table(board))
        return 0

    return _call(args, go)


def table(board: Any) -> Any:
    """A rich table of a protobuf Leaderboard."""
    from harness.leaderboard.terminal import league_table

    return league_table(board)
