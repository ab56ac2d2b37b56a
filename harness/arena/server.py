"""The arena's gRPC server: bots connect, say Hello with a token, and hold one stream each.

The server works on raw bytes (no (de)serializers registered) so that a reply that does not
decode is seen by the arena as data, not swallowed by gRPC, and so that each request is
encoded exactly once. A reader loop per stream resolves per-request futures keyed by
request id; :meth:`Session.decide` waits on its future with the time left, measured with
``time.monotonic`` at the arena.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
import tempfile
import time
from collections import deque
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from harness.games.registry import ids
from harness.wire import arena_pb2 as pb
from harness.wire.convert import wrap_request
from .result import Cause, Fault

PROTOCOL_VERSION = 2
ARENA_VERSION = "0.2.0"
SERVICE = "arena.v1.BotArena"
MAX_MESSAGE_BYTES = 64 * 1024  # a bot's largest message; a Reply is a few dozen bytes
TRANSPORT_CAP_FACTOR = 16  # gRPC itself refuses messages over 16 x the limit (at least 1 MiB): it cuts the stream
LINGER_S = 2.0  # after a protocol violation, how long the stream stays open to tell the bot why
EOF_SETTLE_S = 0.2  # after EOF, how long to watch for gRPC cancelling the call (see Session._after_eof)
_TIMED_OUT = object()  # what a decision's future holds when its deadline passed while waiting for the reply


class Session:
    """One connected bot stream. Created by :class:`Arena` after a valid Hello."""

    def __init__(self, hello: Any, context: Any, max_message_bytes: int = 0) -> None:
        self.name: str = hello.name
        self.version: str = hello.version
        self.max_concurrent: int = hello.max_concurrent or 1
        self.games: tuple[str, ...] = tuple(hello.games)  # the games the bot said it plays
        self.session_id = secrets.token_hex(8)
        self.closed = asyncio.Event()
        self.fault: Fault | None = None  # set once the stream is unusable; every later decide returns it
        self._ctx = context
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._expired: set[int] = set()  # requests left unanswered (timeout, cancel): one late reply each is dropped
        self._max_bytes = max_message_bytes  # 0: no check here (gRPC enforces its own limit)
        self._last_id = 0
        self._write_lock = asyncio.Lock()
        self._outbox: deque[bytes] = deque()  # notices posted and not yet written, in order
        self._flusher: asyncio.Task[None] | None = None
        self._kicked = False  # a check for notices to flush is scheduled (see post)
        self._shut = False  # closed by the arena: nothing more is flushed
        self._sending: set[int] = set()  # decisions waiting to write their request, or writing it
        self._cut: set[int] = set()  # of those, the ones whose deadline passed: their task was cancelled
        self._loop: asyncio.AbstractEventLoop | None = None  # the event loop, once known
        self._reader: asyncio.Task[Any] | None = None
        self.process: Any = None  # the BotProcess behind this stream, set by the Entrant that launched it
        self.violated = False  # the bot broke the protocol: the stream lingers so MatchEnd and Goodbye can say why
        self._released = asyncio.Event()  # the arena has said what it had to say after a violation

    @property
    def alive(self) -> bool:
        return self.fault is None and not self.closed.is_set()

    async def _send(self, data: bytes) -> None:
        """One write on the stream; callers hold ``_write_lock`` (gRPC allows one write in flight)."""
        await self._ctx.write(data)

    async def _drain(self) -> None:
        """Write every posted notice, in order; callers hold ``_write_lock``."""
        while self._outbox:
            await self._send(self._outbox.popleft())

    async def _write(self, data: bytes) -> None:
        """Write ``data`` after every notice posted before it."""
        async with self._write_lock:
            await self._drain()
            await self._send(data)
        self._kick()

    def post(self, data: bytes) -> None:
        """Queue an encoded ArenaMessage notice without waiting for it: it is written in order, before
        any message sent after it. A broken stream is noticed at the next decision.

        The notices are written by the next decision when one comes at once (the usual case: the match
        loop posts and then asks), else by a flusher task started on the next turn of the event loop."""
        if self.fault is not None and not self.violated:
            return
        self._outbox.append(data)
        if self._flusher is None and not self._kicked:
            self._kicked = True
            self._get_loop().call_soon(self._kick)

    def _get_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        return loop

    def _kick(self) -> None:
        """Start the flusher when notices wait and nobody is writing (a writer that holds the lock
        calls this again when it lets go)."""
        self._kicked = False
        if self._outbox and self._flusher is None and not self._shut and not self._write_lock.locked():
            self._flusher = self._get_loop().create_task(self._flush())

    async def _flush(self) -> None:
        try:
            async with self._write_lock:
                await self._drain()
        except Exception:  # noqa: BLE001 - the stream is gone; decide() reports it
            self._outbox.clear()
        finally:
            self._flusher = None
            if self._outbox:
                self._kick()  # posted after the last write began

    async def decide(self, request: bytes, timeout_s: float) -> tuple[Any, float]:
        """Send a DecisionRequest (``request``: its serialized bytes with no request id; the id is
        added here) and wait up to ``timeout_s``. Returns (Reply or Fault, seconds taken).

        The deadline is one timer (:meth:`_deadline`, not ``asyncio.timeout``, which costs a few
        microseconds more per decision): while the request waits for its turn to be written, or is
        being written (a bot that stops reading blocks the write), it cancels this task; while the
        reply is awaited, it resolves the reply's future."""
        if self.fault is not None:
            return self.fault, 0.0
        loop = self._loop or self._get_loop()
        self._last_id += 1
        rid = self._last_id
        data = wrap_request(rid, request)
        fut: asyncio.Future[Any] = loop.create_future()
        self._pending[rid] = fut
        task = asyncio.current_task(loop)
        self._sending.add(rid)
        t0 = time.monotonic()
        timer = loop.call_at(loop.time() + timeout_s, self._deadline, rid, task)
        try:
            async with self._write_lock:
                if self._outbox:  # notices go first, and their writing is not charged to the bot
                    await self._drain()
                    t0 = time.monotonic()
                    timer.cancel()
                    timer = loop.call_at(loop.time() + timeout_s, self._deadline, rid, task)
                await self._send(data)
            self._sending.discard(rid)
            if self._outbox:
                self._kick()  # notices posted while this request was written
            result = await fut
            if result is _TIMED_OUT:
                result = Fault(Cause.TIMEOUT, f"no reply within {timeout_s * 1000:.0f} ms")
        except asyncio.CancelledError:
            if rid not in self._cut or task is None or task.uncancel() > 0:
                raise  # not (only) this deadline: a cancellation from outside
            result = Fault(Cause.TIMEOUT, f"no reply within {timeout_s * 1000:.0f} ms")
        except Exception as e:  # noqa: BLE001 - a failed write: the stream broke
            result = self.fault or Fault(Cause.DISCONNECT, f"stream broke while sending: {type(e).__name__}")
        finally:
            timer.cancel()
            if rid in self._sending:  # the write did not finish: notices posted meanwhile still go out
                self._sending.discard(rid)
                self._kick()
            self._cut.discard(rid)
            self._pending.pop(rid, None)
            if fut.cancelled() or not fut.done() or fut.result() is _TIMED_OUT:
                self._expired.add(rid)  # unanswered: its late reply is dropped
        return result, time.monotonic() - t0

    def _deadline(self, rid: int, task: asyncio.Task[Any] | None) -> None:
        """The time of decision ``rid`` is up: cancel its task while its request is not written yet,
        else give its future the timeout (a reply that came first wins)."""
        fut = self._pending.get(rid)
        if fut is None or fut.done():
            return
        if rid in self._sending:
            if task is not None and rid not in self._cut:
                self._cut.add(rid)
                task.cancel()
        else:
            fut.set_result(_TIMED_OUT)

    def _fail(self, fault: Fault) -> None:
        """Mark the stream unusable; every waiting decision gets ``fault``."""
        if self.fault is None:
            self.fault = fault
        for fut in self._pending.values():
            if not fut.done():
                fut.set_result(self.fault)

    async def _read_loop(self) -> None:
        self._reader = asyncio.current_task()
        read, eof = self._ctx.read, grpc.aio.EOF
        try:
            while True:
                try:
                    data = await read()
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # noqa: BLE001
                    self._fail(Fault(Cause.DISCONNECT, f"stream error: {type(e).__name__}"))
                    return
                if data is eof:
                    await self._after_eof()
                    return
                problem = self._take(data)
                if problem is not None:
                    self._fail(problem)
                    # Keep the call open a moment: the match's MatchEnd and a Goodbye tell the bot why.
                    self.violated = True
                    try:
                        await asyncio.wait_for(self._released.wait(), LINGER_S)
                    except TimeoutError:
                        pass
                    return
        finally:
            self._fail(Fault(Cause.DISCONNECT, "stream closed"))
            self.closed.set()

    async def _after_eof(self) -> None:
        """The read side ended. When the bot went away, or sent a message over gRPC's transport cap,
        gRPC reports EOF and then cancels the call at once; a bot that merely half-closed leaves it open."""
        try:
            await asyncio.sleep(EOF_SETTLE_S)
        except asyncio.CancelledError:
            self._fail(Fault(Cause.DISCONNECT, "the stream was cut (the bot went away, or sent a message over "
                                               f"the {transport_cap(self._max_bytes)}-byte transport cap)"))
            raise
        self._fail(Fault(Cause.DISCONNECT, "the bot closed its stream"))

    def _take(self, data: bytes) -> Fault | None:
        """Route one message from the bot; a protocol violation comes back as a Fault.

        Each request gets at most one reply: a reply to an id never sent, or to a request already
        answered, is INVALID; one late reply to a request that expired unanswered is dropped.
        """
        if self._max_bytes and len(data) > self._max_bytes:
            return Fault(Cause.INVALID, f"message of {len(data)} bytes is over the {self._max_bytes}-byte limit")
        try:
            msg = pb.BotMessage.FromString(data)
        except DecodeError:
            return Fault(Cause.INVALID, f"undecodable message ({len(data)} bytes: {data[:16].hex()})")
        kind = msg.WhichOneof("kind")
        if kind != "reply":
            return Fault(Cause.INVALID, f"expected a Reply, got {kind or 'an empty message'}")
        rid = msg.reply.request_id
        fut = self._pending.get(rid)
        if fut is None or fut.done():
            if rid in self._expired:
                self._expired.discard(rid)
                return None  # a late reply to a request that timed out or was cancelled: dropped
            if rid == 0 or rid > self._last_id:
                return Fault(Cause.INVALID, f"wrong request id {rid} (never sent)")
            return Fault(Cause.INVALID, f"unsolicited reply: request {rid} was already answered")
        fut.set_result(msg.reply)
        return None

    async def goodbye(self, reason: str = "done", wait_s: float = 1.0) -> None:
        """Say Goodbye, give the bot ``wait_s`` to close its side, then end the stream."""
        if not self.closed.is_set():
            data = pb.ArenaMessage(goodbye=pb.Goodbye(reason=reason)).SerializeToString()
            try:
                await asyncio.wait_for(self._write(data), wait_s)
            except Exception:  # noqa: BLE001
                pass
        self._released.set()
        self._fail(Fault(Cause.DISCONNECT, "session closed by the arena"))
        try:
            await asyncio.wait_for(self.closed.wait(), wait_s)
        except TimeoutError:
            self.close()

    def close(self) -> None:
        """End the stream at once (cancels the RPC)."""
        self._shut = True
        self._released.set()
        self._fail(Fault(Cause.DISCONNECT, "session closed by the arena"))
        if self._flusher is not None:
            self._flusher.cancel()
        if self._reader is not None and not self._reader.done():
            self._reader.cancel()


def transport_cap(max_message_bytes: int) -> int:
    """gRPC's receive limit: messages between ``max_message_bytes`` and this are read and judged
    INVALID by the arena; bigger ones make gRPC cut the stream (seen as DISCONNECT or CRASH)."""
    return max(TRANSPORT_CAP_FACTOR * max_message_bytes, 1 << 20)


def read_hello(data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> Any:
    """The Hello in a stream's first message, or (gRPC status, one-line reason) when there is none."""
    if len(data) > max_bytes:
        return grpc.StatusCode.INVALID_ARGUMENT, f"first message of {len(data)} bytes is over the {max_bytes}-byte limit"
    try:
        msg = pb.BotMessage.FromString(data)
    except DecodeError:
        return grpc.StatusCode.INVALID_ARGUMENT, f"first message does not decode ({len(data)} bytes)"
    if msg.WhichOneof("kind") != "hello":
        return grpc.StatusCode.INVALID_ARGUMENT, "the first message must be Hello"
    return msg.hello


async def receive_hello(context: Any, read_s: float, max_bytes: int) -> Any:
    """The Hello that opens a new stream, or None when the bot closed it first. A first message that
    is late, too big, undecodable or not a Hello aborts the call (``context.abort`` raises)."""
    try:
        data = await asyncio.wait_for(context.read(), read_s)
    except TimeoutError:
        await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"no Hello within {read_s:g} s")
    if data is grpc.aio.EOF:
        return None
    hello = read_hello(data, max_bytes)
    if isinstance(hello, tuple):
        await context.abort(*hello)
    return hello


def welcome(session: Session) -> bytes:
    """The Welcome that answers an accepted Hello."""
    return pb.ArenaMessage(welcome=pb.Welcome(session_id=session.session_id, protocol_version=PROTOCOL_VERSION,
                                              arena_version=ARENA_VERSION)).SerializeToString()


def check_hello(h: Any) -> str | None:
    """Why a Hello is not acceptable, or None. Whether the bot plays a given game is checked where
    a match of that game is about to be given to it (:func:`plays`)."""
    if h.protocol_version != PROTOCOL_VERSION:
        return (f"protocol_version {h.protocol_version} is not supported: this arena speaks version "
                f"{PROTOCOL_VERSION} (update the bot's SDK or regenerate its code from proto/)")
    if not any(g in ids() for g in h.games):
        return f"the bot lists no game this arena plays (it lists: {', '.join(h.games) or 'none'}; games: {', '.join(ids())})"
    return None


def plays(session: Session, game: str) -> Fault | None:
    """A NO_HELLO fault when the bot behind ``session`` did not list ``game`` in its Hello."""
    if game in session.games:
        return None
    return Fault(Cause.NO_HELLO, f"bot '{session.name}' does not play {game} (its Hello lists: "
                                 f"{', '.join(session.games) or 'no game'})")


async def refuse(context: Any, problem: str) -> None:
    """Tell a bot why its Hello is refused (a Goodbye with the reason), then end the call."""
    try:
        await context.write(pb.ArenaMessage(goodbye=pb.Goodbye(reason=problem)).SerializeToString())
    except Exception:  # noqa: BLE001 - the bot may already be gone; the abort below still ends the call
        pass
    await context.abort(grpc.StatusCode.FAILED_PRECONDITION, problem)


class Waiters:
    """One-time tokens announced before a bot connects, each with the future its Hello resolves."""

    def __init__(self) -> None:
        self._by_token: dict[str, asyncio.Future[Session | Fault]] = {}

    def expect(self, token: str) -> asyncio.Future[Session | Fault]:
        """A future resolved with the Session (or a Fault for a bad Hello) of the bot presenting ``token``."""
        fut: asyncio.Future[Session | Fault] = asyncio.get_running_loop().create_future()
        self._by_token[token] = fut
        return fut

    def forget(self, token: str) -> None:
        fut = self._by_token.pop(token, None)
        if fut is not None and not fut.done():
            fut.cancel()

    def take(self, token: str) -> asyncio.Future[Session | Fault] | None:
        """The waiter for ``token``, removed: a token is used once."""
        return self._by_token.pop(token, None)


class Arena:
    """The grpc.aio server. Tokens are announced with :meth:`expect` before a bot connects."""

    def __init__(self, hello_read_s: float = 30.0, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        """``hello_read_s``: how long a new stream may take to send its first message;
        ``max_message_bytes``: the largest message a bot may send; a bigger one is an INVALID forfeit
        (up to gRPC's transport cap, :func:`transport_cap`, beyond which gRPC cuts the stream)."""
        if max_message_bytes < 1024:
            raise ValueError(f"max_message_bytes must be at least 1024, not {max_message_bytes}")
        self.max_message_bytes = max_message_bytes
        self.address: str | None = None
        self.local_address: str | None = None  # a unix socket for spawned (sandboxed) bots
        self._local_dir: str | None = None
        self._server: Any = None
        self._expected = Waiters()
        self._sessions: set[Session] = set()
        self._hello_read_s = hello_read_s

    async def start(self, listen: str = "127.0.0.1:0", local: bool = True) -> str:
        """Listen on ``host:port`` (port 0 picks one) or ``unix:PATH``; returns the address to dial.
        With ``local`` (and a TCP ``listen``), also on a unix socket in a private temporary
        directory, ``local_address``, which sandboxed bots reach (harness.arena.sandbox)."""
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0),
                                          ("grpc.max_receive_message_length",
                                           transport_cap(self.max_message_bytes))])
        handler = grpc.stream_stream_rpc_method_handler(self._play)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, {"Play": handler}),))
        port = server.add_insecure_port(listen)
        if listen.startswith("unix:"):
            self.address = self.local_address = listen
        else:
            host = listen.rsplit(":", 1)[0]
            self.address = f"{host}:{port}"
            if local:
                self._local_dir = tempfile.mkdtemp(prefix="arena-")
                self.local_address = f"unix:{self._local_dir}/arena.sock"
                server.add_insecure_port(self.local_address)
        await server.start()
        self._server = server
        return self.address


    def expect(self, token: str) -> asyncio.Future[Session | Fault]:
        """A future resolved with the Session (or a Fault for a bad Hello) of the bot presenting ``token``."""
        return self._expected.expect(token)

    def forget(self, token: str) -> None:
        self._expected.forget(token)

    async def stop(self, grace: float = 0.5) -> None:
        for s in list(self._sessions):
            s.close()
        if self._server is not None:
            await self._server.stop(grace)
            self._server = None
        if self._local_dir is not None:
            shutil.rmtree(self._local_dir, ignore_errors=True)
            self._local_dir = None

    async def _play(self, request_iterator: Any, context: Any) -> None:
        hello = await receive_hello(context, self._hello_read_s, self.max_message_bytes)
        if hello is None:
            return
        waiter = self._expected.take(hello.token)
        if waiter is None or waiter.done():
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or already used token")
        assert waiter is not None  # abort() raised otherwise
        problem = check_hello(hello)
        if problem is not None:
            waiter.set_result(Fault(Cause.NO_HELLO, f"bad Hello: {problem}"))
            await refuse(context, problem)
        session = Session(hello, context, self.max_message_bytes)
        await context.write(welcome(session))
        self._sessions.add(session)
        waiter.set_result(session)
        try:
            await session._read_loop()
        finally:
            self._sessions.discard(session)
