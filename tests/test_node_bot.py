"""The Node.js sample bot plays Sixty-Six and Schnapsen over the same proto, loaded at run time
(needs node and `make node`): against a stand-in arena, and a whole Schnapsen match through the
real arena against the Python SDK bot."""

from __future__ import annotations

import asyncio
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena_util import survivors, with_arena
from harness.arena import Cause, Entrant
from harness.arena.match import play_match
from harness.arena.record import read, verify
from harness.wire import arena_pb2 as pb
from harness.wire.convert import action_from_pb

from stand import BOTS, SDKBOT, handshake, positions, request, stand, wait_exit

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None or not (BOTS / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir(),
    reason="node or the Node bot's packages are missing (run `make node`)",
)


def spawn_node(address: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([NODE or "node", str(BOTS / "node" / "bot.js"), "--arena", address, "--token", "nt"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _can_win(o: Any) -> bool:
    """A claim with 66 or more is legal (the Node bot then claims)."""
    return "claim" in o.legal and o.points[o.seat] >= 66 and len(o.legal) > 1


@pytest.mark.parametrize("game", ["sixtysix", "schnapsen"])
def test_node_bot_answers_legally_and_says_goodbye(game: str) -> None:
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn_node(address)
            ctx, hello = await handshake(servicer, game=game)
            assert (hello.name, hello.token, hello.protocol_version) == ("node-random", "nt", 2)
            assert list(hello.games) == ["sixtysix", "schnapsen"]
            winning = [o for o in positions(300, 9, game=game) if _can_win(o)][:4]
            assert len(winning) == 4
            obs = positions(40, 8, game=game) + winning
            ids = random.Random(1).sample(range(1, 2**40), len(obs))
            for rid, o in zip(ids, obs):
                await ctx.write(request(rid, o, game=game))
            legal = {rid: o for rid, o in zip(ids, obs)}
            for _ in obs:
                msg = await asyncio.wait_for(ctx.read(), 10)
                o = legal.pop(msg.reply.request_id)
                a = action_from_pb(msg.reply.action)
                assert a in o.legal
                assert a != "claim" or o.points[o.seat] >= 66 or o.legal == ("claim",)
                assert a == "claim" or not _can_win(o)  # it read the observation in the game's case
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye(reason="done")))
            assert await wait_exit(proc) == 0

    asyncio.run(main())


def test_node_bot_stops_on_sigterm() -> None:
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn_node(address)
            await handshake(servicer)
            proc.send_signal(signal.SIGTERM)
            assert await wait_exit(proc) == 0

    asyncio.run(main())


def test_node_bot_plays_a_schnapsen_match_against_the_python_sdk_bot(tmp_path: Path) -> None:
    """A whole Schnapsen match through the real arena: Node against the Python SDK, both over proto/."""
    async def go(arena):  # type: ignore[no-untyped-def]
        node = Entrant("node", f"{NODE} {BOTS / 'node' / 'bot.js'}", arena=arena)
        py = Entrant("py", f"{sys.executable} {SDKBOT}", arena=arena)
        try:
            r = await play_match((node, py), match_id="sch", seed=21, game="schnapsen", rules={"match_target": "4"},
                                 record_dir=tmp_path)
        finally:
            await asyncio.gather(node.stop(), py.stop())
        return r, [e.process.pid for e in (node, py) if e.process is not None and e.process.pid is not None]

    r, pgids = asyncio.run(with_arena(go))
    assert r.cause is Cause.NORMAL, (r.cause, r.detail)
    assert r.game == "schnapsen" and r.ranks is not None and sorted(r.ranks) == [0, 1]
    assert max(r.scores) >= 4 and r.deals >= 2
    lines = read(r.record)
    assert lines[0]["game"] == "schnapsen"
    assert all(len(d["deck"].split()) == 20 for d in lines if d["type"] == "deal")  # SCH-1: no nines
    assert verify(r.record).ok
    assert survivors(pgids) == []
