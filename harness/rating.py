"""TrueSkill ratings folded from finished matches, and the standings built on them.

Every match goes through one call, :func:`rate` (``TrueSkill.rate(groups, ranks)``): a two-player
match is two groups of one, an N-player free-for-all is N groups of one, a team game is one group
per team. Matches are folded in schedule order (``seq``), never completion order, so the
standings are a pure function of the set of recorded matches.

The "P(above next)" column is the probability that an entrant's true skill exceeds the next
entrant's, from the two posteriors: ``Phi((mu1 - mu2) / sqrt(sigma1^2 + sigma2^2))`` (the
skill-difference form). :func:`win_probability` gives the performance form, which adds
``2 beta^2`` to the variance and predicts a single match.

>>> m = Model()
>>> a, b = rate(m.env(), [(m.env().create_rating(),), (m.env().create_rating(),)], [0, 1])
>>> round(a[0].mu, 3), round(b[0].mu, 3), round(a[0].sigma, 3)
(29.205, 20.795, 7.195)
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import trueskill

# Which failure column a forfeit cause is counted in.
# "error" also counts the errors a bot's SDK reported in replies (its act() raised) where play went on.
FAILURE_COLUMNS = ("timeout", "illegal", "crash", "disconnect", "no_hello", "error")
CAUSE_COLUMN = {
    "error": "error",
    "timeout": "timeout", "illegal": "illegal", "invalid": "illegal",
    "crash": "crash", "no_hello": "no_hello", "disconnect": "disconnect",  # no_hello: never started (issue 14)
}


@dataclass(frozen=True, slots=True)
class Model:
    """TrueSkill parameters (the package's defaults, except no draws)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.0

    def env(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau,
                                   draw_probability=self.draw_probability)

    def to_dict(self) -> dict[str, float]:
        return asdict(self) | {"conservative": "mu - 3 sigma", "p_above": "Phi((mu1-mu2)/sqrt(s1^2+s2^2))"}


@dataclass(frozen=True, slots=True)
class Played:
    """One finished match as the rating sees it; seats are indexes into ``players``."""

    seq: int
    match_id: str
    pair_id: str
    players: tuple[str, ...]
    ranks: tuple[int, ...] | None  # rank per seat (0 = best); None when the match has no result
    scores: tuple[int, ...]
    cause: str = "normal"
    offender: int | None = None
    teams: tuple[int, ...] | None = None  # team per seat; None = every seat alone
    errors: tuple[int, ...] = ()  # per seat: errors the bot reported and played on after (none: all 0)


def two_player(seq: int, match_id: str, pair_id: str, players: tuple[str, str], winner: int | None,
               scores: tuple[int, int], cause: str = "normal", offender: int | None = None) -> Played:
    """A two-player match: the winner ranks 0, the loser 1."""
    ranks = None if winner is None else ((0, 1) if winner == 0 else (1, 0))
    return Played(seq, match_id, pair_id, players, ranks, scores, cause, offender)


def rate(env: trueskill.TrueSkill, groups: Sequence[tuple[trueskill.Rating, ...]],
         ranks: Sequence[int]) -> list[tuple[trueskill.Rating, ...]]:
    """The single rating update for every kind of match: groups of ratings and their ranks."""
    return [tuple(g) for g in env.rate([tuple(g) for g in groups], ranks=list(ranks))]


def update(env: trueskill.TrueSkill, ratings: dict[str, trueskill.Rating], p: Played) -> None:
    """Apply one match to ``ratings`` in place (unrated matches change nothing)."""
    if p.ranks is None:
        return
    teams = p.teams if p.teams is not None else tuple(range(len(p.players)))
    order = sorted(set(teams))
    # An entrant that holds several seats of one team (partners = "self") is rated once.
    seats = [[s for s in firsts(p) if teams[s] == t] for t in order]
    groups = [tuple(ratings[p.players[s]] for s in team) for team in seats]
    ranks = [min(p.ranks[s] for s in team) for team in seats]
    for team, new in zip(seats, rate(env, groups, ranks)):
        for s, r in zip(team, new):
            ratings[p.players[s]] = r


def firsts(p: Played) -> list[int]:
    """Each entrant's first seat in a match (an entrant may hold several seats of one team).

    >>> firsts(Played(0, "m", "m", ("a", "b", "a", "b"), (0, 1, 0, 1), (7, 3, 7, 3), teams=(0, 1, 0, 1)))
    [0, 1]
    """
    return [s for s, n in enumerate(p.players) if p.players.index(n) == s]


_FOLDS: dict[tuple[Model, tuple[str, ...]], tuple[list[Played], dict[str, trueskill.Rating],
                                                   dict[str, list[tuple[int, float, float]]]]] = {}
FOLDS_KEPT = 8  # folds remembered (a live view, a league and an adaptive schedule each ask again and again)


def fold(model: Model, names: Iterable[str], played: Iterable[Played]
         ) -> tuple[dict[str, trueskill.Rating], dict[str, list[tuple[int, float, float]]]]:
    """Ratings after every match in ``seq`` order, and each entrant's (matches, mu, sigma) history.

    The last few folds are remembered: when the matches of a fold asked before are the first of
    these (a live view or a league asking again after more matches), only the new ones are rated
    (issue 18: a 240-match tournament's board took 100 ms to rebuild, nearly all of it TrueSkill,
    and grew with every match). The answer is the same either way (tests/test_rating.py)."""
    names = tuple(names)
    ordered = sorted(played, key=lambda p: p.seq)
    env = model.env()
    key = (model, names)
    known = _FOLDS.pop(key, None)
    if known is not None and len(known[0]) <= len(ordered) and ordered[:len(known[0])] == known[0]:
        start, ratings, history = len(known[0]), dict(known[1]), {n: list(h) for n, h in known[2].items()}
    else:
        start = 0
        ratings = {n: env.create_rating() for n in names}
        history = {n: [(0, ratings[n].mu, ratings[n].sigma)] for n in ratings}
    for p in ordered[start:]:
        update(env, ratings, p)
        for n in p.players:
            history[n].append((len(history[n]), ratings[n].mu, ratings[n].sigma))
    _FOLDS[key] = (ordered, dict(ratings), {n: list(h) for n, h in history.items()})
    while len(_FOLDS) > FOLDS_KEPT:
        del _FOLDS[next(iter(_FOLDS))]  # the least recently asked
    return ratings, history


def phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def p_above(a: trueskill.Rating, b: trueskill.Rating) -> float:
    """Probability that skill ``a`` is truly above skill ``b`` (skill-difference form)."""
    return phi((a.mu - b.mu) / math.sqrt(a.sigma**2 + b.sigma**2))


def win_probability(model: Model, a: trueskill.Rating, b: trueskill.Rating) -> float:
    """Probability that ``a`` beats ``b`` in one match (performance form)."""
    return phi((a.mu - b.mu) / math.sqrt(2 * model.beta**2 + a.sigma**2 + b.sigma**2))


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a win rate (95% by default); (0, 1) when ``n`` is 0.

    >>> tuple(round(x, 3) for x in wilson(8, 10))
    (0.49, 0.943)
    """
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    return (max(0.0, (centre - half) / den), min(1.0, (centre + half) / den))


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the leaderboard."""

    rank: int
    name: str
    mu: float
    sigma: float
    score: float  # mu - 3 sigma, the sort key
    played: int
    wins: int
    points_for: int
    points_against: int
    pairs_won: int
    pairs_split: int
    pairs_lost: int
    failures: dict[str, int]
    p_above: float | None  # P(truly above the next entrant); None for the last
    places: tuple[int, ...] = ()  # matches finished in each place (1st, 2nd, ...; ties share the better one)

    @property
    def win_pct(self) -> float:
        return 100.0 * self.wins / self.played if self.played else 0.0


@dataclass(frozen=True, slots=True)
class Cell:
    """Head-to-head of a row entrant against a column entrant."""

    wins: int
    games: int

    @property
    def rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


@dataclass(frozen=True)
class Standings:
    rows: tuple[Row, ...]
    cross: dict[tuple[str, str], Cell]
    history: dict[str, list[tuple[int, float, float]]]
    matches: int
    model: Model = field(default_factory=Model)
    partners: dict[tuple[str, str], Cell] = field(default_factory=dict)  # (entrant, partner): first places together

    @property
    def order(self) -> list[str]:
        return [r.name for r in self.rows]


def standings(model: Model, names: Sequence[str], played: Iterable[Played]) -> Standings:
    """Fold the matches into ratings and count everything the leaderboard shows."""
    played = sorted(played, key=lambda p: p.seq)
    env = model.env()
    ratings, history = fold(model, names, played)
    stats: dict[str, defaultdict[str, int]] = {n: defaultdict(int) for n in names}
    fails = {n: dict.fromkeys(FAILURE_COLUMNS, 0) for n in names}
    cross: dict[tuple[str, str], list[int]] = {}
    partnered: dict[tuple[str, str], list[int]] = {}
    pairs: dict[str, list[Played]] = defaultdict(list)
    for p in played:
        pairs[p.pair_id].append(p)
        seats = firsts(p)
        teams = p.teams if p.teams is not None else tuple(range(len(p.players)))
        team_score = {teams[s]: p.scores[s] for s in reversed(range(len(p.players)))}
        for s in seats:
            n = p.players[s]
            st = stats[n]
            st["played"] += 1
            st["wins"] += p.ranks is not None and p.ranks[s] == 0
            if p.ranks is not None:
                st[f"place{p.ranks[s]}"] += 1
            st["for"] += p.scores[s]
            st["against"] += sum(v for t, v in team_score.items() if t != teams[s])
            for o in seats:
                m = p.players[o]
                if o != s and p.ranks is not None and teams[o] == teams[s]:  # partners (partners "rotate")
                    together = partnered.setdefault((n, m), [0, 0])
                    together[0] += p.ranks[s] == 0
                    together[1] += 1
                if o != s and p.ranks is not None and teams[o] != teams[s]:
                    c = cross.setdefault((n, m), [0, 0])
                    c[0] += p.ranks[s] < p.ranks[o]
                    c[1] += 1
        if p.offender is not None and p.cause in CAUSE_COLUMN:
            fails[p.players[p.offender]][CAUSE_COLUMN[p.cause]] += 1
        for s, n_errors in enumerate(p.errors):
            fails[p.players[s]]["error"] += n_errors
    for legs in pairs.values():
        if len(legs) != 2 or any(p.ranks is None for p in legs):
            continue
        wins: dict[str, int] = defaultdict(int)
        for p in legs:
            for s in firsts(p):
                wins[p.players[s]] += p.ranks[s] == 0  # type: ignore[index]
        for n, w in wins.items():
            stats[n][("pairs_lost", "pairs_split", "pairs_won")[w]] += 1
    order = sorted(names, key=lambda n: (-env.expose(ratings[n]), n))
    seats_max = max((len(set(p.teams if p.teams is not None else range(len(p.players)))) for p in played), default=2)
    rows = []
    for i, n in enumerate(order):
        r, st = ratings[n], stats[n]
        nxt = p_above(r, ratings[order[i + 1]]) if i + 1 < len(order) else None
        places = tuple(st[f"place{k}"] for k in range(seats_max))
        rows.append(Row(i + 1, n, r.mu, r.sigma, env.expose(r), st["played"], st["wins"], st["for"],
                        st["against"], st["pairs_won"], st["pairs_split"], st["pairs_lost"], fails[n], nxt,
                        places))
    cells = {k: Cell(v[0], v[1]) for k, v in cross.items()}
    with_partner = {k: Cell(v[0], v[1]) for k, v in partnered.items()}
    return Standings(tuple(rows), cells, history, len(played), model, with_partner)
