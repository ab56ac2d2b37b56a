"""Engine speed: random playouts of every registered game, in process, one core and all cores.

For each game (``--game G``, default every registered game) it prints, as the median of R runs:

* interface matches: whole matches through the game interface (``start``, ``to_act``, ``legal``,
  ``apply`` of :func:`harness.games.registry.get`, legality checked), a uniformly random legal action
  at each decision except that in the Sixty-Six family claims are declined while anything else is
  legal (a random claim is nearly always false and ends the deal at once; in three_handed a claim is
  offered only with 66, and declining it would leave every deal unscored). Decisions/s here are comparable across games.
* for the Sixty-Six family (classic Sixty-Six, Schnapsen) also the engine figures kept since the
  first release: random deals under the game's default rules (claiming only with 66 or more, as
  in the peer benchmark, research/peer-schnapsen.md section 7) in deals/s and decisions/s, and
  matches to 7 in matches/s, without the legality check.

    python benchmarks/bench_engine.py [--game G] [--deals N] [--matches N] [--runs R] [--procs P]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.games import registry  # noqa: E402
from harness.games.sixtysix.engine import State, apply_legal, counted_points, deal, legal_actions  # noqa: E402
from harness.games.sixtysix.game import SixtySixFamily  # noqa: E402
from harness.games.sixtysix.match import fast_apply  # noqa: E402

Run = Callable[[str, int, int], int]  # (game, n, seed) -> decisions
EXTRA: dict[str, int] = {}  # rules from --players, for a game that seats N players


def legal_twenty_two() -> str:
    """Twenty-Two's legal-follow generation for a 4-card set led against an 11-card hand (issue 13:
    under 100 us), as microseconds per call for a low, a middle and a high bar."""
    from harness.games.twenty_two.engine import follows

    hand = tuple(sorted("2C 4D 5H 7S 8C 9D TH JS QC KD AH".split()))
    out = []
    for name, bar in (("low", (3, 2, 1, 0)), ("middle", (9, 7, 5, 3)), ("high", (12, 12, 11, 11))):
        reps = 2000
        t = time.process_time()
        for _ in range(reps):
            legal = follows(hand, 4, bar)
        us = (time.process_time() - t) / reps * 1e6
        out.append(f"{name} bar {us:.1f} us ({len(legal)} legal)")
    return "  legal follows, 4-card set vs 11-card hand: " + "; ".join(out)


def _choose(s: State, rng: random.Random) -> str:
    acts = legal_actions(s)
    if "claim" in acts and len(acts) > 1 and counted_points(s, s.to_act) < 66:
        acts.remove("claim")
    return acts[int(rng.random() * len(acts))]


def play_deals(game_id: str, n: int, seed: int) -> int:
    """``n`` random deals of a Sixty-Six family game on the engine; returns the decisions made."""
    game = registry.get(game_id)
    assert isinstance(game, SixtySixFamily)
    rules = game.rules()
    rng = random.Random(seed)
    deck = list(game.pack.cards)
    decisions = 0
    for _ in range(n):
        rng.shuffle(deck)
        s = deal(deck, rules)
        while s.outcome is None:
            s = apply_legal(s, _choose(s, rng))
            decisions += 1
    return decisions


def play_matches(game_id: str, n: int, seed: int) -> int:
    """``n`` random matches of a Sixty-Six family game on the engine; returns the decisions made."""
    game = registry.get(game_id)
    rules = game.rules()
    rng = random.Random(seed)
    decisions = 0
    for i in range(n):
        m = game.start(seed * 1_000_003 + i, rules)
        while m.winner is None:
            m = fast_apply(m, _choose(m.state, rng))
            decisions += 1
    return decisions


def play_interface(game_id: str, n: int, seed: int) -> int:
    """``n`` random matches through the game interface (any game); returns the decisions made."""
    game = registry.get(game_id)
    rules = game.rules()
    if EXTRA and "players" in game.rules_map(rules):  # --players N (twenty_two)
        rules = game.rules(EXTRA)
    rng = random.Random(seed)
    decisions = 0
    false_claims = isinstance(game, SixtySixFamily)  # elsewhere (three_handed) a claim is only offered with 66
    for i in range(n):
        m = game.start(seed * 1_000_003 + i, rules)
        while game.to_act(m) is not None:
            legal = game.legal(m)
            if false_claims and "claim" in legal and len(legal) > 1:
                legal = tuple(a for a in legal if a != "claim")
            m = game.apply(m, legal[int(rng.random() * len(legal))])
            decisions += 1
    return decisions


def _rate(fn: Run, game_id: str, n: int, runs: int, procs: int) -> tuple[float, float]:
    """Median (units/s, decisions/s) of ``runs`` runs of ``n`` units in each of ``procs`` processes."""
    rates = []
    for r in range(runs):
        t = time.perf_counter()
        if procs == 1:
            decisions = fn(game_id, n, r)
        else:
            with mp.get_context("fork").Pool(procs) as pool:
                decisions = sum(pool.starmap(fn, [(game_id, n, 1000 * r + k) for k in range(procs)]))
        dt = time.perf_counter() - t
        rates.append((procs * n / dt, decisions / dt))
    return statistics.median(u for u, _ in rates), statistics.median(d for _, d in rates)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=registry.ids(), action="append", help="a game (repeatable); default all")
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--matches", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--procs", type=int, default=mp.cpu_count())
    ap.add_argument("--players", type=int, help="players, for a game that seats 2-8 (twenty_two)")
    a = ap.parse_args(argv)
    if a.players:
        EXTRA["players"] = a.players
    for game_id in a.game or registry.ids():
        game = registry.get(game_id)
        family = isinstance(game, SixtySixFamily)
        print(f"{game_id} ({game.title})")
        if game_id == "twenty_two":
            print(legal_twenty_two())
        if family:
            print(f"  decisions per deal (random play, engine): {play_deals(game_id, 2000, 99) / 2000:.1f}")
        for procs in sorted({1, a.procs}):
            where = f"  {procs} process{'es' if procs > 1 else ''}:"
            per = max(1, a.matches // 4 // procs)
            im, idec = _rate(play_interface, game_id, per, a.runs, procs)
            line = f"interface {idec:,.0f} decisions/s {im:,.0f} matches/s"
            if family:
                d, ddec = _rate(play_deals, game_id, a.deals // procs, a.runs, procs)
                m, _ = _rate(play_matches, game_id, a.matches // procs, a.runs, procs)
                line = f"engine {d:,.0f} deals/s {ddec:,.0f} decisions/s {m:,.0f} matches/s;  " + line
            print(where, line, flush=True)
    print("targets (2 cores): 15,000 deals/s and 2,400 matches/s; peer: ~5,000 deals/s, 816 matches/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
