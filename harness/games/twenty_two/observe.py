"""The one gate for hidden information in Twenty-Two: :func:`observe` builds everything a player may
know. Discarded cards and the stock (its cards and their order) are never in it (22-4.3, issue 13);
other players' hands neither. Everything played to a trick is public.

>>> from .match import start_match
>>> from .options import Rules
>>> m = start_match(1, Rules())
>>> o = observe(m, m.seats[0])
>>> o.seat, o.point, len(o.hand), o.stock, o.hand_sizes, o.legal[-1]
(0, 'X', 7, 24, (7, 7, 7, 7), 'done')
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import RANKS
from .engine import Play, legal_actions
from .match import Match
from .options import Rules

Trick = tuple[int, tuple[Play, ...], int]


@dataclass(frozen=True, slots=True)
class Observation:
    """What one player knows at one moment of a match of Twenty-Two. Cards and actions are
    notation strings; deal data is by deal seat, match data by player."""

    seat: int | None  # this player's deal seat; None once eliminated
    to_act: int | None  # seat to act, None once the deal is over
    point: str  # "X" exchange, "L" lead, "F" follow, or "over"
    hand: tuple[str, ...]  # own cards, sorted()
    leader: int  # seat on lead in the current trick
    trick: tuple[Play, ...]  # the current trick's plays so far: (seat, cards)
    bar: tuple[str, ...]  # the bar (22-6.2) as rank letters, highest first; () before the lead
    tricks: tuple[Trick, ...]  # every earlier trick of this deal: (leader, plays, winner)
    stock: int  # cards left in the stock
    hand_sizes: tuple[int, ...]  # by seat
    discards: tuple[int, ...]  # by seat: how many cards each discarded this deal (not which)
    seats: tuple[int, ...]  # the player in each seat; seat 0 is left of the dealer, the last seat deals
    totals: tuple[int, ...]  # penalty totals by player
    kept: tuple[tuple[str, ...], ...]  # kept penalty cards by player (22-3.4)
    eliminated: tuple[int, ...]  # eliminated players, sorted
    legal: tuple[str, ...]  # legal actions, sorted; empty unless this player is to act
    rules: Rules

    @property
    def players(self) -> int:
        return len(self.totals)


def observe(m: Match, player: int) -> Observation:
    """Everything ``player`` may know about match ``m`` now, and nothing more."""
    s = m.state
    seat = m.seats.index(player) if player in m.seats and not m.out[player] else None
    legal = tuple(legal_actions(s)) if seat is not None and s.to_act == seat and not m.over else ()
    return Observation(
        seat=seat,
        to_act=s.to_act,
        point=s.point,
        hand=s.hands[seat] if seat is not None else (),
        leader=s.leader,
        trick=s.trick,
        bar=tuple(RANKS[r] for r in s.bar),
        tricks=s.tricks,
        stock=len(s.stock),
        hand_sizes=tuple(len(h) for h in s.hands),
        discards=tuple(len(d) for d in s.discarded),
        seats=m.seats,
        totals=m.totals,
        kept=m.kept,
        eliminated=tuple(p for p in range(len(m.out)) if m.out[p]),
        legal=legal,
        rules=m.rules,
    )
