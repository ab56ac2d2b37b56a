"""The Node.js sample bot plays all five games over the same proto, loaded at run time (needs node and
`make node`): against a stand-in arena (legal replies in every game's observation case, and the play
its header comment promises), and a whole Schnapsen match through the real arena against the Python SDK bot.
Whole matches of the other games against Python bots are in test_games_e2e.py."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena_util import groups, survivors, with_arena
from harness.arena import Arena, Cause, Entrant, MatchResult
from harness.arena.match import play_match
from harness.arena.record import read, verify
from harness.games import registry
from harness.wire import arena_pb2 as pb
from harness.wire.codecs import codec
from harness.wire.convert import action_from_pb

from stand import BOTS, SDKBOT, handshake, positions, request, stand, wait_exit
from tools import NODE

GAMES = ["sixtysix", "schnapsen", "three_handed", "four_handed", "twenty_two"]
pytestmark = pytest.mark.needs("node-bot")


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
            assert (hello.name, hello.token, hello.protocol_version) == ("node-bot", "nt", 2)
            assert list(hello.games) == GAMES
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
            assert proc.stderr is not None and b"choose failed" not in proc.stderr.read()  # no fallback to legal[0]

    asyncio.run(main())


def test_the_node_bot_lists_every_registered_game() -> None:
    assert GAMES == list(registry.ids())


POINTS66 = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
RANK22 = "23456789TJQKA"  # 22-1.2


def decisions(game: str, n: int, seed: int) -> list[tuple[Any, tuple[str, ...], pb.DecisionRequest]]:
    """``n`` decisions of random play of ``game`` (default rules): the observation, the legal actions
    and the request the arena would send for it."""
    g, rng = registry.get(game), random.Random(seed)
    out: list[tuple[Any, tuple[str, ...], pb.DecisionRequest]] = []
    while len(out) < n:
        m = g.start(rng.randrange(1 << 30), g.rules())
        while (p := g.to_act(m)) is not None and len(out) < n:
            legal = g.legal(m)
            if len(legal) > 1 and rng.random() < 0.4:
                obs = g.observe(m, p)
                body = codec(game).encode_request("m1", 1, len(out) + 1, obs, legal, 1000, 10000)
                out.append((obs, legal, pb.DecisionRequest.FromString(body)))
            m = g.apply(m, rng.choice(legal))
    return out


def check_three_handed(o: Any, legal: tuple[str, ...], a: str) -> None:
    if "claim" in legal:  # 3H-5: offered only with 66, and then taken
        assert a == "claim"
    elif o.point == "T":  # 3H-2
        assert a.startswith("trump:")
    elif o.point == "E":
        assert a == "finish"
    elif any(x.startswith("marry:") for x in legal):
        assert a.startswith("marry:")


def check_four_handed(o: Any, legal: tuple[str, ...], a: str) -> None:
    """Following, it gives the cheapest legal card: no legal card is a cheaper non-trump, or a cheaper trump."""
    if o.point == "F":
        def cost(c: str) -> tuple[bool, int]:
            return (c[1] == o.trump_suit, POINTS66[c[0]])
        assert all(cost(c) >= cost(a) for c in legal), (a, legal)


def check_twenty_two(o: Any, legal: tuple[str, ...], a: str) -> None:
    """22-4: it exchanges its highest ten or above away; 22-7.3: it keeps its lowest card when it can."""
    if o.point == "X":
        high = [x for x in legal if x.startswith("discard:") and RANK22.index(x[8]) >= RANK22.index("T")]
        assert a == (max(high, key=lambda x: RANK22.index(x[8])) if high else "done"), (a, legal)
        return
    ranks = [RANK22.index(c[0]) for c in o.hand]
    low = min(ranks)

    def keeps_low(x: str) -> bool:
        return [RANK22.index(c[0]) for c in x.split("+")].count(low) < ranks.count(low)

    if any(keeps_low(x) for x in legal):
        assert keeps_low(a), (a, legal)


POINTS = {"three_handed": {"T", "L", "F", "E"}, "four_handed": {"L", "F"}, "twenty_two": {"X", "L", "F"}}
CHECKS = {"three_handed": check_three_handed, "four_handed": check_four_handed, "twenty_two": check_twenty_two}


@pytest.mark.parametrize("game", sorted(CHECKS))
def test_node_bot_reads_each_games_observation_and_answers_legally(game: str) -> None:
    async def main() -> None:
        async with stand() as (servicer, _, address):
            proc = spawn_node(address)
            ctx, hello = await handshake(servicer, game=game)
            assert game in hello.games
            cases = decisions(game, 60, 5)
            assert {o.point for o, _, _ in cases} == POINTS[game]  # every decision point is asked about
            assert game != "three_handed" or any("claim" in legal for _, legal, _ in cases)
            ids = random.Random(2).sample(range(1, 2**40), len(cases))
            for rid, (_, _, req) in zip(ids, cases):
                req.request_id = rid
                await ctx.write(pb.ArenaMessage(request=req))
            pending = {rid: case for rid, case in zip(ids, cases)}
            for _ in cases:
                msg = await asyncio.wait_for(ctx.read(), 10)
                o, legal, _ = pending.pop(msg.reply.request_id)
                a = action_from_pb(msg.reply.action)
                assert a in legal, (a, legal)
                CHECKS[game](o, legal, a)
            await ctx.write(pb.ArenaMessage(goodbye=pb.Goodbye(reason="done")))
            assert await wait_exit(proc) == 0
            assert proc.stderr is not None and b"choose failed" not in proc.stderr.read()  # no fallback to legal[0]

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
    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        node = Entrant("node", f"{NODE} {BOTS / 'node' / 'bot.js'}", arena=arena)
        py = Entrant("py", f"{sys.executable} {SDKBOT}", arena=arena)
        try:
            r = await play_match((node, py), match_id="sch", seed=21, game="schnapsen", rules={"match_target": "4"},
                                 record_dir=tmp_path)
        finally:
            await asyncio.gather(node.stop(), py.stop())
        return r, groups(node, py)

    r, pgids = asyncio.run(with_arena(go))
    assert r.cause is Cause.NORMAL, (r.cause, r.detail)
    assert r.game == "schnapsen" and r.ranks is not None and sorted(r.ranks) == [0, 1]
    assert max(r.scores) >= 4 and r.deals >= 2
    lines = read(r.record)
    assert lines[0]["game"] == "schnapsen"
    assert all(len(d["deck"].split()) == 20 for d in lines if d["type"] == "deal")  # SCH-1: no nines
    assert verify(r.record).ok
    assert survivors(pgids) == []
