"""The tournament schedule: a pure generator of pairings, separate from playing them.

A *round* is one full round robin, ordered by the circle method into *slots* (in a slot every
entrant plays at most once; with an odd field one entrant sits out on a bye). Each pairing is a
*duplicate pair*: two matches (legs ``a`` and ``b``) with the same match seed, hence the same
deck sequence, and the entrants' player indexes swapped. Every pairing of a round uses the same
seed, so the whole field plays the same decks in a round, as boards do in duplicate bridge.

The engine derives deal ``k`` of a match from ``(seed, k)``: the trump card, the talon, and the six
cards each *player index* receives, whoever deals (:func:`harness.games.sixtysix.match.player_deck`).
So in leg ``b`` each entrant holds, deal by deal, the cards the other held in leg ``a``, even when
the legs' dealer order diverges (under ``dealer_rotation=winner`` the winner deals next).

Games for more seats play *tables* (:func:`tables`): every table is played in each of its seat
rotations (its legs) on the same seed, so no seat and no deal favours anyone.

>>> [p.match_id for p in round_robin(["A", "B", "C"], rounds=1, seed=1)][:4]
['001-01-01-a', '001-01-01-b', '001-02-01-a', '001-02-01-b']
>>> total(3, rounds=2)
12
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

LEGS = "abcdefghijklmnopqrstuvwxyz"
ALL_SUBSETS_UP_TO = 40  # tables per round: every k-subset of the field when there are at most this many


@dataclass(frozen=True, slots=True)
class Pairing:
    """One scheduled match. ``players[i]`` is the entrant playing as match player ``i``."""

    seq: int  # 0-based position in the schedule; ratings fold in this order
    round: int  # 1-based round robin
    slot: int  # 1-based circle-method round inside the round robin
    table: int  # 1-based pairing inside the slot
    leg: int  # 0 (a), 1 (b), ...: the legs of one table rotate the seats on the same seed
    seed: int
    players: tuple[str, ...]

    @property
    def match_id(self) -> str:
        """Sortable id, ``round-slot-table-leg``; string order is schedule order."""
        return f"{self.round:03d}-{self.slot:02d}-{self.table:02d}-{LEGS[self.leg]}"

    @property
    def pair_id(self) -> str:
        """The unit this match belongs to: its duplicate pair or table (its id without the leg)."""
        return self.match_id[:-2]


def round_seed(seed: int, round_no: int) -> int:
    """The match seed shared by every pairing of round ``round_no`` (a 63-bit integer).

    >>> round_seed(1, 1) == round_seed(1, 1) != round_seed(1, 2)
    True
    """
    digest = hashlib.sha256(f"sixtysix-arena/{seed}/round/{round_no}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def circle(names: Sequence[str]) -> Iterator[list[tuple[str, str]]]:
    """The slots of one round robin by the circle method; an odd field gets a bye (skipped).

    >>> list(circle(["A", "B", "C", "D"]))
    [[('A', 'D'), ('B', 'C')], [('A', 'C'), ('D', 'B')], [('A', 'B'), ('C', 'D')]]
    """
    ring: list[str | None] = list(names)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    for _ in range(n - 1):
        slot = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is not None and b is not None:
                slot.append((a, b))
        yield slot
        ring = [ring[0], ring[-1], *ring[1:-1]]  # fix the first, rotate the rest


def round_robin(names: Sequence[str], rounds: int, seed: int) -> Iterator[Pairing]:
    """Every pairing of ``rounds`` duplicate round robins among ``names``, in schedule order."""
    if len(set(names)) != len(names):
        raise ValueError("entrant names must be distinct")
    seq = 0
    for r in range(1, rounds + 1):
        s = round_seed(seed, r)
        for slot_no, slot in enumerate(circle(names), 1):
            for table, (a, b) in enumerate(slot, 1):
                for leg, players in enumerate(((a, b), (b, a))):
                    yield Pairing(seq, r, slot_no, table, leg, s, players)
                    seq += 1


def total(entrants: int, rounds: int) -> int:
    """How many matches :func:`round_robin` schedules."""
    return rounds * entrants * (entrants - 1)


def groups(names: Sequence[str], k: int, seed: int) -> list[tuple[str, ...]]:
    """The tables of one round: every ``k``-subset of the field when there are at most
    :data:`ALL_SUBSETS_UP_TO` of them, else a balanced set in which every entrant plays and the
    number of meetings of any two entrants differs by at most one (greedy, seeded).

    >>> groups(["A", "B", "C", "D"], 3, 1)
    [('A', 'B', 'C'), ('A', 'B', 'D'), ('A', 'C', 'D'), ('B', 'C', 'D')]
    """
    n = len(names)
    if not 2 <= k <= n:
        raise ValueError(f"tables of {k} need at least {k} entrants (got {n})")
    if math.comb(n, k) <= ALL_SUBSETS_UP_TO:
        return list(itertools.combinations(names, k))
    rng = random.Random(f"sixtysix-arena/{seed}/tables")
    base = max(math.ceil(1.5 * math.comb(n, 2) / math.comb(k, 2)), math.ceil(n / k))  # meetings of 1 or 2
    for count in range(base, base + 4 * n):  # more tables give the search more room
        order = list(names)
        rng.shuffle(order)
        seats = [order[i % n] for i in range(count * k)]
        out = [seats[i * k:(i + 1) * k] for i in range(count)]
        for t in out:  # a table may not hold an entrant twice: swap duplicates away
            _dedupe(t, out)
        if all(len(set(t)) == k for t in out) and _balance(out, names, rng) <= 1:
            return [tuple(sorted(t, key=names.index)) for t in out]
    raise ValueError(f"no balanced schedule of tables of {k} for {n} entrants")  # pragma: no cover


def _dedupe(table: list[str], out: list[list[str]]) -> None:
    for i, e in enumerate(table):
        if table.count(e) > 1:
            for other in out:
                for j, f in enumerate(other):
                    if f not in table and e not in other:
                        table[i], other[j] = f, e
                        break
                else:
                    continue
                break


def _balance(out: list[list[str]], names: Sequence[str], rng: random.Random) -> int:
    """Swap entrants between tables (seat counts stay fixed) while the spread of pair meetings
    shrinks, until every two entrants meet within one of each other's counts; returns the spread."""
    met: Counter[tuple[str, str]] = Counter()
    for t in out:
        met.update(_pair(a, b) for a, b in itertools.combinations(t, 2))
    all_pairs = [_pair(a, b) for a, b in itertools.combinations(names, 2)]

    def spread() -> int:
        c = [met[p] for p in all_pairs]
        return max(c) - min(c)

    def cost(x: str, table: list[str], skip: str) -> int:
        return sum(met[_pair(x, y)] ** 2 for y in table if y != skip and y != x)

    for _ in range(max(6000, 400 * len(out) * len(out[0]))):
        if spread() <= 1:
            break
        t1, t2 = rng.sample(range(len(out)), 2)
        a, b = out[t1], out[t2]
        i, j = rng.randrange(len(a)), rng.randrange(len(b))
        x, y = a[i], b[j]
        if x == y or y in a or x in b:
            continue
        before = cost(x, a, x) + cost(y, b, y)
        for z in a:
            if z != x:
                met[_pair(x, z)] -= 1
                met[_pair(y, z)] += 1
        for z in b:
            if z != y:
                met[_pair(y, z)] -= 1
                met[_pair(x, z)] += 1
        a[i], b[j] = y, x
        after = cost(y, a, y) + cost(x, b, x)
        if after > before or (after == before and rng.random() < 0.5):
            for z in a:  # undo
                if z != y:
                    met[_pair(y, z)] -= 1
                    met[_pair(x, z)] += 1
            for z in b:
                if z != x:
                    met[_pair(x, z)] -= 1
                    met[_pair(y, z)] += 1
            a[i], b[j] = x, y
    return spread()


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """Every cyclic seating of a table: each entrant sits in each seat once.

    >>> rotations(["A", "B", "C"])
    [('A', 'B', 'C'), ('B', 'C', 'A'), ('C', 'A', 'B')]
    """
    return [tuple(table[i:]) + tuple(table[:i]) for i in range(len(table))]


def partnerships(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The seatings of four entrants in which each partners each other once, in both team
    orientations (seats 0 and 2 are partners, 1 and 3; 4H-1).

    >>> partnerships("ABCD")[:2]
    [('A', 'B', 'C', 'D'), ('B', 'A', 'D', 'C')]
    """
    a, b, c, d = table
    out: list[tuple[str, ...]] = []
    for x, y, z, w in ((a, b, c, d), (a, c, b, d), (a, b, d, c)):  # partners x&z, y&w
        out += [(x, y, z, w), (y, x, w, z)]
    return out


def unit_seed(secret: int, unit: str, leg: int | None = None) -> int:
    """The match seed of one unit (a duplicate pair or table) of a tournament, or of one of its legs
    when the legs must not share deals: a keyed hash of the tournament's secret, so that no seed says
    anything about another (issue 11). A 63-bit integer.

    >>> unit_seed(7, "001-01-01") == unit_seed(7, "001-01-01") != unit_seed(7, "001-01-02")
    True
    >>> unit_seed(7, "001-01-01", 0) != unit_seed(7, "001-01-01", 1)
    True
    """
    key = str(secret).encode()
    msg = unit if leg is None else f"{unit}/leg/{leg}"
    return int.from_bytes(hmac.new(key, msg.encode(), hashlib.sha256).digest()[:8], "big") >> 1


def seeded(pairings: Iterator[Pairing], secret: int, independent: Callable[[Pairing], bool]) -> Iterator[Pairing]:
    """The schedule with each unit's own seed (:func:`unit_seed`): every leg of a unit plays the same
    deals, except where ``independent(p)`` (a remote entrant, an untrusted unsandboxed field), where each
    leg gets deals of its own and only the seat rotation stays."""
    for p in pairings:
        leg = p.leg if independent(p) else None
        yield replace(p, seed=unit_seed(secret, p.pair_id, leg))


def tables(names: Sequence[str], seats: int, rounds: int, seed: int, partners: str = "") -> Iterator[Pairing]:
    """Every match of ``rounds`` rounds of tables of ``seats`` seats, in schedule order.

    Two seats: :func:`round_robin`. A partnership game (``partners``): ``self`` seats each
    entrant twice, as a team (entrants meet as teams in a duplicate round robin); ``rotate`` seats
    four entrants per table in every partnership and both orientations. Otherwise each table is
    played in all its :func:`rotations`. Every table of a round uses the round's seed; a table's
    legs are one unit (``pair_id``), never split between a finished and a lost half.

    >>> [p.players for p in tables(["A", "B"], 4, 1, 1, partners="self")]
    [('A', 'B', 'A', 'B'), ('B', 'A', 'B', 'A')]
    >>> len(list(tables(["A", "B", "C", "D"], 3, 1, 1)))
    12
    """
    if len(set(names)) != len(names):
        raise ValueError("entrant names must be distinct")
    if partners == "self":
        for p in round_robin(names, rounds, seed):
            yield Pairing(p.seq, p.round, p.slot, p.table, p.leg, p.seed, p.players * (seats // 2))
        return
    if seats == 2 and not partners:
        yield from round_robin(names, rounds, seed)
        return
    seq = 0
    for r in range(1, rounds + 1):
        s = round_seed(seed, r)
        for table_no, group in enumerate(groups(names, seats, s), 1):
            legs = partnerships(group) if partners == "rotate" else rotations(group)
            slot, table = divmod(table_no - 1, 99)  # ids stay sortable past 99 tables
            for leg, seating in enumerate(legs):
                yield Pairing(seq, r, slot + 1, table + 1, leg, s, seating)
                seq += 1


def legs_of(pairings: Sequence[Pairing]) -> dict[str, int]:
    """How many legs each unit (``pair_id``) of a schedule has."""
    return dict(Counter(p.pair_id for p in pairings))
