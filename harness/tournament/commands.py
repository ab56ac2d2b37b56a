"""``arena tournament`` and ``arena leaderboard``: the command bodies and their arguments.

``cmd_tournament`` owns the tournament's rich ``Live`` view (progress, standings, failures);
without a terminal it prints only the final table. Ctrl-C (or SIGTERM) stops after the matches in
flight and prints the command that resumes; a second Ctrl-C interrupts those too (they are not
recorded and will be replayed).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import secrets
import json
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, \
    TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from harness.arena.limits import Limits
from harness.arena.result import Cause, MatchResult
from harness.leaderboard import files, terminal
from harness.games import registry
from harness.tournament import config as config_mod
from harness.tournament import publish, runner
from harness.tournament.config import ConfigError, TournamentConfig
from harness.tournament.schedule import Pairing
from harness.tournament.store import Store, StoreError, Tournament

DEMO_CONFIG = Path(__file__).with_name("demo.toml")
EXIT_BAD_INPUT = 2
EXIT_STOPPED = 130


def _console() -> Console:
    """The console; without a terminal, wide enough for the whole table."""
    console = Console()
    return console if console.is_terminal else Console(width=max(console.width, 132))


def _fail(message: Any) -> int:
    print(f"arena: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """The tournament config from CONFIG or --bot flags, with --db/--out/--concurrency applied."""
    flag_only = {"--name": args.name, "--rounds": args.rounds, "--seed": args.seed,
                 "--move-time": args.move_time, "--time-bank": args.time_bank, "--rule": args.rule,
                 "--limit": getattr(args, "limit", None), "--game": getattr(args, "game", None),
                 "--partners": getattr(args, "partners", None), "--duplicate": getattr(args, "duplicate", None)}
    if args.config and args.bot:
        raise ConfigError("give either a CONFIG file or --bot entrants, not both")
    if args.config:
        for flag, value in flag_only.items():
            if value is not None:
                raise ConfigError(f"{flag} works only with --bot; set it in {args.config}")
        cfg = config_mod.load(args.config)
        overrides = {"db": args.db, "out": args.out, "concurrency": args.concurrency}
        return config_mod.build(
            name=cfg.name, entrants=cfg.entrants, rounds=cfg.rounds, seed=cfg.seed,
            concurrency=overrides["concurrency"] or cfg.concurrency, move_s=cfg.move_s, bank_s=cfg.bank_s,
            rules=registry.get(cfg.game).rules_map(cfg.rules), limits=cfg.limits, db=args.db or cfg.db,
            out=args.out or cfg.out, game=cfg.game, partners=cfg.partners or None, duplicate=cfg.duplicate,
        ) if any(v is not None for v in overrides.values()) else cfg
    if not args.bot:
        raise ConfigError("no entrants: give a CONFIG file or --bot NAME=COMMAND (at least two)")
    return config_mod.from_flags(
        args.bot, name=args.name or "tournament", game=getattr(args, "game", None) or "sixtysix",
        partners=getattr(args, "partners", None), duplicate=getattr(args, "duplicate", None) or "auto", rounds=1 if args.rounds is None else args.rounds,
        seed=args.seed, concurrency=args.concurrency,
        move_s=1.0 if args.move_time is None else args.move_time,
        bank_s=10.0 if args.time_bank is None else args.time_bank,
        rules=args.rule or (), limits=getattr(args, "limit", None) or (), db=args.db, out=args.out,
    )


def resume_command(args: argparse.Namespace) -> str:
    """The command line that resumes this run."""
    words = ["arena", "tournament"]
    if args.config:
        words.append(args.config)
    for b in args.bot or []:
        words += ["--bot", b]
    for flag in ("name", "game", "partners", "duplicate", "rounds", "seed", "move_time", "time_bank", "concurrency", "db", "out"):
        value = getattr(args, flag, None)
        if value is not None:
            words += [f"--{flag.replace('_', '-')}", str(value)]
    for r in args.rule or []:
        words += ["--rule", r]
    for lim in getattr(args, "limit", None) or []:
        words += ["--limit", lim]
    return shlex.join([*words, "--resume"])


def check_same(stored: dict[str, Any], cfg: TournamentConfig) -> None:
    """ConfigError naming the first setting that differs from the stored tournament's."""
    now = json.loads(json.dumps(cfg.identity()))
    # Tournaments stored before [limits] ran with the defaults, before games were sixtysix, and kept
    # their rules as typed values: compare rules by what they mean.
    stored = {"limits": Limits().to_dict(), "game": "sixtysix", **stored}
    if stored["game"] in registry.ids() and isinstance(stored.get("rules"), dict):
        game = registry.get(stored["game"])
        try:
            stored["rules"] = game.rules_map(game.rules(stored["rules"]))
        except ValueError:
            pass
    for key in now:
        if stored.get(key) != now[key]:
            raise ConfigError(
                f"cannot resume '{cfg.name}': its {key} differ from the stored tournament's "
                f"(stored {json.dumps(stored.get(key))[:60]}, now {json.dumps(now[key])[:60]})"
            )


def cmd_tournament(args: argparse.Namespace) -> int:
    """Play (or resume) a tournament, record it, publish its leaderboards."""
    try:
        cfg = config_from_args(args)
        store = Store(cfg.db)
    except (ConfigError, StoreError) as e:
        return _fail(e)
    try:
        existing = None
        if args.resume:
            # A run stopped before it recorded its tournament (killed while starting) starts afresh.
            existing = store.named(cfg.name)
            if existing is not None:
                if cfg.seed is None:  # the secret drawn when it was created
                    cfg = dataclasses.replace(cfg, seed=existing.config.get("seed"))
                check_same(existing.config, cfg)
        if cfg.seed is None:
            cfg = dataclasses.replace(cfg, seed=secrets.randbits(128))  # issue 11: nobody can predict a deal
        elif cfg.seed_set and any(e.remote is not None for e in cfg.entrants):
            print(f"arena: warning: the seed of '{cfg.name}' was set by hand and it has remote entrants: anyone "
                  "who knows the seed can compute every deal (leave the seed out for a secret one)",
                  file=sys.stderr)
        runner.preflight(cfg.entrants)
        console = _console()
        return asyncio.run(_tournament(cfg, store, existing, console, resume_command(args)))
    except (ConfigError, StoreError, runner.StartError) as e:
        return _fail(e)
    finally:
        store.close()


class _Rate(ProgressColumn):
    """Matches per second, from the progress task's recent speed."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text("– matches/s" if speed is None else f"{speed:.2f} matches/s", style="cyan")


class _View:
    """What the Live display shows; rebuilt from the store at most a few times a second."""

    def __init__(self, store: Store, t: Tournament, done: int) -> None:
        self.store, self.t = store, t
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 _Rate(), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
        self.task = self.progress.add_task(t.name, total=t.scheduled, completed=done)
        self.failures: list[str] = []
        self.note: str | None = None
        self.board = publish.board(store, t)
        self.built = time.monotonic()

    def add(self, p: Pairing, r: MatchResult) -> None:
        self.progress.advance(self.task)
        if r.cause != Cause.NORMAL and r.offender is not None:
            self.failures.append(f"{p.match_id} {r.players[r.offender]}: {r.cause} — {r.detail}"[:160])
        if time.monotonic() - self.built > 0.5:
            self.refresh()

    def refresh(self) -> None:
        self.board = publish.board(self.store, self.store.tournament(self.t.id))
        self.built = time.monotonic()

    def render(self) -> Group:
        return terminal.live_view(self.board, self.progress, self.failures, self.note)


async def _tournament(cfg: TournamentConfig, store: Store, existing: Tournament | None, console: Console,
                      resume: str) -> int:
    if existing is not None:
        voided = runner.void_half_pairs(store, existing, cfg)
        if voided:
            console.print(f"[yellow]replaying {voided} match(es) of duplicate pairs cut in half by the stop[/]")
        if not runner.pending(cfg, store.done(existing.id)):
            store.finish(existing.id)
            return _finish(cfg, store, existing, console, interrupted=False, resume=resume)
    policy = runner.legs_policy(cfg)
    from harness.arena.sandbox import keep_private
    keep_private(cfg.out, cfg.db.parent)  # issue 11: empty for sandboxed bots
    bots = runner.Bots(cfg.entrants, limits=cfg.limits, per_leg=policy.per_leg)
    try:
        await bots.start(cfg.game)
        console.print(f"[dim]{policy.why}[/]", highlight=False)
        stored = cfg.identity() | {"legs": policy.why, "seed_set": cfg.seed_set}
        t = existing or store.create(cfg.name, stored, len(runner.schedule(cfg)),
                                     [(e.name, e.label) for e in cfg.entrants], game=cfg.game)
        view = _View(store, t, len(store.done(t.id)))
        stop = asyncio.Event()
        work = asyncio.ensure_future(runner.run(
            cfg, store, t, seat=bots.seat, play=_play_match(), stop=stop, crashes=bots.crashes,
            on_result=view.add,
        ))

        def on_signal() -> None:
            if stop.is_set():
                work.cancel()
            else:
                stop.set()
                view.note = "stopping after the matches in flight… (Ctrl-C again to abandon them)"

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        try:
            if console.is_terminal:
                from harness.live import live_display

                with live_display(view.render, console):
                    await _wait(work)
                    view.refresh()
            else:
                await _wait(work)
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
    finally:
        await bots.close()
    left = len(runner.pending(cfg, store.done(t.id)))
    return _finish(cfg, store, store.tournament(t.id), console, interrupted=left > 0, resume=resume,
                   show_table=not console.is_terminal)


async def _wait(work: asyncio.Future[Any]) -> None:
    try:
        await work
    except asyncio.CancelledError:
        if not work.cancelled():
            raise


def _play_match() -> runner.PlayFn:
    from harness.arena.match import play_match

    return play_match


def _finish(cfg: TournamentConfig, store: Store, t: Tournament, console: Console, *, interrupted: bool,
            resume: str, show_table: bool = True) -> int:
    b = publish.board(store, t)
    paths = files.write(b, cfg.out)
    if show_table:
        console.print(terminal.render(b))
    else:
        console.print(terminal.crosstable(b))
    console.print(f"leaderboards: {', '.join(str(p) for p in paths)}", highlight=False)
    if interrupted:
        left = t.scheduled - b.meta["recorded"]
        console.print(f"stopped with {left} match(es) to play; resume with:\n  {resume}", highlight=False,
                      soft_wrap=True)
        return EXIT_STOPPED
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """Write leaderboard.{md,json,html} for a tournament in the database and print its table.

    A damaged database is still read: the leaderboard shows every match that can be read, and one
    line on stderr names the file and the problem. Every record the matches point to is checked
    (see :func:`publish.record_problems`); each damaged one gets a line. Either kind of damage is
    also listed under ``tournament.damage`` in leaderboard.json, and makes the exit status 1.
    """
    try:
        store = Store(args.db, create=False, damaged_ok=True)
        try:
            t = store.tournament(args.tournament)
            b = publish.board(store, t)
            problems = publish.record_problems(store.matches(t.id))
            if store.damage is not None:
                problems.insert(0, f"{args.db}: {store.damage}; the leaderboard shows the {b.meta['recorded']} of "
                                   f"{t.scheduled} scheduled matches that could still be read")
        finally:
            store.close()
    except StoreError as e:
        return _fail(e)
    if problems:
        b.meta["damage"] = problems
    paths = files.write(b, args.out)
    console = _console()
    console.print(terminal.render(b))
    console.print(f"leaderboards: {', '.join(str(p) for p in paths)}", highlight=False)
    for line in problems[:20]:
        print(f"arena: {line}", file=sys.stderr)
    if len(problems) > 20:
        print(f"arena: … and {len(problems) - 20} more damaged records (see leaderboard.json)", file=sys.stderr)
    return 1 if problems else 0


def run_demo(out: str | None = None, concurrency: int | None = None) -> int:
    """``make demo``: a duplicate round robin among the sample bots, then the leaderboards."""
    args = argparse.Namespace(config=str(DEMO_CONFIG), bot=None, name=None, rounds=None, seed=None,
                              move_time=None, time_bank=None, rule=None, limit=None, concurrency=concurrency,
                              db=None, out=out, resume=False)
    return cmd_tournament(args)
