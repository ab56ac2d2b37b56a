"""LeagueService: register and retire entrants, read and watch the leaderboard."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import grpc

from harness.wire import league_pb2 as lpb
from harness.wire import league_pb2_grpc as lpb_grpc

from .keys import name_problem, new_secret, peer_host
from .store import OPERATOR

if TYPE_CHECKING:
    from .server import League


class LeagueService(lpb_grpc.LeagueServiceServicer):
    """The RPCs; all state lives in the :class:`League`."""

    def __init__(self, league: League) -> None:
        self.league = league

    async def _limit(self, context: Any, watch: bool = False) -> None:
        limit = self.league.gate.limit if watch else self.league.register_limit
        if not limit.allow(peer_host(context.peer())):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many requests from this host; slow down")

    async def Register(self, request: lpb.RegisterRequest, context: Any) -> lpb.RegisterResponse:
        await self._limit(context)
        lg = self.league
        owner = request.owner or "anonymous"
        for what, value in (("name", request.name), ("owner", owner)):
            problem = name_problem(value)
            if problem is not None:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"bad {what}: {problem}")
        if owner == OPERATOR:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, f"the owner name '{OPERATOR}' is reserved")
        stored = lg.store.owner_secret_hash(owner)
        owner_secret = ""
        if stored is None:
            owner_secret = new_secret()
        elif not lg.hasher.matches(request.owner_secret, stored):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                f"owner '{owner}' exists: give its owner secret (or pick another owner name)")
        token = new_secret()
        new, old = lg.store.register(owner, request.name, token_hash=lg.hasher.hash(token),
                                     owner_secret_hash=lg.hasher.hash(owner_secret) if owner_secret else None)
        if old is not None:
            lg.gate.retire(old.id)
        lg.changed()
        lg.log(f"registered {new.label}" + (f" (retired {old.label})" if old else ""))
        return lpb.RegisterResponse(entrant=new.label, version=new.version, token=token, owner_secret=owner_secret)

    async def Retire(self, request: lpb.RetireRequest, context: Any) -> lpb.RetireResponse:
        await self._limit(context)
        lg = self.league
        by_token = lg.store.by_token(lg.hasher.hash(request.token)) if request.token else None
        if not request.owner and request.token:  # issue 14: the token identifies the entrant and its owner
            if by_token is None or by_token.operator:
                await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token (no active entrant has it)")
            assert by_token is not None  # abort() raised otherwise
            if request.name and request.name != by_token.name:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"this token belongs to {by_token.label}, "
                                                                      f"not to '{request.name}'")
        owner = request.owner or (by_token.owner if by_token is not None else "anonymous")
        row = lg.store.active(owner, request.name or (by_token.name if by_token is not None else ""))
        if row is None or row.operator:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no active entrant '{request.name}' of owner "
                                                           f"'{owner}'")
        assert row is not None  # abort() raised otherwise
        owner_ok = bool(request.owner_secret) and lg.hasher.matches(request.owner_secret,
                                                                    lg.store.owner_secret_hash(row.owner))
        if not owner_ok and (by_token is None or by_token.id != row.id):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "give the entrant's token or its owner's secret")
        lg.store.retire(row.id)
        lg.gate.retire(row.id)
        lg.changed()
        lg.log(f"retired {row.label}")
        return lpb.RetireResponse(entrant=row.label)

    async def GetLeaderboard(self, request: lpb.GetLeaderboardRequest, context: Any) -> lpb.Leaderboard:
        await self.league.settled()
        return self.league.leaderboard(request.include_retired)

    async def WatchLeaderboard(self, request: lpb.WatchLeaderboardRequest, context: Any) -> Any:
        await self._limit(context, watch=True)
        queue: asyncio.Queue[bool | None] = asyncio.Queue(maxsize=1)
        self.league.watchers.add(queue)
        try:
            await self.league.settled()
            yield self.league.leaderboard(request.include_retired)
            while (item := await queue.get()) is not None:
                yield self.league.leaderboard(request.include_retired)
        finally:
            self.league.watchers.discard(queue)
