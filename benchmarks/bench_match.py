"""Arena throughput and CPU against the transport floor, and timeout overshoot.

    python benchmarks/bench_match.py [--rounds 5] [--matches 10] [--pings 1500] [--bot CMD] [--timeouts 100]
                                     [--breakdown]

1. Random-vs-random matches over gRPC with real bot processes (two processes, reused across
   matches, matches played one after another; spawned bots dial the arena's unix socket): decisions/s,
   matches/s, wall µs per decision, and the arena process's CPU per decision (all threads, and its
   main thread alone), split by thread: main, gRPC's poller, gRPC's event engine, the asyncio pool
   (where the limits' watchdog scans), and threads that ended within the window (read from /proc).
2. The floor: a bare bidi-stream ping-pong on the same server stack (raw bytes, no reader task,
   no game) alternating between two client processes, with messages of the same sizes as a real
   DecisionRequest and Reply, over a unix socket and over TCP: wall µs and server CPU µs per ping-pong
   (split by thread as well).
   The arena is compared with the floor over the transport its spawned bots use (unix).
3. The session floor: the arena's own server and Session (reader loop, per-request futures, the deadline
   timer, the ordered writer, reply parsing and routing) with no game: one typical request decided
   again and again by two minimal bots on the floor's sync stack that answer each with its id; then
   again with small notices posted at the match loop's rate (counted from the records); then again with
   the match loop's Python work for the decisions of real Sixty-Six matches redone around each one
   (turn, encode, check, apply, record), next to what that work costs in a tight loop. The layers line
   splits the arena's CPU per decision into floor + Session + notices + game work + the rest.
4. Timeout overshoot: Session.decide against a bot that sleeps past the limit; overshoot is the
   time the arena saw the timeout minus the limit (median, p99, max; target p99 < 5 ms).

Rounds alternate arena / unix floor / TCP floor / the three session stages, and the medians of rounds are reported with the
load average (the machine is shared). ``--breakdown`` adds where the arena's per-decision Python
work goes, per game, measured in process without gRPC (observe+legal, encode, parse, check, apply,
record), with perf counters.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import harness  # noqa: E402,F401  (before grpc: it sets gRPC's fork handling, see harness/__init__.py)
import grpc  # noqa: E402

from harness import eventloop  # noqa: E402
from harness.arena import Arena, Clock, Entrant, play_match  # noqa: E402
from harness.arena.process import BotProcess  # noqa: E402
from harness.arena.record import read  # noqa: E402
from harness.arena.result import Fault  # noqa: E402
from harness.arena.server import PROTOCOL_VERSION, Session  # noqa: E402
from harness.games.sixtysix.match import match_apply, start_match  # noqa: E402
from harness.games.sixtysix.observe import observe  # noqa: E402
from harness.games.sixtysix.options import Rules  # noqa: E402
from harness.wire import arena_pb2 as pb  # noqa: E402
from harness.wire.convert import request_to_pb, reply  # noqa: E402

TESTBOT = f"python {ROOT / 'tests' / 'bots' / 'testbot.py'}"
METHOD = "/arena.v1.BotArena/Play"


class End:
    """What a :func:`sync_client` answer returns to end the stream."""


def sync_client(first: bytes, answer: Callable[[bytes], bytes | None | type[End]]) -> None:
    """A floor client on gRPC's sync stack (no SDK): send ``first``, then what ``answer`` makes of each
    message from the arena (None: nothing; End: close the stream)."""
    import queue

    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    call = channel.stream_stream(METHOD, request_serializer=None, response_deserializer=None)
    q: queue.Queue[bytes | None] = queue.Queue()
    q.put(first)

    def gen() -> Iterator[bytes]:
        while (item := q.get()) is not None:
            yield item

    try:
        for msg in call(gen()):
            out = answer(msg)
            if out is End:
                break
            if isinstance(out, bytes):
                q.put(out)
    except grpc.RpcError:
        pass
    q.put(None)


def echo_bot(reply_size: int) -> None:
    """Floor client: say a token, then answer every message with ``reply_size`` bytes, decoding nothing."""
    reply_bytes = b"x" * reply_size
    sync_client(os.environ["ARENA_TOKEN"].encode(), lambda msg: End if msg == b"bye" else reply_bytes)


def session_bot() -> None:
    """Session floor client: a proper Hello, then to every request a Reply with its id and one
    action (the arena's Session does not judge actions), on the same sync stack as :func:`echo_bot`
    (no SDK, no game)."""
    m = start_match(1)
    action = sorted(observe(m.state, m.state.to_act).legal)[0]

    def answer(data: bytes) -> bytes | None | type[End]:
        msg = pb.ArenaMessage.FromString(data)
        kind = msg.WhichOneof("kind")
        if kind == "goodbye":
            return End
        if kind == "request":  # the Welcome needs no answer
            return reply(msg.request.request_id, action).SerializeToString()
        return None

    hello = pb.Hello(name="session-floor", version="0", protocol_version=PROTOCOL_VERSION, games=["sixtysix"],
                     token=os.environ["ARENA_TOKEN"])
    sync_client(pb.BotMessage(hello=hello).SerializeToString(), answer)


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
    threads0 = thread_cpu()
    cpu0, th0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
    for i in range(first_seed, first_seed + n):
        r = await play_match((a, b), match_id=f"bench-{i}", seed=i, rules=Rules(), record_dir=out)
        assert r.cause.value == "normal", r
        decisions += r.decisions
    wall, cpu, main = time.perf_counter() - t0, time.process_time() - cpu0, time.thread_time() - th0
    threads = threads_used(threads0, cpu)
    await asyncio.gather(a.stop(), b.stop())
    await arena.stop()
    deals = [d for i in range(first_seed, first_seed + n) for d in read(out / f"bench-{i}.jsonl") if d["type"] == "deal"]
    waited = sum(ms for d in deals for ms in d["ms"]) / 1000
    notices = 2 * (2 * n + 2 * len(deals))  # to each of the two bots: MatchStart, MatchEnd, and DealStart, DealEnd per deal
    return {"decisions": decisions, "wall": wall, "cpu": cpu, "main": main, "matches": n, "waited": waited,
            "notices": notices, **threads}


THREADS = {"MainThread": "main", "Thread (_poll_wrapper)": "gRPC poller", "event_engine": "gRPC event engine",
           "asyncio": "asyncio pool (watchdog scans)"}


def threads_used(before: dict[int, tuple[str, float]], cpu: float) -> dict[str, float]:
    """CPU seconds per kind of thread since ``before`` (:func:`thread_cpu`), as ``thread <label>`` keys;
    ``thread ended`` is the process's ``cpu`` less the threads still alive (threads that ended in the
    window: gRPC's event engine starts and ends its own). Empty where /proc is not there."""
    after = thread_cpu()
    if not after:
        return {}
    out: dict[str, float] = {}
    for tid, (name, used) in after.items():
        label = "thread " + THREADS.get(name, "other")
        out[label] = out.get(label, 0.0) + used - before.get(tid, (name, 0.0))[1]
    out["thread ended"] = max(0.0, cpu - sum(out.values()))
    return out


def thread_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds of each live thread of this process by thread id (from /proc: ``schedstat``, in ns,
    else ``stat``, in clock ticks), named by its Python name (a pool's number dropped) or else the
    kernel's; empty where /proc is not there."""
    import re
    import threading

    names = {t.native_id: re.sub(r"_\d+$|-\d+(?= \()|-\d+$", "", t.name) for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    out = {}
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return {}
    for t in tids:
        try:
            with open(f"/proc/self/task/{t}/comm") as f:
                comm = f.read().strip()
            try:
                with open(f"/proc/self/task/{t}/schedstat", "rb") as f:
                    used = int(f.read().split()[0]) / 1e9
            except (OSError, IndexError, ValueError):
                with open(f"/proc/self/task/{t}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                used = (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            continue
        out[int(t)] = (names.get(int(t), comm), used)
    return out


async def bench_floor(pings: int, req_size: int, rep_size: int, unix: bool) -> dict[str, float]:
    contexts: dict[str, Any] = {}
    ready = asyncio.Event()
    done = asyncio.Event()

    async def handler(request_iterator: Any, context: Any) -> None:
        token = (await context.read()).decode()
        contexts[token] = context
        if len(contexts) == 2:
            ready.set()
        await done.wait()
        await context.write(b"bye")

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "arena.v1.BotArena", {"Play": grpc.stream_stream_rpc_method_handler(handler)}),))
    with tempfile.TemporaryDirectory(prefix="floor-") as tmp:
        if unix:
            address = f"unix:{tmp}/floor.sock"
            server.add_insecure_port(address)
        else:
            address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
        return await _floor(server, address, pings, req_size, rep_size, ready, done, contexts)


async def _floor(server: Any, address: str, pings: int, req_size: int, rep_size: int, ready: asyncio.Event,
                 done: asyncio.Event, contexts: dict[str, Any]) -> dict[str, float]:
    await server.start()
    procs = [BotProcess(f"python {Path(__file__).resolve()} --echo-bot {rep_size}",
                        {"ARENA_ADDRESS": address, "ARENA_TOKEN": t}) for t in ("p0", "p1")]
    for p in procs:
        await p.start()
    await asyncio.wait_for(ready.wait(), 20)
    ctx = [contexts["p0"], contexts["p1"]]
    payload = b"r" * req_size
    for i in range(200):  # warm-up
        await ctx[i % 2].write(payload)
        await ctx[i % 2].read()
    threads0 = thread_cpu()
    cpu0, th0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
    for i in range(pings):
        c = ctx[i % 2]
        await c.write(payload)
        await c.read()
    wall, cpu, main = time.perf_counter() - t0, time.process_time() - cpu0, time.thread_time() - th0
    threads = threads_used(threads0, cpu)
    done.set()
    await asyncio.sleep(0.05)
    for p in procs:
        await p.stop(1.0)
    await server.stop(0.2)
    return {"decisions": pings, "wall": wall, "cpu": cpu, "main": main, **threads}


async def bench_session(pings: int, notice_every: int, work: GameWork | None = None) -> dict[str, float]:
    """The arena's own Session (its server, reader loop, per-request futures, deadline timer, ordered
    writer and reply routing) without a game: ``pings`` decisions of one typical request alternating
    between two :func:`session_bot` processes over the unix socket; with ``notice_every`` > 0 a small
    notice (a DealEnd with no deck) is posted before every ``notice_every``-th decision, the way the
    match loop posts its notices: the next decision writes it first. With ``work``, the match loop's
    Python work for a decision of a real match is redone around each decision (:class:`GameWork`):
    what that work costs amid the I/O, against its cost in a tight loop (``--breakdown``)."""
    arena = Arena()
    await arena.start()
    tokens = ("s0", "s1")
    waiters = [arena.expect(t) for t in tokens]
    procs = [BotProcess(f"python {Path(__file__).resolve()} --session-bot", {"ARENA_ADDRESS": arena.local_address or "",
                                                                            "ARENA_TOKEN": t}) for t in tokens]
    for p in procs:
        await p.start()
    sessions: list[Session] = []
    for w in waiters:
        got = await asyncio.wait_for(w, 20)
        if not isinstance(got, Session):
            raise SystemExit(f"bench_match: a session-floor bot did not connect: {got}")
        sessions.append(got)
    m = start_match(1)
    body = request_to_pb(0, "m-0001", 1, 1, observe(m.state, m.state.to_act), 1000, 10000).SerializeToString()
    notice = pb.ArenaMessage(deal_end=pb.DealEnd(match_id="m-0001", deal_no=1)).SerializeToString()

    async def run(n: int) -> None:
        for i in range(n):
            s = sessions[i % 2]
            if notice_every and i % notice_every == 0:
                s.post(notice)
            if work is not None:
                work.before(i)
            result, _ = await s.decide(body, 5.0)
            assert not isinstance(result, Fault), result
            if work is not None:
                work.after(i)

    await run(200)  # warm-up
    threads0 = thread_cpu()
    cpu0, th0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
    await run(pings)
    wall, cpu, main = time.perf_counter() - t0, time.process_time() - cpu0, time.thread_time() - th0
    threads = threads_used(threads0, cpu)
    for x in sessions:
        await x.goodbye(wait_s=1.0)
    for p in procs:
        await p.stop(1.0)
    await arena.stop()
    return {"decisions": pings, "wall": wall, "cpu": cpu, "main": main, **threads}


async def bench_overshoot(n: int, limit_ms: int) -> list[float]:
    """Overshoots in ms of ``n`` timeouts of ``limit_ms`` (the bot answers at 1.5 x the limit)."""
    arena = Arena()
    await arena.start()
    e = Entrant("sleeper", f"{TESTBOT} sleep {limit_ms / 1000 * 1.5:.3f}", arena=arena)
    session = await e.ensure()
    if not isinstance(session, Session):
        raise SystemExit(f"bench_match: the sleeping bot did not connect: {session}")
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


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile (0..1) by the nearest rank.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.99), percentile([5.0], 0.5)
    (4.0, 5.0)
    """
    ordered = sorted(values)
    return ordered[max(0, math.ceil(len(ordered) * q) - 1)]


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


class GameWork:
    """Every decision of ``seeds`` matches of ``game`` played beforehand (random-vs-random by a hash of
    the request), so that the match loop's Python work per decision can be redone on its own: in a
    tight loop (:func:`breakdown`) or around the Session's decisions (:func:`bench_session`)."""

    def __init__(self, game: str, seeds: int = 60) -> None:
        import zlib

        from harness.arena.match import check_reply
        from harness.arena.record import Recorder
        from harness.games.base import turn
        from harness.games.registry import get as get_game
        from harness.wire.codecs import codec

        self.g = g = get_game(game)
        self.c = c = codec(game)
        self.turn, self.check = turn, check_reply
        rules = g.rules()
        # (match, observation, legal, request, reply, action)
        self.seen: list[tuple[Any, Any, Any, bytes, bytes, str]] = []
        for seed in range(seeds):
            m = g.start(seed, rules)
            while (now := turn(g, m)) is not None:
                _, obs, legal = now
                body = c.encode_request("m0123456789abcdef", 1, len(self.seen) + 1, obs, legal, 1000, 10000)
                action = sorted(legal)[zlib.crc32(body) % len(legal)]
                self.seen.append((m, obs, legal, body, reply(len(self.seen) + 1, action).SerializeToString(), action))
                m = g.apply(m, action)
        self.replies = [pb.BotMessage.FromString(d).reply for *_, d, _ in self.seen]
        self.rec = Recorder({})
        self.rec.begin_deal(g.deal(self.seen[0][0]))

    def before(self, k: int) -> None:
        """What the match loop does for decision ``k`` (mod the sample) before it asks: turn, encode."""
        m = self.seen[k % len(self.seen)][0]
        now = self.turn(self.g, m)
        assert now is not None  # every sampled position has a player to act
        _, obs, legal = now
        self.c.encode_request("m0123456789abcdef", 1, k + 1, obs, legal, 1000, 10000)

    def after(self, k: int) -> None:
        """What it does with the reply: parse the action, check it, apply it, record it."""
        m, _, legal, _, _, action = self.seen[k % len(self.seen)]
        self.check(self.replies[k % len(self.seen)], legal)
        done = self.g.deals_done(m)
        self.g.deals_done(self.g.apply(m, action)) > done
        self.rec.action(action, 1.0)

    def tight(self, passes: int = 3) -> float:
        """µs of CPU per decision of :meth:`before` and :meth:`after` over the sample, best of ``passes``."""
        best = math.inf
        for _ in range(passes):
            t0 = time.thread_time()
            for k in range(len(self.seen)):
                self.before(k)
                self.after(k)
            best = min(best, (time.thread_time() - t0) / len(self.seen) * 1e6)
        return best


def breakdown(games: tuple[str, ...], seeds: int = 60) -> None:
    """Where the match loop's Python work per decision goes, without gRPC: each step is timed over
    every decision of ``seeds`` matches in one loop, in CPU time of this thread (robust to other load),
    best of 3."""
    from harness.wire.convert import wrap_request

    print("per-decision Python work of the match loop, in process (µs of CPU; best of 3):")
    print(f"  {'game':13} {'observe+legal':>13} {'encode':>7} {'wrap':>5} {'parse':>6} {'check':>6} {'apply':>6} "
          f"{'record':>7} {'total':>6}")
    for game in games:
        w = GameWork(game, seeds)
        g, c, seen, replies, rec, turn, check_reply = w.g, w.c, w.seen, w.replies, w.rec, w.turn, w.check
        n = len(seen)

        def steps() -> dict[str, float]:
            t = {}
            clock = time.thread_time
            t0 = clock()
            for m, *_ in seen:
                turn(g, m)
            t["turn"] = clock() - t0
            t0 = clock()
            for k, (_, obs, legal, *_) in enumerate(seen):
                c.encode_request("m0123456789abcdef", 1, k + 1, obs, legal, 1000, 10000)
            t["encode"] = clock() - t0
            t0 = clock()
            for k, (_, _, _, body, _, _) in enumerate(seen):
                wrap_request(k + 1, body)
            t["wrap"] = clock() - t0
            t0 = clock()
            for *_, data, _ in seen:
                pb.BotMessage.FromString(data).WhichOneof("kind")
            t["parse"] = clock() - t0
            t0 = clock()
            for r, (_, _, legal, *_) in zip(replies, seen):
                check_reply(r, legal)
            t["check"] = clock() - t0
            t0 = clock()
            for m, *_, action in seen:
                done = g.deals_done(m)
                g.deals_done(g.apply(m, action)) > done
            t["apply"] = clock() - t0
            t0 = clock()
            for *_, action in seen:
                rec.action(action, 1.0)
            t["record"] = clock() - t0
            return {k: v / n * 1e6 for k, v in t.items()}

        passes = [steps() for _ in range(3)]
        best = {k: min(p[k] for p in passes) for k in passes[0]}
        print(f"  {game:13} {best['turn']:13.1f} {best['encode']:7.1f} {best['wrap']:5.1f} {best['parse']:6.1f} "
              f"{best['check']:6.1f} {best['apply']:6.1f} {best['record']:7.1f} {sum(best.values()):6.1f}")


def summary(rows: dict[str, list[float]]) -> None:
    """The medians of rounds, and the ratios to the floor."""
    med = {key: statistics.median(v) for key, v in rows.items()}
    print(f"arena:       {med['dps']:.0f} decisions/s, {med['mps']:.1f} matches/s, {med['wall']:.0f} µs/decision "
          f"= {med['own']:.0f} µs arena work + {med['rtt']:.0f} µs request-to-reply; CPU {med['cpu']:.0f} µs/decision "
          f"(main thread {med['main']:.0f}, other threads {med['cpu'] - med['main']:.0f})")
    for name, label in (("unix", "unix socket"), ("tcp", "TCP")):
        print(f"floor {name + ':':5} {1e6 / med[name + '_wall']:.0f} ping-pongs/s over a {label}, {med[name + '_wall']:.0f} µs "
              f"each; server CPU {med[name + '_cpu']:.0f} µs (main thread {med[name + '_main']:.0f})")
    print(f"session:     {1e6 / med['session_wall']:.0f} decisions/s through the arena's Session with no game, "
          f"{med['session_wall']:.0f} µs each; arena CPU {med['session_cpu']:.0f} µs (main thread {med['session_main']:.0f}); "
          f"with notices at the match loop's rate ({med['notices']:.2f} per decision): "
          f"{med['notices_wall']:.0f} µs, CPU {med['notices_cpu']:.0f} (main thread {med['notices_main']:.0f})")
    for name, prefix in (("arena", ""), ("floor unix", "unix_"), ("session", "session_")):
        parts = [(k[len(prefix) + 7:], v) for k, v in med.items() if k.startswith(prefix + "thread ")
                 and (prefix or not k.startswith(("unix_", "tcp_", "session_", "notices_", "work_")))]
        if parts:
            print(f"CPU by thread, {name + ':':11} " + ", ".join(f"{k} {v:.0f}" for k, v in parts if round(v)) +
                  " µs per decision")
    print(f"ratio:       arena / unix floor: wall {med['wall'] / med['unix_wall']:.2f}x, CPU "
          f"{med['cpu'] / med['unix_cpu']:.2f}x, main-thread CPU {med['main'] / med['unix_main']:.2f}x (target <= 1.3x); "
          f"request-to-reply / floor = {med['rtt'] / med['unix_wall']:.2f}x; TCP floor / unix floor: wall "
          f"{med['tcp_wall'] / med['unix_wall']:.2f}x, CPU {med['tcp_cpu'] / med['unix_cpu']:.2f}x")
    tight = med["tight"]
    amid = med["work_cpu"] - med["session_cpu"]
    print(f"game work:   the match loop's Python work per decision of Sixty-Six (turn, encode, check, apply, record) "
          f"costs {tight:.0f} µs of CPU in a tight loop and {amid:+.0f} µs when redone around each of the Session's "
          f"decisions ({amid / tight:.1f}x its tight-loop cost)")
    print(f"layers:      arena CPU per decision {med['cpu']:.0f} µs = transport floor {med['unix_cpu']:.0f} + the Session "
          f"(reader, futures, deadline, ordered writer, reply parse; no game) {med['session_cpu'] - med['unix_cpu']:+.0f} "
          f"+ the notices' writes {med['notices_cpu'] - med['session_cpu']:+.0f} + the game's work {amid:+.0f} + the rest "
          f"of the match loop {med['cpu'] - med['notices_cpu'] - amid:+.0f}; the Session alone is "
          f"{med['session_cpu'] / med['unix_cpu']:.2f}x the floor's CPU, {med['session_wall'] / med['unix_wall']:.2f}x its wall")


async def main(args: argparse.Namespace) -> None:
    req_size, rep_size = typical_sizes()
    print(f"typical message sizes: request {req_size} B, reply {rep_size} B; bot: {args.bot}; "
          f"event loop: {eventloop.name(asyncio.get_running_loop())}")
    print(f"{args.rounds} interleaved rounds of {args.matches} matches and {args.pings} ping-pongs per floor "
          f"(unix, TCP); medians of rounds; {load()} at the start")
    rows: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        rows.setdefault(key, []).append(value)

    work = GameWork("sixtysix") if args.rounds else None  # the game of the arena's matches
    if work is not None:
        add("tight", work.tight())

    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.rounds):
            mt = await bench_matches(args.matches, args.bot, k * args.matches, Path(tmp))
            fu = await bench_floor(args.pings, req_size, rep_size, unix=True)
            ft = await bench_floor(args.pings, req_size, rep_size, unix=False)
            se = await bench_session(args.pings, 0)
            sn = await bench_session(args.pings, max(1, round(mt["decisions"] / mt["notices"])))
            sw = await bench_session(args.pings, 0, work)
            n = mt["decisions"]
            add("wall", mt["wall"] / n * 1e6)
            add("own", (mt["wall"] - mt["waited"]) / n * 1e6)
            add("rtt", mt["waited"] / n * 1e6)
            add("cpu", mt["cpu"] / n * 1e6)
            add("main", mt["main"] / n * 1e6)
            add("mps", mt["matches"] / mt["wall"])
            add("dps", n / mt["wall"])
            for key, value in mt.items():
                if key.startswith("thread "):
                    add(key, value / n * 1e6)
            add("notices", mt["notices"] / n)
            for name, fl in (("unix", fu), ("tcp", ft), ("session", se), ("notices", sn), ("work", sw)):
                for key, value in fl.items():
                    if key.startswith("thread "):
                        add(f"{name}_{key}", value / fl["decisions"] * 1e6)
                add(f"{name}_wall", fl["wall"] / fl["decisions"] * 1e6)
                add(f"{name}_cpu", fl["cpu"] / fl["decisions"] * 1e6)
                add(f"{name}_main", fl["main"] / fl["decisions"] * 1e6)
            print(f"  round {k + 1}: {n} decisions, {rows['wall'][-1]:.0f} µs/decision (waiting for the bot "
                  f"{rows['rtt'][-1]:.0f} µs), arena CPU {rows['cpu'][-1]:.0f} µs (main thread {rows['main'][-1]:.0f}); "
                  f"floor unix {rows['unix_wall'][-1]:.0f} µs (CPU {rows['unix_cpu'][-1]:.0f}, main "
                  f"{rows['unix_main'][-1]:.0f}), TCP {rows['tcp_wall'][-1]:.0f} µs (CPU {rows['tcp_cpu'][-1]:.0f}, "
                  f"main {rows['tcp_main'][-1]:.0f}), session {rows['session_wall'][-1]:.0f} µs (CPU "
                  f"{rows['session_cpu'][-1]:.0f}, main {rows['session_main'][-1]:.0f}), with notices "
                  f"{rows['notices_wall'][-1]:.0f} µs (CPU {rows['notices_cpu'][-1]:.0f}), with the game's work "
                  f"{rows['work_wall'][-1]:.0f} µs (CPU {rows['work_cpu'][-1]:.0f}); {load()}")
    if args.rounds:
        summary(rows)
    if args.timeouts:
        over = await bench_overshoot(args.timeouts, args.limit_ms)
        print(f"timeout overshoot over {len(over)} timeouts at {args.limit_ms} ms: median {statistics.median(over):.2f} ms, "
              f"p99 {percentile(over, 0.99):.2f} ms, max {max(over):.2f} ms (target p99 < 5 ms); {load()}")
    if args.breakdown:
        breakdown(("sixtysix", "schnapsen", "three_handed", "four_handed", "twenty_two"))


def floor_once(pings: int, start_at: float) -> None:
    """One unix-socket floor of ``pings`` ping-pongs begun at ``start_at`` (time.time()), printed as
    ``decisions wall``: bench_tournament.py runs two at once to measure the machine's two-stream ceiling."""
    req, rep = typical_sizes()
    time.sleep(max(0.0, start_at - time.time()))
    fl = eventloop.run(bench_floor(pings, req, rep, unix=True))
    print(f"{fl['decisions']} {fl['wall']}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--echo-bot":
        echo_bot(int(sys.argv[2]))
        raise SystemExit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--session-bot":
        session_bot()
        raise SystemExit(0)
    if len(sys.argv) > 3 and sys.argv[1] == "--floor-once":
        floor_once(int(sys.argv[2]), float(sys.argv[3]))
        raise SystemExit(0)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--matches", type=int, default=10, help="matches per round (default 10)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5; 0: overshoot only)")
    p.add_argument("--bot", default=f"{TESTBOT} random", help="bot command for both players (default: testbot random)")
    p.add_argument("--pings", type=int, default=1500, help="ping-pongs per floor per round (default 1500)")
    p.add_argument("--timeouts", type=int, default=100, help="timeouts measured for the overshoot (default 100; 0: none)")
    p.add_argument("--limit-ms", type=int, default=50, help="the move limit of those timeouts (default 50)")
    p.add_argument("--breakdown", action="store_true", help="add the in-process breakdown per game (default: off)")
    p.add_argument("--loop", choices=eventloop.CHOICES, default=None,
                   help="the event loop of arena and floor (default: ARENA_EVENT_LOOP, else auto: uvloop when installed)")
    args = p.parse_args()
    eventloop.run(main(args), args.loop)
