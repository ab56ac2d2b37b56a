"""League server load: N remote bots from one client process against a real `arena league serve`.

    python benchmarks/bench_league.py [--bots 25,50,100,200] [--seconds 30] [--round-every 0.1]
                                      [--profile FILE.prof] [--server-root DIR]

For each N: a league server process on a free loopback port with a fresh SQLite file, N entrants
registered through LeagueService, and N bot streams opened from this one process (grpc.aio, one
channel and connection per bot, raw bytes, a random legal action per request: the league protocol
of proto/arena/v1 as any remote bot speaks it). After a warm-up the benchmark measures for
``--seconds`` and prints N, matches/s, decisions/s, forfeits, the leaderboard's latency (GetLeaderboard
every ``--board-every`` s during the run, p50/p99), the server's CPU (its process CPU time over wall
time; 100% is one core saturated) and its CPU per decision, the same two for its leaderboard worker
process, this client's own CPU, the mean round length and the load averages.

``--round-every`` is the league's round interval; the default (0.1 s) keeps rounds back to back, so
the server is as busy as its bots allow. ``--round-every 5`` shows how many bots a 5 s round holds:
the rounds column then says how long rounds took (a round that takes longer than the interval starts
the next one late). ``--server-root`` runs the server from another checkout (before/after runs);
``--profile`` runs it under cProfile (the last N's profile is kept).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from harness.wire import arena_pb2 as pb  # noqa: E402
from harness.wire import league_pb2 as lpb  # noqa: E402
from harness.wire import league_pb2_grpc as lpb_grpc  # noqa: E402

PLAY = "/arena.v1.BotArena/Play"
PROTOCOL_VERSION = 2
TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (and its reaped children), from /proc."""
    return sum(int(x) for x in _stat(pid)[11:15]) / TICKS  # utime stime cutime cstime


def children_cpu(pid: int) -> float:
    """CPU time of the live children of ``pid`` (the league's leaderboard worker)."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = _stat(int(entry))
            except OSError:
                continue
            if int(fields[1]) == pid:
                total += cpu_seconds(int(entry))
    return total


class Server:
    """`python -m harness.cli league serve` on 127.0.0.1:0; its output is collected by a thread."""

    def __init__(self, tmp: Path, args: argparse.Namespace, profile: str | None) -> None:
        root = Path(args.server_root or ROOT).resolve()
        pre = [sys.executable] + (["-m", "cProfile", "-o", profile] if profile else [])
        argv = pre + ["-m", "harness.cli", "league", "serve", "--listen", "127.0.0.1:0", "--db", str(tmp / "league.db"),
                      "--out", str(tmp / "out"), "--round-every", str(args.round_every), "--game", args.game,
                      "--move-time", str(args.move_time), "--time-bank", "10", "--reconnect-grace", "5",
                      "--stop-grace", "5", "--pair-cap-per-day", "1000000", "--register-rate", "1000000",
                      "--connect-rate", "1000000"]
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONUNBUFFERED": "1"}
        self.p = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, start_new_session=True)
        self.lines: list[str] = []
        self._got = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()
        end = time.monotonic() + 60
        while not any("listening on" in ln for ln in self.lines):
            if self.p.poll() is not None or time.monotonic() > end:
                raise SystemExit("the league server did not start:\n" + "\n".join(self.lines[-20:]))
            self._got.wait(0.1)
            self._got.clear()
        line = next(ln for ln in self.lines if "listening on" in ln)
        self.address = line.split("listening on ")[1].split()[0]

    def _pump(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.lines.append(line.rstrip("\n"))
            self._got.set()

    def stop(self) -> int:
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGTERM)
        try:
            return self.p.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            return self.p.wait(10)


class Tally:
    """What the bots saw: decisions answered, matches ended (by wire match id), forfeits."""

    def __init__(self) -> None:
        self.decisions = 0
        self.ended: dict[str, int] = {}  # wire match id -> termination
        self.goodbyes = 0
        self.errors: list[str] = []

    def snapshot(self) -> tuple[int, int, int]:
        forfeits = sum(1 for t in self.ended.values() if t != pb.TERMINATION_NORMAL)
        return self.decisions, len(self.ended), forfeits


async def bot(address: str, token: str, game: str, tally: Tally, rng: random.Random, ready: asyncio.Event,
              stop: asyncio.Event) -> None:
    """One remote bot: Hello with the token, then a random legal action for every request."""
    channel = grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
    call = channel.stream_stream(PLAY, request_serializer=None, response_deserializer=None)()
    hello = pb.BotMessage(hello=pb.Hello(name="bench", version="1", protocol_version=PROTOCOL_VERSION, games=[game],
                                         max_concurrent=1, token=token))
    from_bytes = pb.ArenaMessage.FromString
    BotMessage, Reply = pb.BotMessage, pb.Reply
    normal = pb.TERMINATION_NORMAL
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await call.write(hello.SerializeToString())
        while True:
            data = await call.read()
            if data is grpc.aio.EOF:
                break
            msg = from_bytes(data)
            kind = msg.WhichOneof("kind")
            if kind == "request":
                req = msg.request
                legal = req.legal
                out = BotMessage(reply=Reply(request_id=req.request_id, action=legal[rng.randrange(len(legal))]))
                await call.write(out.SerializeToString())
                tally.decisions += 1
            elif kind == "match_end":
                end = msg.match_end
                if end.termination != normal or end.match_id not in tally.ended:
                    tally.ended[end.match_id] = end.termination
            elif kind == "welcome":
                ready.set()
            elif kind == "goodbye":
                tally.goodbyes += 1
                break
            if stopping.done():
                break
    except grpc.aio.AioRpcError as e:
        if not stop.is_set():
            tally.errors.append(f"{e.code().name}: {e.details()}")
    finally:
        stopping.cancel()
        call.cancel()
        await channel.close()


async def run_one(n: int, args: argparse.Namespace, profile: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-league-") as tmp:
        server = Server(Path(tmp), args, profile)
        try:
            return await _measure(server, n, args)
        finally:
            code = server.stop()
            if code != 0:
                print(f"  server exit status {code}:\n" + "\n".join(server.lines[-10:]), file=sys.stderr)


async def _measure(server: Server, n: int, args: argparse.Namespace) -> dict[str, Any]:
    channel = grpc.aio.insecure_channel(server.address)
    stub = lpb_grpc.LeagueServiceStub(channel)
    first = await stub.Register(lpb.RegisterRequest(name="bot0", owner="bench"), timeout=30)
    tokens = [first.token]
    for i in range(1, n):
        r = await stub.Register(lpb.RegisterRequest(name=f"bot{i}", owner="bench", owner_secret=first.owner_secret),
                                timeout=30)
        tokens.append(r.token)
    tally = Tally()
    stop = asyncio.Event()
    readies = [asyncio.Event() for _ in tokens]
    rng = random.Random(args.seed)
    bots = [asyncio.ensure_future(bot(server.address, t, args.game, tally, random.Random(rng.random()), ready, stop))
            for t, ready in zip(tokens, readies)]
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 60)
    await asyncio.sleep(args.warmup)

    latencies: list[float] = []
    rounds: list[int] = []

    async def boards() -> None:
        while not stop.is_set():
            t = time.perf_counter()
            b = await stub.GetLeaderboard(lpb.GetLeaderboardRequest(), timeout=30)
            latencies.append(time.perf_counter() - t)
            rounds.append(b.rounds)
            try:
                await asyncio.wait_for(stop.wait(), args.board_every)
            except TimeoutError:
                pass

    b0 = await stub.GetLeaderboard(lpb.GetLeaderboardRequest(), timeout=30)
    d0, m0, f0 = tally.snapshot()
    cpu0, kids0, mine0, t0 = cpu_seconds(server.p.pid), children_cpu(server.p.pid), _own_cpu(), time.monotonic()
    watcher = asyncio.ensure_future(boards())
    await asyncio.sleep(args.seconds)
    d1, m1, f1 = tally.snapshot()
    cpu1, kids1, mine1, t1 = cpu_seconds(server.p.pid), children_cpu(server.p.pid), _own_cpu(), time.monotonic()
    stop.set()
    await watcher
    b1 = await stub.GetLeaderboard(lpb.GetLeaderboardRequest(), timeout=30)
    await asyncio.wait(bots, timeout=10)
    for t in bots:
        t.cancel()
    await channel.close()
    wall = t1 - t0
    lat = sorted(latencies)
    played_rounds = b1.rounds - b0.rounds
    return {"n": n, "matches_s": (m1 - m0) / wall, "decisions_s": (d1 - d0) / wall, "forfeits": f1 - f0,
            "lat_p50_ms": 1000 * lat[len(lat) // 2] if lat else float("nan"),
            "lat_p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else float("nan"),
            "server_cpu": (cpu1 - cpu0) / wall, "worker_cpu": (kids1 - kids0) / wall,
            "client_cpu": (mine1 - mine0) / wall,
            "round_s": wall / played_rounds if played_rounds else float("nan"), "rounds": played_rounds,
            "errors": tally.errors[:3], "load": os.getloadavg()}


def _us(cpu: float, r: dict[str, Any]) -> str:
    """CPU microseconds per decision."""
    return f"{1e6 * cpu / r['decisions_s']:.0f}" if r["decisions_s"] else "-"


def _own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bots", default="25,50,100,200", help="comma-separated numbers of bots (default 25,50,100,200)")
    ap.add_argument("--seconds", type=float, default=30.0, help="measured seconds per N (default 30)")
    ap.add_argument("--warmup", type=float, default=3.0, help="seconds played before measuring (default 3)")
    ap.add_argument("--round-every", type=float, default=0.1, help="the league's round interval (default 0.1)")
    ap.add_argument("--board-every", type=float, default=0.5,
                    help="seconds between leaderboard fetches during the run (default 0.5)")
    ap.add_argument("--move-time", type=float, default=1.0, help="the league's move limit in seconds (default 1)")
    ap.add_argument("--game", default="sixtysix", help="the league's game (default sixtysix)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the bots' random choices (default 1)")
    ap.add_argument("--server-root", default=None,
                    help="run the server from this checkout (default: this one)")
    ap.add_argument("--profile", default=None, metavar="FILE",
                    help="run the server under cProfile and write its stats here (default: no profile)")
    args = ap.parse_args()
    try:
        counts = [int(x) for x in args.bots.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--bots must be comma-separated integers, not {args.bots!r}")
    if not counts or min(counts) < 2:
        ap.error("--bots needs numbers of at least 2")
    print(f"league load: {args.game}, rounds every {args.round_every:g} s, {args.seconds:g} s measured per N "
          f"after {args.warmup:g} s; server from {args.server_root or ROOT}")
    print(f"{'N':>5} {'matches/s':>10} {'decisions/s':>12} {'forfeits':>9} {'board p50':>10} {'board p99':>10} "
          f"{'server CPU':>11} {'µs/dec':>7} {'worker CPU':>11} {'µs/dec':>7} {'client CPU':>11} {'round s':>8}"
          "   load avg")
    for n in counts:
        r = asyncio.run(run_one(n, args, args.profile))
        print(f"{r['n']:>5} {r['matches_s']:>10.2f} {r['decisions_s']:>12.0f} {r['forfeits']:>9} "
              f"{r['lat_p50_ms']:>8.1f}ms {r['lat_p99_ms']:>8.1f}ms "
              f"{100 * r['server_cpu']:>10.0f}% {_us(r['server_cpu'], r):>7} "
              f"{100 * r['worker_cpu']:>10.0f}% {_us(r['worker_cpu'], r):>7} "
              f"{100 * r['client_cpu']:>10.0f}% {r['round_s']:>8.2f}   "
              + " ".join(f"{x:.2f}" for x in r["load"]), flush=True)
        for e in r["errors"]:
            print(f"      bot error: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
