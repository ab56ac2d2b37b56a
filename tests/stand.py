"""A stand-in arena for SDK and bot tests: a real grpc.aio server on 127.0.0.1:0 that hands each
bot stream to the test, plus helpers to spawn bots and build requests."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc

from harness.games import registry
from harness.games.sixtysix import Rules, apply, deal, legal_actions
from harness.games.sixtysix.cards import CLASSIC, SCHNAPSEN
from harness.games.sixtysix.observe import observe
from harness.wire import arena_pb2 as pb
from harness.wire import arena_pb2_grpc as pb_grpc
from harness.wire.convert import PROTOCOL_VERSION, request_to_pb

REPO = Path(__file__).resolve().parents[1]
BOTS = REPO / "sample_bots"
SDKBOT = REPO / "tests" / "bots" / "sdkbot.py"


class Stand(pb_grpc.BotArenaServicer):
    """Accepts one stream at a time and hands its context to the test."""

    def __init__(self) -> None:
        self.streams: asyncio.Queue[Any] = asyncio.Queue()
        self.done = asyncio.Event()

    async def Play(self, request_iterator: Any, context: Any) -> None:  # noqa: N802 - gRPC's name
        await self.streams.put(context)
        await self.done.wait()


@asynccontextmanager
async def stand() -> AsyncIterator[tuple[Stand, Any, str]]:
    server = grpc.aio.server()
    servicer = Stand()
    pb_grpc.add_BotArenaServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield servicer, server, f"127.0.0.1:{port}"
    finally:
        servicer.done.set()
        await server.stop(0)


def spawn(bot: str | Path, address: str | None, token: str = "tok", env_only: bool = False,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start a Python bot: a sample bot by file name, or any script by path."""
    env = {**os.environ, **(env or {})}
    args = [sys.executable, str(bot if isinstance(bot, Path) else BOTS / bot)]
    if env_only:
        env.update(ARENA_ADDRESS=address or "", ARENA_TOKEN=token)
    elif address is not None:
        args += ["--arena", address, "--token", token]
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def stderr_of(proc: subprocess.Popen[bytes]) -> bytes:
    """What a bot started by :func:`spawn` wrote to stderr (all of it, once it has exited)."""
    assert proc.stderr is not None
    return proc.stderr.read()


async def wait_exit(proc: subprocess.Popen[bytes], timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise AssertionError("the bot did not exit in time")
        await asyncio.sleep(0.02)
    return proc.returncode


async def handshake(servicer: Stand, rules: Rules | None = None, game: str = "sixtysix",
                    match_id: str = "m1") -> tuple[Any, pb.Hello]:
    """Take the next bot stream, read its Hello, welcome it and start match ``match_id`` of ``game``
    (``rules`` default to the game's)."""
    ctx = await asyncio.wait_for(servicer.streams.get(), 15)
    first = await asyncio.wait_for(ctx.read(), 5)
    assert first.WhichOneof("kind") == "hello"
    await ctx.write(pb.ArenaMessage(welcome=pb.Welcome(session_id="s", protocol_version=PROTOCOL_VERSION)))
    await start_match(ctx, rules, game, match_id)
    return ctx, first.hello


async def start_match(ctx: Any, rules: Rules | None = None, game: str = "sixtysix", match_id: str = "m1") -> None:
    g = registry.get(game)
    await ctx.write(pb.ArenaMessage(match_start=pb.MatchStart(
        match_id=match_id, game=game, player=0, players=["bot", "other"], teams=[0, 1],
        rules=g.rules_map(g.rules() if rules is None else rules))))


def positions(n: int, seed: int, rules: Rules | None = None, phase2: bool = False, game: str = "sixtysix") -> list[Any]:
    """Observations of the seat to act, from random play (only closed or exhausted talons if ``phase2``)."""
    rules = registry.get(game).rules() if rules is None else rules
    pack = SCHNAPSEN if game == "schnapsen" else CLASSIC
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < n:
        d = list(pack.cards)
        rng.shuffle(d)
        s = deal(d, rules)
        while not s.over and len(out) < n:
            if not phase2 or s.talon_state != "open":
                if rng.random() < 0.3 or phase2:
                    out.append(observe(s, s.to_act))
            acts = legal_actions(s)
            if "claim" in acts and len(acts) > 1:
                acts.remove("claim")
            s = apply(s, rng.choice(acts))
    return out


def request(rid: int, obs: Any, move_ms: int = 1000, game: str = "sixtysix", match_id: str = "m1") -> pb.ArenaMessage:
    return pb.ArenaMessage(request=request_to_pb(rid, match_id, 1, rid % 100000, obs, move_ms, 10000, case=game))
