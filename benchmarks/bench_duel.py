"""How many duplicate pairs the duel's SPRT needs: in-process duels of the built-in players
(:func:`harness.duel.simulate`, no processes), over several secrets.

For each matchup it prints, per secret, the verdict (H0, H1 or none within ``--pairs``), the pairs it
took and the pentanomial counts, then the median pairs. Greedy against random should accept H1;
a player against itself should accept H0 (in about 1 - alpha of the duels).

    .venv/bin/python benchmarks/bench_duel.py [--game sixtysix] [--secrets 3] [--pairs 3000]
        [--sprt elo0=0 elo1=10 ...]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.duel import simulate  # noqa: E402
from harness.players import greedy_action  # noqa: E402
from harness.sprt import Sprt  # noqa: E402
from harness.strategies import random_action  # noqa: E402

Maker = Callable[[random.Random], Callable[[Any], str]]


def rnd(rng: random.Random) -> Callable[[Any], str]:
    return lambda obs: random_action(obs, rng)


def greedy(rng: random.Random) -> Callable[[Any], str]:
    return greedy_action


MATCHUPS: dict[str, tuple[Maker, Maker]] = {
    "greedy-random": (greedy, rnd), "random-random": (rnd, rnd), "greedy-greedy": (greedy, greedy)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="sixtysix", help="a game of two sides (default: sixtysix)")
    ap.add_argument("--secrets", type=int, default=3, help="duels per matchup (default 3)")
    ap.add_argument("--pairs", type=int, default=3000, help="the most pairs per duel (default 3000)")
    ap.add_argument("--sprt", nargs="*", default=[], help="SPRT words (default: elo0=0 elo1=10 alpha=beta=0.05)")
    ap.add_argument("--matchup", action="append", choices=sorted(MATCHUPS),
                    help="which matchups (repeatable; default: all)")
    args = ap.parse_args()
    spec = Sprt.parse(args.sprt)
    print(f"{args.game}: SPRT {spec.to_dict()}")
    for name in args.matchup or list(MATCHUPS):
        a, b = MATCHUPS[name]
        took = []
        for secret in range(args.secrets):
            t0 = time.perf_counter()
            t = simulate(a, b, game=args.game, pairs=args.pairs, sprt=spec, secret=secret)
            took.append(t.decided_at or t.pairs)
            print(f"  {name:14} secret {secret}: {t.decision or 'none':4} after {t.decided_at or t.pairs:5} pairs  "
                  f"ptnml {t.counts}  LLR {t.llr:+.2f}  ({time.perf_counter() - t0:.1f} s)")
        print(f"  {name:14} median pairs: {statistics.median(took):g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
