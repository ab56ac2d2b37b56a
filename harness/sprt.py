"""Statistics of a duel of duplicate pairs: the pentanomial model, Elo with its interval, LOS, and
the generalized sequential probability ratio test (GSPRT).

A *pair* is two matches on the same deals with the seats swapped. Bot A scores 1 for a match it wins,
1/2 for a tie and 0 for a loss, so a pair scores 0, 1/2, 1, 3/2 or 2: the five cells of the
*pentanomial* counts ``(n0, n1/2, n1, n3/2, n2)``. Pairs, not matches, are the independent trials:
the two legs of a pair share their deals, so their results are correlated, and counting them as two
independent matches overstates the variance (and the pairs a test needs).

Every statistic works on the pair score per match, ``x = pair score / 2`` in {0, 1/4, 1/2, 3/4, 1},
with empirical mean ``mu`` and standard deviation ``sigma`` over the pairs.

- **Elo** (logistic): ``-400 log10(1/mu - 1)``; its 95% interval maps ``mu -+ 1.96 sigma/sqrt(N)``.
- **Normalized Elo** (nElo): ``(mu - 1/2) / (sqrt(2) sigma) * 800/ln 10``. ``sqrt(2) sigma`` is the
  standard deviation of one match's share of a pair, so a pair counts as two matches and nElo is on
  the same scale whatever the deals' variance (the scale Fishtest and fastchess test in).
- **LOS**: the probability that A is truly stronger, ``Phi((mu - 1/2) / (sigma / sqrt(N)))``.
- **GSPRT**: the log-likelihood ratio of two composite hypotheses, each the best (maximum
  likelihood) pentanomial distribution whose own Elo equals the hypothesis' bound, ``elo0`` for H0 and
  ``elo1`` for H1; H1 is accepted once the ratio reaches ``log((1 - beta)/alpha)``, H0 once it falls to
  ``log(beta/(1 - alpha))``. With ``model = "normalized"`` (the default) the bounds are nElo; with
  ``"logistic"`` they are Elo.

The constrained maximum likelihood: among distributions ``p`` on the five scores with
``g(p) = mean(p) - 1/2 - t sd(p) = 0`` (``t`` the bound as a t-value; ``t = 0`` and a shifted reference
for the logistic model), the stationary point of ``sum q_i log p_i`` (``q`` the observed frequencies) is
``p_i = q_i / (1 + lam a_i)`` with ``a_i = x_i - 1/2 - t sd (1 + ((x_i - mean)/sd)^2) / 2``, the gradient of
``g`` shifted so that ``sum p_i a_i = g(p)``; ``lam`` is the root of ``sum q_i a_i / (1 + lam a_i) = 0``, which
is decreasing in ``lam``, so bisection finds it. ``a`` depends on the mean and sd of ``p`` itself: a few
rounds of fixed-point iteration settle it. Empty cells get a count of 1e-3 before estimating (as
Fishtest does), so a handful of identical pairs gives a finite, small ratio instead of a degenerate one.

>>> spec = Sprt(elo0=0, elo1=10)
>>> round(spec.lower, 3), round(spec.upper, 3)
(-2.944, 2.944)
>>> round(llr((0, 2, 4, 6, 10), Sprt(elo0=-1.75, elo1=0.25)), 2)
0.13
>>> e = estimate((0, 0, 10, 0, 0))
>>> e.elo, e.los
(0.0, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's score per match, by pentanomial cell
PAIR_SCORES = ("0", "1/2", "1", "3/2", "2")  # the same, as pair scores, for people
MODELS = ("normalized", "logistic")
Z95 = 1.959963984540054  # the two-sided 95% quantile of the normal distribution
ELO_SCALE = 400.0
NELO_SCALE = 800.0 / math.log(10)
EMPTY_CELL = 1e-3  # the count an empty cell gets when distributions are estimated


def cell(a_scores: Sequence[float]) -> int:
    """The pentanomial cell of a pair from A's score in each leg (1 win, 1/2 tie, 0 loss).

    >>> cell((1, 0)), cell((1, 0.5)), cell((0, 0))
    (2, 3, 0)
    """
    if len(a_scores) != 2 or any(s not in (0, 0.5, 1) for s in a_scores):
        raise ValueError(f"a pair is two legs scored 0, 1/2 or 1, not {list(a_scores)}")
    return round(2 * sum(a_scores))


@dataclass(frozen=True)
class Sprt:
    """The test's hypotheses and error rates: H0 ``elo = elo0``, H1 ``elo = elo1``."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError(f"alpha and beta must be between 0 and 1 with alpha + beta < 1 "
                             f"(got alpha={self.alpha:g}, beta={self.beta:g})")
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1) and self.elo0 < self.elo1):
            raise ValueError(f"elo0 must be below elo1 (got elo0={self.elo0:g}, elo1={self.elo1:g})")
        if self.model not in MODELS:
            raise ValueError(f"unknown model {self.model!r} (models: {', '.join(MODELS)})")
        if self.model == "logistic" and max(abs(self.elo0), abs(self.elo1)) >= 2000:
            raise ValueError("logistic Elo bounds must lie within +-2000")

    @classmethod
    def parse(cls, items: Sequence[str]) -> Sprt:
        """From ``name=value`` words (``elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized``; any
        left out keeps its default); ValueError names a bad one."""
        values: dict[str, str] = {}
        for item in items:
            for word in item.replace(",", " ").split():
                name, sep, value = word.partition("=")
                if not sep or name not in ("elo0", "elo1", "alpha", "beta", "model"):
                    raise ValueError(f"--sprt {word!r} is not one of elo0= elo1= alpha= beta= model=")
                if name in values:
                    raise ValueError(f"--sprt gives {name} twice")
                values[name] = value
        numbers: dict[str, float] = {}
        for name in ("elo0", "elo1", "alpha", "beta"):
            if name in values:
                try:
                    numbers[name] = float(values[name])
                except ValueError:
                    raise ValueError(f"--sprt {name}={values[name]!r} is not a number") from None
                if not math.isfinite(numbers[name]):
                    raise ValueError(f"--sprt {name}={values[name]!r} is not a finite number")
        return cls(**numbers, model=values.get("model", "normalized"))

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def decide(self, value: float) -> str | None:
        """``"H1"``, ``"H0"`` or None (keep playing) for an LLR."""
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None

    def to_dict(self) -> dict[str, object]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "model": self.model,
                "lower": round(self.lower, 4), "upper": round(self.upper, 4)}


def _moments(p: Sequence[float]) -> tuple[float, float]:
    """Mean and variance of the per-match scores under ``p``."""
    mu = sum(pi * x for pi, x in zip(p, SCORES))
    return mu, sum(pi * (x - mu) ** 2 for pi, x in zip(p, SCORES))


def _frequencies(counts: Sequence[float]) -> tuple[float, list[float]]:
    """The number of pairs and the estimated distribution (empty cells get :data:`EMPTY_CELL`)."""
    n = float(sum(counts))
    filled = [c if c > 0 else EMPTY_CELL for c in counts]
    total = sum(filled)
    return n, [c / total for c in filled]


def _root(q: Sequence[float], a: Sequence[float]) -> float:
    """The ``lam`` with ``sum q_i a_i / (1 + lam a_i) = 0`` and every ``1 + lam a_i > 0``."""
    hi_a, lo_a = max(a), min(a)
    if hi_a <= 0 or lo_a >= 0:  # the constraint cannot hold exactly; the closest is the boundary
        return 0.0
    lo, hi = -1 / hi_a, -1 / lo_a  # f is +inf just above lo and -inf just below hi, decreasing between

    def f(lam: float) -> float:
        return sum(qi * ai / (1 + lam * ai) for qi, ai in zip(q, a))

    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def constrained_mle(q: Sequence[float], t: float, ref: float = 0.5) -> list[float]:
    """The distribution closest in likelihood to ``q`` among those with ``(mean - ref) / sd = t``
    (``t = 0``: mean = ``ref``). See the module docstring for the derivation."""
    p = [1 / len(q)] * len(q)
    for _ in range(100):
        mu, var = _moments(p)
        sd = math.sqrt(var)
        a = [x - ref - t * sd * (1 + ((x - mu) / sd) ** 2) / 2 if sd > 0 else x - ref for x in SCORES]
        lam = _root(q, a)
        new = [qi / (1 + lam * ai) for qi, ai in zip(q, a)]
        total = sum(new)
        new = [v / total for v in new]
        if max(abs(u - v) for u, v in zip(new, p)) < 1e-12:
            return new
        p = new
    return p


def elo_to_score(elo: float) -> float:
    """The expected score per match of a player ``elo`` logistic Elo stronger."""
    return 1 / (1 + 10 ** (-elo / ELO_SCALE))


def score_to_elo(score: float) -> float:
    """Logistic Elo of an expected score per match (+-inf at 1 and 0)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -ELO_SCALE * math.log10(1 / score - 1) + 0.0  # never -0.0


def _hypothesis(q: Sequence[float], elo: float, model: str) -> list[float]:
    if model == "logistic":
        return constrained_mle(q, 0.0, ref=elo_to_score(elo))
    return constrained_mle(q, math.sqrt(2) * elo / NELO_SCALE)  # nElo -> t-value of a pair


def llr(counts: Sequence[float], spec: Sprt) -> float:
    """The log-likelihood ratio of H1 against H0 for pentanomial ``counts`` (0 with no pair)."""
    if len(counts) != 5 or any(c < 0 for c in counts):
        raise ValueError(f"pentanomial counts are five numbers >= 0, not {list(counts)}")
    n, q = _frequencies(counts)
    if n == 0:
        return 0.0
    p0 = _hypothesis(q, spec.elo0, spec.model)
    p1 = _hypothesis(q, spec.elo1, spec.model)
    return n * sum(qi * (math.log(b) - math.log(a)) for qi, a, b in zip(q, p0, p1) if qi > 0)


@dataclass(frozen=True)
class Estimate:
    """What the pairs so far say about A against B (``inf`` where a bound is unbounded)."""

    pairs: int
    score: float  # A's mean score per match, 0..1
    elo: float
    elo_low: float  # the 95% interval of the Elo difference
    elo_high: float
    nelo: float
    nelo_margin: float  # half the 95% interval of nElo
    los: float  # probability that A is the stronger

    @property
    def elo_margin(self) -> float:
        """Half the width of the Elo interval (for ``elo +- margin``)."""
        return (self.elo_high - self.elo_low) / 2

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-able: infinite values become None."""
        def num(v: float, places: int) -> float | None:
            return round(v, places) if math.isfinite(v) else None

        return {"pairs": self.pairs, "score": num(self.score, 6), "elo": num(self.elo, 2),
                "elo_low": num(self.elo_low, 2), "elo_high": num(self.elo_high, 2), "nelo": num(self.nelo, 2),
                "nelo_margin": num(self.nelo_margin, 2), "los": num(self.los, 6)}


def _phi(z: float) -> float:
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def estimate(counts: Sequence[int]) -> Estimate:
    """Elo with its 95% interval, nElo, and LOS from pentanomial ``counts`` (observed frequencies,
    no empty-cell counts)."""
    n = sum(counts)
    if n == 0:
        return Estimate(0, 0.5, 0.0, -math.inf, math.inf, 0.0, math.inf, 0.5)
    q = [c / n for c in counts]
    mu, var = _moments(q)
    sd = math.sqrt(var)
    se = sd / math.sqrt(n)
    elo = score_to_elo(mu)
    low, high = score_to_elo(mu - Z95 * se), score_to_elo(mu + Z95 * se)
    if sd == 0:
        nelo = 0.0 if mu == 0.5 else math.copysign(math.inf, mu - 0.5)
        los = 0.5 if mu == 0.5 else float(mu > 0.5)
        return Estimate(n, mu, elo, low, high, nelo, 0.0 if mu == 0.5 else math.inf, los)
    nelo = (mu - 0.5) / (math.sqrt(2) * sd) * NELO_SCALE
    return Estimate(n, mu, elo, low, high, nelo, Z95 / math.sqrt(2 * n) * NELO_SCALE, _phi((mu - 0.5) / se))
