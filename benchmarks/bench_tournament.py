"""Tournament benchmarks.

1. Throughput: matches/s of a random-bot round robin over real gRPC (4 `random_bot.py` processes,
   the real runner and SQLite store) at concurrency 1 and 2.
2. Sample efficiency: how many matches TrueSkill needs to order four players of known strength
   (random < greedy < search small budget < search large budget) correctly in 19 of 20 seeded
   tournaments, with duplicate scheduling (legs share the round's seed) and without (every match
   its own seed). This part runs IN PROCESS (engine + strategies, no gRPC) to be feasible; the
   search budgets are sample counts, with no clock.

Run: .venv/bin/python benchmarks/bench_tournament.py [--throughput-only] [--rounds R] [--small N] [--large N]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import random
import sys
import tempfile
import time
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.rating import Model, standings  # noqa: E402
from harness.tournament import config as cfgmod  # noqa: E402
from harness.tournament import runner  # noqa: E402
from harness.tournament.local import greedy_strategy, play_schedule, random_strategy  # noqa: E402
from harness.tournament.schedule import Pairing, round_robin, total  # noqa: E402
from harness.tournament.store import Store  # noqa: E402

TRUE_ORDER = ["search-large", "search-small", "greedy", "random"]


async def _throughput(concurrency: int, rounds: int) -> float:
    from harness.arena.match import play_match

    with tempfile.TemporaryDirectory() as tmp:
        bots = [f"r{i}=python {ROOT / 'sample_bots' / 'random_bot.py'}" for i in range(4)]
        cfg = cfgmod.from_flags(bots, rounds=rounds, concurrency=concurrency, db=f"{tmp}/a.db", out=tmp)
        store = Store(cfg.db)
        pool = runner.Bots(cfg.entrants)
        entrants = await pool.start()
        t = store.create(cfg.name, cfg.identity(), total(4, rounds), [(e.name, e.label) for e in cfg.entrants])
        t0 = time.perf_counter()
        rep = await runner.run(cfg, store, t, entrants=entrants, play=play_match, stop=asyncio.Event())
        dt = time.perf_counter() - t0
        await pool.close()
        store.close()
        return rep.played / dt


def _independent(p: Pairing, seed: int) -> Pairing:
    digest = hashlib.sha256(f"independent/{seed}/{p.seq}".encode()).digest()
    return replace(p, seed=int.from_bytes(digest[:8], "big") >> 1)


def _strategies(small: int, large: int):
    from harness.strategies_search import Budget, search_action

    def search(n: int):
        def act(obs):
            rng = random.Random(repr((obs.seat, obs.hand, obs.history)))
            return search_action(obs, rng, Budget(samples=n, endgame_samples=max(1, n // 2)))
        return act

    def make(name: str, p: Pairing):
        if name == "random":
            return random_strategy(p.seed * 7 + p.leg)
        if name == "greedy":
            return greedy_strategy()
        return search(small if name == "search-small" else large)
    return make


def _one(job: tuple[int, bool, int, int, int]) -> list[bool]:
    """One seeded tournament; whether the order is right after each round."""
    seed, duplicate, rounds, small, large = job
    names = list(TRUE_ORDER)
    random.Random(seed).shuffle(names)  # entrant order must not help
    ps = list(round_robin(names, rounds, seed))
    if not duplicate:
        ps = [_independent(p, seed) for p in ps]
    played = play_schedule(ps, _strategies(small, large))
    per_round = len(ps) // rounds
    return [standings(Model(), names, played[: r * per_round]).order == TRUE_ORDER for r in range(1, rounds + 1)]


def _needed(results: list[list[bool]], per_round: int, need: int) -> str:
    for r in range(len(results[0])):
        if sum(res[r] for res in results) >= need:
            return f"{(r + 1) * per_round} matches ({r + 1} rounds; {sum(res[r] for res in results)}/20 correct)"
    best = max(range(len(results[0])), key=lambda r: sum(res[r] for res in results))
    return f"> {len(results[0]) * per_round} matches (best {sum(res[best] for res in results)}/20 at round {best + 1})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--throughput-only", action="store_true")
    ap.add_argument("--rounds", type=int, default=12, help="rounds per seeded tournament in part 2")
    ap.add_argument("--small", type=int, default=4, help="search-small samples")
    ap.add_argument("--large", type=int, default=32, help="search-large samples")
    ap.add_argument("--tournaments", type=int, default=20)
    args = ap.parse_args()
    for c in (1, 2):
        print(f"throughput, random bots over gRPC, concurrency {c}: {asyncio.run(_throughput(c, 3)):.1f} matches/s",
              flush=True)
    if args.throughput_only:
        return
    per_round = total(4, 1)
    need = args.tournaments - args.tournaments // 20
    with Pool() as pool:
        for duplicate in (True, False):
            t0 = time.perf_counter()
            jobs = [(s, duplicate, args.rounds, args.small, args.large) for s in range(args.tournaments)]
            results = pool.map(_one, jobs)
            label = "duplicate" if duplicate else "independent seeds"
            print(f"{label}: order right in {need}/{args.tournaments} tournaments after "
                  f"{_needed(results, per_round, need)} [{time.perf_counter() - t0:.0f} s]", flush=True)
            print("  correct per round:", [sum(res[r] for res in results) for r in range(args.rounds)], flush=True)


if __name__ == "__main__":
    main()
