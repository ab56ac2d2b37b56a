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

>>> [p.match_id for p in round_robin(["A", "B", "C"], rounds=1, seed=1)][:4]
['001-01-01-a', '001-01-01-b', '001-02-01-a', '001-02-01-b']
>>> total(3, rounds=2)
12
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pairing:
    """One scheduled match. ``players[i]`` is the entrant playing as match player ``i``."""

    seq: int  # 0-based position in the schedule; ratings fold in this order
    round: int  # 1-based round robin
    slot: int  # 1-based circle-method round inside the round robin
    table: int  # 1-based pairing inside the slot
    leg: int  # 0 (a) or 1 (b): the second leg swaps the players, same seed
    seed: int
    players: tuple[str, str]

    @property
    def match_id(self) -> str:
        """Sortable id, ``round-slot-table-leg``; string order is schedule order."""
        return f"{self.round:03d}-{self.slot:02d}-{self.table:02d}-{'ab'[self.leg]}"

    @property
    def pair_id(self) -> str:
        """The duplicate pair this match belongs to (its id without the leg)."""
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
