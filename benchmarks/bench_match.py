"""Arena throughput against the transport floor, and timeout overshoot.

    python benchmarks/bench_match.py [--rounds 3] [--matches 10] [--pings 1500] [--bot CMD] [--timeouts 30]

1. Random-vs-random matches over gRPC with real bot processes (two processes, reused across
   matches, matches played one after another): decisions/s, matches/s, µs per decision, and the
   arena process's CPU per decision.
2. The floor: a bare bidi-stream ping-pong on the same server stack (raw bytes, no reader task,
   no game) alternating between two client processes, with messages of the same sizes as a real
   DecisionRequest and Reply.
3. Timeout overshoot: Session.decide against a bot that sleeps past the limit; overshoot is the
   time the arena saw the timeout minus the limit (median/max).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from harness.arena import Arena, Clock, Entrant, play_match  # noqa: E402
from harness.arena.process import BotProcess  # noqa: E402
from harness.arena.record import read  # noqa: E402
from harness.games.sixtysix.match import match_apply, start_match  # noqa: E402
from harness.games.sixtysix.observe import observe  # noqa: E402
from harness.games.sixtysix.options import Rules  # noqa: E402
from harness.wire import arena_pb2 as pb  # noqa: E402
from harness.wire.convert import request_to_pb, reply  # noqa: E402

TESTBOT = f"python {ROOT / 'tests' / 'bots' / 'testbot.py'}"
METHOD = "/arena.v1.BotArena/Play"


def echo_bot(reply_size: int) -> None:
    """Floor client: say a token, then answer every message with ``reply_size`` bytes, decoding nothing."""
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    call = channel.stream_stream(METHOD, request_serializer=None, response_deserializer=None)
    import queue

    q: queue.Queue[bytes | None] = queue.Queue()
    q.put(os.environ["ARENA_TOKEN"].encode())
    answer = b"x" * reply_size

    def gen():
        while (item := q.get()) is not None:
            yield item

    try:
        for msg in call(gen()):
            if msg == b"bye":
                break
            q.put(answer)
    except grpc.RpcError:
        pass
    q.put(None)


def typical_sizes() -> tuple[int, int]:
    """Mean encoded sizes of a DecisionRequest (in its envelope) and a Reply over a sample match."""
    m = start_match(1)
    req_sizes, rep_sizes = [], []
    n = 0
    while not m.over and n < 200:
        obs = observe(m.state, m.state.to_act)
        n += 1
        msg = pb.ArenaMessage(request=request_to_pb(n, "m-0001", m.deal_no, n, obs, 1000, 10000))
        req_sizes.append(len(msg.SerializeToString()))
        action = sorted(obs.legal)[n % len(obs.legal)]
        rep_sizes.append(len(reply(n, action).SerializeToString()))
        m = match_apply(m, action)
    return round(statistics.mean(req_sizes)), round(statistics.mean(rep_sizes))


async def bench_matches(n: int, bot: str, first_seed: int, out: Path) -> dict[str, float]:
    """``n`` matches on one pair of bot processes; ``waited`` is the time spent waiting for replies
    (the ``ms`` of every action in the records), the rest of ``wall`` is the arena's own work."""
    arena = Arena()
    await arena.start()
    a, b = Entrant("a", bot, arena=arena), Entrant("b", bot, arena=arena)
    await asyncio.gather(a.ensure(), b.ensure())
    decisions = 0
    await play_match((a, b), match_id="warm", seed=10_000, rules=Rules())  # warm-up
    cpu0, t0 = time.process_time(), time.perf_counter()
    for i in range(first_seed, first_seed + n):
        r = await play_match((a, b), match_id=f"bench-{i}", seed=i, rules=Rules(), record_dir=out)
        assert r.cause.value == "normal", r
        decisions += r.decisions
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    await asyncio.gather(a.stop(), b.stop())
    await arena.stop()
    waited = sum(ms for i in range(first_seed, first_seed + n) for d in read(out / f"bench-{i}.jsonl")
                 if d["type"] == "deal" for ms in d["ms"]) / 1000
    return {"decisions": decisions, "wall": wall, "cpu": cpu, "matches": n, "waited": waited}


async def bench_floor(pings: int, req_size: int, rep_size: int) -> dict[str, float]:
    contexts: dict[str, object] = {}
    ready = asyncio.Event()
    done = asyncio.Event()

    async def handler(request_iterator, context):
        token = (await context.read()).decode()
        contexts[token] = context
        if len(contexts) == 2:
            ready.set()
        await done.wait()
        await context.write(b"bye")

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "arena.v1.BotArena", {"Play": grpc.stream_stream_rpc_method_handler(handler)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    procs = [BotProcess(f"python {Path(__file__).resolve()} --echo-bot {rep_size}",
                        {"ARENA_ADDRESS": f"127.0.0.1:{port}", "ARENA_TOKEN": t}) for t in ("p0", "p1")]
    for p in procs:
        await p.start()
    await asyncio.wait_for(ready.wait(), 20)
    ctx = [contexts["p0"], contexts["p1"]]
    payload = b"r" * req_size
    for i in range(200):  # warm-up
        await ctx[i % 2].write(payload)
        await ctx[i % 2].read()
    cpu0, t0 = time.process_time(), time.perf_counter()
    for i in range(pings):
        c = ctx[i % 2]
        await c.write(payload)
        await c.read()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    done.set()
    await asyncio.sleep(0.05)
    for p in procs:
        await p.stop(1.0)
    await server.stop(0.2)
    return {"decisions": pings, "wall": wall, "cpu": cpu}


async def bench_overshoot(n: int, limit_ms: int) -> list[float]:
    arena = Arena()
    await arena.start()
    e = Entrant("sleeper", f"{TESTBOT} sleep {limit_ms / 1000 * 1.5:.3f}", arena=arena)
    session = await e.ensure()
    m = start_match(3)
    obs = observe(m.state, m.state.to_act)
    over = []
    for i in range(n):
        body = request_to_pb(0, "timeouts", 1, i + 1, obs, limit_ms, 0).SerializeToString()
        result, took = await session.decide(body, limit_ms / 1000)
        assert getattr(result, "cause", None) is not None and result.cause.value == "timeout", result
        over.append((took - limit_ms / 1000) * 1000)
        await asyncio.sleep(limit_ms * 0.6 / 1000)  # let the late reply arrive and be dropped
    await e.stop()
    await arena.stop()
    return over


async def main(args: argparse.Namespace) -> None:
    req_size, rep_size = typical_sizes()
    print(f"typical message sizes: request {req_size} B, reply {rep_size} B; bot: {args.bot}")
    print(f"{args.rounds} interleaved rounds of {args.matches} matches and {args.pings} ping-pongs; medians of rounds")
    per, own, rtt, floor, mps, dps = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.rounds):
            mt = await bench_matches(args.matches, args.bot, k * args.matches, Path(tmp))
            fl = await bench_floor(args.pings, req_size, rep_size)
            n = mt["decisions"]
            per.append(mt["wall"] / n * 1e6)
            own.append((mt["wall"] - mt["waited"]) / n * 1e6)
            rtt.append(mt["waited"] / n * 1e6)
            floor.append(fl["wall"] / fl["decisions"] * 1e6)
            mps.append(mt["matches"] / mt["wall"])
            dps.append(n / mt["wall"])
            print(f"  round {k + 1}: {n} decisions, {per[-1]:.0f} µs/decision (arena's own work {own[-1]:.0f} µs, "
                  f"waiting for the bot {rtt[-1]:.0f} µs, arena CPU {mt['cpu'] / n * 1e6:.0f} µs); "
                  f"floor {floor[-1]:.0f} µs (server CPU {fl['cpu'] / fl['decisions'] * 1e6:.0f} µs)")
    med = statistics.median
    print(f"arena:  {med(dps):.0f} decisions/s, {med(mps):.1f} matches/s, {med(per):.0f} µs/decision "
          f"= {med(own):.0f} µs arena work + {med(rtt):.0f} µs request-to-reply")
    print(f"floor:  {1e6 / med(floor):.0f} ping-pongs/s, {med(floor):.0f} µs each")
    print(f"ratio:  arena / floor = {med(per) / med(floor):.2f}x per decision (target <= 1.3x); "
          f"request-to-reply / floor = {med(rtt) / med(floor):.2f}x")
    over = await bench_overshoot(args.timeouts, args.limit_ms)
    print(f"timeout overshoot over {len(over)} timeouts at {args.limit_ms} ms: median {statistics.median(over):.2f} ms, "
          f"max {max(over):.2f} ms (target < 5 ms)")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--echo-bot":
        echo_bot(int(sys.argv[2]))
        raise SystemExit(0)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--matches", type=int, default=10, help="matches per round")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--bot", default=f"{TESTBOT} random", help="bot command for both players")
    p.add_argument("--pings", type=int, default=1500, help="ping-pongs per round")
    p.add_argument("--timeouts", type=int, default=30)
    p.add_argument("--limit-ms", type=int, default=50)
    asyncio.run(main(p.parse_args()))
