"""Tournament benchmarks.

1. Throughput: matches/s and decisions/s of a random-bot tournament over real gRPC (4 `random_bot.py`
   processes, the real runner and SQLite store) at concurrency 1 and 2: a two-player (Sixty-Six)
   round robin, and three-handed Sixty-Six tables of 3 of the 4 in every seat rotation (the same
   36 matches). The time is the runner's alone (bots already started).
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

Run:
  .venv/bin/python benchmarks/bench_tournament.py [--throughput-only | --no-throughput] [--sandbox bwrap|none]
      [--check-order] [--check-only] [--check-seeds N] [--small N] [--large N]
      [--rounds R] [--tournaments T] [--budget-minutes M] [--hold H] [--jobs 2] [--cache FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import statistics
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.rating import Model, standings, two_player, update, wilson  # noqa: E402
from harness.tournament import config as cfgmod  # noqa: E402
from harness.tournament import runner  # noqa: E402
from harness.tournament.local import greedy_strategy, play, random_strategy  # noqa: E402
from harness.tournament.schedule import round_robin, round_seed, total  # noqa: E402
from harness.tournament.store import Store  # noqa: E402

TRUE_ORDER = ["search-large", "search-small", "greedy", "random"]  # strongest first
ORDERED = [(x, y) for x in TRUE_ORDER for y in TRUE_ORDER if x != y]  # the 12 (player 0, player 1)
UNORDERED = sorted({tuple(sorted(p)) for p in ORDERED})  # the 6 pairings
PER_ROUND = total(4, 1)  # 12 matches per round robin


# -- part 1 ------------------------------------------------------------------------------------


SANDBOX: list[str] = []  # --sandbox, for part 1


async def _throughput(concurrency: int, rounds: int, game: str = "sixtysix") -> tuple[float, float, int, int]:
    """A random-bot tournament of ``game`` (4 entrants; tables in every seat rotation for more than two
    seats) over real gRPC with the real runner and SQLite store: (matches/s, decisions/s, matches, decisions)."""
    from harness.arena.match import play_match

    with tempfile.TemporaryDirectory() as tmp:
        bots = [f"r{i}=python {ROOT / 'sample_bots' / 'random_bot.py'}" for i in range(4)]
        cfg = cfgmod.from_flags(bots, rounds=rounds, concurrency=concurrency, db=f"{tmp}/a.db", out=tmp, game=game,
                                seed=1,  # local bots: a fixed seed, the same deals every run
                                limits=[f"sandbox={SANDBOX[0]}"] if SANDBOX else ())
        store = Store(cfg.db)
        pool = runner.Bots(cfg.entrants, limits=cfg.limits)
        try:
            entrants = await pool.start(cfg.game)
            t = store.create(cfg.name, cfg.identity(), len(runner.schedule(cfg)),
                             [(e.name, e.label) for e in cfg.entrants], game=cfg.game)
            t0 = time.perf_counter()
            rep = await runner.run(cfg, store, t, entrants=entrants, play=play_match, stop=asyncio.Event())
            dt = time.perf_counter() - t0
            rows = store.matches(t.id)
        finally:
            await pool.close()
            store.close()
        assert rep.played == len(rows) and all(r["cause"] == "normal" for r in rows), "a match did not end normally"
        decisions = sum(r["decisions"] for r in rows)
        return rep.played / dt, decisions / dt, rep.played, decisions


# -- matches (in process, cached) ----------------------------------------------------------------


def _search(n: int):
    from harness.strategies_search import Budget, search_action

    budget = Budget(samples=n, endgame_samples=max(1, n // 2))

    def act(obs):
        rng = random.Random(repr((obs.seat, obs.hand, obs.history)))  # deterministic per observation
        return search_action(obs, rng, budget)
    return act


def _strategy(name: str, seed: int, player: int, small: int, large: int):
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
    winner, scores = o.winners[0], o.scores
    return (seed, x, y), winner, scores, time.perf_counter() - t0


def _cost(x: str, y: str, small: int, large: int) -> float:
    """Rough relative cost of a match, to hand the slow ones out first."""
    return sum({"search-small": small, "search-large": large}.get(n, 0.05) for n in (x, y))


class Matches:
    """Every match played so far, keyed by (seed, player 0, player 1); optionally kept in a file."""

    def __init__(self, pool, small: int, large: int, path: str | None) -> None:
        self.pool, self.small, self.large, self.path = pool, small, large, path
        self.results: dict[tuple[int, str, str], tuple[int, tuple[int, int]]] = {}
        self.played = 0
        self.cpu = 0.0
        if path and Path(path).exists():
            data = json.loads(Path(path).read_text())
            if (data["small"], data["large"]) == (small, large):
                for seed, x, y, w, s0, s1 in data["matches"]:
                    self.results[(seed, x, y)] = (w, (s0, s1))

    def get(self, keys, label: str = "") -> None:
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
        self.played = []
        self.right_cons: list[bool] = []  # order by mu - 3 sigma right after each round
        self.right_mu: list[bool] = []  # order by mu right after each round

    def keys(self, r: int):
        return [(_tournament_seed(self.mode, self.t, r, *p.players, self.tournaments), *p.players)
                for p in self.pairings if p.round == r]

    def add_round(self, r: int, m: Matches) -> None:
        for p in self.pairings:
            if p.round != r:
                continue
            seed = _tournament_seed(self.mode, self.t, r, *p.players, self.tournaments)
            w, scores = m.results[(seed, *p.players)]
            pl = two_player(p.seq, p.match_id, p.pair_id, p.players, w, scores)
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


def sample_efficiency(m: Matches, args, t_start: float) -> None:
    T = args.tournaments
    need = T - T // 20
    modes = ("duplicate", "paired", "independent")
    tours = {mode: [Tournament(mode, t, args.rounds, T) for t in range(T)] for mode in modes}
    counts = {(mode, c): [] for mode in modes for c in ("cons", "mu")}
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--throughput-only", action="store_true")
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
    args = ap.parse_args()
    SANDBOX[:] = [args.sandbox] if args.sandbox else []
    if not args.no_throughput and not args.check_only:
        for game, what in (("sixtysix", "two-player round robin"),
                           ("three_handed", "three-handed tables in every seat rotation")):
            for c in (1, 2):
                mps, dps, n, decisions = asyncio.run(_throughput(c, 3, game))
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
