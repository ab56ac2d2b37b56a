"""The Python SDK's request-to-reply and bot CPU: the shipped grpc.aio client against a sync-gRPC one.

    python benchmarks/bench_sdk.py [--rounds 5] [--requests 1500] [--unix | --tcp]

A bare grpc.aio server (raw bytes, like bench_match.py's floor) accepts one bot, sends it a MatchStart
and then real Sixty-Six DecisionRequests one at a time (taken from a sample match), each answered by
the bot's ``act`` (the first legal action). Per decision it reports the request-to-reply time seen
at the server (median and p99), and the bot process's CPU (user + system from /proc, all its threads).

The clients: ``loop`` and ``pool`` are :class:`harness.sdk.client.Connection` as shipped (grpc.aio on
the event loop of harness.eventloop: uvloop where installed), with ``max_concurrent`` 1 (``act`` on the
loop) and 4 (``act`` on a pool of threads). ``sync`` is the SDK's earlier client, kept here as the
reference (:class:`SyncConnection`): the main thread reads the stream with sync gRPC, a thread pool runs
``act``, gRPC's request iterator writes the replies. Rounds alternate the clients, and the medians of
rounds are reported with the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import queue
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import harness  # noqa: E402,F401  (before grpc: it sets gRPC's fork handling, see harness/__init__.py)
import grpc  # noqa: E402

from harness import eventloop  # noqa: E402
from harness.arena.process import BotProcess  # noqa: E402
from harness.games.sixtysix.match import match_apply, start_match  # noqa: E402
from harness.games.sixtysix.observe import observe  # noqa: E402
from harness.sdk.client import Connection  # noqa: E402
from harness.wire import arena_pb2 as pb  # noqa: E402
from harness.wire import arena_pb2_grpc as pb_grpc  # noqa: E402
from harness.wire import notices  # noqa: E402
from harness.wire.convert import encode_request, hello, wrap_request  # noqa: E402

MATCH_ID = "m0123456789abcdef"
KINDS = ("loop", "pool", "sync")


class First:
    """The cheapest bot: the first legal action."""

    games = ("sixtysix",)

    def act(self, obs: Any) -> str:
        return str(obs.legal[0])


class SyncConnection(Connection):
    """The SDK's client before issue 18's change, for comparison: sync gRPC, the main thread reads, a
    thread pool runs ``act``, gRPC's request-iterator thread writes (no signals, no TLS: a benchmark)."""

    def serve(self, connect_timeout: float) -> int:
        out: queue.Queue[pb.BotMessage | None] = queue.Queue()
        self.outbox = out  # type: ignore[assignment]  # _post calls put() from a pool thread

        def outgoing() -> Iterator[pb.BotMessage]:
            while (msg := out.get()) is not None:
                yield msg

        channel = grpc.insecure_channel(self.address)
        grpc.channel_ready_future(channel).result(timeout=connect_timeout)
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="act")
        out.put(hello(self.name, self.version, self.token, self.workers, self.games))
        call = pb_grpc.BotArenaStub(channel).Play(outgoing())
        try:
            for msg in call:
                kind = msg.WhichOneof("kind")
                if kind == "request":
                    pool.submit(self._post, msg.request, time.monotonic())
                elif kind == "goodbye":
                    return 0
                elif kind != "welcome":
                    self._notice(kind, getattr(msg, kind))
        except grpc.RpcError:
            pass
        finally:
            self.stopping.set()
            out.put(None)
            pool.shutdown(wait=True, cancel_futures=True)
            call.cancel()
            channel.close()
        return 0


def run_bot(kind: str) -> int:
    cls = SyncConnection if kind == "sync" else Connection
    conn = cls(First(), os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"], "bench", "1",
               1 if kind == "loop" else 4, games=("sixtysix",))
    return conn.serve(10.0)


def sample_requests(n: int) -> list[bytes]:
    """``n`` DecisionRequest bodies (no request id) from sample Sixty-Six matches."""
    out: list[bytes] = []
    seed = 0
    while len(out) < n:
        seed += 1
        m = start_match(seed)
        while not m.over and len(out) < n:
            obs = observe(m.state, m.state.to_act)
            out.append(encode_request(MATCH_ID, m.deal_no, len(out) + 1, obs, 1000, 10000))
            m = match_apply(m, sorted(obs.legal)[len(out) % len(obs.legal)])
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def bench(kind: str, requests: list[bytes], unix: bool) -> dict[str, Any]:
    got: asyncio.Queue[Any] = asyncio.Queue()
    done = asyncio.Event()

    async def handler(request_iterator: Any, context: Any) -> None:
        await context.read()  # Hello
        await context.write(pb.ArenaMessage(welcome=pb.Welcome(session_id="s", protocol_version=2)).SerializeToString())
        await context.write(notices.match_start(MATCH_ID, "sixtysix", 0, ("a", "b"), (0, 1), {}, 1000, 10000))
        await got.put(context)
        await done.wait()
        await context.write(pb.ArenaMessage(goodbye=pb.Goodbye(reason="done")).SerializeToString())

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "arena.v1.BotArena", {"Play": grpc.stream_stream_rpc_method_handler(handler)}),))
    with tempfile.TemporaryDirectory(prefix="bench-sdk-") as tmp:
        address = f"unix:{tmp}/s.sock" if unix else f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
        if unix:
            server.add_insecure_port(address)
        await server.start()
        proc = BotProcess(f"python {Path(__file__).resolve()} --bot {kind}", {"ARENA_ADDRESS": address, "ARENA_TOKEN": "t"})
        await proc.start()
        ctx = await asyncio.wait_for(got.get(), 20)
        assert proc.pid is not None
        times = []
        for i, body in enumerate(requests):
            if i == 200:  # after a warm-up
                cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
            sent = time.perf_counter()
            await ctx.write(wrap_request(i + 1, body))
            answer = pb.BotMessage.FromString(await ctx.read())
            times.append(time.perf_counter() - sent)
            assert answer.reply.request_id == i + 1, answer
        n = len(requests) - 200
        cpu, wall = cpu_seconds(proc.pid) - cpu0, time.perf_counter() - t0
        done.set()
        await proc.wait_exit(5.0)
        await proc.stop(1.0)
        await server.stop(0.2)
    kept = sorted(times[200:])
    return {"median": statistics.median(kept) * 1e6, "p99": kept[max(0, math.ceil(len(kept) * 0.99) - 1)] * 1e6,
            "cpu": cpu / n * 1e6, "wall": wall / n * 1e6}


async def main(args: argparse.Namespace) -> None:
    requests = sample_requests(args.requests + 200)
    print(f"{args.rounds} alternating rounds of {args.requests} requests over {'TCP' if args.tcp else 'a unix socket'}; "
          f"the SDK's event loop: {'uvloop' if eventloop.factory() else 'asyncio'}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start")
    rows: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for k in range(args.rounds):
        for kind in KINDS if k % 2 == 0 else KINDS[::-1]:
            r = await bench(kind, requests[: args.requests + 200], unix=not args.tcp)
            rows[kind].append(r)
            print(f"  round {k + 1} {kind:4}: request-to-reply median {r['median']:.0f} µs, p99 {r['p99']:.0f} µs, "
                  f"bot CPU {r['cpu']:.0f} µs/decision")
    for kind, rs in rows.items():
        med = {key: statistics.median(r[key] for r in rs) for key in rs[0]}
        print(f"{kind:4}: request-to-reply median {med['median']:.0f} µs (p99 {med['p99']:.0f}), "
              f"{med['wall']:.0f} µs per decision, bot CPU {med['cpu']:.0f} µs/decision (medians of rounds)")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--bot":
        raise SystemExit(run_bot(sys.argv[2]))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=5, help="rounds, each running both clients (default 5)")
    p.add_argument("--requests", type=int, default=1500, help="requests per client per round (default 1500)")
    p.add_argument("--tcp", action="store_true", help="connect over TCP (default: a unix socket)")
    asyncio.run(main(p.parse_args()))
