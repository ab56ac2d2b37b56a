"""Tournament benchmarks.

1. Throughput: matches/s and decisions/s of a random-bot tournament over real gRPC (4 `random_bot.py`
   processes, the real runner and SQLite store) at concurrency 1 and 2: a two-player (Sixty-Six)
   round robin, and three-handed Sixty-Six tables of 3 of the 4 in every seat rotation (the same
   36 matches). The time is the runner's alone (bots already started).
   ``--workers N`` (issue 18): Sixty-Six at concurrency 2, the in-process runner (``--workers 1``) against N
   worker processes, pinned to their share of the CPUs (the default) and not (``--no-pin``), alternating
   with the bare-stream floor of bench_match.py part 2 ``--repeat`` times;
   prints the medians, the load, and the ceiling 2 x bare decisions/s / decisions per match; and what two
   bare streams give when run at once (two floor processes started together): the transport's own
   ceiling on this machine, since one bare stream with its echo clients already keeps more than a core busy.
2. Sample efficiency: how many matches TrueSkill needs to order four players of known strength
   (random < greedy < search small budget < search large budget) correctly in 19 of 20 seeded
   tournaments, with duplicate scheduling (both legs of a pairing share the seed, and the whole
   round shares it, as :func:`round_robin` schedules), with "paired" scheduling (both legs share a
   seed, but each pairing of a round has its own) and without (every match its own seed).
   This part runs IN PROCESS (engine + strategies, no gRPC) to be feasible; the search budgets
   are sample counts, with no clock, so every match is a pure function of its seed and players.

   ``--check-order`` first establishes the "known strength": every pair of the four plays
   ``--check-seeds`` seeds twice, seats swapped (fresh seeds, not the tournaments'), and the
   stronger side's win rate is printed with a 95% Wilson interval; the order is established
   when every interval lies above 50%.

   Every match is cached by (seed, player 0, player 1). The independent-seeds tournaments reuse
   the duplicate tournaments' matches: in tournament ``t``, round ``r``, the match of the ordered
   pair ``q`` (of the 12) takes the seed of tournament ``(t + 1 + q) mod T``'s round ``r``, so every
   match of an independent tournament has its own seed, no two independent tournaments share a
   match, and no match needs to be played twice (needs ``T >= 13``; otherwise fresh seeds are
   hashed and played). Standings order is checked after every round (12 matches), both by
   ``mu - 3 sigma`` (what the leaderboard sorts by) and by ``mu`` (the point estimate).

   For every pairing it also prints the duplicate *design effect* (see :func:`design_effect`):
   the share of matches duplicate legs need against independent ones for that head-to-head. It
   bounds what any duplicate schedule can gain, whatever the rating does with the results.

3. ``--adaptive`` (issue 17): the adaptive schedule (:mod:`harness.tournament.adaptive`) against the
   paired round robin (each pairing its own deals, both legs on them: what the runner schedules) on
   the known-strength field, and the calibration of its stated confidence. The real matches are the
   cached ones of part 2's seeds (``--tournaments`` x ``--rounds``, both seatings of each seed: one
   real duplicate pair per seed and pairing; missing ones are played). Then ``--adaptive-tournaments``
   simulated tournaments per mode draw every duplicate pair at random from the real ones of its
   pairing (a bootstrap: the simulated field's true order is its pools' order, checked to be the
   known one). Reported: the matches at which each mode has the order right (mu - 3 sigma, each
   rated as its leaderboard rates it: tau = 25/300 for the round robin, tau = 0 for the adaptive
   schedule, and the round robin with tau = 0 too) in 19 of 20 tournaments, looked at every 12 matches
   and after every duplicate pair, for the adaptive schedule ("adaptive": one duplicate pair a round,
   chosen by look-ahead) and its first version run alongside ("adapt. neighb.": every unsettled
   neighbour pair each round), how the adaptive ones stopped, matches per pairing, and the calibration table
   (share of neighbour pairs reported at >= 95% that are truly ordered), also for TrueSkill's P(above
   next). Then a field of two nearly equal bots (greedy, and greedy with ``--equal-eps`` random moves),
   ``--equal-units`` real units played in process: it should run to ``--equal-cap`` and claim nothing.
   "Order right" is always the order the leaderboards show (mu - 3 sigma; tests/test_adaptive.py checks that
   the scheduler's order is the leaderboard's). The same tournaments ordered by mu alone are printed for
   reference only: mu - 3 sigma also ranks an entrant by how often it was played, which the adaptive
   schedule varies and the round robin does not, so it costs the adaptive schedule, not helps it. The
   "first 19 of 20" figure of 200 tournaments moves by +-12 matches from one set of seeds to another: the
   shares at fixed n, and ``--adaptive-tournaments 600``, are the steadier comparison, and
   ``--first-tournament N`` simulates another set (tournaments N, N+1, ...). The tournaments run in the
   ``--jobs`` worker processes.

Run:
  .venv/bin/python benchmarks/bench_tournament.py --adaptive [--cache FILE] [--rounds R] [--tournaments T]
      [--adaptive-tournaments N] [--first-tournament N] [--max-matches M] [--equal-units U] [--jobs 2]
  .venv/bin/python benchmarks/bench_tournament.py [--throughput-only | --no-throughput] [--sandbox bwrap|none]
      [--workers N [--repeat R]] [--ray local|ADDRESS [--repeat R]]
      [--check-order] [--check-only] [--check-seeds N] [--small N] [--large N]
      [--rounds R] [--tournaments T] [--budget-minutes M] [--hold H] [--jobs 2] [--cache FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable
from multiprocessing import Pool
from multiprocessing.pool import Pool as PoolType
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # bench_match's floor (part 1 --workers)

from harness import eventloop  # noqa: E402
from harness.rating import Model, Played, p_above, standings, two_player, update, wilson  # noqa: E402
from harness.tournament import config as cfgmod  # noqa: E402
from harness.tournament import runner  # noqa: E402
from harness.tournament.local import Strategy, greedy_strategy, play, random_strategy  # noqa: E402
from harness.tournament.schedule import Pairing, round_robin, round_seed, total  # noqa: E402
from harness.tournament.store import Store  # noqa: E402

if TYPE_CHECKING:
    from harness.tournament.adaptive import Scheduler, Settings

TRUE_ORDER = ["search-large", "search-small", "greedy", "random"]  # strongest first
ORDERED = [(x, y) for x in TRUE_ORDER for y in TRUE_ORDER if x != y]  # the 12 (player 0, player 1)
UNORDERED = sorted({tuple(sorted(p)) for p in ORDERED})  # the 6 pairings
PER_ROUND = total(4, 1)  # 12 matches per round robin
UNORDERED_BY_STRENGTH = [(TRUE_ORDER[i], TRUE_ORDER[j]) for i in range(4) for j in range(i + 1, 4)]


# -- part 1 ------------------------------------------------------------------------------------


SANDBOX: list[str] = []  # --sandbox, for part 1


async def _throughput(concurrency: int, rounds: int, game: str = "sixtysix",
                      workers: int = 1, ray: str | None = None, pin: bool = True) -> tuple[float, float, int, int]:
    """A random-bot tournament of ``game`` (4 entrants; tables in every seat rotation for more than two
    seats) over real gRPC with the real runner and SQLite store: (matches/s, decisions/s, matches, decisions).
    ``workers`` > 1: that many worker processes (issue 18), each with its own arena and 4 bots, pinned to its
    share of the CPUs unless ``pin`` is false.
    ``ray``: the Ray cluster at that address plays (issue 15), ``concurrency`` match slots of 1 CPU."""
    from harness.arena.match import play_match
    from harness.tournament.executor import Executor, Workers

    with tempfile.TemporaryDirectory() as tmp:
        bots = [f"r{i}=python {ROOT / 'sample_bots' / 'random_bot.py'}" for i in range(4)]
        cfg = cfgmod.from_flags(bots, rounds=rounds, concurrency=concurrency, db=f"{tmp}/a.db", out=tmp, game=game,
                                seed=1,  # local bots: a fixed seed, the same deals every run
                                limits=[f"sandbox={SANDBOX[0]}"] if SANDBOX else (), workers=workers)
        store = Store(cfg.db)
        pool = runner.Bots(cfg.entrants, limits=cfg.limits)
        executor: Executor | None = None
        try:
            t = store.create(cfg.name, cfg.identity(), len(runner.schedule(cfg)),
                             [(e.name, e.label) for e in cfg.entrants], game=cfg.game)
            if ray is not None:
                from harness.tournament.cluster import Ray

                executor = Ray(cfgmod.Cluster(address=ray, matches=concurrency))
                await executor.start(dataclasses.replace(runner.job_of(cfg, t), per_leg=False))
                entrants = None
            elif workers > 1:
                executor = Workers(workers, concurrency, pin=pin)
                # as the in-process pool: one bot process per entrant (no per-leg processes), started untimed
                await executor.start(dataclasses.replace(runner.job_of(cfg, t), per_leg=False))
                entrants = None
            else:
                entrants = await pool.start(cfg.game)
            t0 = time.perf_counter()
            rep = await runner.run(cfg, store, t, entrants=entrants, play=play_match, stop=asyncio.Event(),
                                   executor=executor)
            dt = time.perf_counter() - t0
            rows = store.matches(t.id)
        finally:
            if executor is not None:
                await executor.close()
            await pool.close()
            store.close()
        assert rep.played == len(rows) and all(r["cause"] == "normal" for r in rows), "a match did not end normally"
        decisions = sum(r["decisions"] for r in rows)
        return rep.played / dt, decisions / dt, rep.played, decisions


def _floor_dps() -> float:
    """Bare decisions/s of this machine: the bare bidi-stream ping-pong of bench_match.py part 2 (unix socket,
    the transport of spawned bots; messages of a real DecisionRequest's and Reply's sizes)."""
    import bench_match

    req, rep = bench_match.typical_sizes()
    fl = eventloop.run(bench_match.bench_floor(1500, req, rep, unix=True))
    return fl["decisions"] / fl["wall"]


def _two_floors_dps(pings: int = 3000) -> float:
    """Bare decisions/s of two bare streams at once (two processes, each its own server and two echo
    clients, started together): what the machine gives the transport alone when both streams want its cores."""
    import subprocess

    start = time.time() + 3.0  # both servers and their clients up before either begins
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bench_match.py"), "--floor-once", str(pings), str(start)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    rates = []
    for p in procs:
        out, _ = p.communicate(timeout=600)
        decisions, wall = out.split()[-2:]
        rates.append(float(decisions) / float(wall))
    return sum(rates)


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def throughput_workers(workers: int, repeat: int, rounds: int = 3) -> None:
    """Sixty-Six at concurrency 2: in process (--workers 1, today's runner) and with ``workers`` worker
    processes (which goes first alternates), then the bare-stream floor, ``repeat`` times; medians, and the ceiling
    2 x bare decisions/s / decisions per match."""
    rows: dict[str, list[float]] = {"one": [], "many": [], "free": [], "floor": [], "two": []}
    per_match = 0.0
    for k in range(repeat):
        runs = {"one": (1, True), "many": (workers, True), "free": (workers, False)}
        order = list(runs) if k % 2 == 0 else list(reversed(runs))  # which goes first alternates too
        got: dict[str, float] = {}
        for key in order:
            got[key], _, n, d = eventloop.run(_throughput(2, rounds, "sixtysix", runs[key][0], pin=runs[key][1]))
        one, many, free = got["one"], got["many"], got["free"]
        floor = _floor_dps()
        two = _two_floors_dps()
        per_match = d / n
        rows["one"].append(one)
        rows["many"].append(many)
        rows["free"].append(free)
        rows["floor"].append(floor)
        rows["two"].append(two)
        print(f"  round {k + 1}: in process {one:.1f} matches/s, {workers} workers {many:.1f} matches/s (not pinned "
              f"{free:.1f}), bare stream "
              f"{floor:,.0f} decisions/s (ceiling {2 * floor / per_match:.1f} matches/s), two bare streams at once "
              f"{two:,.0f} decisions/s ({two / per_match:.1f} matches/s); {_load()}", flush=True)
    med = {k: statistics.median(v) for k, v in rows.items()}
    ceiling = 2 * med["floor"] / per_match
    print(f"sixtysix, 4 random bots, concurrency 2, medians of {repeat}: in process (--workers 1) {med['one']:.1f} "
          f"matches/s; --workers {workers} {med['many']:.1f} matches/s ({med['many'] / med['one']:.2f}x; with --no-pin "
          f"{med['free']:.1f}: pinning gives {med['many'] / med['free']:.2f}x); bare-stream "
          f"ceiling {ceiling:.1f} matches/s (2 x {med['floor']:,.0f} bare decisions/s / {per_match:.1f} decisions per "
          f"match): {100 * med['many'] / ceiling:.0f}% of it; two bare streams at once reach {med['two']:,.0f} decisions/s "
          f"= {med['two'] / per_match:.1f} matches/s ({100 * med['two'] / (2 * med['floor']):.0f}% of that ceiling; "
          f"the arena's workers {100 * med['many'] * per_match / med['two']:.0f}% of them); {_load()}", flush=True)


def throughput_ray(address: str, repeat: int, rounds: int = 3) -> None:
    """Issue 15: Sixty-Six at concurrency 2, worker processes (``--workers 2``, the local default) against
    2 match slots on the Ray cluster at ``address`` (``local``: a private instance per run), alternating,
    ``repeat`` times; medians and the added cost per match. Then a cluster on this machine
    (``ray.cluster_utils.Cluster``) with one, then two worker nodes of one CPU each, one slot per CPU."""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # everything on 127.0.0.1
    rows: dict[str, list[float]] = {"local": [], "ray": []}
    for k in range(repeat):
        order = ("ray", "local") if k % 2 else ("local", "ray")
        got = {}
        for what in order:
            got[what] = eventloop.run(_throughput(2, rounds, "sixtysix", 2, ray=address if what == "ray" else None))[0]
            rows[what].append(got[what])
        print(f"  round {k + 1}: --workers 2 {got['local']:.1f} matches/s, Ray ({address}, 2 slots) "
              f"{got['ray']:.1f} matches/s; {_load()}", flush=True)
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"sixtysix, 4 random bots, concurrency 2, medians of {repeat}: --workers 2 {med['local']:.1f} matches/s; "
          f"Ray {address} {med['ray']:.1f} matches/s ({100 * (med['ray'] / med['local'] - 1):+.0f}%); added cost per "
          f"match {1000 * (1 / med['ray'] - 1 / med['local']):+.1f} ms; {_load()}", flush=True)
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1",
                                                      "include_dashboard": False})
    try:
        scale = []
        for nodes in (1, 2):
            c.add_node(num_cpus=1, node_ip_address="127.0.0.1",  # its own unpacked files, as on its own machine
                       runtime_env_dir_name=f"runtime_resources_{nodes}")
            c.wait_for_nodes()
            runs = [eventloop.run(_throughput(nodes, rounds, "sixtysix", ray=c.address))[0] for _ in range(repeat)]
            scale.append(statistics.median(runs))
            print(f"  {nodes} worker node{'s' if nodes > 1 else ''} of 1 CPU ({nodes} slot{'s' if nodes > 1 else ''}): "
                  f"{scale[-1]:.1f} matches/s (median of {repeat}); {_load()}", flush=True)
        print(f"one to two worker nodes: {scale[0]:.1f} -> {scale[1]:.1f} matches/s ({scale[1] / scale[0]:.2f}x; the "
              f"head, the driver and both nodes share this machine's {os.cpu_count()} cores)", flush=True)
    finally:
        c.shutdown()


# -- matches (in process, cached) ----------------------------------------------------------------


def _search(n: int) -> Strategy:
    from harness.strategies_search import Budget, search_action

    budget = Budget(samples=n, endgame_samples=max(1, n // 2))

    def act(obs: Any) -> str:
        rng = random.Random(repr((obs.seat, obs.hand, obs.history)))  # deterministic per observation
        return search_action(obs, rng, budget)
    return act


def _strategy(name: str, seed: int, player: int, small: int, large: int) -> Strategy:
    if name == "random":
        return random_strategy(seed * 7 + player)
    if name == "greedy":
        return greedy_strategy()
    return _search(small if name == "search-small" else large)


def _play_key(job: tuple[int, str, str, int, int]) -> tuple[tuple[int, str, str], int, tuple[int, int], float]:
    """Play one match: (seed, player 0, player 1) -> winner (player index), scores, seconds."""
    seed, x, y, small, large = job
    t0 = time.perf_counter()
    o = play(seed, [_strategy(x, seed, 0, small, large), _strategy(y, seed, 1, small, large)])
    s0, s1 = o.scores
    return (seed, x, y), o.winners[0], (s0, s1), time.perf_counter() - t0


def _cost(x: str, y: str, small: int, large: int) -> float:
    """Rough relative cost of a match, to hand the slow ones out first."""
    return sum({"search-small": small, "search-large": large}.get(n, 0.05) for n in (x, y))


class Matches:
    """Every match played so far, keyed by (seed, player 0, player 1); optionally kept in a file."""

    def __init__(self, pool: PoolType, small: int, large: int, path: str | None) -> None:
        self.pool, self.small, self.large, self.path = pool, small, large, path
        self.results: dict[tuple[int, str, str], tuple[int, tuple[int, int]]] = {}
        self.played = 0
        self.cpu = 0.0
        if path and Path(path).exists():
            data = json.loads(Path(path).read_text())
            if (data["small"], data["large"]) == (small, large):
                for seed, x, y, w, s0, s1 in data["matches"]:
                    self.results[(seed, x, y)] = (w, (s0, s1))

    def get(self, keys: Iterable[tuple[int, str, str]], label: str = "") -> None:
        missing = sorted({k for k in keys if k not in self.results},
                         key=lambda k: -_cost(k[1], k[2], self.small, self.large))
        if not missing:
            return
        t0 = last = time.perf_counter()
        jobs = [(s, x, y, self.small, self.large) for s, x, y in missing]
        for i, (key, w, scores, dt) in enumerate(self.pool.imap_unordered(_play_key, jobs), 1):
            self.results[key] = (w, scores)
            self.played += 1
            self.cpu += dt
            now = time.perf_counter()
            if label and now - last > 30:
                print(f"    {label}: {i}/{len(jobs)} matches [{now - t0:.0f} s]", flush=True)
                last = now
        self.save()

    def save(self) -> None:
        if self.path:
            rows = [[s, x, y, w, sc[0], sc[1]] for (s, x, y), (w, sc) in self.results.items()]
            Path(self.path).write_text(json.dumps({"small": self.small, "large": self.large, "matches": rows}))

    def winner(self, seed: int, x: str, y: str) -> int:
        return self.results[(seed, x, y)][0]


def _check_seed(i: int) -> int:
    digest = hashlib.sha256(f"sixtysix-arena/order-check/{i}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _rate(wins: int, n: int) -> str:
    lo, hi = wilson(wins, n)
    return f"{wins:4d}/{n:<4d} = {wins / n:5.1%}  [{lo:5.1%}, {hi:5.1%}]"


def design_effect(m: Matches, seeds: list[int], a: str, b: str) -> str:
    """How much a duplicate pair (one seed, seats swapped) is worth, as the variance of ``a``'s wins
    over the pair divided by twice the variance of one match: the fraction of the matches that
    duplicate legs need, against independent ones, to measure this head-to-head equally well.
    1 = no gain; the "half the matches" target needs 0.5 or less for the closest pairing. The same
    for game-point margins shows what scoring by margin could add. 95% bootstrap interval over seeds."""
    x = [(int(m.winner(s, a, b) == 0), int(m.winner(s, b, a) == 1)) for s in seeds]
    g = []
    for s in seeds:
        sa, sb = m.results[(s, a, b)][1], m.results[(s, b, a)][1]
        g.append((sa[0] - sa[1], sb[1] - sb[0]))

    def effect(rows: list[tuple[int, int]]) -> float | None:
        single = statistics.pvariance([v for r in rows for v in r])
        return statistics.pvariance([r[0] + r[1] for r in rows]) / (2 * single) if single else None

    def interval(rows: list[tuple[int, int]]) -> str:
        est = effect(rows)
        if est is None:
            return "n/a (no variance)"
        rng = random.Random(1)
        boot = sorted(e for e in (effect([rng.choice(rows) for _ in rows]) for _ in range(400)) if e is not None)
        return f"{est:.2f} [{boot[len(boot) // 40]:.2f}, {boot[-len(boot) // 40 - 1]:.2f}]"

    return f"design effect: wins {interval(x)}, margins {interval(g)}"


def check_order(m: Matches, seeds: int) -> bool:
    """Head-to-head of every pair on fresh seeds, seats swapped; True if the order is established."""
    print(f"order check: search-small = {m.small} samples, search-large = {m.large} samples; "
          f"{seeds} seeds x 2 seats per pair, win rate of the stronger with 95% Wilson interval", flush=True)
    ok = True
    pairs = [(TRUE_ORDER[i], TRUE_ORDER[j]) for i in range(4) for j in range(i + 1, 4)]
    pairs.sort(key=lambda p: (TRUE_ORDER.index(p[1]) - TRUE_ORDER.index(p[0]), -TRUE_ORDER.index(p[0])))
    for a, b in pairs:  # adjacent pairs first, weakest first
        t0 = time.perf_counter()
        ss = [_check_seed(i) for i in range(seeds)]
        m.get([(s, a, b) for s in ss] + [(s, b, a) for s in ss], f"{a} vs {b}")
        wins = sum(m.winner(s, a, b) == 0 for s in ss) + sum(m.winner(s, b, a) == 1 for s in ss)
        both = sum(m.winner(s, a, b) == 0 and m.winner(s, b, a) == 1 for s in ss)
        none = sum(m.winner(s, a, b) == 1 and m.winner(s, b, a) == 0 for s in ss)
        lo, _ = wilson(wins, 2 * seeds)
        ok &= lo > 0.5
        print(f"  {a:>12} vs {b:<12} {_rate(wins, 2 * seeds)}  {'ok' if lo > 0.5 else 'NOT ESTABLISHED'}"
              f"  (seed pairs won {both}, split {seeds - both - none}, lost {none}) "
              f"[{time.perf_counter() - t0:.0f} s]", flush=True)
        print(f"  {'':>12}    {'':<12} {design_effect(m, ss, a, b)}", flush=True)
    print(f"  order {' > '.join(TRUE_ORDER)}: {'established' if ok else 'NOT established'}", flush=True)
    return ok


# -- part 2: sample efficiency --------------------------------------------------------------------


def _two(p: Pairing) -> tuple[str, str]:
    """The two players of a two-player pairing."""
    x, y = p.players
    return x, y


def _tournament_seed(mode: str, t: int, r: int, x: str, y: str, tournaments: int) -> int:
    if mode == "duplicate":
        return round_seed(t, r)
    if mode == "paired":  # both legs of a pairing share a seed, but pairings of a round differ
        q = UNORDERED.index(tuple(sorted((x, y))))
        return round_seed((t + 1 + q) % tournaments, r)
    q = ORDERED.index((x, y))
    if tournaments >= len(ORDERED) + 1:
        return round_seed((t + 1 + q) % tournaments, r)  # another tournament's round: a played match
    digest = hashlib.sha256(f"independent/{t}/{r}/{q}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class Tournament:
    """One seeded tournament in one mode, rated round by round."""

    def __init__(self, mode: str, t: int, rounds: int, tournaments: int) -> None:
        self.mode, self.t, self.tournaments = mode, t, tournaments
        self.names = list(TRUE_ORDER)
        random.Random(t).shuffle(self.names)  # entrant order must not help
        self.pairings = list(round_robin(self.names, rounds, t))
        self.env = Model().env()
        self.ratings = {n: self.env.create_rating() for n in self.names}
        self.played: list[Played] = []
        self.right_cons: list[bool] = []  # order by mu - 3 sigma right after each round
        self.right_mu: list[bool] = []  # order by mu right after each round

    def keys(self, r: int) -> list[tuple[int, str, str]]:
        pairs = [_two(p) for p in self.pairings if p.round == r]
        return [(_tournament_seed(self.mode, self.t, r, x, y, self.tournaments), x, y) for x, y in pairs]

    def add_round(self, r: int, m: Matches) -> None:
        for p in self.pairings:
            if p.round != r:
                continue
            x, y = _two(p)
            seed = _tournament_seed(self.mode, self.t, r, x, y, self.tournaments)
            w, scores = m.results[(seed, x, y)]
            pl = two_player(p.seq, p.match_id, p.pair_id, (x, y), w, scores)
            update(self.env, self.ratings, pl)
            self.played.append(pl)
        cons = sorted(self.names, key=lambda n: (-self.env.expose(self.ratings[n]), n))
        mu = sorted(self.names, key=lambda n: (-self.ratings[n].mu, n))
        self.right_cons.append(cons == TRUE_ORDER)
        self.right_mu.append(mu == TRUE_ORDER)
        # Which adjacent pairs of the true order are inverted by mu (for the report).
        self.inverted = [self.ratings[a].mu <= self.ratings[b].mu for a, b in zip(TRUE_ORDER, TRUE_ORDER[1:])]

    def check(self) -> None:
        """The incremental fold agrees with the leaderboard's standings."""
        assert (standings(Model(), self.names, self.played).order == TRUE_ORDER) == self.right_cons[-1]


def _first(counts: list[int], need: int) -> int | None:
    return next((r for r, c in enumerate(counts, 1) if c >= need), None)


def _stable(counts: list[int], need: int) -> int | None:
    """First round from which every measured round has at least ``need`` right."""
    r = len(counts)
    while r > 0 and counts[r - 1] >= need:
        r -= 1
    return r + 1 if r < len(counts) else None


def _fmt(r: int | None, counts: list[int], total_t: int) -> str:
    if r is None:
        return f"not reached in {len(counts) * PER_ROUND} matches ({len(counts)} rounds)"
    tail = "; only the last round measured, not confirmed" if r == len(counts) and r > 1 else ""
    return f"{r * PER_ROUND} matches ({r} rounds; {counts[r - 1]}/{total_t} right{tail})"


def _ratio(a: int | None, b: int | None, rounds: int) -> str:
    if a is None:
        return "n/a (duplicate did not reach the target)"
    if b is None:
        return f"<= {a}/{rounds + 1} = {a / (rounds + 1):.2f} (independent not reached; bound from its horizon)"
    return f"{a}/{b} = {a / b:.2f}"


def sample_efficiency(m: Matches, args: argparse.Namespace, t_start: float) -> None:
    T = args.tournaments
    need = T - T // 20
    modes = ("duplicate", "paired", "independent")
    tours = {mode: [Tournament(mode, t, args.rounds, T) for t in range(T)] for mode in modes}
    counts: dict[tuple[str, str], list[int]] = {(mode, c): [] for mode in modes for c in ("cons", "mu")}
    deadline = t_start + args.budget_minutes * 60
    print(f"sample efficiency: {T} tournaments per mode, target {need}/{T} right, up to {args.rounds} rounds "
          f"of {PER_ROUND} matches, budget {args.budget_minutes:.0f} min total", flush=True)
    print("  round matches | right (mu-3s, mu): " + " | ".join(modes) + " | new matches, time", flush=True)
    last = 0.0
    done = 0
    for r in range(1, args.rounds + 1):
        now = time.perf_counter()
        if r > 1 and now + 1.15 * last > deadline:
            print(f"  stopping: round {r} would likely overrun the budget "
                  f"(last round took {last:.0f} s, {deadline - now:.0f} s left)", flush=True)
            break
        keys = [k for mode in modes for tour in tours[mode] for k in tour.keys(r)]
        before = m.played
        m.get(keys, f"round {r}")
        for mode in modes:
            for tour in tours[mode]:
                tour.add_round(r, m)
            counts[(mode, "cons")].append(sum(t.right_cons[-1] for t in tours[mode]))
            counts[(mode, "mu")].append(sum(t.right_mu[-1] for t in tours[mode]))
        last = time.perf_counter() - now
        done = r
        cells = " | ".join(f"{counts[(mode, 'cons')][-1]:3d} {counts[(mode, 'mu')][-1]:3d}" for mode in modes)
        print(f"  {r:5d} {r * PER_ROUND:7d} | {cells} | {m.played - before:4d}, {last:4.0f} s "
              f"(total {time.perf_counter() - t_start:.0f} s)", flush=True)
        stable = [_stable(counts[k], need) for k in counts]
        if args.hold and all(s is not None and r - s + 1 >= args.hold for s in stable):
            print(f"  stopping: every mode and key has held the target for {args.hold} rounds", flush=True)
            break
    for mode in modes:
        for tour in tours[mode]:
            tour.check()

    print(f"\nresult after {done} rounds ({done * PER_ROUND} matches per tournament):", flush=True)
    for c, title in (("cons", "order by mu - 3 sigma (the leaderboard)"), ("mu", "order by mu")):
        print(f"  {title}:")
        res = {}
        for mode in modes:
            cs = counts[(mode, c)]
            res[mode] = (_first(cs, need), _stable(cs, need))
            print(f"    {mode:<11} right per round: {cs}")
            print(f"    {mode:<11} first >= {need}/{T}: {_fmt(res[mode][0], cs, T)}; "
                  f"from then on always: {_fmt(res[mode][1], cs, T)}")
        for mode in modes[:-1]:
            print(f"    ratio {mode}/independent, first: {_ratio(res[mode][0], res['independent'][0], done)};"
                  f" held: {_ratio(res[mode][1], res['independent'][1], done)}")
    # The duplicate tournaments' matches as one big head-to-head sample (each seed played both seats).
    print("  head-to-head over all tournament matches (every seed both seats), stronger side's win rate:")
    for i in range(4):
        for j in range(i + 1, 4):
            a, b = TRUE_ORDER[i], TRUE_ORDER[j]
            ss = [round_seed(t, r) for t in range(T) for r in range(1, done + 1)]
            wins = sum(m.winner(s, a, b) == 0 for s in ss) + sum(m.winner(s, b, a) == 1 for s in ss)
            both = sum(m.winner(s, a, b) == 0 and m.winner(s, b, a) == 1 for s in ss)
            none = sum(m.winner(s, a, b) == 1 and m.winner(s, b, a) == 0 for s in ss)
            p = wins / (2 * len(ss))
            print(f"    {a:>12} vs {b:<12} {_rate(wins, 2 * len(ss))}  duplicate pairs won {both}, "
                  f"split {len(ss) - both - none} (if legs were independent: {2 * p * (1 - p) * len(ss):.0f}), "
                  f"lost {none}")
            print(f"    {'':>12}    {'':<12} {design_effect(m, ss, a, b)}")
    print(f"  tournaments whose final mu order inverts an adjacent pair (of {T}):")
    for mode in modes:
        inv = [sum(t.inverted[i] for t in tours[mode]) for i in range(3)]
        print(f"    {mode:<11} " + ", ".join(f"{a} / {b}: {n}" for (a, b), n in zip(zip(TRUE_ORDER, TRUE_ORDER[1:]), inv)))


# -- part 3: the adaptive schedule (issue 17) ------------------------------------------------------


def _noisy_greedy(eps: float, seed: int) -> Strategy:
    """Greedy play with a random legal move in a share ``eps`` of decisions: nearly as strong as greedy."""
    from harness.strategies import greedy_action, random_action

    rng = random.Random(seed * 13 + 5)
    return lambda obs: random_action(obs, rng) if rng.random() < eps else greedy_action(obs)


def _play_equal(job: tuple[int, str, str, float]) -> tuple[tuple[int, str, str], int]:
    """One match of the nearly equal field (greedy, greedy-noisy): (seed, player 0, player 1) -> winner."""
    seed, x, y, eps = job
    strat = [greedy_strategy() if n == "greedy" else _noisy_greedy(eps, seed) for n in (x, y)]
    return (seed, x, y), play(seed, strat).winners[0]


Curve = list[tuple[int, bool]]  # (matches, order right) after each round or pair of a simulated tournament
Unit = tuple[int, int]  # a real duplicate pair of (a, b), a before b in TRUE_ORDER / names: winners of legs (a, b), (b, a)


def _pool_chunks(units: int, chunk: int = 20) -> list[list[tuple[int, str, str]]]:
    """The matches of the real units, in chunks that grow every pairing's pool evenly: pairing (a, b)
    gets the first ``units`` seeds of part 2 (round by round), both seatings; search-large against
    greedy and random (slow, and never close) a third as many."""
    seeds = [round_seed(t, r) for r in range(1, units + 1) for t in range(20)][:units]
    want = {(a, b): units if not (a == "search-large" and b in ("greedy", "random")) else max(10, units // 3)
            for a, b in UNORDERED_BY_STRENGTH}
    return [[(s, x, y) for (a, b), n in want.items() for s in seeds[c:min(n, c + chunk)] for x, y in ((a, b), (b, a))]
            for c in range(0, units, chunk)]


def _pool_units(results: dict[tuple[int, str, str], int], a: str, b: str) -> list[Unit]:
    """Every seed played in both seatings by ``a`` and ``b``: the real units a simulated tournament draws from."""
    seeds = sorted({s for (s, x, y) in results if (x, y) == (a, b) and (s, b, a) in results})
    return [(results[(s, a, b)], results[(s, b, a)]) for s in seeds]


def _unit_score(u: Unit) -> float:
    """The first entrant's share of the two legs (it is player 0 in the first leg, player 1 in the second)."""
    return ((u[0] == 0) + (u[1] == 1)) / 2


class Bootstrap:
    """Simulated tournaments of a field whose every duplicate pair is drawn (with replacement) from the
    real units played between those two entrants: the field's true order is its pools' order."""

    def __init__(self, pools: dict[tuple[str, str], list[Unit]]) -> None:
        self.pools = pools

    def legs(self, rng: random.Random, first: tuple[str, str], second: tuple[str, str]) -> tuple[int, int]:
        """Winners (player index) of the two legs ``first`` and ``second`` = ``first`` reversed."""
        a, b = first
        if (a, b) in self.pools:
            return rng.choice(self.pools[(a, b)])
        w0, w1 = rng.choice(self.pools[(b, a)])
        return w1, w0  # the pool's second leg is (a, b) here

    def round_robin(self, names: list[str], truth: list[str], rng: random.Random, rounds: int,
                    model: Model = Model(), by_mu: list[tuple[int, bool]] | None = None) -> list[tuple[int, bool]]:
        """(matches, order right) after each duplicate pair of a paired round robin (each pairing its own deals),
        the order as the leaderboard sorts (mu - 3 sigma); the same by mu alone appended to ``by_mu``."""
        env = model.env()
        ratings = {n: env.create_rating() for n in names}
        out = []
        seq = 0
        for r in range(rounds):
            for p in round_robin(names, 1, 0):
                if p.leg:
                    continue
                x, y = _two(p)
                w = self.legs(rng, (x, y), (y, x))
                for leg, players in enumerate(((x, y), (y, x))):
                    update(env, ratings, two_player(seq, f"{r}{p.match_id}", p.pair_id, players, w[leg], (0, 0)))
                    seq += 1
                out.append((seq, sorted(names, key=lambda n: (-env.expose(ratings[n]), n)) == truth))
                if by_mu is not None:
                    by_mu.append((seq, sorted(names, key=lambda n: (-ratings[n].mu, n)) == truth))
        return out

    def adaptive(self, names: list[str], truth: list[str], rng: random.Random, settings: Settings, seed: int,
                 allocation: str = "lookahead",
                 by_mu: list[tuple[int, bool]] | None = None) -> tuple[Scheduler, list[tuple[int, bool]]]:
        """An adaptive tournament: (its scheduler, (matches, order right) after each round), the order as the
        leaderboard sorts (mu - 3 sigma); the same by mu alone appended to ``by_mu``."""
        from harness.tournament.adaptive import Field, Scheduler

        s = Scheduler(Field(tuple(names), 2, "", seed), settings, allocation=allocation)
        out = []
        while rnd := s.next_round():
            got = []
            by_unit: dict[str, list] = {}
            for p in rnd:
                by_unit.setdefault(p.pair_id, []).append(p)
            for legs in by_unit.values():
                w = self.legs(rng, legs[0].players, legs[1].players)
                got += [two_player(p.seq, p.match_id, p.pair_id, p.players, w[i], (0, 0)) for i, p in enumerate(legs)]
            s.finish_round(got)
            out.append((len(s.pairings), s.state.order() == truth))
            if by_mu is not None:
                by_mu.append((len(s.pairings), sorted(names, key=lambda n: (-s.state.ratings[n].mu, n)) == truth))
        return s, out


def _right_at(curve: list[tuple[int, bool]], n: int) -> bool:
    """Whether the order was right after ``n`` matches: the last round finished by then (a stopped
    tournament keeps its final order)."""
    right = False
    for m, ok in curve:
        if m > n:
            break
        right = ok
    return right


def _first_held(counts: list[int], need: int) -> tuple[int | None, int | None]:
    first = next((i for i, c in enumerate(counts) if c >= need), None)
    held = None
    for i in range(len(counts) - 1, -1, -1):
        if counts[i] < need:
            break
        held = i
    return first, held


def _calibration(label: str, rows: list[tuple[float, bool]], level: float) -> None:
    """The share of reported neighbour pairs that are truly ordered, by reported confidence."""
    bins = [(level, 0.99), (0.99, 0.999), (0.999, 1.01)] if level < 0.99 else [(level, 1.01)]
    print(f"  calibration, {label}: neighbour pairs reported at >= {level:.0%} and truly in that order")
    ok_all = [r for p, r in rows if p >= level]
    for lo, hi in bins:
        sel = [r for p, r in rows if lo <= p < hi]
        if sel:
            print(f"    reported [{lo:.3f}, {min(hi, 1):.3f}{')' if hi < 1 else ']'}: {sum(sel)}/{len(sel)} right "
                  f"= {sum(sel) / len(sel):.1%}")
    share = f"{sum(ok_all)}/{len(ok_all)} = {sum(ok_all) / len(ok_all):.1%}" if ok_all else "none reported"
    below = [r for p, r in rows if p < level]
    print(f"    all >= {level:.0%}: {share}; below {level:.0%} (not claimed): {len(below)} pairs, "
          f"{sum(below)} of them in the right order", flush=True)


@dataclasses.dataclass(frozen=True)
class Ended:
    """What part 3 reports of a finished adaptive tournament (a scheduler does not pickle)."""

    matches: int
    ended: str
    per_pairing: dict[tuple[str, str], int]  # matches of each pairing
    neighbours: list[tuple[str, str, float]]  # (above, below, honest confidence) in the final standings
    p_above_next: list[tuple[str, str, float]]  # (above, below, TrueSkill's P(above next))

    @classmethod
    def of(cls, s: Scheduler) -> Ended:
        order = s.state.order()
        return cls(len(s.pairings), s.ended, {k: e.matches for k, e in s.state.pairs.items()}, s.state.neighbours(),
                   [(x, y, p_above(s.state.ratings[x], s.state.ratings[y])) for x, y in zip(order, order[1:])])


def _modes(job: tuple[int, dict[tuple[str, str], list[Unit]], Settings, int]) -> tuple[
        Curve, Curve, Curve, Ended, Curve, Ended, Curve, Curve]:
    """Tournament ``t`` of every mode of part 3 (a worker process runs it): the round robin (rated as its
    leaderboard rates it, and with tau = 0), the first version's neighbour rounds and the adaptive schedule;
    curves of (matches, order right), the schedulers, and the mu-alone curves."""
    from harness.tournament.adaptive import MODEL

    t, pools, settings, horizon = job
    boot = Bootstrap(pools)
    names = list(TRUE_ORDER)
    random.Random(f"names/{t}").shuffle(names)
    rr_mu: list[tuple[int, bool]] = []
    ad_mu: list[tuple[int, bool]] = []
    rr = boot.round_robin(names, TRUE_ORDER, random.Random(f"rr/{t}"), horizon // PER_ROUND, by_mu=rr_mu)
    rr0 = boot.round_robin(names, TRUE_ORDER, random.Random(f"rr/{t}"), horizon // PER_ROUND, MODEL)
    nb_s, nb = boot.adaptive(names, TRUE_ORDER, random.Random(f"adaptive/{t}"), settings, t, "neighbours")
    ad_s, ad = boot.adaptive(names, TRUE_ORDER, random.Random(f"adaptive/{t}"), settings, t, by_mu=ad_mu)
    return rr, rr0, nb, Ended.of(nb_s), ad, Ended.of(ad_s), rr_mu, ad_mu


def adaptive_part(m: Matches, pool: PoolType, args: argparse.Namespace) -> None:
    """Issue 17: the adaptive schedule against the paired round robin on the known-strength field, and
    its calibration there and on a field of two nearly equal bots. Every simulated tournament draws each
    duplicate pair from the real units (both seatings of one seed) of that pairing that were played."""
    from harness.tournament.adaptive import CAP, CONFIDENCE, Settings

    T = args.adaptive_tournaments
    need = T - T // 20
    settings = Settings(args.confidence, args.max_matches, args.min_per_pairing)
    winners = {k: w for k, (w, _) in m.results.items()}
    pools = {(a, b): _pool_units(winners, a, b) for a, b in UNORDERED_BY_STRENGTH}
    print(f"adaptive schedule (issue 17): search-small = {m.small}, search-large = {m.large} samples; "
          f"{T} simulated tournaments per mode, each duplicate pair drawn from the real units of its pairing:")
    for (a, b), units in pools.items():
        score = sum(map(_unit_score, units)) / max(1, len(units))
        won = sum(_unit_score(u) == 1 for u in units)
        lost = sum(_unit_score(u) == 0 for u in units)
        print(f"  {a:>12} vs {b:<12} {len(units):4d} real units, {a}'s score {score:.3f} "
              f"(units won {won}, split {len(units) - won - lost}, lost {lost})")
        if len(units) < 10 or score <= 0.5:
            print("  the pools do not order the field as TRUE_ORDER: play more (--rounds) first", flush=True)
            return
    horizon = args.max_matches
    grid = list(range(12, horizon + 1, 12))
    from harness.tournament.adaptive import MODEL

    rr_curves, rr0_curves, nb_curves, ad_curves, nb_scheds, scheds = [], [], [], [], [], []
    rr_mu: list[list[tuple[int, bool]]] = []  # the same tournaments' order by mu alone (not what boards show)
    ad_mu: list[list[tuple[int, bool]]] = []
    t0 = time.perf_counter()
    jobs = [(t, pools, settings, horizon) for t in range(args.first_tournament, args.first_tournament + T)]
    for rr_c, rr0_c, nb_c, nb_s, ad_c, ad_s, rr_m, ad_m in pool.imap(_modes, jobs, chunksize=5):
        rr_curves.append(rr_c)
        rr0_curves.append(rr0_c)
        nb_curves.append(nb_c)
        nb_scheds.append(nb_s)
        ad_curves.append(ad_c)
        scheds.append(ad_s)
        rr_mu.append(rr_m)
        ad_mu.append(ad_m)
    print(f"  [{time.perf_counter() - t0:.0f} s]")
    rr = [sum(_right_at(c, n) for c in rr_curves) for n in grid]
    rr0 = [sum(_right_at(c, n) for c in rr0_curves) for n in grid]
    nb = [sum(_right_at(c, n) for c in nb_curves) for n in grid]
    ad = [sum(_right_at(c, n) for c in ad_curves) for n in grid]
    print(f"  order right (by mu - 3 sigma, as each leaderboard sorts) after n matches, of {T} tournaments; the round "
          f"robin's leaderboard rates with tau = {Model().tau:.4g}, the adaptive one's with tau = {MODEL.tau:g} "
          "(and the round robin rated so, for comparison):")
    print("    n            " + " ".join(f"{n:4d}" for n in grid))
    print("    round robin     " + " ".join(f"{c:4d}" for c in rr))
    print("    round robin t=0 " + " ".join(f"{c:4d}" for c in rr0))
    print("    adapt. neighb.  " + " ".join(f"{c:4d}" for c in nb))
    print("    adaptive        " + " ".join(f"{c:4d}" for c in ad))
    print("    (adapt. neighb.: the first version, every unsettled neighbour pair each round; adaptive: one unit a "
          "round, the pairing that most lowers the expected number of mis-ordered neighbours)")
    print("    by mu alone (NOT the order the leaderboards show; for reference: mu - 3 sigma also ranks by how often the "
          "schedule played an entrant, which the adaptive schedule varies and the round robin does not):")
    print("    round robin, mu  " + " ".join(f"{sum(_right_at(c, n) for c in rr_mu):4d}" for n in grid)[1:])
    print("    adaptive, mu     " + " ".join(f"{sum(_right_at(c, n) for c in ad_mu):4d}" for n in grid)[1:])
    at = (96, 102, 108, 120, 144, 168, 192, 204, 228)
    print(f"  share of the {T} tournaments with the order right (as the leaderboards show it) at n matches: "
          + ", ".join(f"{n}: round robin {sum(_right_at(c, n) for c in rr_curves) / T:.1%}, adaptive "
                      f"{sum(_right_at(c, n) for c in ad_curves) / T:.1%}" for n in at))
    res, fres = {}, {}
    fine = list(range(2, horizon + 1, 2))  # after every duplicate pair (2 matches), for every mode
    curves = {"round robin": rr_curves, "round robin t=0": rr0_curves, "adapt. neighb.": nb_curves,
              "adaptive": ad_curves}
    curves["round robin, mu"], curves["adaptive, mu"] = rr_mu, ad_mu
    for label, counts in (("round robin", rr), ("round robin t=0", rr0), ("adapt. neighb.", nb), ("adaptive", ad),
                          ("round robin, mu", [sum(_right_at(c, n) for c in rr_mu) for n in grid]),
                          ("adaptive, mu", [sum(_right_at(c, n) for c in ad_mu) for n in grid])):
        first, held = _first_held(counts, need)
        res[label] = (None if first is None else grid[first], None if held is None else grid[held])
        f2, h2 = _first_held([sum(_right_at(c, n) for c in curves[label]) for n in fine], need)
        fres[label] = (None if f2 is None else fine[f2], None if h2 is None else fine[h2])
        print(f"    {label:<15} first >= {need}/{T} right at {res[label][0]} matches; "
              f"right from then on: {res[label][1]} (looking after every duplicate pair: "
              f"{None if f2 is None else fine[f2]}; {None if h2 is None else fine[h2]})")
    for mine, others in (("adapt. neighb.", ("round robin", "round robin t=0")),
                         ("adaptive", ("round robin", "round robin t=0")), ("adaptive, mu", ("round robin, mu",))):
        fa, ha = res[mine]
        for other in others:
            fr, hr = res[other]
            if fa and fr:
                print(f"    {mine} / {other}: first {fa}/{fr} = {fa / fr:.2f}" +
                      (f"; held {ha}/{hr} = {ha / hr:.2f}" if ha and hr else ""))
            (fa2, ha2), (fr2, hr2) = fres[mine], fres[other]
            if fa2 and fr2:
                print(f"      after every duplicate pair: first {fa2}/{fr2} = {fa2 / fr2:.2f}" +
                      (f"; held {ha2}/{hr2} = {ha2 / hr2:.2f}" if ha2 and hr2 else ""))
    for label, ss in (("adapt. neighb.", nb_scheds), ("adaptive", scheds)):
        stops = sorted(s.matches for s in ss)
        by_conf = sum(s.ended == CONFIDENCE for s in ss)
        print(f"  {label} stopping: {by_conf}/{T} reached {settings.confidence:.0%} on every neighbour pair "
              f"(median {stops[len(stops) // 2]} matches, range {stops[0]}-{stops[-1]}), "
              f"{sum(s.ended == CAP for s in ss)} ran to the cap of {settings.max_matches}")
        per_pair: dict[frozenset, list[int]] = {}
        for s in ss:
            for pairing, n in s.per_pairing.items():
                per_pair.setdefault(frozenset(pairing), []).append(n)
        print(f"  {label} matches per pairing (mean over tournaments): " + ", ".join(
            f"{'/'.join(sorted(k, key=TRUE_ORDER.index))} {statistics.mean(v):.0f}" for k, v in
            sorted(per_pair.items(), key=lambda kv: -statistics.mean(kv[1]))))
    for label, ss in (("adapt. neighb.", nb_scheds), ("adaptive", scheds)):
        rows = [(c, TRUE_ORDER.index(a) < TRUE_ORDER.index(b)) for s in ss for a, b, c in s.neighbours]
        _calibration(f"known-strength field, at the end of each {label} tournament", rows, settings.confidence)
    ts_rows = [(p, TRUE_ORDER.index(x) < TRUE_ORDER.index(y)) for s in scheds for x, y, p in s.p_above_next]
    _calibration("the same tournaments, TrueSkill's P(above next) (the leaderboard's P↓) for comparison", ts_rows,
                 settings.confidence)
    equal_field(pool, args, settings)


def equal_field(pool: PoolType, args: argparse.Namespace, settings: Settings) -> None:
    """Two nearly equal bots: greedy, and greedy with a random move in ``--equal-eps`` of its decisions."""
    from harness.tournament.adaptive import CAP, Settings

    n = args.equal_units
    seeds = [_check_seed(10**6 + i) for i in range(n)]
    jobs = [(s, x, y, args.equal_eps) for s in seeds for x, y in (("greedy", "greedy-noisy"), ("greedy-noisy", "greedy"))]
    t0 = time.perf_counter()
    results = dict(pool.imap_unordered(_play_equal, jobs, chunksize=64))
    units = _pool_units(results, "greedy", "greedy-noisy")
    wins = sum((u[0] == 0) + (u[1] == 1) for u in units)
    lo, hi = wilson(wins, 2 * len(units))
    score = wins / (2 * len(units))
    truth = ["greedy", "greedy-noisy"] if score > 0.5 else ["greedy-noisy", "greedy"]
    print(f"\nnearly equal field: greedy vs greedy with {args.equal_eps:.0%} random moves, {len(units)} real units "
          f"({2 * len(units)} matches, {time.perf_counter() - t0:.0f} s): greedy wins {score:.1%} "
          f"[95% Wilson {lo:.1%}, {hi:.1%}]; true order of the simulated field: {' > '.join(truth)}")
    boot = Bootstrap({("greedy", "greedy-noisy"): units})
    cap = Settings(settings.confidence, args.equal_cap, settings.min_per_pairing)
    T = args.adaptive_tournaments
    scheds = [boot.adaptive(["greedy", "greedy-noisy"], truth, random.Random(f"equal/{t}"), cap, t)[0] for t in range(T)]
    capped = sum(s.ended == CAP for s in scheds)
    print(f"  {T} adaptive tournaments, cap {args.equal_cap} matches: {capped}/{T} ran to the cap "
          f"(order not established), {T - capped} stopped claiming an order")
    rows = [(c, truth.index(a) < truth.index(b)) for s in scheds for a, b, c in s.state.neighbours()]
    _calibration("nearly equal field", rows, settings.confidence)
    ts = [(p_above(s.state.ratings[a], s.state.ratings[b]), truth.index(a) < truth.index(b))
          for s in scheds for a, b in [tuple(s.state.order())]]
    _calibration("nearly equal field, TrueSkill's P(above next) for comparison", ts, settings.confidence)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--throughput-only", action="store_true")
    ap.add_argument("--workers", type=int, metavar="N",
                    help="part 1 with N worker processes at concurrency 2, against the in-process runner and the "
                         "bare-stream ceiling (default: off, part 1 as before)")
    ap.add_argument("--repeat", type=int, default=5, help="alternating rounds of --workers or --ray (default 5; medians)")
    ap.add_argument("--ray", metavar="ADDRESS",
                    help="issue 15: part 1 on the Ray cluster at ADDRESS (local: a private one) against --workers 2, "
                         "then 1 and 2 local worker nodes (default: off)")
    ap.add_argument("--sandbox", choices=("bwrap", "none"), help="[limits] sandbox of part 1 (default: bwrap where it works)")
    ap.add_argument("--no-throughput", action="store_true", help="skip part 1")
    ap.add_argument("--check-order", action="store_true", help="establish the strength order first")
    ap.add_argument("--check-only", action="store_true", help="only the order check")
    ap.add_argument("--check-seeds", type=int, default=100, help="seeds per pair in the order check")
    ap.add_argument("--rounds", type=int, default=60, help="at most this many rounds per tournament")
    ap.add_argument("--small", type=int, default=8, help="search-small samples")
    ap.add_argument("--large", type=int, default=32, help="search-large samples")
    ap.add_argument("--tournaments", type=int, default=20)
    ap.add_argument("--budget-minutes", type=float, default=35.0, help="wall-time budget of part 2 (with the check)")
    ap.add_argument("--hold", type=int, default=10, help="stop once every mode held the target this many rounds")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--cache", help="JSON file keeping played matches between runs")
    ap.add_argument("--adaptive", action="store_true",
                    help="part 3 only (issue 17): the adaptive schedule against the round robin, and its calibration")
    ap.add_argument("--pool", type=int, default=120,
                    help="real units per pairing for part 3 (a third of it for search-large vs greedy and random)")
    ap.add_argument("--adaptive-tournaments", type=int, default=200, help="simulated tournaments per mode (part 3)")
    ap.add_argument("--first-tournament", type=int, default=0,
                    help="part 3 simulates tournaments N, N+1, ... (their seeds): another N is another set of seeds")
    ap.add_argument("--confidence", type=float, default=0.95, help="adaptive confidence (part 3)")
    ap.add_argument("--max-matches", type=int, default=360, help="adaptive cap and round-robin horizon (part 3)")
    ap.add_argument("--min-per-pairing", type=int, default=2, help="adaptive warm-up round robins (part 3)")
    ap.add_argument("--equal-units", type=int, default=3000, help="real units of the nearly equal field (part 3)")
    ap.add_argument("--equal-eps", type=float, default=0.01, help="random-move share of the noisy greedy (part 3)")
    ap.add_argument("--equal-cap", type=int, default=200, help="adaptive cap on the nearly equal field (part 3)")
    args = ap.parse_args()
    SANDBOX[:] = [args.sandbox] if args.sandbox else []
    if args.adaptive:
        t0 = time.perf_counter()
        with Pool(args.jobs) as pool:
            m = Matches(pool, args.small, args.large, args.cache)
            for i, keys in enumerate(_pool_chunks(args.pool)):  # saved chunk by chunk: a stopped run keeps them
                m.get(keys, f"pool, chunk {i + 1}")
            adaptive_part(m, pool, args)
        print(f"\npart 3: {m.played} new matches of the known field, {time.perf_counter() - t0:.0f} s wall", flush=True)
        return
    if args.ray is not None:  # issue 15: a Ray cluster against local worker processes, and 1 -> 2 nodes
        throughput_ray(args.ray, args.repeat)
        return
    if args.workers is not None:  # issue 18: worker processes against the in-process runner and the ceiling
        throughput_workers(args.workers, args.repeat)
        if args.throughput_only:
            return
    elif not args.no_throughput and not args.check_only:
        for game, what in (("sixtysix", "two-player round robin"),
                           ("three_handed", "three-handed tables in every seat rotation")):
            for c in (1, 2):
                mps, dps, n, decisions = eventloop.run(_throughput(c, 3, game))
                print(f"throughput, 4 random bots over gRPC, {game} ({what}), concurrency {c}: "
                      f"{mps:.1f} matches/s, {dps:,.0f} decisions/s ({n} matches, {decisions} decisions)", flush=True)
        if args.throughput_only:
            return
    t0 = time.perf_counter()
    with Pool(args.jobs) as pool:
        m = Matches(pool, args.small, args.large, args.cache)
        if args.check_order or args.check_only:
            check_order(m, args.check_seeds)
            print(f"  [{time.perf_counter() - t0:.0f} s]\n", flush=True)
            if args.check_only:
                return
        sample_efficiency(m, args, t0)
    print(f"\npart 2: {m.played} matches played, {m.cpu:.0f} s of worker time, "
          f"{time.perf_counter() - t0:.0f} s wall", flush=True)


if __name__ == "__main__":
    main()
