"""League rounds: which connected entrants meet next. A pure function of the standings.

Entrants with the fewest matches go first. Each is joined by the available entrants whose order
against the table so far is most uncertain: the smallest gap in conservative skill (mu - 3 sigma),
measured in units of the two ratings' combined uncertainty, so that close and unsettled entrants
meet first. Two-player games form pairs; games for more seats form tables (issue 12). A cap limits
how often two entrants meet per day.

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
    """One pair or table of a round: its entrants, and how uncertain their order is."""

    players: tuple[str, ...]
    uncertainty: float  # mean closeness of the table's pairs, 1.0 = coin flips

    @property
    def first(self) -> str:
        return self.players[0]

    @property
    def second(self) -> str:
        return self.players[1]


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def closeness(a: Standing, b: Standing, beta: float = 25 / 6) -> float:
    """How uncertain the order of ``a`` and ``b`` is: 1.0 when it is a coin flip, toward 0 when settled."""
    z = abs(a.conservative - b.conservative) / math.sqrt(2 * beta * beta + a.sigma ** 2 + b.sigma ** 2)
    return math.exp(-z * z / 2)


def pair_round(field: Sequence[Standing], met_today: Mapping[tuple[str, str], int], cap_per_day: int,
               beta: float = 25 / 6, legs: int = 1, size: int = 2) -> list[Pairing]:
    """Disjoint pairs (``size`` 2) or tables of ``size`` for one round; each will be played as ``legs``
    matches (2 for a duplicate pair, one per seat rotation for a table). ``met_today`` counts matches per
    :func:`pair_key`; two entrants meet only if ``legs`` more stay within the cap.

    >>> a = Standing("a", 0, 25.0, 8.3); b = Standing("b", 0, 25.0, 8.3)
    >>> pair_round([a, b], {("a", "b"): 3}, cap_per_day=4, legs=2)
    []
    >>> c = Standing("c", 5, 40.0, 1.0); d = Standing("d", 1, 26.0, 8.0)
    >>> [p.players for p in pair_round([a, b, c, d], {}, cap_per_day=9, legs=3, size=3)]
    [('a', 'b', 'd')]
    """
    waiting = sorted(field, key=lambda s: (s.matches, s.name))
    taken: set[str] = set()
    tables: list[Pairing] = []
    for a in waiting:
        if a.name in taken:
            continue
        table = [a]
        score = 0.0
        while len(table) < size:
            best: tuple[float, str, Standing] | None = None
            for b in waiting:
                if b.name in taken or any(b.name == t.name for t in table):
                    continue
                if any(met_today.get(pair_key(t.name, b.name), 0) + legs > cap_per_day for t in table):
                    continue
                c = sum(closeness(t, b, beta) for t in table) / len(table)
                key = (-c, b.name)
                if best is None or key < (best[0], best[1]):
                    best = (-c, b.name, b)
            if best is None:
                break
            table.append(best[2])
            score += -best[0]
        if len(table) == size:
            taken.update(t.name for t in table)
            tables.append(Pairing(tuple(t.name for t in table), score / (size - 1)))
    return tables
