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
import time
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from harness.wire import arena_pb2 as pb
from .result import Cause, Fault

PROTOCOL_VERSION = 1
ARENA_VERSION = "0.1.0"
GAME = "sixtysix"
SERVICE = "arena.v1.BotArena"


class Session:
    """One connected bot stream. Created by :class:`Arena` after a valid Hello."""

    def __init__(self, hello: Any, context: Any) -> None:
        self.name: str = hello.name
        self.version: str = hello.version
        self.max_concurrent: int = hello.max_concurrent or 1
        self.session_id = secrets.token_hex(8)
        self.closed = asyncio.Event()
        self.fault: Fault | None = None  # set once the stream is unusable; every later decide returns it
        self._ctx = context
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._last_id = 0
        self._write_lock = asyncio.Lock()
        self._reader: asyncio.Task[Any] | None = None

    @property
    def alive(self) -> bool:
        return self.fault is None and not self.closed.is_set()

    async def _write(self, data: bytes) -> None:
        async with self._write_lock:
            await self._ctx.write(data)

    async def notify(self, data: bytes) -> None:
        """Send an encoded ArenaMessage notice; a broken stream is noticed at the next decision."""
        if self.fault is not None:
            return
        try:
            await self._write(data)
        except Exception:  # noqa: BLE001 - the stream is gone; decide() reports it
            pass

    async def decide(self, message: Any, timeout_s: float) -> tuple[Any, float]:
        """Send ``message`` (an ArenaMessage with ``request`` set; its request id is filled in here)
        and wait up to ``timeout_s``. Returns (Reply or Fault, seconds taken)."""
        if self.fault is not None:
            return self.fault, 0.0
        self._last_id += 1
        rid = self._last_id
        message.request.request_id = rid
        data = message.SerializeToString()
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        t0 = time.monotonic()
        try:
            async with asyncio.timeout(timeout_s):
                await self._write(data)
                result = await fut
        except TimeoutError:
            result = Fault(Cause.TIMEOUT, f"no reply within {timeout_s * 1000:.0f} ms")
        except Exception as e:  # noqa: BLE001 - a failed write: the stream broke
            result = self.fault or Fault(Cause.DISCONNECT, f"stream broke while sending: {type(e).__name__}")
        finally:
            self._pending.pop(rid, None)
        return result, time.monotonic() - t0

    def _fail(self, fault: Fault) -> None:
        """Mark the stream unusable; every waiting decision gets ``fault``."""
        if self.fault is None:
            self.fault = fault
        for fut in self._pending.values():
            if not fut.done():
                fut.set_result(self.fault)

    async def _read_loop(self) -> None:
        self._reader = asyncio.current_task()
        ctx = self._ctx
        try:
            while True:
                try:
                    data = await ctx.read()
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # noqa: BLE001
                    self._fail(Fault(Cause.DISCONNECT, f"stream error: {type(e).__name__}"))
                    return
                if data is grpc.aio.EOF:
                    self._fail(Fault(Cause.DISCONNECT, "the bot closed its stream"))
                    return
                problem = self._take(data)
                if problem is not None:
                    self._fail(problem)
                    return
        finally:
            self._fail(Fault(Cause.DISCONNECT, "stream closed"))
            self.closed.set()

    def _take(self, data: bytes) -> Fault | None:
        """Route one message from the bot; a protocol violation comes back as a Fault."""
        try:
            msg = pb.BotMessage.FromString(data)
        except DecodeError:
            return Fault(Cause.INVALID, f"undecodable message ({len(data)} bytes: {data[:16].hex()})")
        kind = msg.WhichOneof("kind")
        if kind != "reply":
            return Fault(Cause.INVALID, f"expected a Reply, got {kind or 'an empty message'}")
        rid = msg.reply.request_id
        fut = self._pending.get(rid)
        if fut is None:
            if rid == 0 or rid > self._last_id:
                return Fault(Cause.INVALID, f"wrong request id {rid} (never sent)")
            return None  # a late reply to a request that timed out or was already answered: dropped
        if not fut.done():
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
        self._fail(Fault(Cause.DISCONNECT, "session closed by the arena"))
        try:
            await asyncio.wait_for(self.closed.wait(), wait_s)
        except TimeoutError:
            self.close()

    def close(self) -> None:
        """End the stream at once (cancels the RPC)."""
        self._fail(Fault(Cause.DISCONNECT, "session closed by the arena"))
        if self._reader is not None and not self._reader.done():
            self._reader.cancel()


def check_hello(h: Any) -> str | None:
    """Why a Hello is not acceptable, or None."""
    if h.protocol_version != PROTOCOL_VERSION:
        return f"protocol_version {h.protocol_version} is not supported (this arena speaks {PROTOCOL_VERSION})"
    if GAME not in h.games:
        return f"the bot does not list the game '{GAME}' (games: {', '.join(h.games) or 'none'})"
    return None


class Arena:
    """The grpc.aio server. Tokens are announced with :meth:`expect` before a bot connects."""

    def __init__(self, hello_read_s: float = 30.0) -> None:
        self.address: str | None = None
        self._server: Any = None
        self._expected: dict[str, asyncio.Future[Session | Fault]] = {}
        self._sessions: set[Session] = set()
        self._hello_read_s = hello_read_s

    async def start(self, listen: str = "127.0.0.1:0") -> str:
        """Listen on ``host:port`` (port 0 picks one) or ``unix:PATH``; returns the address to dial."""
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        handler = grpc.stream_stream_rpc_method_handler(self._play)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, {"Play": handler}),))
        port = server.add_insecure_port(listen)
        if listen.startswith("unix:"):
            self.address = listen
        else:
            host = listen.rsplit(":", 1)[0]
            self.address = f"{host}:{port}"
        await server.start()
        self._server = server
        return self.address

    def expect(self, token: str) -> asyncio.Future[Session | Fault]:
        """A future resolved with the Session (or a Fault for a bad Hello) of the bot presenting ``token``."""
        fut: asyncio.Future[Session | Fault] = asyncio.get_running_loop().create_future()
        self._expected[token] = fut
        return fut

    def forget(self, token: str) -> None:
        fut = self._expected.pop(token, None)
        if fut is not None and not fut.done():
            fut.cancel()

    async def stop(self, grace: float = 0.5) -> None:
        for s in list(self._sessions):
            s.close()
        if self._server is not None:
            await self._server.stop(grace)
            self._server = None

    async def _play(self, request_iterator: Any, context: Any) -> None:
        try:
            data = await asyncio.wait_for(context.read(), self._hello_read_s)
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "no Hello in time")
        if data is grpc.aio.EOF:
            return
        try:
            msg = pb.BotMessage.FromString(data)
        except DecodeError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "first message does not decode")
        if msg.WhichOneof("kind") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be Hello")
        hello = msg.hello
        waiter = self._expected.pop(hello.token, None)
        if waiter is None or waiter.done():
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or already used token")
        problem = check_hello(hello)
        if problem is not None:
            waiter.set_result(Fault(Cause.NO_HELLO, f"bad Hello: {problem}"))
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, problem)
        session = Session(hello, context)
        welcome = pb.ArenaMessage(welcome=pb.Welcome(
            session_id=session.session_id, protocol_version=PROTOCOL_VERSION, arena_version=ARENA_VERSION))
        await context.write(welcome.SerializeToString())
        self._sessions.add(session)
        waiter.set_result(session)
        try:
            await session._read_loop()
        finally:
            self._sessions.discard(session)
