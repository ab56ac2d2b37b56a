"""The Python SDK end to end: real bot processes against a small grpc.aio server on loopback.

The server here is a stand-in for the arena that speaks the protocol directly, so that each
case (concurrent requests, Goodbye, SIGTERM, a dropped connection, the move limit) can be driven
and observed exactly.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import zlib
from typing import Any

import pytest

from harness.games.schnapsen import GAME as SCHNAPSEN_GAME
from harness.games.sixtysix import Rules
from harness.sdk import run
from harness.sdk.client import bot_games
from harness.wire import arena_pb2 as pb
from harness.wire.convert import action_from_pb
from stand import BOTS, SDKBOT, handshake, positions, request, spawn, stand, start_match, stderr_of, wait_exit


def pick(obs: Any, game: str) -> str:
    """What tests/bots/sdkbot.py answers to ``obs`` (the same function, computed here)."""
    legal = [a for a in obs.legal if a != "claim" or obs.points[obs.seat] >= 66] or list(obs.legal)
    key = repr((game, sorted(obs.rules.to_dict().items()), obs.hand, obs.legal, obs.history, obs.talon_size))
    return legal[zlib.crc32(key.encode()) % len(legal)]


@pytest.mark.parametrize("bot,name,declared", [("random_bot.py", "random", 1), ("greedy_bot.py", "greedy", 8)])
def test_concurrent_requests_then_goodbye(bot: str, name: str, declared: int) -> None:
    """Many requests at once: answered one after another on the loop (max_concurrent 1: random), or on
    the pool of threads (greedy's 8); every one answered once, with a legal action."""
    rules = Rules(exchange_rank="J", marriage_in_phase2=True)

    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn(bot, address)
            ctx, hello = await handshake(servicer, rules)
            assert (hello.token, hello.protocol_version) == ("tok", 2) and "sixtysix" in hello.games
            assert hello.max_concurrent == declared and hello.name == name
            obs = positions(60, 1, rules)
            ids = random.Random(2).sample(range(1, 10**9), len(obs))
            for rid, o in zip(ids, obs):  # all at once, without waiting
                await ctx.write(request(rid, o))
            legal = {rid: set(o.legal) for rid, o in zip(ids, obs)}
            for _ in obs:
                msg = await asyncio.wait_for(ctx.read(), 10)
                rid = msg.reply.request_id
                assert action_from_pb(msg.reply.action) in legal.pop(rid)
            assert not legal
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye(reason="done")))
            assert await wait_exit(proc) == 0
            assert b"goodbye" in stderr_of(proc)

    asyncio.run(main())


def test_each_match_is_decoded_with_its_own_game_and_rules() -> None:
    """One stream, two matches at once: a Schnapsen match (its Appendix A defaults but one option
    changed) and a Sixty-Six match. The SDK bot's answer depends on the game, the rules and the
    whole observation it decoded, so every answer shows the decode was exact."""
    sch_rules = SCHNAPSEN_GAME.rules({"public_trick_history": False, "match_target": 4})
    six_rules = Rules(exchange_rank="J", marriage_in_phase2=True)

    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn(SDKBOT, address)
            ctx, hello = await handshake(servicer, sch_rules, game="schnapsen", match_id="s1")
            assert (hello.name, hello.protocol_version, list(hello.games)) == ("sdkbot", 2, ["sixtysix", "schnapsen"])
            await start_match(ctx, six_rules, game="sixtysix", match_id="c1")
            sch = positions(40, 3, sch_rules, game="schnapsen")
            six = positions(40, 4, six_rules)
            assert all(o.pack == "schnapsen" and len(o.hand) <= 5 for o in sch)
            jobs = {}
            for i, (a, b) in enumerate(zip(sch, six)):
                jobs[2 * i + 1] = ("schnapsen", a)
                jobs[2 * i + 2] = ("sixtysix", b)
            for rid, (game, o) in jobs.items():
                await ctx.write(request(rid, o, game=game, match_id="s1" if game == "schnapsen" else "c1"))
            for _ in range(len(jobs)):
                msg = await asyncio.wait_for(ctx.read(), 10)
                game, o = jobs.pop(msg.reply.request_id)
                assert action_from_pb(msg.reply.action) == pick(o, game), (game, o)
            assert not jobs
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye(reason="done")))
            assert await wait_exit(proc) == 0
            assert b"Traceback" not in stderr_of(proc)

    asyncio.run(main())


def test_a_request_before_its_match_start_uses_the_games_defaults() -> None:
    """No MatchStart for the match: the observation case names the game, its default rules apply."""
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn(SDKBOT, address)
            ctx, _ = await handshake(servicer)
            obs = positions(10, 6, game="schnapsen")
            for rid, o in enumerate(obs, 1):
                await ctx.write(request(rid, o, game="schnapsen", match_id="unannounced"))
                msg = await asyncio.wait_for(ctx.read(), 10)
                assert msg.reply.request_id == rid and action_from_pb(msg.reply.action) == pick(o, "schnapsen")
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye()))
            assert await wait_exit(proc) == 0

    asyncio.run(main())


def test_a_bot_that_raises_still_answers_a_legal_non_claim_and_reports_the_error() -> None:
    """Issue 14: the SDK's fallback is never a (false) claim when anything else is legal, and the
    Reply's ``error`` tells the arena what failed."""
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn(SDKBOT, address, env={"SDKBOT_RAISE": "1"})
            ctx, _ = await handshake(servicer, game="schnapsen")
            for rid, o in enumerate(positions(5, 7, game="schnapsen"), 1):
                await ctx.write(request(rid, o, game="schnapsen"))
                msg = await asyncio.wait_for(ctx.read(), 10)
                action = action_from_pb(msg.reply.action)
                assert action in o.legal and (action != "claim" or o.legal == ("claim",) or o.legal == ["claim"])
                assert msg.reply.error == "act() raised RuntimeError: asked to raise"
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye()))
            assert await wait_exit(proc) == 0
            assert b"act() raised" in stderr_of(proc)

    asyncio.run(main())


def test_a_request_that_does_not_decode_gets_no_answer() -> None:
    """A Schnapsen request in a match announced as Sixty-Six: the SDK says so and does not guess."""
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn(SDKBOT, address)
            ctx, _ = await handshake(servicer)  # m1 is Sixty-Six
            sch, six = positions(1, 8, game="schnapsen")[0], positions(1, 8)[0]
            await ctx.write(request(1, sch, game="schnapsen"))
            await ctx.write(request(2, six))
            msg = await asyncio.wait_for(ctx.read(), 10)
            assert msg.reply.request_id == 2  # request 1 was skipped
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye()))
            assert await wait_exit(proc) == 0
            assert b"request 1 does not decode: the request carries no sixtysix observation" in stderr_of(proc)

    asyncio.run(main())


class _Lists:
    def __init__(self, games: Any) -> None:
        self.games = games

    def act(self, obs: Any) -> str:
        return str(obs.legal[0])


def test_declared_games() -> None:
    assert bot_games(_Lists(("schnapsen",))) == ("schnapsen",)
    assert bot_games(_Lists("schnapsen")) == ("schnapsen",)
    assert bot_games(object()) == ("sixtysix",)


def test_a_bot_listing_an_unknown_game_is_a_one_line_error(capsys: Any) -> None:
    assert run(_Lists(("sixtysix", "chess")), ["--arena", "127.0.0.1:9"], name="x") == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "no wire codec for game 'chess'" in err


def test_sigterm_ends_the_bot_cleanly() -> None:
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn("greedy_bot.py", address)
            ctx, _ = await handshake(servicer)
            o = positions(1, 3)[0]
            await ctx.write(request(7, o))
            msg = await asyncio.wait_for(ctx.read(), 10)
            assert msg.reply.request_id == 7
            proc.send_signal(signal.SIGTERM)
            assert await wait_exit(proc) == 0
            assert b"Traceback" not in stderr_of(proc)

    asyncio.run(main())


def test_dropped_connection_ends_the_bot() -> None:
    async def main() -> None:
        async with stand() as (servicer, server, address):
            proc = spawn("random_bot.py", address)
            await handshake(servicer)
            await server.stop(0)
            assert await wait_exit(proc) == 0
            err = stderr_of(proc)
            assert b"Traceback" not in err and (b"dropped" in err or b"closed" in err)

    asyncio.run(main())


def test_address_and_token_from_the_environment() -> None:
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn("greedy_bot.py", address, token="env-token", env_only=True)
            ctx, hello = await handshake(servicer)
            assert hello.token == "env-token"
            o = positions(1, 4)[0]
            await ctx.write(request(1, o))
            msg = await asyncio.wait_for(ctx.read(), 10)
            assert action_from_pb(msg.reply.action) in o.legal
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye()))
            assert await wait_exit(proc) == 0

    asyncio.run(main())


def test_search_bot_answers_within_the_move_limit() -> None:
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn("search_bot.py", address)
            ctx, _ = await handshake(servicer)
            worst = 0.0
            for i, o in enumerate(positions(8, 5) + positions(8, 6, phase2=True), 1):
                t0 = time.monotonic()
                await ctx.write(request(i, o, move_ms=300))
                msg = await asyncio.wait_for(ctx.read(), 10)
                worst = max(worst, time.monotonic() - t0)
                assert msg.reply.request_id == i and action_from_pb(msg.reply.action) in o.legal
            assert worst < 0.3, f"slowest answer {worst * 1000:.0f} ms"
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye()))
            assert await wait_exit(proc) == 0

    asyncio.run(main())


def test_no_address_is_a_one_line_error() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_ADDRESS", "ARENA_TOKEN")}
    r = subprocess.run([sys.executable, str(BOTS / "random_bot.py")], env=env, capture_output=True, timeout=30)
    assert r.returncode == 2
    assert r.stderr.decode().strip().count("\n") == 0 and "ARENA_ADDRESS" in r.stderr.decode()


def test_unreachable_arena() -> None:
    r = subprocess.run([sys.executable, str(BOTS / "random_bot.py"), "--arena", "127.0.0.1:9", "--token", "t",
                        "--connect-timeout", "0.5"], capture_output=True, timeout=30)
    assert r.returncode == 1 and b"cannot connect" in r.stderr


def test_sigterm_while_connecting() -> None:
    proc = subprocess.Popen([sys.executable, str(BOTS / "random_bot.py"), "--arena", "127.0.0.1:9", "--token", "t"],
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 15
    while not _catches_sigterm(proc.pid):  # until the SDK has installed its handler
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=5) == 0
    assert time.monotonic() - t0 < 2


def _catches_sigterm(pid: int) -> bool:
    """Whether the process has a SIGTERM handler installed (Linux /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    return bool(caught >> (signal.SIGTERM - 1) & 1)
