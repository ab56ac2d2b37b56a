"""Strength benchmark: the built-in players against each other, in process, on fixed seeds.

Matches are played through the game interface (:func:`harness.games.registry.get`) with the game's
default rules (``--players N`` seats Twenty-Two's N players, 2..8).

* ``--game sixtysix`` or ``schnapsen``: search beats greedy and greedy beats random. Each pairing
  plays ``--seeds`` match seeds twice, the players swapped, so each plays both sides of every deal
  sequence. Prints each win rate with a 95% Wilson interval; fails (exit 1) unless every interval
  lies above 50%.
* ``--game three_handed``, ``four_handed`` or ``twenty_two``: a table of the game's built-in players
  (:func:`harness.players.players_for`: greedy, or Twenty-Two's heuristic, against random players;
  four-handed: greedy partners against random partners). Each seed is played in every rotation of
  the players over the match's player indexes, so no index favours anyone. For each player type:
  its mean place (1 = first, ties share a place; a team's place for four-handed) with a 95% t
  interval over seeds (the seed, averaged over its rotations, is the independent unit), and its win
  share (first place, per team of that type) with a 95% Wilson interval. Fails (exit 1) unless the
  greedy type's intervals lie wholly better than the random type's.

    .venv/bin/python benchmarks/bench_strength.py [--game sixtysix] [--players N] [--seeds 100] [--jobs N]
        [--samples 12]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.games import registry  # noqa: E402
from harness.games.sixtysix.observe import Observation  # noqa: E402
from harness.players import players_for  # noqa: E402
from harness.strategies import greedy_action, random_action  # noqa: E402
from harness.strategies_search import Budget, search_action  # noqa: E402

Policy = Callable[[Observation], str]
PAIRINGS = (("search", "greedy"), ("greedy", "random"))
GAMES = ("sixtysix", "schnapsen")  # what greedy and search play
TABLE_GAMES = ("three_handed", "four_handed", "twenty_two")  # built-in players of registry.players


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


def kind(name: str) -> str:
    """A built-in player's type: ``greedy`` (Twenty-Two's ``heuristic`` too) or ``random``."""
    return "random" if name.startswith("random") else "greedy"


def table_job(args: tuple[str, dict[str, str], int]) -> list[list[tuple[str, int]]]:
    """Every rotation of one seed: for each, (player type, place) of every team, in team order."""
    game_id, values, seed = args
    game = registry.get(game_id)
    rules = game.rules(values)
    n = game.players(rules)
    teams = game.teams(rules)
    out = []
    for rot in range(n):
        named = players_for(game_id, n, random.Random(f"{game_id}/{seed}/{rot}"))
        seated = [named[(i - rot) % n] for i in range(n)]  # named player k sits at index (k + rot) % n
        m = game.start(seed, rules)
        while (p := game.to_act(m)) is not None:
            m = game.apply(m, seated[p][1](game.observe(m, p)))
        o = game.outcome(m)
        assert o is not None
        first = {t: i for i, t in reversed(list(enumerate(teams)))}  # a team's first player
        out.append([(kind(seated[i][0]), o.ranks[i] + 1) for i in sorted(first.values())])
    return out


def t_quantile(df: int, z: float = 1.959964) -> float:
    """The two-sided 95% Student t quantile (Cornish-Fisher expansion; exact to 3 decimals for df >= 5)."""
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    mean = statistics.fmean(values)
    half = t_quantile(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def table(args: argparse.Namespace, values: dict[str, str]) -> int:
    game = registry.get(args.game)
    rules = game.rules(values)
    n = game.players(rules)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        seeds = list(pool.map(table_job, [(args.game, values, s) for s in range(1, args.seeds + 1)], chunksize=8))
    matches = args.seeds * n
    per_seed: dict[str, list[float]] = {"greedy": [], "random": []}
    wins = {"greedy": 0, "random": 0}
    slots = {"greedy": 0, "random": 0}
    for rotations in seeds:
        places: dict[str, list[int]] = {"greedy": [], "random": []}
        for teams in rotations:
            for k, place in teams:
                places[k].append(place)
                wins[k] += place == 1
                slots[k] += 1
        for k in per_seed:
            per_seed[k].append(statistics.fmean(places[k]))
    shown = "default rules" + (f", {n} players" if args.game == "twenty_two" else "")
    unit = "team" if len(set(game.teams(rules))) < n else "player"
    print(f"{args.game} ({shown}): {args.seeds} seeds x {n} rotations = {matches} matches "
          f"[{time.perf_counter() - start:.1f} s, {args.jobs} jobs]")
    print(f"  {'type':<7} {unit + 's':>7}  {'mean place':>10} {'[95% t interval]':<16}  "
          f"{'win share':>9} {'(wins/n)':<13} [95% Wilson]")
    res = {}
    for k in ("greedy", "random"):
        mean, lo, hi = mean_interval(per_seed[k])
        wlo, whi = wilson(wins[k], slots[k])
        res[k] = (lo, hi, wlo, whi)
        print(f"  {k:<7} {slots[k] // matches:>7}  {mean:10.3f} [{lo:.3f}, {hi:.3f}]  "
              f"{wins[k] / slots[k]:9.1%} {f'({wins[k]}/{slots[k]})':<13} [{wlo:.1%}, {whi:.1%}]")
    g, r = res["greedy"], res["random"]
    place_ok, share_ok = g[1] < r[0], g[2] > r[3]
    print(f"  greedy above random: mean place {'ok' if place_ok else 'INTERVALS OVERLAP'}, "
          f"win share {'ok' if share_ok else 'INTERVALS OVERLAP'} (lower place is better)")
    return 0 if place_ok and share_ok else 1


def fail(message: str) -> int:
    print(f"bench_strength: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="sixtysix", help=f"one of {', '.join(GAMES + TABLE_GAMES)}")
    ap.add_argument("--players", type=int, default=None, help="players at the table (Twenty-Two: 2..8)")
    ap.add_argument("--seeds", type=int, default=100, help="seeds; each is played in every seat rotation")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--samples", type=int, default=12, help="the search bot's samples per decision")
    ap.error = lambda message: sys.exit(fail(message))  # type: ignore[method-assign]
    args = ap.parse_args(argv)
    if args.game not in GAMES + TABLE_GAMES:
        return fail(f"unknown game {args.game!r} (games: {', '.join(GAMES + TABLE_GAMES)})")
    if args.seeds < 2 or args.jobs < 1:
        return fail("--seeds must be at least 2 and --jobs at least 1")
    values: dict[str, str] = {}
    if args.game == "twenty_two" and args.players is not None:
        values["players"] = str(args.players)
    try:
        seats = registry.get(args.game).players(registry.get(args.game).rules(values))
    except ValueError as e:
        return fail(f"--players: {e}")
    if args.players is not None and args.players != seats:
        return fail(f"{args.game} seats {seats} players, not {args.players}")
    if args.game in TABLE_GAMES:
        return table(args, values)
    return duel(args)


def duel(args: argparse.Namespace) -> int:
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
