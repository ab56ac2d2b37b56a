"""Engine speed: random-vs-random deals and full matches to 7, in process.

The random players choose uniformly among the legal actions but claim only with 66 or more,
so deals are played out as in the peer benchmark (research/peer-schnapsen.md section 7).

    python benchmarks/bench_engine.py [--deals N] [--matches N] [--runs R] [--procs P]

Prints deals/s and matches/s: the median of R runs, for one process and for P processes in
parallel (one per core).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import time

from harness.games.sixtysix.engine import _apply, counted_points, deal, legal_actions
from harness.games.sixtysix.match import fast_apply, start_match


def _choose(s, rng: random.Random) -> str:
    acts = legal_actions(s)
    if "claim" in acts and len(acts) > 1 and counted_points(s, s.to_act) < 66:
        acts.remove("claim")
    return acts[int(rng.random() * len(acts))]


def play_deals(n: int, seed: int) -> int:
    rng = random.Random(seed)
    deck = list(range(24))
    decisions = 0
    for _ in range(n):
        rng.shuffle(deck)
        s = deal(deck)
        while s.outcome is None:
            s = _apply(s, _choose(s, rng))
            decisions += 1
    return decisions


def play_matches(n: int, seed: int) -> int:
    rng = random.Random(seed)
    deals = 0
    for i in range(n):
        m = start_match(seed * 1_000_003 + i)
        while m.winner is None:
            m = fast_apply(m, _choose(m.state, rng))
        deals += len(m.results)
    return deals


def _timed(fn, n: int, seed: int) -> float:
    t = time.perf_counter()
    fn(n, seed)
    return time.perf_counter() - t


def _rate(fn, n: int, runs: int, procs: int) -> float:
    rates = []
    for r in range(runs):
        if procs == 1:
            rates.append(n / _timed(fn, n, r))
        else:
            with mp.get_context("fork").Pool(procs) as pool:
                t = time.perf_counter()
                pool.starmap(fn, [(n, 1000 * r + k) for k in range(procs)])
                rates.append(procs * n / (time.perf_counter() - t))
    return statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--matches", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--procs", type=int, default=mp.cpu_count())
    a = ap.parse_args()
    decisions = play_deals(2000, 99)
    print(f"decisions per deal (random play): {decisions / 2000:.1f}")
    for procs in sorted({1, a.procs}):
        d = _rate(play_deals, a.deals // procs, a.runs, procs)
        m = _rate(play_matches, a.matches // procs, a.runs, procs)
        print(f"{procs} process{'es' if procs > 1 else ''}: {d:,.0f} deals/s   {m:,.0f} matches/s")
    print("targets (2 cores): 15,000 deals/s and 2,400 matches/s; peer: ~5,000 deals/s, 816 matches/s")


if __name__ == "__main__":
    main()
