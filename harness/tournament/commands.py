"""``arena tournament``, ``arena tournaments`` and ``arena leaderboard``: the command bodies.

``cmd_tournament`` owns the tournament's rich ``Live`` view (progress, standings, failures, and the
address and token of each remote entrant); without a terminal it prints only the final table.
Ctrl-C (or SIGTERM) stops after the matches in flight (a match still waiting for a remote bot's
Hello stops at once) and prints the command that resumes; a second Ctrl-C interrupts those too
(they are not recorded and will be replayed).

Each tournament's leaderboards go to their own directory, ``OUT/<tournament name>/`` (issue 14): a
name is used once per database; running a config whose name is taken, or resuming a name that is
not there, is refused with one line saying what to do instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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

from harness import eventloop, preflight
from harness.arena.limits import Limits
from harness.arena.result import Cause, Fault, MatchResult
from harness.leaderboard import adaptive as adaptive_panel
from harness.leaderboard import files, plural, terminal
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
                 "--partners": getattr(args, "partners", None), "--duplicate": getattr(args, "duplicate", None),
                 "--adaptive": getattr(args, "adaptive", False) or None, "--confidence": getattr(args, "confidence", None),
                 "--max-matches": getattr(args, "max_matches", None),
                 "--min-per-pairing": getattr(args, "min_per_pairing", None)}
    if args.config and args.bot:
        raise ConfigError("give either a CONFIG file or --bot entrants, not both")
    if args.config:
        for flag, value in flag_only.items():
            if value is not None:
                raise ConfigError(f"{flag} works only with --bot; set it in {args.config}")
        cfg = config_mod.load(args.config)
        overrides = {"db": args.db, "out": args.out, "concurrency": args.concurrency,
                     "workers": getattr(args, "workers", None), "pin": getattr(args, "pin", None),
                     "ray": getattr(args, "ray", None),
                     "hello": getattr(args, "hello_time", None), "deals": getattr(args, "deals", None)}
        return config_mod.build(
            name=cfg.name, entrants=cfg.entrants, rounds=cfg.rounds, seed=cfg.seed,
            concurrency=overrides["concurrency"] or cfg.concurrency, move_s=cfg.move_s, bank_s=cfg.bank_s,
            workers=cfg.workers if overrides["workers"] is None else overrides["workers"],
            pin=cfg.pin if overrides["pin"] is None else overrides["pin"],
            rules=registry.get(cfg.game).rules_map(cfg.rules), limits=cfg.limits,
            # a config without db keeps its database in its out directory, --out's when given
            db=args.db or (Path(args.out) / "arena.db" if args.out and cfg.db == cfg.out / "arena.db" else cfg.db),
            out=args.out or cfg.out, game=cfg.game, partners=cfg.partners or None, duplicate=cfg.duplicate,
            hello_s=cfg.hello_s if overrides["hello"] is None else overrides["hello"], schedule=cfg.schedule,
            **({"confidence": cfg.confidence, "max_matches": cfg.max_matches, "min_per_pairing": cfg.min_per_pairing}
               if cfg.schedule == "adaptive" else {}),
            deals=cfg.book if overrides["deals"] is None else overrides["deals"],
            cluster=cfg.cluster if overrides["ray"] is None else
            dataclasses.replace(cfg.cluster or config_mod.Cluster(), address=config_mod.ray_address(overrides["ray"])),
        ) if any(v is not None for v in overrides.values()) else cfg
    if not args.bot:
        raise ConfigError("no entrants: give a CONFIG file or --bot NAME=COMMAND (at least two)")
    adaptive = bool(getattr(args, "adaptive", False))
    if adaptive and args.rounds is not None:
        raise ConfigError("--rounds is for round robins; --adaptive plays until --confidence or --max-matches")
    for flag in ("confidence", "max_matches", "min_per_pairing"):
        if not adaptive and getattr(args, flag, None) is not None:
            raise ConfigError(f"--{flag.replace('_', '-')} works only with --adaptive")
    return config_mod.from_flags(
        args.bot, name=args.name or "tournament", game=getattr(args, "game", None) or "sixtysix",
        partners=getattr(args, "partners", None), duplicate=getattr(args, "duplicate", None) or "auto", rounds=1 if args.rounds is None else args.rounds,
        seed=args.seed, concurrency=args.concurrency, workers=getattr(args, "workers", None),
        pin=getattr(args, "pin", None) is not False,
        move_s=1.0 if args.move_time is None else args.move_time,
        bank_s=10.0 if args.time_bank is None else args.time_bank,
        rules=args.rule or (), limits=getattr(args, "limit", None) or (), db=args.db, out=args.out,
        hello_s=getattr(args, "hello_time", None), schedule="adaptive" if adaptive else "round_robin",
        confidence=getattr(args, "confidence", None), max_matches=getattr(args, "max_matches", None),
        min_per_pairing=getattr(args, "min_per_pairing", None), deals=getattr(args, "deals", None),
        cluster=None if getattr(args, "ray", None) is None else config_mod.Cluster(config_mod.ray_address(args.ray)),
    )


def resume_command(args: argparse.Namespace) -> str:
    """The command line that resumes this run."""
    words = ["arena", "tournament"]
    if args.config:
        words.append(args.config)
    for b in args.bot or []:
        words += ["--bot", b]
    for flag in ("name", "game", "partners", "duplicate", "rounds", "seed", "move_time", "time_bank", "hello_time",
                 "concurrency", "workers", "ray", "listen", "db", "out", "confidence", "max_matches", "min_per_pairing", "deals"):
        value = getattr(args, flag, None)
        if value is not None:
            words += [f"--{flag.replace('_', '-')}", str(value)]
    if getattr(args, "adaptive", False):
        words.append("--adaptive")
    if getattr(args, "strict", False):
        words.append("--strict")
    if getattr(args, "pin", None) is not None:
        words.append("--pin" if args.pin else "--no-pin")
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
    """Play (or resume) a tournament, record it, publish its leaderboards; with ``--dry-run`` only check
    the config and start each bot once (:func:`dry_run`)."""
    try:
        cfg = config_from_args(args)
        preflight.check_bots(((e.name, e.label) for e in cfg.entrants), what="entrant")
        listen = getattr(args, "listen", None) or "127.0.0.1:0"
        if listen != "127.0.0.1:0" and not any(e.remote is not None for e in cfg.entrants):
            raise ConfigError("--listen is for remote entrants (remote:NAME); spawned bots reach the arena "
                              "on a private unix socket")
        preflight.check_listen(listen)
    except (ConfigError, preflight.PreflightError) as e:
        return _fail(e)
    if getattr(args, "dry_run", False):
        return eventloop.run(dry_run(cfg, _console()))
    try:
        store = Store(cfg.db)
    except StoreError as e:
        return _fail(e)
    try:
        existing = store.named(cfg.name)
        if getattr(args, "demo", False) and existing is not None:  # `make demo` again: the demo it played
            console = _console()
            console.print(f"'{cfg.name}' was played before in {cfg.db} (started {_when(existing.created)}); "
                          "showing it again (arena demo --out DIR plays a new one elsewhere)", highlight=False)
        if args.resume or (getattr(args, "demo", False) and existing is not None):
            if existing is None:
                raise ConfigError(f"no tournament named '{cfg.name}' in '{cfg.db}' to resume; start it with the same "
                                  "command without --resume (arena tournaments lists what is there)")
            if cfg.seed is None:  # the secret drawn when it was created
                cfg = dataclasses.replace(cfg, seed=existing.config.get("seed"))
            check_same(existing.config, cfg)
        elif existing is not None:
            raise ConfigError(_taken(store, existing, cfg))
        if cfg.seed is None:
            cfg = dataclasses.replace(cfg, seed=secrets.randbits(128))  # issue 11: nobody can predict a deal
        elif cfg.seed_set and any(e.remote is not None for e in cfg.entrants):
            print(f"arena: warning: the seed of '{cfg.name}' was set by hand and it has remote entrants: anyone "
                  "who knows the seed can compute every deal (leave the seed out for a secret one)",
                  file=sys.stderr)
        console = _console()
        return eventloop.run(_tournament(cfg, store, existing, console, resume_command(args),
                                       strict=getattr(args, "strict", False), listen=listen))
    except KeyboardInterrupt:  # Ctrl-C before the run's own handler (the bots or the Ray cluster starting)
        print(f"arena: stopped (Ctrl-C); continue with: {resume_command(args)}", file=sys.stderr)
        return EXIT_STOPPED
    except (ConfigError, StoreError, runner.StartError) as e:
        return _fail(e)
    finally:
        store.close()


def _taken(store: Store, t: Tournament, cfg: TournamentConfig) -> str:
    """Why a run may not start a second tournament of the name ``t`` has, and what to do instead."""
    recorded = len(store.done(t.id))
    if t.finished:
        return (f"tournament '{t.name}' in '{cfg.db}' is finished ({recorded} matches, {t.finished[:10]}); to play "
                f"it again give it another name (its leaderboard: arena leaderboard --db {cfg.db} --tournament {t.name})")
    return (f"tournament '{t.name}' in '{cfg.db}' was stopped with {recorded} of {t.scheduled} matches played; "
            "continue it with --resume, or give this run another name")


async def dry_run(cfg: TournamentConfig, console: Console) -> int:
    """``--dry-run``: the config is valid (checked by now); start each command entrant once, wait for its
    Hello, check that it plays the game, and stop it. Nothing is played or written. Remote entrants
    are not waited for. One line per entrant, ``ok`` or ``failed`` with the reason; exit status 0
    when every entrant is ok, else 1."""
    from harness.arena.entrant import Entrant
    from harness.arena.sandbox import keep_private
    from harness.arena.server import Arena, plays

    keep_private(cfg.out, cfg.db.parent)  # as in a real run: empty for sandboxed bots
    policy = runner.legs_policy(cfg)
    matches = f"up to {cfg.max_matches}" if cfg.schedule == "adaptive" else \
        str(len(runner.schedule(dataclasses.replace(cfg, seed=cfg.seed or 0))))  # issue 17: adaptive has a cap
    console.print(f"config ok: '{cfg.name}', {registry.get(cfg.game).title}, {len(cfg.entrants)} entrants, "
                  f"{matches} matches; {policy.why}",
                  highlight=False, soft_wrap=True)
    arena = Arena()
    await arena.start("127.0.0.1:0")
    hello = cfg.hello_s or 10.0
    failed = 0
    try:
        bots = [Entrant(e.name, e.command, arena=arena, hello_s=hello, limits=cfg.limits)
                for e in cfg.entrants if e.command is not None]
        got = await asyncio.gather(*(b.ensure() for b in bots))
        results: dict[str, str] = {}
        for b, g in zip(bots, got):
            fault = g if isinstance(g, Fault) else plays(g, cfg.game)
            results[b.name] = "ok" if fault is None else f"failed: {fault.detail}"
            failed += fault is not None
        await asyncio.gather(*(b.stop() for b in bots), return_exceptions=True)
    finally:
        await arena.stop()
    for e in cfg.entrants:
        line = results[e.name] if e.command is not None else "remote: not started here (it connects by itself)"
        console.print(f"  {e.name}: {line}", highlight=False, soft_wrap=True, markup=False)
    if cfg.cluster is not None and not failed:  # issue 15: and once in every match slot of the cluster
        failed += not await _dry_run_on_ray(cfg, policy, console)
    console.print("dry run: nothing was played or recorded" + (f"; {plural(failed, 'entrant')} failed" if failed else ""),
                  highlight=False)
    return 1 if failed else 0


async def _dry_run_on_ray(cfg: TournamentConfig, policy: runner.LegsPolicy, console: Console) -> bool:
    """Start every match slot of the Ray cluster with its bots (each says Hello on its node), then stop."""
    from harness.tournament.cluster import Ray
    from harness.tournament.executor import job_of

    assert cfg.cluster is not None
    executor = Ray(cfg.cluster)
    job = job_of(cfg.entrants, cfg.game, registry.get(cfg.game).rules_map(cfg.rules), runner.clock_of(cfg),
                 cfg.limits, policy.per_leg, cfg.hello_s or 10.0, cfg.out, None, private=(cfg.out, cfg.db.parent))
    try:
        await executor.start(job)
        nodes = executor.labels()
        console.print(f"  Ray cluster at {cfg.cluster.address}: ok, every bot said Hello in each of "
                      f"{plural(executor.capacity // 2, 'match slot')} on {plural(len(nodes), 'node')}",
                      highlight=False, soft_wrap=True, markup=False)
        return True
    except runner.StartError as e:
        console.print(f"  Ray cluster at {cfg.cluster.address}: failed: {e}", highlight=False, soft_wrap=True,
                      markup=False)
        return False
    finally:
        await executor.close()


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
        self.later: asyncio.TimerHandle | None = None  # a refresh that catches up with a burst of results
        self.failures: list[str] = []
        self.note: str | None = None
        self.remotes: list[str] = []  # how to start each remote entrant, shown above the progress
        self.workers: Any = None  # the worker processes (issue 18), shown above the progress
        self.refresh()

    def add(self, p: Pairing, r: MatchResult) -> None:
        """A match was recorded. The bar and the standings move together (issue 14: never "5/8" beside
        "0 matches"): both show the board, rebuilt at most twice a second (less often when a rebuild takes
        more than 50 ms) and soon after a burst."""
        if r.cause != Cause.NORMAL and r.offender is not None:
            self.failures.append(f"{p.match_id} {r.players[r.offender]}: {r.cause} — {r.detail}"[:160])
        errors: dict[str, int] = {}  # issue 14: errors a bot's SDK reported, play going on (by entrant)
        for name, n in zip(r.players, r.errors):
            errors[name] = errors.get(name, 0) + n
        for name, n in errors.items():
            if n:
                self.failures.append(f"{p.match_id} {name}: {n} error{'s' if n > 1 else ''} (act() raised; see its log)")
        # at most twice a second, and never more than a tenth of the event loop's time (a big tournament's
        # board takes longer to build: the loop must stay free for the matches' replies and clocks)
        wait = max(0.5, 10 * self.cost) - (time.monotonic() - self.built)
        if wait <= 0:
            self.refresh()
        elif self.later is None:
            try:
                self.later = asyncio.get_running_loop().call_later(wait, self.refresh)
            except RuntimeError:  # no event loop: nothing would come back to refresh later
                self.refresh()

    def refresh(self) -> None:
        if self.later is not None:
            self.later.cancel()
            self.later = None
        started = time.monotonic()
        self.board = publish.board(self.store, self.store.tournament(self.t.id))
        self.progress.update(self.task, completed=self.board.standings.matches)
        self.built = time.monotonic()
        self.cost = self.built - started

    def render(self) -> Group:
        view = terminal.live_view(self.board, self.progress, self.failures, self.note)
        lines = [Text(line, style="bold yellow") for line in self.remotes]
        if self.workers is not None:
            lines.append(Text(worker_line(self.workers), style="dim"))
        if not lines:
            return view
        return Group(*lines, view)


def run_lock(db: Path, tid: int) -> Path:
    """The lock file a process running tournament ``tid`` of ``db`` holds (``arena tournaments``: running)."""
    return Path(f"{db}.tournament-{tid}.lock")


def running(db: Path, t: Tournament) -> preflight.Held:
    """Hold tournament ``t``'s run lock; StartError in one line when another process runs it (two writers
    of one tournament would play its pending matches twice)."""
    try:
        return preflight.hold(db, lock=run_lock(db, t.id), refusal=f"tournament '{t.name}' in '{db}' is running"
                              "{by}; stop it (Ctrl-C) before resuming it")
    except preflight.PreflightError as e:
        raise runner.StartError(str(e)) from None


async def _tournament(cfg: TournamentConfig, store: Store, existing: Tournament | None, console: Console,
                      resume: str, strict: bool = False, listen: str = "127.0.0.1:0") -> int:
    with contextlib.ExitStack() as lock:  # the run lock, held until the run ends
        if existing is not None:
            lock.callback(running(cfg.db, existing).close)  # before anything of it changes
            voided = runner.void_half_pairs(store, existing, cfg)
            if voided:
                console.print(f"[yellow]replaying {plural(voided, 'match', 'matches')} of duplicate pairs cut in half by the stop[/]")
            if not runner.pending_in(cfg, store, existing.id):
                runner.finish(cfg, store, existing.id)
                return _finish(cfg, store, existing, console, interrupted=False, resume=resume)
        policy = runner.legs_policy(cfg)
        from harness.arena.sandbox import keep_private
        keep_private(cfg.out, cfg.db.parent)  # issue 11: empty for sandboxed bots
        bots = runner.Bots(cfg.entrants, limits=cfg.limits, per_leg=policy.per_leg, hello_s=cfg.hello_s or 10.0,
                           remote_hello_s=cfg.hello_s, log_dir=cfg.out / cfg.name / "logs",  # issue 14: bots' output
                           listen=listen)
        # The tournament is recorded before its bots start, so a run killed while they start can be
        # resumed (issue 14: --resume of a name that is not there is refused); one whose bots cannot
        # start is removed again, leaving the name free.
        stored = cfg.identity() | {"legs": policy.why, "seed_set": cfg.seed_set}
        scheduled = cfg.max_matches if cfg.schedule == "adaptive" else len(runner.schedule(cfg))  # issue 17: the cap
        t = existing or store.create(cfg.name, stored, scheduled,
                                     [(e.name, e.label) for e in cfg.entrants], game=cfg.game)
        if existing is None:
            lock.callback(running(cfg.db, t).close)
        return await _play(cfg, store, t, existing, console, resume, strict, policy, bots)


async def _play(cfg: TournamentConfig, store: Store, t: Tournament, existing: Tournament | None, console: Console,
                resume: str, strict: bool, policy: runner.LegsPolicy, bots: runner.Bots) -> int:
    from harness.tournament.executor import Executor, InProcess, Workers, workers_for

    # issue 18: worker processes, each with its own arena and bots, unless a remote entrant dials this one
    n_workers = workers_for(cfg.workers, cfg.concurrency, any(e.remote is not None for e in cfg.entrants))
    executor: Executor | None = None
    try:
        try:
            if cfg.cluster is not None:  # issue 15: Ray is imported only here
                from harness.tournament.cluster import Ray

                executor = Ray(cfg.cluster)
            elif n_workers == 1:
                await bots.start(cfg.game)
                executor = InProcess(bots.seat, _play_match(strict), bots.crashes, cfg.concurrency)
            else:
                executor = Workers(n_workers, cfg.concurrency, pin=cfg.pin)
            await executor.start(runner.job_of(cfg, t, strict))
        except runner.StartError:
            if existing is None:
                store.discard_unplayed(t.id)
            raise
        console.print(f"[dim]{policy.why}[/]", highlight=False)
        if isinstance(executor, Workers):
            console.print(f"[dim]{len(executor.labels())} worker processes, each with its own arena and bots: "
                          f"{', '.join(executor.labels())}[/]", highlight=False)
        elif cfg.cluster is not None:
            nodes: list[str] = getattr(executor, "labels", list)()
            cpus: float = getattr(executor, "match_cpus", 1.0)
            console.print(f"[dim]Ray cluster at {cfg.cluster.address}: {plural(executor.capacity // 2, 'match slot')} on "
                          f"{plural(len(nodes), 'node')} ({', '.join(nodes)}), each slot with its own arena and bots "
                          f"and {cpus:g} CPU{'' if cpus == 1 else 's'} reserved[/]",
                          highlight=False)
        remotes = remote_lines(bots)
        for line in remotes:  # issue 14: the remote bots' owners need these to connect
            console.print(line, highlight=False, markup=False, soft_wrap=True)
        view = _View(store, t, len(store.done(t.id)))
        view.remotes = remotes
        if isinstance(executor, Workers) or cfg.cluster is not None:
            view.workers = executor
        stop = asyncio.Event()
        work = asyncio.ensure_future(runner.run(cfg, store, t, stop=stop, on_result=view.add, executor=executor))

        def on_signal() -> None:
            if stop.is_set():
                assert executor is not None
                executor.cancel()
                work.cancel()
            else:
                stop.set()
                for e in bots.entrants.values():  # a match still waiting for a remote bot stops now
                    if e.remote_name is not None:
                        e.give_up("stopped (Ctrl-C)")
                view.note = "stopping after the matches in flight… (Ctrl-C again to abandon them)"
                if not console.is_terminal:
                    console.print("stopping after the matches in flight (Ctrl-C again to abandon them)",
                                  highlight=False)

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
        if cfg.cluster is not None:  # issue 15: where the matches were played
            console.print(f"[dim]{worker_line(executor)}[/]", highlight=False)
    finally:
        if executor is not None:
            await executor.close()
        await bots.close()
    left = len(runner.pending_in(cfg, store, t.id))
    return _finish(cfg, store, store.tournament(t.id), console, interrupted=left > 0, resume=resume,
                   show_table=not console.is_terminal)


def worker_line(workers: Any) -> str:
    """The worker processes in use and the matches each has played (issue 18)."""
    use = workers.usage()
    note = getattr(workers, "note", "")
    one, many = getattr(workers, "kind", ("worker process", "worker processes"))
    return plural(len(use), one, many) + ": " + \
        ", ".join(f"{label} {plural(n, 'match', 'matches')}" for label, n in use.items()) + (f" — {note}" if note else "")


def remote_lines(bots: runner.Bots) -> list[str]:
    """One line per remote entrant: the address and token its bot connects with, and how long each
    match waits for it."""
    address = bots.arena.address if bots.arena is not None else "?"
    host, _, port = address.rpartition(":")
    if host.strip("[]") in ("0.0.0.0", "::", ""):  # listening everywhere: the name other machines dial
        import socket

        address = f"{socket.getfqdn()}:{port}"
    return [f"remote entrant {e.name}: start it with ARENA_ADDRESS={address} ARENA_TOKEN={e.token} "
            f"(each match waits {e.hello_s:g} s for it)" for e in bots.entrants.values() if e.remote_name is not None]


async def _wait(work: asyncio.Future[Any]) -> None:
    try:
        await work
    except asyncio.CancelledError:
        if not work.cancelled():
            raise


def _play_match(strict: bool = False) -> runner.PlayFn:
    """The match function; with ``strict`` a bot's reported error (Reply.error) is a forfeit."""
    from functools import partial

    from harness.arena.match import play_match

    return partial(play_match, strict=True) if strict else play_match


def _finish(cfg: TournamentConfig, store: Store, t: Tournament, console: Console, *, interrupted: bool,
            resume: str, show_table: bool = True) -> int:
    b = publish.board(store, t)
    paths = files.write(b, publish.directory(cfg.out, t))
    if show_table:
        console.print(terminal.render(b))
    else:
        console.print(terminal.crosstable(b))
        if (panel := adaptive_panel.table(b)) is not None:  # issue 17: how it ended
            console.print(panel)
    console.print(f"leaderboards: {', '.join(str(p) for p in paths)}", highlight=False)
    if interrupted:
        left = t.scheduled - b.meta["recorded"]
        more = ("at most " if cfg.schedule == "adaptive" else "") + plural(left, "match", "matches")
        console.print(f"stopped with {more} to play; resume with:\n  {resume}", highlight=False, soft_wrap=True)
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
            t = find(store, args.tournament)
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
    paths = files.write(b, publish.directory(args.out, t))
    console = _console()
    console.print(terminal.render(b))
    console.print(f"leaderboards: {', '.join(str(p) for p in paths)}", highlight=False)
    for line in problems[:20]:
        print(f"arena: {line}", file=sys.stderr)
    if len(problems) > 20:
        print(f"arena: … and {len(problems) - 20} more damaged records (see leaderboard.json)", file=sys.stderr)
    return 1 if problems else 0


def find(store: Store, which: str | int | None) -> Tournament:
    """The tournament ``which`` names: its name (the latest of that name), else its id; the latest
    when None. StoreError names a tournament that is not there."""
    if which is None:
        return store.tournament()
    text = str(which).strip()
    found = store.named(text)
    if found is not None:
        return found
    if text.isdigit():
        try:
            return store.tournament(int(text))
        except StoreError:
            pass
    raise StoreError(f"no tournament named '{config_mod.show(text)}' in '{store.path}' (arena tournaments --db "
                     f"{store.path} lists them)")


def cmd_tournaments(args: argparse.Namespace) -> int:
    """``arena tournaments``: every tournament in the database with its status, matches and dates."""
    try:
        store = Store(args.db, create=False, damaged_ok=True)
        try:
            rows = store.summaries()
        finally:
            store.close()
    except StoreError as e:
        return _fail(e)
    console = _console()
    if not rows:
        console.print(f"no tournaments in '{args.db}'", highlight=False)
        return 0
    live = {t.id for t, _, _ in rows if not t.finished and preflight.holder(run_lock(Path(args.db), t.id)) is not None}
    console.print(tournaments_table(rows, Path(args.db), live))
    return 0


def tournaments_table(rows: list[tuple[Tournament, int, str | None]], db: Path, live: frozenset[int] | set[int] = frozenset()) -> Any:
    """The rich table of :func:`cmd_tournaments` (a pure function of the store's summaries)."""
    from rich import box
    from rich.table import Table

    table = Table(title=f"tournaments in {db}", box=box.SIMPLE, title_justify="left")
    for name, justify in (("id", "right"), ("name", "left"), ("game", "left"), ("status", "left"),
                          ("matches", "right"), ("created", "left"), ("last match", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for t, recorded, last in rows:
        status = "finished" if t.finished else "running" if t.id in live else \
            ("not started" if recorded == 0 else "stopped")
        table.add_row(str(t.id), t.name, t.game, status, f"{recorded}/{t.scheduled}", _when(t.created), _when(last))
    return table


def _when(stamp: str | None) -> str:
    """An ISO time from the store as ``YYYY-MM-DD HH:MM`` (UTC); "–" for none."""
    return "–" if not stamp else stamp[:16].replace("T", " ")


def run_demo(out: str | None = None, concurrency: int | None = None) -> int:
    """``make demo``: a duplicate round robin among the sample bots, then the leaderboards."""
    args = argparse.Namespace(config=str(DEMO_CONFIG), bot=None, name=None, rounds=None, seed=None,
                              move_time=None, time_bank=None, rule=None, limit=None, concurrency=concurrency,
                              db=None, out=out, resume=False, hello_time=None, dry_run=False, demo=True)
    return cmd_tournament(args)
