"""League rounds: which connected entrants meet next. A pure function of the standings.

Entrants with the fewest matches go first. Each is paired with the available opponent whose
order against it is most uncertain: the smallest gap in conservative skill (mu - 3 sigma),
measured in units of the two ratings' combined uncertainty, so that close and unsettled pairs
meet first. A cap limits how often one pair meets per day.

>>> a = Standing("a", 0, 25.0, 8.3); b = Standing("b", 3, 30.0, 2.0); c = Standing("c", 0, 24.0, 8.3)
>>> [(p.first, p.second) for p in pair_round([a, b, c], met_today={}, cap_per_day=4)]
[('a', 'c')]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Standing:
    """What the scheduler knows of one connected entrant."""

    name: str
    matches: int
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class Pairing:
    first: str
    second: str
    uncertainty: float  # closeness of the pair, 1.0 = a coin flip


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def closeness(a: Standing, b: Standing, beta: float = 25 / 6) -> float:
    """How uncertain the order of ``a`` and ``b`` is: 1.0 when it is a coin flip, toward 0 when settled."""
    z = abs(a.conservative - b.conservative) / math.sqrt(2 * beta * beta + a.sigma ** 2 + b.sigma ** 2)
    return math.exp(-z * z / 2)


def pair_round(field: Sequence[Standing], met_today: Mapping[tuple[str, str], int], cap_per_day: int,
               beta: float = 25 / 6, legs: int = 1) -> list[Pairing]:
    """Disjoint pairs for one round; each will be played as ``legs`` matches (2 for a duplicate pair).
    ``met_today`` counts matches per :func:`pair_key`; a pair meets only if ``legs`` more stay within the cap.

    >>> a = Standing("a", 0, 25.0, 8.3); b = Standing("b", 0, 25.0, 8.3)
    >>> pair_round([a, b], {("a", "b"): 3}, cap_per_day=4, legs=2)
    []
    """
    waiting = sorted(field, key=lambda s: (s.matches, s.name))
    taken: set[str] = set()
    pairs: list[Pairing] = []
    for a in waiting:
        if a.name in taken:
            continue
        best: tuple[float, str, Standing] | None = None
        for b in waiting:
            if b.name == a.name or b.name in taken:
                continue
            if met_today.get(pair_key(a.name, b.name), 0) + legs > cap_per_day:
                continue
            c = closeness(a, b, beta)
            key = (-c, b.name)
            if best is None or key < (best[0], best[1]):
                best = (-c, b.name, b)
        if best is not None:
            b = best[2]
            taken.update((a.name, b.name))
            pairs.append(Pairing(a.name, b.name, -best[0]))
    return pairs
