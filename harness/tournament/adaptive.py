"""The adaptive schedule (issue 17): spend matches where the order is still in doubt, and stop when
every pair of neighbours in the standings is ordered at a stated confidence.

The schedule is a pure function of the tournament's seed and the results so far (:func:`plan`). It
plays in *rounds*. The first ``min_per_pairing`` rounds are a full round robin each (tables of the
game's seats for table games, :func:`harness.tournament.schedule.groups`). After that:

* A two-sided field (two seats, or one entrant per team) plays **one unit** (a duplicate pair) a
  round (:func:`units_per_round` disjoint ones in fields of six or more): the pairing, of *any* two
  entrants, whose next units are expected to lower the number of mis-ordered neighbours the most
  (:func:`order_risk`: the sum over neighbours in the standings of the probability, under the
  ratings, that the lower one is truly above; 1, 2, 4, 8 and 16 units looked ahead, every outcome
  weighted by TrueSkill's own win probability, :func:`_lookahead_units`). The long look-ahead is for
  the closest pair: one more unit barely moves its order, sixteen may, and a short horizon spent its
  matches elsewhere. The pairing may be two non-neighbours: playing a third entrant against both
  members of a close pair also orders them, and playing an entrant whose σ keeps it wrongly low under
  μ − 3σ puts it back. Once no pairing is worth :data:`MIN_GAIN`, the round is the least certain
  neighbour pair by the honest confidence below, so that the tournament can still stop.
* A table game plays one table (in all its seat rotations) for every pair of neighbours whose order is
  not yet established, the least certain first, seating the pair with the entrants next to it in the
  standings (:func:`_neighbour_units`; the first version's rule for two-sided fields too, kept as
  ``allocation="neighbours"`` for the benchmark).

The allocation is only where matches go; the order shown is always TrueSkill's (μ − 3σ), and the
stopping rule is the test below, whatever the allocation. Round ``r + 1`` is made only once every
match of round ``r`` is recorded, so ``--resume`` after a kill replays the same round, and a rerun
with the same deterministic bots plays the same matches.

**The rating.** An adaptive tournament is rated with TrueSkill without its dynamics term
(:data:`MODEL`, τ = 0): a bot's skill does not drift during a tournament, and τ > 0 makes TrueSkill
forget old results, so that however often two close entrants meet, their order keeps flipping
with the latest matches (benchmarks/bench_tournament.py ``--adaptive`` shows the plateau). The
adaptive schedule meets close pairs many times, so it needs every result to count. Its
leaderboards are rated with the same model (``leaderboard.json`` records it).

**What "ordered" means, and why the confidence is honest.** Entrant A is truly above B when A beats
B in more than half of their meetings in expectation over fresh deals (ties count one half): in a
unit, A's *score* against B is the share of its legs in which A finished ahead of B. TrueSkill's
"P(above next)" is not a calibrated probability of that (it assumes its own model, and stopping
when it looks good inflates it). Instead each pair of entrants keeps a *test martingale* (betting
on the unit scores, a uniform mixture over betting fractions ``u`` in (0, 1)):

    K_n(A > B) = mean_u  prod_i (1 + u (2 X_i - 1))

Under "A is not above B" (E[X] <= 1/2 for every unit, whoever else sits at the table) this is a
non-negative supermartingale with K_0 = 1, so by Ville's inequality the chance that it *ever*
reaches 1/α is at most α, whenever and however the schedule decides to look, play or stop. The
reported confidence of a neighbour pair is ``1 - 2 (k - 1) / K_n`` (floored at 0) for a field of
``k`` entrants: a Bonferroni correction over the ``k - 1`` neighbour pairs (stopping when all of
them pass claims the whole order) and over the two directions (two exactly equal entrants have
both "A above B" and "B above A" false, and must not show either at 95% more than 5% of the time).
So a field of nearly equal bots runs to ``max_matches`` and says the order is not established.
For one pair the bound is exact: a wrong order (or a tie) shows confidence ``c`` at any time with
probability at most ``(1 - c) / (2 (k - 1))``. For the whole order claimed at the stop, a union
bound over all ``k (k - 1) / 2`` pairs (any of which the data could make neighbours) gives at most
``k / 4 * (1 - c)`` for a strict true order (``1 - c`` for four entrants); simulations find far
less, since pairs far apart in the true order almost never reach the threshold the wrong way. Calibration is checked by simulation in tests/test_adaptive.py and
benchmarks/bench_tournament.py ``--adaptive``.

>>> e = Evidence()
>>> for _ in range(12):
...     e.add(1.0)
>>> round(e.wealth(True), 1) > 20 > e.wealth(False)
True
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trueskill

from harness.rating import Model, Played, firsts, p_above, phi, update
from harness.tournament.schedule import Pairing, circle, groups, partnerships, rotations, round_seed

GRID = tuple((j + 0.5) / 64 for j in range(64))  # betting fractions u: a uniform mixture over (0, 1)
MAX_ROUNDS = 999  # match ids hold three digits of round
DEFAULT_CONFIDENCE = 0.95
DEFAULT_MIN_PER_PAIRING = 2
DEFAULT_CAP_ROUNDS = 20  # default max_matches: the matches of this many round robins (rounds of tables)
MODEL = Model(tau=0.0)  # the rating of adaptive tournaments: TrueSkill without skill drift (module docstring)
LOOKAHEAD = (1, 2, 4, 8, 16)  # units of one pairing looked ahead (_lookahead_units): a close pair needs many
# units before its order can change, and (1, 2, 4) undervalued it (benchmarks/bench_tournament.py --adaptive)
NEGLIGIBLE = 1e-9  # outcomes of a look-ahead less likely than this are left out (_gain)
MIN_GAIN = 1e-3  # below this expected fall of order_risk per unit, serve the stopping rule instead

CONFIDENCE = "confidence"  # how a tournament ended
CAP = "cap"
RUNNING = "running"


@dataclass(frozen=True, slots=True)
class Settings:
    """What an adaptive tournament is asked for."""

    confidence: float = DEFAULT_CONFIDENCE  # every neighbour pair ordered at least this surely
    max_matches: int = 240  # never more matches than this
    min_per_pairing: int = DEFAULT_MIN_PER_PAIRING  # full round robins before adapting


@dataclass(frozen=True, slots=True)
class Field:
    """The entrants and how they sit: what :func:`plan` needs besides the results."""

    names: tuple[str, ...]
    seats: int
    partners: str  # "", "self" or "rotate"
    seed: int

    @property
    def two_sided(self) -> bool:
        """Units are duplicate pairs of two entrants (two seats, or one entrant per team)."""
        return self.seats == 2 or self.partners == "self"


def default_max_matches(entrants: int, seats: int, partners: str) -> int:
    """:data:`DEFAULT_CAP_ROUNDS` round robins' worth of matches (rounds of tables)."""
    return DEFAULT_CAP_ROUNDS * round_size(Field(tuple(f"e{i}" for i in range(entrants)), seats, partners, 0), 1)


def round_size(f: Field, r: int) -> int:
    """Matches of warm-up round ``r`` (a full round robin, or one round of tables)."""
    return sum(len(legs) for legs in _warmup(f, r))


class Evidence:
    """The test martingales of one pair (a, b), a before b in entrant order, and what they saw."""

    def __init__(self) -> None:
        self.up = [0.0] * len(GRID)  # log-wealth betting on a > b, per betting fraction
        self.down = [0.0] * len(GRID)  # betting on b > a
        self.units = 0
        self.matches = 0
        self.won = self.split = self.lost = 0  # units a won (score > 1/2), split, lost

    def add(self, x: float, legs: int = 2) -> None:
        """One unit in which ``a`` scored ``x`` (0..1) against ``b`` over ``legs`` matches."""
        d = 2 * x - 1
        for j, u in enumerate(GRID):
            self.up[j] += math.log1p(u * d)
            self.down[j] += math.log1p(-u * d)
        self.units += 1
        self.matches += legs
        if x > 0.5:
            self.won += 1
        elif x < 0.5:
            self.lost += 1
        else:
            self.split += 1

    def wealth(self, a_above: bool) -> float:
        """K_n for "a is above b" (``a_above``) or "b is above a": the mixture of the bets."""
        logs = self.up if a_above else self.down
        top = max(logs)
        return math.exp(top) * sum(math.exp(v - top) for v in logs) / len(logs)


def confidence_of(wealth: float, neighbours: int) -> float:
    """The reported confidence for a wealth: ``1 - 2 neighbours / wealth`` (both directions of every
    neighbour pair), floored at 0.

    >>> confidence_of(120.0, 3), confidence_of(2.0, 3)
    (0.95, 0.0)
    """
    return max(0.0, 1.0 - 2 * max(1, neighbours) / wealth) if wealth > 0 else 0.0


def unit_scores(legs: Sequence[Played]) -> dict[tuple[str, str], tuple[float, int]]:
    """Each pair of opponents in a unit: (a's score against b, legs that compared them), keyed by
    (a, b) in sorted order. A leg compares two entrants that sit on different teams and have ranks;
    finishing ahead scores 1, a tie 1/2."""
    got: dict[tuple[str, str], list[float]] = defaultdict(list)
    for p in legs:
        if p.ranks is None:
            continue
        teams = p.teams if p.teams is not None else tuple(range(len(p.players)))
        seats = firsts(p)
        for s, o in itertools.combinations(seats, 2):
            a, b = p.players[s], p.players[o]
            if teams[s] == teams[o] or a == b:
                continue
            ra, rb = p.ranks[s], p.ranks[o]
            score = 1.0 if ra < rb else 0.5 if ra == rb else 0.0
            if a > b:
                a, b, score = b, a, 1.0 - score
            got[(a, b)].append(score)
    return {k: (sum(v) / len(v), len(v)) for k, v in got.items()}


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


class State:
    """Ratings and pair evidence folded from finished units, in schedule order."""

    def __init__(self, names: Sequence[str], model: Model = MODEL) -> None:
        self.names = list(names)
        self.env: trueskill.TrueSkill = model.env()
        self.ratings = {n: self.env.create_rating() for n in self.names}
        self.pairs: dict[tuple[str, str], Evidence] = {
            _key(a, b): Evidence() for a, b in itertools.combinations(self.names, 2)}

    def add(self, legs: Sequence[Played]) -> None:
        """Fold one finished unit (all its legs; already in ``seq`` order with the rest)."""
        for p in legs:
            update(self.env, self.ratings, p)
        for key, (x, n) in unit_scores(legs).items():
            if key in self.pairs:
                self.pairs[key].add(x, n)

    def order(self) -> list[str]:
        """The standings order, as :func:`harness.rating.standings` sorts (μ − 3σ, then name)."""
        return sorted(self.names, key=lambda n: (-self.env.expose(self.ratings[n]), n))

    def confidence(self, above: str, below: str) -> float:
        """The honest confidence that ``above`` is truly above ``below`` (module docstring)."""
        e = self.pairs[_key(above, below)]
        return confidence_of(e.wealth(above < below), len(self.names) - 1)

    def neighbours(self, order: Sequence[str] | None = None) -> list[tuple[str, str, float]]:
        """(above, below, confidence) for each pair of neighbours in ``order`` (default: the standings)."""
        o = list(order) if order is not None else self.order()
        return [(a, b, self.confidence(a, b)) for a, b in zip(o, o[1:])]


def _warmup(f: Field, r: int) -> list[list[tuple[str, ...]]]:
    """The units of warm-up round ``r``, each as its legs' seatings: a full round robin of
    duplicate pairs (circle method), or one round of tables in all their rotations."""
    if f.two_sided:
        mult = f.seats // 2 if f.partners == "self" else 1
        return [[(a, b) * mult, (b, a) * mult] for slot in circle(list(f.names)) for a, b in slot]
    return [_legs(f, g) for g in groups(list(f.names), f.seats, round_seed(f.seed, r))]


def _legs(f: Field, group: Sequence[str]) -> list[tuple[str, ...]]:
    """The seatings of one unit of ``group`` (in entrant order)."""
    ordered = sorted(group, key=f.names.index)
    if f.two_sided:
        a, b = ordered
        mult = f.seats // 2 if f.partners == "self" else 1
        return [(a, b) * mult, (b, a) * mult]
    return partnerships(ordered) if f.partners == "rotate" else rotations(ordered)


def _neighbour_units(f: Field, s: State, settings: Settings) -> list[list[tuple[str, ...]]]:
    """One unit for every neighbour pair whose order is not yet established, least certain first
    (ties: the TrueSkill probability nearest one half). A table seats the pair with the entrants next
    to it in the standings."""
    order = s.order()
    open_pairs = []
    for i, (a, b, c) in enumerate(s.neighbours(order)):
        if c < settings.confidence:
            open_pairs.append((c, abs(p_above(s.ratings[a], s.ratings[b]) - 0.5), i))
    open_pairs.sort()
    units: list[list[tuple[str, ...]]] = []
    chosen: set[frozenset[str]] = set()
    width = 2 if f.two_sided else f.seats
    for _, _, i in open_pairs:
        start = min(max(0, i - (width - 2) // 2), len(order) - width)
        group = frozenset(order[start:start + width])
        if group not in chosen:
            chosen.add(group)
            units.append(_legs(f, sorted(group)))
    return units


Skill = tuple[float, float]  # (mu, sigma) of a rating, for the allocation's arithmetic
_B2 = 2 * MODEL.beta**2  # the performance variance of two players


def order_risk(skills: Mapping[str, Skill]) -> float:
    """How likely the standings (μ − 3σ, as the leaderboard sorts) are wrong, as the ratings see it:
    the sum over neighbour pairs of the probability that the lower one is truly above."""
    o = sorted(skills, key=lambda n: (-(skills[n][0] - 3 * skills[n][1]), n))
    return sum(1.0 - phi((skills[a][0] - skills[b][0]) / math.hypot(skills[a][1], skills[b][1]))
               for a, b in zip(o, o[1:]))


def _beat(wm: float, ws: float, lm: float, ls: float) -> tuple[float, float, float, float]:
    """TrueSkill's update of one two-player match without draws or drift (:data:`MODEL`), in closed
    form: the winner's (μ, σ) and the loser's, after."""
    ws2, ls2 = ws * ws, ls * ls
    c2 = _B2 + ws2 + ls2
    c = math.sqrt(c2)
    t = (wm - lm) / c
    cdf = 0.5 * math.erfc(-t / math.sqrt(2.0))
    v = math.exp(-t * t / 2) / math.sqrt(2 * math.pi) / cdf if cdf > 1e-300 else -t
    w = v * (v + t)
    return (wm + ws2 / c * v, ws * math.sqrt(max(1e-12, 1 - ws2 / c2 * w)),
            lm - ls2 / c * v, ls * math.sqrt(max(1e-12, 1 - ls2 / c2 * w)))


def _gain(skills: Mapping[str, Skill], x: str, y: str, units: int, now: float) -> float:
    """The expected fall of :func:`order_risk` per unit if ``x`` and ``y`` play ``units`` more duplicate
    pairs: every count of x's wins over the legs (binomial, with TrueSkill's win probability; counts
    less likely than :data:`NEGLIGIBLE` left out), the wins spread evenly through the legs."""
    (mx, sx), (my, sy) = skills[x], skills[y]
    p = phi((mx - my) / math.sqrt(_B2 + sx**2 + sy**2))
    legs = 2 * units
    expected = mass = 0.0
    after = dict(skills)
    for w in range(legs + 1):
        chance = math.comb(legs, w) * p**w * (1 - p) ** (legs - w)
        if chance < NEGLIGIBLE:
            continue
        am, as_, bm, bs = mx, sx, my, sy
        for i in range(legs):
            if (i * w) // legs != ((i + 1) * w) // legs:
                am, as_, bm, bs = _beat(am, as_, bm, bs)
            else:
                bm, bs, am, as_ = _beat(bm, bs, am, as_)
        after[x], after[y] = (am, as_), (bm, bs)
        expected += chance * order_risk(after)
        mass += chance
    return (now - expected / mass) / units


@functools.lru_cache(maxsize=4096)
def _best_pairings(names: tuple[str, ...], skills: tuple[Skill, ...]) -> tuple[tuple[str, str], ...]:
    """The pairings worth :data:`MIN_GAIN` or more, the best first (ties: entrant order). A pure function
    of the ratings, kept: :func:`plan` replays every round from the results each time it is called."""
    by_name = dict(zip(names, skills))
    now = order_risk(by_name)
    gains = []
    for i, (x, y) in enumerate(itertools.combinations(names, 2)):
        g = max(_gain(by_name, x, y, k, now) for k in LOOKAHEAD)
        if g >= MIN_GAIN:
            gains.append((-round(g, 12), i, x, y))
    return tuple((x, y) for _, _, x, y in sorted(gains))


def _lookahead_units(f: Field, s: State, settings: Settings) -> list[list[tuple[str, ...]]]:
    """One unit: the pairing (any two entrants, not only neighbours) whose next units are expected to
    lower :func:`order_risk` the most per unit (looking :data:`LOOKAHEAD` units ahead). Once no
    pairing is worth :data:`MIN_GAIN`, the least certain neighbour pair by the honest confidence
    (:func:`_neighbour_units`), so that the tournament still stops."""
    if not any(c < settings.confidence for _, _, c in s.neighbours()):
        return []
    best = _best_pairings(f.names, tuple((s.ratings[n].mu, s.ratings[n].sigma) for n in f.names))
    if not best:
        return _neighbour_units(f, s, settings)[:1]
    units: list[list[tuple[str, ...]]] = []
    busy: set[str] = set()
    for x, y in best:  # the best first; more only in large fields, each entrant once
        if x not in busy and y not in busy and len(units) < units_per_round(len(f.names)):
            units.append(_legs(f, (x, y)))
            busy |= {x, y}
    return units


def units_per_round(entrants: int) -> int:
    """Units of a look-ahead round: one up to five entrants; more in larger fields (disjoint pairings),
    so that rounds, each replayed from the results by :func:`plan`, stay few."""
    return max(1, (entrants - 2) // 2)


def _adaptive_units(f: Field, s: State, settings: Settings) -> list[list[tuple[str, ...]]]:
    """The units of an adaptive round: for two-sided fields one unit chosen by
    :func:`_lookahead_units`; for table games one table per unsettled neighbour pair."""
    return _lookahead_units(f, s, settings) if f.two_sided else _neighbour_units(f, s, settings)


ALLOCATIONS = {"lookahead": _adaptive_units, "neighbours": _neighbour_units}


@dataclass
class Plan:
    """The schedule so far and how it stands."""

    pairings: list[Pairing]  # every match scheduled so far, the current round's included
    ended: str  # RUNNING, CONFIDENCE (every neighbour pair settled) or CAP (max_matches, or round 999)
    state: State  # folded from the finished rounds
    rounds: int  # rounds scheduled
    legs: dict[str, int] = field(default_factory=dict)  # legs of every unit (pair_id) scheduled


class Scheduler:
    """The adaptive schedule, one round at a time: :meth:`next_round` makes a round from the
    finished ones, :meth:`finish_round` folds its results. :func:`plan` drives it from the store;
    benchmarks drive it directly."""

    def __init__(self, f: Field, settings: Settings, model: Model = MODEL, allocation: str = "lookahead") -> None:
        self.field, self.settings = f, settings
        self.allocate = ALLOCATIONS[allocation]  # "neighbours": the first version's rounds (benchmarks compare)
        self.state = State(f.names, model)
        self.pairings: list[Pairing] = []
        self.legs: dict[str, int] = {}
        self.rounds = 0
        self.ended = RUNNING

    def next_round(self) -> list[Pairing]:
        """The next round's matches, in schedule order; [] when the tournament is over (:attr:`ended`)."""
        f, settings, r = self.field, self.settings, self.rounds
        if r + 1 > MAX_ROUNDS:
            self.ended = CAP
            return []
        units = _warmup(f, r + 1) if r < settings.min_per_pairing else self.allocate(f, self.state, settings)
        if not units:
            self.ended = CONFIDENCE
            return []
        room = settings.max_matches - len(self.pairings)
        fitted = []
        for u in units:
            if len(u) <= room:
                fitted.append(u)
                room -= len(u)
        if not fitted:
            self.ended = CAP
            return []
        self.rounds = r = r + 1
        seed = round_seed(f.seed, r)  # replaced by each unit's keyed seed (schedule.seeded)
        out: list[Pairing] = []
        for n, unit in enumerate(fitted):
            slot, table = divmod(n, 99)
            for leg, seating in enumerate(unit):
                out.append(Pairing(len(self.pairings) + len(out), r, slot + 1, table + 1, leg, seed, seating))
        self.pairings += out
        for p in out:
            self.legs[p.pair_id] = self.legs.get(p.pair_id, 0) + 1
        return out

    def finish_round(self, results: Iterable[Played]) -> None:
        """Fold every match of the round just made (in ``seq`` order, unit by unit)."""
        units: dict[str, list[Played]] = defaultdict(list)
        for g in sorted(results, key=lambda g: g.seq):
            units[g.pair_id].append(g)
        for legs in units.values():  # dicts keep the order of the first leg: seq order
            self.state.add(legs)


def plan(f: Field, settings: Settings, played: Iterable[Played], model: Model = MODEL) -> Plan:
    """The adaptive schedule given the recorded matches: every round made so far, and whether the
    tournament is over. Recorded matches that the schedule does not hold are ignored."""
    by_id = {p.match_id: p for p in played}
    s = Scheduler(f, settings, model)
    while True:
        this_round = s.next_round()
        if not this_round:
            return Plan(s.pairings, s.ended, s.state, s.rounds, s.legs)
        got = [by_id.get(p.match_id) for p in this_round]
        if any(g is None or tuple(g.players) != p.players for g, p in zip(got, this_round)):
            return Plan(s.pairings, RUNNING, s.state, s.rounds, s.legs)
        s.finish_round(g for g in got if g is not None)


def field_of(identity: Mapping[str, Any], seats: int) -> Field:
    """The :class:`Field` of a stored tournament config (``TournamentConfig.identity()``)."""
    return Field(tuple(e[0] for e in identity["entrants"]), seats, str(identity.get("partners") or ""),
                 int(identity["seed"]))


def settings_of(identity: Mapping[str, Any]) -> Settings:
    return Settings(float(identity["confidence"]), int(identity["max_matches"]), int(identity["min_per_pairing"]))


def unit_legs(f: Field) -> int:
    """Legs of every unit of the field: both seatings of a pair, or every seat rotation of a table."""
    return 2 if f.two_sided else 6 if f.partners == "rotate" else f.seats


def summary(f: Field, settings: Settings, played: Sequence[Played], order: Sequence[str], finished: bool,
            model: Model = MODEL) -> dict[str, Any]:
    """What a leaderboard shows of an adaptive tournament: how it ended (or that it is running), each
    neighbour pair of ``order`` (the standings) with the confidence that it is the right way round,
    and the matches of every pairing. The evidence is every finished unit."""
    by_unit: dict[str, list[Played]] = defaultdict(list)
    for m in sorted(played, key=lambda m: m.seq):
        by_unit[m.pair_id].append(m)
    state = State(f.names, model)
    for legs in by_unit.values():
        if len(legs) == unit_legs(f):
            state.add(legs)
    neighbours: list[dict[str, Any]] = []
    for a, b, c in state.neighbours(order):
        e = state.pairs[_key(a, b)]
        won, lost = (e.won, e.lost) if a < b else (e.lost, e.won)
        neighbours.append({"above": a, "below": b, "p_right": round(c, 4), "matches": e.matches, "units": e.units,
                           "won": won, "split": e.split, "lost": lost})
    pairings = [{"a": a, "b": b, "matches": e.matches, "units": e.units} for (a, b), e in sorted(state.pairs.items())]
    settled = sum(n["p_right"] >= settings.confidence for n in neighbours)
    level = f"{100 * settings.confidence:g}%"
    if finished and settled == len(neighbours):
        ended = CONFIDENCE
        line = f"ended: every neighbour pair is ordered with confidence ≥ {level}, after {len(played)} matches"
    elif finished:
        ended = CAP
        line = (f"ended at the cap ({len(played)} of at most {settings.max_matches} matches): {settled} of "
                f"{len(neighbours)} neighbour pairs ordered with confidence ≥ {level}; the rest of the order "
                "is not established")
    else:
        ended = RUNNING
        line = (f"running: {settled} of {len(neighbours)} neighbour pairs ordered with confidence ≥ {level} "
                f"after {len(played)} matches (at most {settings.max_matches})")
    return {"ended": ended, "confidence": settings.confidence, "max_matches": settings.max_matches,
            "min_per_pairing": settings.min_per_pairing, "line": line, "neighbours": neighbours,
            "pairings": pairings}
