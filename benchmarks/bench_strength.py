"""Strength benchmark: search beats greedy and greedy beats random, in process, on fixed seeds.

Matches are played through the game interface (:func:`harness.games.registry.get`) with the game's
default rules, for any game the three players play (``--game sixtysix`` or ``schnapsen``).
Each pairing plays ``--seeds`` match seeds twice, the players swapped, so each plays both
sides of every deal sequence. Prints each win rate with a 95% Wilson interval; the run fails
(exit 1) unless every interval lies above 50%.

    .venv/bin/python benchmarks/bench_strength.py [--game sixtysix] [--seeds 100] [--jobs N] [--samples 12]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.games import registry  # noqa: E402
from harness.games.sixtysix.observe import Observation  # noqa: E402
from harness.strategies import greedy_action, random_action  # noqa: E402
from harness.strategies_search import Budget, search_action  # noqa: E402

Policy = Callable[[Observation], str]
PAIRINGS = (("search", "greedy"), ("greedy", "random"))
GAMES = ("sixtysix", "schnapsen")  # what greedy and search play


def make_player(kind: str, seed: int, samples: int) -> Policy:
    """A policy with its own random stream, so results do not depend on scheduling."""
    rng = random.Random(f"{kind}/{seed}")
    if kind == "random":
        return lambda obs: random_action(obs, rng)
    if kind == "greedy":
        return greedy_action
    budget = Budget(samples=samples, endgame_samples=max(2, samples // 2))
    return lambda obs: search_action(obs, rng, budget)


def play(game_id: str, kinds: tuple[str, str], seed: int, samples: int) -> int:
    """Play one match under the game's default rules; returns the winning player index."""
    game = registry.get(game_id)
    players = [make_player(k, seed * 2 + i, samples) for i, k in enumerate(kinds)]
    m = game.start(seed, game.rules())
    while (p := game.to_act(m)) is not None:
        m = game.apply(m, players[p](game.observe(m, p)))
    outcome = game.outcome(m)
    assert outcome is not None and len(outcome.winners) == 1
    return outcome.winners[0]


def job(args: tuple[str, str, str, int, bool, int]) -> int:
    """1 if the first-named kind won the match on ``seed`` (playing as player 1 when ``swap``)."""
    game_id, a, b, seed, swap, samples = args
    w = play(game_id, (b, a) if swap else (a, b), seed, samples)
    return int(w == (1 if swap else 0))


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=GAMES, default="sixtysix")
    ap.add_argument("--seeds", type=int, default=100, help="seeds per pairing; each is played with seats swapped")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--samples", type=int, default=12, help="the search bot's samples per decision")
    args = ap.parse_args(argv)
    ok = True
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for a, b in PAIRINGS:
            t0 = time.perf_counter()
            jobs = [(args.game, a, b, seed, swap, args.samples)
                    for seed in range(1, args.seeds + 1) for swap in (False, True)]
            wins = sum(pool.map(job, jobs, chunksize=4))
            n = len(jobs)
            lo, hi = wilson(wins, n)
            good = lo > 0.5
            ok &= good
            print(f"{a:>6} vs {b:<6} {wins:4d}/{n} matches won = {wins / n:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]"
                  f"  {'ok' if good else 'NOT above 50%'}  ({time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"{args.game}: total {time.perf_counter() - start:.0f} s, {args.jobs} jobs, search samples {args.samples}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
