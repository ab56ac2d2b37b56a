"""The bot side of the wire: connect out to the arena, say Hello, answer requests until told to stop.

A bot is any object with ``act(observation) -> action``::

    from harness.sdk import run

    class Mine:
        def act(self, obs):
            if "claim" in obs.legal and obs.points[obs.seat] >= 66:
                return "claim"
            return next(a for a in obs.legal if a not in ("claim", "close"))

    raise SystemExit(run(Mine(), name="mine"))

A bot plays the games it lists in ``games`` (default ``("sixtysix",)``; e.g. ``games = ("sixtysix",
"schnapsen")``), which Hello announces; each request is decoded by its game's codec into an
:class:`Observation` (the Sixty-Six one for both games, with ``pack`` saying which cards are dealt).
The address and token come from ``--arena``/``--token`` or ``ARENA_ADDRESS``/``ARENA_TOKEN``; an arena
that uses TLS (a league) is trusted through ``--tls-ca FILE`` or ``ARENA_TLS_CA`` (a PEM CA or certificate).
The stream is read and written on an event loop (grpc.aio; uvloop where installed). With
``max_concurrent`` 1 (``--max-concurrent``, announced in Hello) ``act`` runs on that loop, one request
after another: the fastest path, for a bot whose ``act`` is quick; with more, on a pool of that many
threads. Each reply echoes its request id. ``run`` returns 0 after Goodbye, SIGTERM/SIGINT or a dropped connection,
and 1 (with one line on stderr) when it cannot connect or the arena refuses it. When ``act()`` raises,
the traceback goes to stderr, the answer is :func:`fallback` (a legal action, never a claim unless it is
the only one) and the Reply's ``error`` tells the arena, which counts it (a forfeit with ``--strict``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import grpc

from harness import eventloop
from harness.games.sixtysix.observe import Observation as GameObservation
from harness.wire import arena_pb2 as pb
from harness.wire import arena_pb2_grpc as pb_grpc
from harness.wire.codecs import Codec, codec
from harness.wire.convert import GAME, WireError, hello, reply

from .helpers import Determinizer, opponent_hand_size, points_in_play, unseen


@dataclass(frozen=True, slots=True, eq=False)
class Observation(GameObservation):
    """What the seat sees (see :class:`harness.games.sixtysix.observe.Observation`), plus the clock
    of this decision and the helpers search bots need."""

    move_ms: int = 0  # the limit for this decision
    bank_ms: int = 0  # the time bank left in the match
    received: float = 0.0  # time.monotonic() when the request arrived
    match_id: str = ""

    def deadline(self, fraction: float = 0.5) -> float:
        """The monotonic time by which ``fraction`` of the move limit is used up."""
        return self.received + fraction * self.move_ms / 1000.0

    def unseen(self) -> tuple[str, ...]:
        return unseen(self)

    def points_in_play(self) -> int:
        return points_in_play(self)

    def opponent_hand_size(self) -> int:
        return opponent_hand_size(self)

    def determinize(self, rng: Any) -> Any:
        """A full engine State consistent with this observation (hidden cards sampled with ``rng``)."""
        return Determinizer(self).sample(rng)


class Bot(Protocol):
    """What a bot implements. Optional: ``games`` (the game ids it plays, default ``("sixtysix",)``) and
    ``on_notice(message)``, which receives MatchStart/DealStart/DealEnd/MatchEnd."""

    def act(self, observation: Observation) -> str: ...


def bot_games(bot: Any) -> tuple[str, ...]:
    """The games ``bot`` declares; ValueError names one that has no wire codec.

    >>> bot_games(object()), bot_games(type("B", (), {"games": ("schnapsen", "sixtysix")})())
    (('sixtysix',), ('schnapsen', 'sixtysix'))
    """
    games = getattr(bot, "games", (GAME,))
    games = (games,) if isinstance(games, str) else tuple(games)
    if not games:
        raise ValueError("the bot lists no game")
    for g in games:
        codec(g)
    return games


def parse_args(argv: Sequence[str] | None, name: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=f"{name}: a Sixty-Six Arena bot")
    p.add_argument("--arena", default=os.environ.get("ARENA_ADDRESS"), help="host:port or unix:PATH (ARENA_ADDRESS)")
    p.add_argument("--token", default=os.environ.get("ARENA_TOKEN", ""), help="the token (ARENA_TOKEN)")
    p.add_argument("--name", default=name)
    p.add_argument("--max-concurrent", type=int, default=None, help="decisions worked on at once")
    p.add_argument("--connect-timeout", type=float, default=10.0)
    p.add_argument("--tls-ca", default=os.environ.get("ARENA_TLS_CA") or None, metavar="FILE",
                   help="connect with TLS, trusting this PEM CA or certificate (ARENA_TLS_CA)")
    return p.parse_args(argv)


def run(bot: Bot, argv: Sequence[str] | None = None, *, name: str | None = None, version: str = "0.1.0",
        max_concurrent: int = 4) -> int:
    """Connect to the arena and serve ``bot`` until Goodbye, SIGTERM/SIGINT or a dropped connection."""
    name = name or type(bot).__name__
    try:
        games = bot_games(bot)
    except ValueError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    args = parse_args(sys.argv[1:] if argv is None else argv, name)
    if not args.arena:
        print(f"{name}: no arena address (give --arena ADDRESS or set ARENA_ADDRESS)", file=sys.stderr)
        return 2
    workers = max(1, args.max_concurrent or max_concurrent)
    tls_ca = None
    if args.tls_ca:
        try:
            tls_ca = open(args.tls_ca, "rb").read()
        except OSError as e:
            print(f"{name}: cannot read --tls-ca {args.tls_ca}: {e.strerror}", file=sys.stderr)
            return 2
    conn = Connection(bot, args.arena, args.token, args.name, version, workers, tls_ca=tls_ca, games=games)
    return conn.serve(args.connect_timeout)


class Connection:
    """One stream to the arena, on an event loop (grpc.aio, uvloop where installed: harness.eventloop).

    The loop reads and writes the stream. With ``workers`` 1, ``act`` runs on the loop itself, one
    request after another: no hand-off between threads per decision, the fastest way for a bot whose
    ``act`` is quick. With more, ``act`` runs on a pool of that many threads and replies come back to
    the loop (issue 18: ``benchmarks/bench_sdk.py``)."""

    def __init__(self, bot: Bot, address: str, token: str, name: str, version: str, workers: int,
                 tls_ca: bytes | None = None, games: Sequence[str] = (GAME,)) -> None:
        self.bot, self.address, self.token, self.name, self.version = bot, address, token, name, version
        self.workers = workers
        self.tls_ca = tls_ca  # PEM root certificates: connect with TLS
        self.games = tuple(games)
        self.outbox: Outbox | None = None  # where pool threads put replies (_post), once serving
        self.matches: dict[str, tuple[Codec, Any]] = {}  # match id -> its game's codec and rules
        self.stopping = threading.Event()
        self.call: Any = None

    def _say(self, line: str) -> None:
        print(f"{self.name}: {line}", file=sys.stderr, flush=True)

    def serve(self, connect_timeout: float) -> int:
        return eventloop.run(self._serve(connect_timeout))

    async def _serve(self, connect_timeout: float) -> int:
        loop = asyncio.get_running_loop()
        replies: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
        self.outbox = Outbox(loop, replies)
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="act") if self.workers > 1 else None
        task = asyncio.current_task()
        old = _install_signals(loop, lambda: self._on_signal(task))
        if self.tls_ca is not None:
            channel = grpc.aio.secure_channel(self.address, grpc.ssl_channel_credentials(root_certificates=self.tls_ca))
        else:
            channel = grpc.aio.insecure_channel(self.address)
        writing: asyncio.Task[None] | None = None
        try:
            try:
                await asyncio.wait_for(channel.channel_ready(), connect_timeout)
            except TimeoutError:
                self._say(f"cannot connect to {self.address} within {connect_timeout:g} s")
                return 1
            self.call = pb_grpc.BotArenaStub(channel).Play()
            greeting = hello(self.name, self.version, self.token, self.workers, self.games)
            if pool is None:  # every write comes from the reader: one write in flight at a time
                try:
                    await self.call.write(greeting)
                except (grpc.RpcError, grpc.aio.UsageError, RuntimeError):
                    pass  # the stream ended at once: the first read says how, as _read reports it
            else:  # replies come from the pool's threads through the outbox to one writer
                writing = asyncio.ensure_future(self._write(self.call, replies))
                replies.put_nowait(greeting)
            return await self._read(self.call, pool)
        except asyncio.CancelledError:
            if self.stopping.is_set():  # SIGTERM or SIGINT
                return 0
            raise
        finally:
            self.stopping.set()
            if writing is not None:
                writing.cancel()
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
            if self.call is not None:
                self.call.cancel()
            await channel.close()
            _restore_signals(loop, old)

    @staticmethod
    async def _write(call: Any, replies: asyncio.Queue[pb.BotMessage | None]) -> None:
        """Write the Hello and then every reply, in order; a broken stream is the reader's to report."""
        try:
            while (msg := await replies.get()) is not None:
                await call.write(msg)
        except (grpc.RpcError, grpc.aio.UsageError, RuntimeError):  # the stream ended
            return

    async def _read(self, call: Any, pool: ThreadPoolExecutor | None) -> int:
        try:
            while True:
                msg = await call.read()
                if msg is grpc.aio.EOF:
                    break
                kind = msg.WhichOneof("kind")
                if kind == "request":
                    if pool is None:  # act() on the loop, and the reply written from here: no hand-off at all
                        answer = self._answer(msg.request, time.monotonic())
                        if answer is not None:
                            try:
                                await call.write(answer)
                            except (grpc.aio.UsageError, RuntimeError):
                                continue  # the stream ended: the next read says how
                    else:
                        pool.submit(self._post, msg.request, time.monotonic())
                elif kind == "goodbye":
                    self._say(f"goodbye from the arena: {msg.goodbye.reason or 'no reason'}")
                    return 0
                elif kind == "welcome":
                    continue
                else:
                    self._notice(kind, getattr(msg, kind))
        except grpc.RpcError as e:
            code = e.code()
            if self.stopping.is_set() or code == grpc.StatusCode.CANCELLED:
                return 0
            if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION,
                        grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.ALREADY_EXISTS,
                        grpc.StatusCode.RESOURCE_EXHAUSTED):
                self._say(f"the arena refused this bot: {code.name}: {e.details()}")
                return 1
            self._say(f"connection dropped: {code.name}: {e.details()}")
            return 0
        self._say("the arena closed the stream")
        return 0

    def _notice(self, kind: str, msg: Any) -> None:
        if kind == "match_start":
            self._match_start(msg)
        elif kind == "match_end":
            self.matches.pop(msg.match_id, None)
        hook = getattr(self.bot, "on_notice", None)
        if hook is not None:
            try:
                hook(msg)
            except Exception:  # noqa: BLE001 - a bot bug must not end the connection
                self._say("on_notice raised:\n" + traceback.format_exc())

    def _match_start(self, msg: pb.MatchStart) -> None:
        """Keep the match's game and rules for decoding its requests."""
        if msg.game not in self.games:
            self._say(f"match {msg.match_id}: the arena sent a game this bot does not list ({msg.game!r})")
        try:
            c = codec(msg.game)
        except ValueError as e:
            self._say(f"match {msg.match_id}: {e}")
            return
        try:
            rules = c.rules(msg.rules)
        except WireError as e:
            self._say(f"match {msg.match_id}: rules not understood ({e}); assuming the defaults")
            rules = c.rules({})
        self.matches[msg.match_id] = (c, rules)

    def _match(self, req: pb.DecisionRequest) -> tuple[Codec, Any]:
        """The codec and rules of the request's match: from its MatchStart, else the game its
        observation case names, with that game's default rules."""
        known = self.matches.get(req.match_id)
        if known is not None:
            return known
        try:
            c = codec(req.WhichOneof("observation") or "")
        except ValueError:
            raise WireError(f"no MatchStart for match {req.match_id!r} and no known observation") from None
        return c, c.rules({})

    def _post(self, req: pb.DecisionRequest, received: float) -> None:
        """Answer ``req`` on a pool thread and hand the reply to the loop's writer."""
        msg = self._answer(req, received)
        if msg is not None and self.outbox is not None:
            self.outbox.put(msg)

    def _answer(self, req: pb.DecisionRequest, received: float) -> pb.BotMessage | None:
        """The Reply to ``req`` (None when it does not decode, or the bot is stopping)."""
        if self.stopping.is_set():
            return None
        try:
            c, rules = self._match(req)
            obs = c.decode_request(req, rules, Observation, move_ms=req.clock.move_ms, bank_ms=req.clock.bank_ms,
                                   received=received, match_id=req.match_id)
        except WireError as e:
            self._say(f"request {req.request_id} does not decode: {e}")
            return None
        error = ""
        try:
            action = self.bot.act(obs)
        except Exception as e:  # noqa: BLE001 - report the bug, keep playing with a legal move
            action = fallback(obs.legal)
            error = one_line(f"act() raised {type(e).__name__}: {e}")
            self._say(f"act() raised on request {req.request_id}; answering {action!r}:\n" + traceback.format_exc())
        try:
            msg = reply(req.request_id, action)
        except (WireError, TypeError):
            self._say(f"act() returned {action!r}, which is not an action")
            msg = pb.BotMessage(reply=pb.Reply(request_id=req.request_id, action=pb.Action(text=str(action))))
        if error:
            msg.reply.error = error  # the arena counts it (Reply.error in proto/arena/v1/arena.proto)
        return None if self.stopping.is_set() else msg

    def _on_signal(self, task: asyncio.Task[Any] | None) -> None:
        """SIGTERM or SIGINT (on the loop): stop reading and writing, and end :meth:`_serve` with 0."""
        self.stopping.set()
        if self.outbox is not None:
            self.outbox.put(None)
        if self.call is not None:
            self.call.cancel()
        if task is not None:
            task.cancel()


class Outbox:
    """The replies on their way to the loop's writer: put on the loop itself, or from a pool thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[pb.BotMessage | None]) -> None:
        self._loop, self._queue = loop, queue
        self._thread = threading.get_ident()

    def put(self, msg: pb.BotMessage | None) -> None:
        if threading.get_ident() == self._thread:
            self._queue.put_nowait(msg)
            return
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, msg)
        except RuntimeError:  # the loop has closed: the stream is over
            pass


RISKY = ("claim", "close")  # a claim without 66 loses the deal; closing the talon raises the stakes


def fallback(legal: Sequence[str]) -> str:
    """The SDK's answer when ``act()`` fails: the first legal action that is neither a claim nor a
    close, else the first that is not a claim; a claim only when it is the one legal action.

    >>> fallback(["claim", "draw", "close"]), fallback(["QH", "KH", "claim"]), fallback(["claim", "finish"])
    ('draw', 'QH', 'finish')
    >>> fallback(["close", "claim"]), fallback(["claim"])
    ('close', 'claim')
    """
    return next((a for a in legal if a not in RISKY), next((a for a in legal if a != "claim"), legal[0]))


def one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line of at most ``limit`` characters (what Reply.error carries).

    >>> one_line("ValueError: bad\\nnews")
    'ValueError: bad news'
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _install_signals(loop: asyncio.AbstractEventLoop, handler: Callable[[], None]) -> dict[int, Any]:
    """Call ``handler`` on the loop for SIGTERM and SIGINT (main thread only); returns the previous handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    old: dict[int, Any] = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    for sig in old:
        loop.add_signal_handler(sig, handler)
    return old


def _restore_signals(loop: asyncio.AbstractEventLoop, old: dict[int, Any]) -> None:
    for sig, h in old.items():
        loop.remove_signal_handler(sig)
        signal.signal(sig, h)
