"""The league server: one gRPC server with the bot stream, LeagueService, health and reflection,
and the round loop that pairs the connected entrants and records every match.

Each round pairs the entrants that are connected (and the operator's, which the league runs
itself) with :func:`harness.league.pairing.pair_round`; each pairing plays two matches on one
seed with the seats swapped. After a round the leaderboard files are rewritten and pushed to
every WatchLeaderboard stream. On SIGTERM no new match starts; matches in flight get
``stop_grace`` seconds to finish, then are cancelled and recorded as INTERRUPTED.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncio
import secrets
import random
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from harness.arena.entrant import Entrant
from harness.arena.match import play_match
from harness.arena.result import Cause, Clock, MatchResult
from harness.arena.sandbox import keep_private
from harness.arena.server import SERVICE as BOT_SERVICE
from harness.games import registry
from harness.leaderboard import Board, plural
from harness.rating import Model
from harness.wire import league_pb2 as lpb
from harness.wire import league_pb2_grpc as lpb_grpc

from .board import league_board, to_pb
from .gate import Gate, Seat
from .keys import Hasher, RateLimit
from harness.tournament.schedule import LEGS, rotations

from .pairing import Pairing, Standing, pair_round
from .publisher import Job, Publisher
from .service import LeagueService
from .store import EntrantRow, Store, StoreError

LEAGUE_SERVICE = "arena.v1.LeagueService"
BENCH_AFTER = 3  # failed starts after which an operator entrant is no longer scheduled


@dataclass(frozen=True)
class LeagueConfig:
    """Everything ``arena league serve`` can set."""

    listen: str = "127.0.0.1:50066"
    db: str = "results/league.db"
    out: str = "results/league"
    round_every: float = 30.0
    tls_cert: str | None = None
    tls_key: str | None = None
    reconnect_grace: float = 30.0
    pair_cap_per_day: int = 24
    max_message_bytes: int = 64 * 1024
    move_ms: int = 1000
    bank_ms: int = 10000
    hello_s: float = 10.0
    stop_grace: float = 10.0
    provisional_below: int = 10
    register_per_minute: float = 10.0
    register_burst: int = 10
    connect_per_minute: float = 60.0
    connect_burst: int = 30
    title: str = "Sixty-Six league"
    game: str | None = None  # set when the database is created; None: the database's (a new one: sixtysix)
    rules: tuple[str, ...] = ()  # name=value options, fixed at creation like the game


class League:
    """State of a running league; create it inside the event loop, then :meth:`run`."""

    def __init__(self, cfg: LeagueConfig, log: Any = None) -> None:
        self.cfg = cfg
        self._log = log or (lambda line: print(f"league: {line}", flush=True))
        self.store = Store(cfg.db, cfg.game, _rules_map(cfg.game, cfg.rules))
        info = self.store.league
        self.game = registry.get(info.game)
        self.rules = self.game.rules(info.rules)
        self.teams = self.game.teams(self.rules)
        recovered = self.store.recover()
        if recovered:
            self.log(f"{plural(recovered, 'match', 'matches')} left unfinished by the last run recorded as interrupted")
        self.hasher = Hasher.for_db(cfg.db)
        keep_private(Path(cfg.db).parent, cfg.out)  # the database, its keys, the records: empty for sandboxed bots
        self.gate = Gate(self.store, self.hasher, RateLimit(cfg.connect_per_minute, cfg.connect_burst),
                         cfg.reconnect_grace, cfg.max_message_bytes, hello_read_s=cfg.hello_s)
        self.register_limit = RateLimit(cfg.register_per_minute, cfg.register_burst)
        self.clock = Clock(move_ms=cfg.move_ms, bank_ms=cfg.bank_ms, hello_s=cfg.hello_s)
        self.model = Model()
        self.operators: dict[int, Entrant] = {}
        self.watchers: set[asyncio.Queue[bool | None]] = set()
        self.stopping = asyncio.Event()
        self.address: str | None = None
        self.rng = random.Random()
        self._board: Board | None = None
        self._board_gen = 0  # counts changed(): a board computed before the last change is not kept
        self._publisher: Publisher | None = None
        self._publishing: asyncio.Future[None] | None = None  # a round's board being computed by the worker
        self._server: Any = None
        self._health: Any = None
        self._sockdir: str | None = None
        self._interrupted = 0
        self._benched: set[int] = set()

    def log(self, line: str) -> None:
        self._log(line)

    # -- server ---------------------------------------------------------------------------

    async def start(self) -> str:
        """Start the gRPC server; returns the address bots and clients dial."""
        cfg = self.cfg
        server = grpc.aio.server(options=[
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", cfg.max_message_bytes),
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ])
        play = grpc.stream_stream_rpc_method_handler(self.gate.play)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(BOT_SERVICE, {"Play": play}),))
        lpb_grpc.add_LeagueServiceServicer_to_server(LeagueService(self), server)
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        names = (BOT_SERVICE, LEAGUE_SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                 reflection.SERVICE_NAME)
        reflection.enable_server_reflection(names, server)
        if cfg.tls_cert or cfg.tls_key:
            if not (cfg.tls_cert and cfg.tls_key):
                raise ValueError("give both --tls-cert and --tls-key")
            creds = grpc.ssl_server_credentials([(Path(cfg.tls_key).read_bytes(), Path(cfg.tls_cert).read_bytes())])
            port = server.add_secure_port(cfg.listen, creds)
        else:
            port = server.add_insecure_port(cfg.listen)
        try:  # the leaderboard after each round is computed and written by a worker process (issue 18)
            self._publisher = Publisher()
        except Exception as e:  # noqa: BLE001 - no worker (no fork, no memory...): the loop publishes as before
            self.log(f"no leaderboard worker ({e}); rounds publish in this process")
        self._sockdir = tempfile.mkdtemp(prefix="league-")
        self.gate.address = f"unix:{self._sockdir}/bots.sock"  # operator bots: local, no TLS needed
        server.add_insecure_port(self.gate.address)
        await server.start()
        self._server = server
        for name in ("", BOT_SERVICE, LEAGUE_SERVICE):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self.address = f"{cfg.listen.rsplit(':', 1)[0]}:{port}"
        self.publish()
        return self.address

    async def run(self) -> None:
        """Rounds every ``round_every`` seconds until :meth:`stop`; then the graceful shutdown."""
        loop = asyncio.get_running_loop()
        stop_wait = asyncio.ensure_future(self.stopping.wait())
        round_task: asyncio.Task[Any] | None = None
        try:
            while not self.stopping.is_set():
                t0 = loop.time()
                round_task = asyncio.ensure_future(self.play_round())
                await asyncio.wait({round_task, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
                if self.stopping.is_set():
                    break
                round_task.result()
                left = t0 + self.cfg.round_every - loop.time()
                if left > 0:
                    await asyncio.wait({stop_wait}, timeout=left)
            if round_task is not None and not round_task.done():
                self.log(f"stopping: matches in flight get {self.cfg.stop_grace:g} s to finish")
                await asyncio.wait({round_task}, timeout=self.cfg.stop_grace)
                if not round_task.done():
                    round_task.cancel()
                try:
                    await round_task
                except asyncio.CancelledError:
                    pass
        finally:
            stop_wait.cancel()
            await self.shutdown()

    def stop(self) -> None:
        self.stopping.set()

    async def shutdown(self) -> None:
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        for q in list(self.watchers):
            _offer(q, None)
        await self.gate.close_all()
        await asyncio.gather(*(e.stop() for e in self.operators.values()))
        if self._server is not None:
            await self._server.stop(1.0)
            self._server = None
        if self._sockdir is not None:
            shutil.rmtree(self._sockdir, ignore_errors=True)
        if self._publisher is not None:
            await asyncio.to_thread(self._publisher.close)
            self._publisher = None
        self._interrupted += self.store.recover()  # a match cut off before it could record itself
        self.log(f"stopped; {len(self.store.matches())} matches on record"
                 + (f", {self._interrupted} interrupted by this stop" if self._interrupted else ""))
        self.store.close()

    # -- the leaderboard ------------------------------------------------------------------

    def changed(self) -> None:
        self._board = None
        self._board_gen += 1

    def _job(self) -> Job:
        return Job(self.cfg.db, self.cfg.out, self.cfg.title, self.cfg.provisional_below, self.model,
                   {"time": {"move": self.clock.move_ms / 1000, "bank": self.clock.bank_ms / 1000},
                    "refresh_s": max(5, round(self.cfg.round_every))})

    def board(self) -> Board:
        if self._board is None:
            job = self._job()
            self._board = league_board(self.store, title=job.title, provisional_below=job.provisional_below,
                                       model=job.model, extra_meta=job.extra_meta)
        return self._board

    def connected(self) -> set[str]:
        names = {s.name for s in self.gate.seats.values() if s.connected and not s.retired}
        return names | {e.label for e in self.store.entrants(include_retired=False) if e.operator}

    def leaderboard(self, include_retired: bool = False) -> lpb.Leaderboard:
        return to_pb(self.board(), self.store.entrants(), self.connected(), include_retired)

    async def settled(self) -> None:
        """Return once no round's board is being published: a reader sees a round's matches on the
        leaderboard as soon as it could before the worker (publishing used to block the loop)."""
        while self._publishing is not None:
            await asyncio.shield(self._publishing)

    def publish(self) -> None:
        """Rewrite leaderboard.{md,json,html} and wake every watcher."""
        from harness.leaderboard.files import write

        self.changed()
        write(self.board(), self.cfg.out)
        for q in list(self.watchers):
            _offer(q, True)

    async def publish_round(self) -> None:
        """:meth:`publish` in the leaderboard worker: the event loop keeps serving meanwhile, and
        clients read the previous board until the new one is written. In this process when there is
        no worker, or it failed."""
        pub = self._publisher
        if pub is not None and not pub.alive:
            self.log("the leaderboard worker failed (it exited); publishing in this process from now on")
            self._publisher = None
            await asyncio.to_thread(pub.close, 1.0)
            pub = None
        if pub is None:
            self.publish()
            return
        gen = self._board_gen
        done = self._publishing = asyncio.get_running_loop().create_future()
        try:
            try:
                board = await pub.publish(self._job())
            except Exception as e:  # noqa: BLE001 - the worker is gone or failed: publish here from now on
                self.log(f"the leaderboard worker failed ({e}); publishing in this process from now on")
                self._publisher = None
                await asyncio.to_thread(pub.close, 1.0)
                self.publish()
                return
            self._board = board if gen == self._board_gen else None
            for q in list(self.watchers):
                _offer(q, True)
        finally:
            self._publishing = None
            done.set_result(None)

    # -- rounds ---------------------------------------------------------------------------

    def field(self) -> dict[str, tuple[EntrantRow, Entrant | Seat]]:
        """The entrants that can play now, by leaderboard name."""
        out: dict[str, tuple[EntrantRow, Entrant | Seat]] = {}
        active = self.store.entrants(include_retired=False)
        live_ops = {e.id for e in active if e.operator}
        for eid in [i for i in self.operators if i not in live_ops]:
            asyncio.ensure_future(self.operators.pop(eid).stop())
        for e in active:
            if e.operator:
                op = self.operators.get(e.id)
                if op is None:
                    op = Entrant(e.label, command=e.command, arena=self.gate,  # type: ignore[arg-type]
                                 hello_s=self.cfg.hello_s, cwd=e.cwd)
                    self.operators[e.id] = op
                if op.failed_starts >= BENCH_AFTER and op.session is None:
                    if e.id not in self._benched:
                        self._benched.add(e.id)
                        self.log(f"{e.label} failed to start {BENCH_AFTER} times; benched until it is added again")
                    continue
                out[e.label] = (e, op)
            else:
                seat = self.gate.seats.get(e.id)
                if seat is not None and seat.connected and not seat.retired:
                    out[e.label] = (e, seat)
        return out

    async def play_round(self) -> int:
        """Pair the field and play every pairing twice; returns the number of matches recorded."""
        field = self.field()
        if len(field) < len(set(self.teams)):
            return 0
        rows = {r.name: r for r in self.board().standings.rows}
        standing = [Standing(n, rows[n].played, rows[n].mu, rows[n].sigma) for n in field if n in rows]
        met = self.store.met_today({e.id: e.label for e, _ in field.values()})
        size = len(set(self.teams))  # entrants per table: one per seat, or per team (partners "self")
        pairs = pair_round(standing, met, self.cfg.pair_cap_per_day, self.model.beta, legs=size, size=size)
        if not pairs:
            return 0
        round_id = self.store.begin_round(len(pairs))
        try:
            got = await asyncio.gather(*(self._pair(round_id, k, p, field) for k, p in enumerate(pairs, 1)))
        except BaseException:  # cancelled by a stop: record and publish what ended, here and now
            self.store.end_round(round_id)
            self.publish()
            raise
        self.store.end_round(round_id)
        await self.publish_round()
        n = sum(len(g) for g in got)
        self.log(f"round {round_id}: {plural(len(pairs), 'pairing')}, {plural(n, 'match', 'matches')} recorded")
        return n

    async def _pair(self, round_id: int, k: int, p: Pairing,
                    field: dict[str, tuple[EntrantRow, Entrant | Seat]]) -> list[MatchResult]:
        results = []
        # Every seat rotation of the table (both seatings of a pair); in a partnership game each
        # entrant plays every seat of its team (partners "self"). Each leg has deals of its own: a
        # league's bots connect from anywhere and cannot be kept from remembering a deal (issue 11).
        for leg, rotation in enumerate(rotations(p.players)):
            if self.stopping.is_set():
                break  # no new match once stopping
            seed = secrets.randbits(63)
            seated = [field[rotation[t]] for t in self.teams]
            match_id = f"r{round_id}-{k}{LEGS[leg]}"
            self.store.start_match(match_id, round_id, f"r{round_id}-{k}", leg, seed, tuple(x[0].id for x in seated),
                                   self.teams)
            ends: list[MatchResult] = []
            try:
                r = await play_match([x[1] for x in seated], match_id=match_id, seed=seed, game=self.game.id, rules=self.rules,
                                     clock=self.clock, record_dir=Path(self.cfg.out) / "records",
                                     on_event=lambda ev: ends.append(ev["result"]) if ev["type"] == "end" else None)
            except asyncio.CancelledError:
                if ends:
                    self.store.finish_match(ends[0])
                    self._interrupted += ends[0].cause is Cause.INTERRUPTED
                raise
            self.store.finish_match(r)
            if self._publisher is not None:
                self._publisher.page(r.record)  # drawn by the worker while the round goes on
            results.append(r)
            if r.cause is not Cause.NORMAL:
                who = r.players[r.offender] if r.offender is not None else "nobody"
                self.log(f"{match_id}: {r.cause} by {who}: {r.detail}")
        return results


def _rules_map(game: str | None, assignments: Sequence[str]) -> dict[str, str] | None:
    """Every option of ``game`` (sixtysix when None) with ``name=value`` assignments applied, or None
    when there are none (the database keeps what it has); ValueError names a bad one."""
    if not assignments:
        return None
    g = registry.get(game or "sixtysix")
    values = {}
    for item in assignments:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"rule option {item!r} is not written name=value")
        values[name.strip()] = value.strip()
    return g.rules_map(g.rules(values))


def _offer(q: asyncio.Queue[bool | None], item: bool | None) -> None:
    """Put ``item`` on a one-slot queue, replacing what is there (watchers only need the latest)."""
    try:
        q.get_nowait()
    except asyncio.QueueEmpty:
        pass
    q.put_nowait(item)


async def serve(cfg: LeagueConfig) -> int:
    """:func:`_serve`, as the only server of its database and once its port is known to be free:
    otherwise one line and exit status 2 (issue 14)."""
    from harness import preflight

    try:
        held = preflight.hold(cfg.db)
    except preflight.PreflightError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    try:
        preflight.check_listen(cfg.listen)
        return await _serve(cfg)
    except preflight.PreflightError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    finally:
        held.close()


async def _serve(cfg: LeagueConfig) -> int:
    """Run a league until SIGTERM/SIGINT. Exit status 0 after a graceful stop; 2 when the database,
    game or rules cannot be used (one line)."""
    try:
        league = League(cfg)
    except (StoreError, ValueError) as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    try:
        address = await league.start()
    except (OSError, RuntimeError, ValueError) as e:
        print(f"arena: cannot start the league on {cfg.listen}: {e}", file=sys.stderr)
        league.store.close()
        return 1
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, league.stop)
    league.log(f"listening on {address} ({'TLS' if cfg.tls_cert else 'plaintext'}); db {cfg.db}; "
               f"leaderboard in {cfg.out}")
    await league.run()
    return 0
