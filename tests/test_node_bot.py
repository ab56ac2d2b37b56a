"""The Node.js sample bot plays over the same proto, loaded at run time (needs node and `make node`)."""

from __future__ import annotations

import asyncio
import random
import shutil
import signal
import subprocess

import pytest

from harness.wire import arena_pb2 as pb
from harness.wire.convert import action_from_pb

from stand import BOTS, handshake, positions, request, stand, wait_exit

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None or not (BOTS / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir(),
    reason="node or the Node bot's packages are missing (run `make node`)",
)


def spawn_node(address: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([NODE or "node", str(BOTS / "node" / "bot.js"), "--arena", address, "--token", "nt"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def test_node_bot_answers_legally_and_says_goodbye() -> None:
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn_node(address)
            ctx, hello = await handshake(servicer)
            assert (hello.name, hello.token, hello.protocol_version) == ("node-random", "nt", 1)
            obs = positions(40, 8)
            ids = random.Random(1).sample(range(1, 2**40), len(obs))
            for rid, o in zip(ids, obs):
                await ctx.write(request(rid, o))
            legal = {rid: o for rid, o in zip(ids, obs)}
            for _ in obs:
                msg = await asyncio.wait_for(ctx.read(), 10)
                o = legal.pop(msg.reply.request_id)
                a = action_from_pb(msg.reply.action)
                assert a in o.legal
                assert a != "claim" or o.points[o.seat] >= 66 or o.legal == ("claim",)
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
