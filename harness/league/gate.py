"""The league's side of the bot stream: who may connect, and the seat each connected bot fills.

A registered bot presents its token in Hello; the gate finds the entrant by the token's keyed
hash and attaches the stream to that entrant's :class:`Seat`. A token that is unknown or retired
is refused with UNAUTHENTICATED before anything is stored; a second stream with the same token is
refused (ALREADY_EXISTS) while the first is alive. Operator entrants the league launches itself
use one-time tokens announced with :meth:`Gate.expect`, exactly as in local matches.

Each stream is an :class:`harness.arena.server.Session`, whose request ids belong to it alone, so
a bot can only ever answer the requests sent on its own stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
from harness.arena.result import Cause, Fault
from harness.arena.server import Session, Waiters, check_hello, receive_hello, refuse, welcome

from .keys import Hasher, RateLimit, peer_host
from .store import EntrantRow, Store


class Seat:
    """A registered remote entrant as the match loop sees it (the Entrant interface), with a
    session that a reconnection may replace: :meth:`rejoin` waits up to ``grace_s`` for one."""

    def __init__(self, row: EntrantRow, grace_s: float) -> None:
        self.row = row
        self.name = row.label
        self.grace_s = grace_s
        self.session: Session | None = None
        self.retired = False
        self._arrived = asyncio.Event()

    @property
    def connected(self) -> bool:
        return self.session is not None and self.session.alive

    def attach(self, session: Session) -> None:
        self.session = session
        self._arrived.set()

    async def ensure(self) -> Session | Fault:
        """The live session; a bot that is between connections gets the grace to come back."""
        got = await self.rejoin(Fault(Cause.DISCONNECT, "not connected"))
        return got

    async def rejoin(self, fault: Fault) -> Session | Fault:
        """A live session within the grace period, else ``fault`` with the wait explained."""
        loop = asyncio.get_running_loop()
        end = loop.time() + self.grace_s
        while not self.retired:
            if self.session is not None and self.session.alive:
                return self.session
            left = end - loop.time()
            if left <= 0:
                break
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), left)
            except TimeoutError:
                pass
        why = "retired" if self.retired else f"no reconnection within {self.grace_s:g} s"
        return Fault(fault.cause, f"{fault.detail}; {why}")

    async def explain(self, fault: Fault, session: Session | None = None) -> Fault:
        return fault  # no process to look at: a lost stream stays a DISCONNECT

    @contextmanager
    def metered(self, session: Session) -> Iterator[None]:
        yield  # a remote bot's CPU is its own

    def stderr_tail(self) -> str:
        return ""  # a remote bot's output is its own

    async def stop(self, reason: str = "the league is stopping") -> None:
        if self.session is not None:
            await self.session.goodbye(reason, wait_s=0.5)


class Gate:
    """The BotArena.Play handler of a league, plus the ``expect``/``forget``/``address`` an
    operator :class:`harness.arena.entrant.Entrant` needs."""

    def __init__(self, store: Store, hasher: Hasher, limit: RateLimit, grace_s: float, max_message_bytes: int,
                 hello_read_s: float = 10.0, on_change: Callable[[], None] | None = None) -> None:
        self.store, self.hasher, self.limit = store, hasher, limit
        self.max_message_bytes = max_message_bytes
        self.grace_s = grace_s
        self.hello_read_s = hello_read_s
        self.on_change = on_change or (lambda: None)
        self.address: str | None = None  # where operator bots dial (a unix socket)
        self.seats: dict[int, Seat] = {}
        self._expected = Waiters()
        self._sessions: set[Session] = set()

    # -- operator bots ------------------------------------------------------------------

    def expect(self, token: str) -> asyncio.Future[Session | Fault]:
        return self._expected.expect(token)

    def forget(self, token: str) -> None:
        self._expected.forget(token)

    # -- seats --------------------------------------------------------------------------

    def seat(self, row: EntrantRow) -> Seat:
        s = self.seats.get(row.id)
        if s is None:
            s = self.seats[row.id] = Seat(row, self.grace_s)
        return s

    def retire(self, entrant_id: int) -> None:
        s = self.seats.get(entrant_id)
        if s is not None:
            s.retired = True
            s._arrived.set()
            if s.session is not None:
                asyncio.ensure_future(s.session.goodbye("this entrant was retired", wait_s=0.5))

    async def close_all(self) -> None:
        await asyncio.gather(*(s.goodbye("the league is stopping", wait_s=0.5) for s in list(self._sessions)))

    # -- the stream -----------------------------------------------------------------------

    async def play(self, request_iterator: Any, context: Any) -> None:
        """One bot stream: rate limit, Hello, authentication, then the session until it ends."""
        if not self.limit.allow(peer_host(context.peer())):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many connections from this host; slow down")
        hello = await receive_hello(context, self.hello_read_s, self.max_message_bytes)
        if hello is None:
            return
        waiter = self._expected.take(hello.token)
        seat = None
        if waiter is None or waiter.done():
            row = self.store.by_token(self.hasher.hash(hello.token)) if hello.token else None
            if row is None or row.operator:
                await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or retired token")
            assert row is not None  # abort() raised otherwise
            seat = self.seat(row)
            if seat.connected:
                await context.abort(grpc.StatusCode.ALREADY_EXISTS,
                                    f"'{seat.name}' is already connected; a new connection is accepted once "
                                    "that one has closed")
        problem = check_hello(hello)
        game = self.store.league.game
        if problem is None and game not in hello.games:
            problem = f"this league plays {game}; the bot's Hello lists {', '.join(hello.games) or 'no game'}"
        if problem is not None:
            if waiter is not None and not waiter.done():
                waiter.set_result(Fault(Cause.NO_HELLO, f"bad Hello: {problem}"))
            await refuse(context, problem)
        session = Session(hello, context, self.max_message_bytes)
        # Queued, not written here: a match may take the session as soon as it is attached, and the
        # session's own writer sends the Welcome before anything else (gRPC allows one write at a time).
        session.post(welcome(session))
        if seat is not None:
            seat.attach(session)  # no await since the check above: two streams cannot both get in
        self._sessions.add(session)
        try:
            if waiter is not None and not waiter.done():
                waiter.set_result(session)
            self.on_change()
            try:
                await session._read_loop()
            except asyncio.CancelledError:
                return  # ended by the league (Session.close after a Goodbye went unanswered)
        finally:
            session.close()  # a no-op after the read loop ended
            self._sessions.discard(session)
            self.on_change()
        fault = session.fault
        if fault is not None and fault.cause is Cause.INVALID:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"stream closed: {fault.detail}")
