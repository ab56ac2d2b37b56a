"""The one gate for hidden information in three-handed Sixty-Six: :func:`observe` builds everything
a seat may know, and nothing more.

Public: the trump once named, ``d[9]`` when ``trump:next`` showed it (3H-2), every action (cards
played, marriages declared, claims), and so every seat's tricks and counted points. Private: each
hand. Before trump is named (point T) a seat holds only its first three cards (7.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import CARD_STR, DEAL_MAP, SUITS, TEXT, State, counted_points, legal_actions, texts
from .options import Rules


@dataclass(frozen=True, slots=True)
class ThreeHandedObservation:
    """What one seat knows at one moment of a deal. Cards and actions are notation strings."""

    seat: int  # deal seat: 0 = forehand (dealer's left), 2 = dealer
    to_act: int | None  # seat to act, None once the deal is over
    point: str  # T (name trump), L (lead), F (follow), E (end of play), or "over"
    hand: tuple[str, ...]  # own cards, sorted (at point T: the first three dealt)
    trump: str | None  # C D H S; None until named at point T
    trump_card: str | None  # d[9], when trump:next made it public (3H-2)
    leader: int  # seat that leads the current trick
    trick: tuple[tuple[int, str], ...]  # (seat, card) played to the current trick so far, leader first
    history: tuple[tuple[int, str], ...]  # every action so far as (seat, action), all public
    points: tuple[int, int, int]  # counted points by seat (marriages once the seat has a trick; last-trick 10)
    tricks: tuple[int, int, int]  # tricks won by seat
    marriages: tuple[int, int, int]  # declared marriage points by seat, counted or pending
    game_score: tuple[int, int, int]  # game points by seat before this deal
    legal: tuple[str, ...]  # legal actions, sorted; empty unless this seat is to act
    rules: Rules

    @property
    def opponents(self) -> tuple[int, int]:
        return ((self.seat + 1) % 3, (self.seat + 2) % 3)


def observe(s: State, seat: int) -> ThreeHandedObservation:
    """Everything ``seat`` may know about deal ``s``, and nothing more."""
    over = s.point == "over"
    if s.point == "T":
        hand = tuple(sorted(CARD_STR[s.deck[i]] for i in DEAL_MAP[seat][:3]))
    else:
        hand = texts(s.hands[seat])
    n = len(s.trick)
    return ThreeHandedObservation(
        seat=seat,
        to_act=None if over else s.to_act,
        point=s.point,
        hand=hand,
        trump=SUITS[s.trump] if s.trump >= 0 else None,
        trump_card=CARD_STR[s.shown] if s.shown >= 0 else None,
        leader=s.leader,
        trick=tuple(((s.leader + i) % 3, TEXT[s.trick[i]]) for i in range(n)),
        history=s.history,
        points=(counted_points(s, 0), counted_points(s, 1), counted_points(s, 2)),
        tricks=s.tricks,
        marriages=s.marriages,
        game_score=s.score,
        legal=tuple(legal_actions(s)) if not over and s.to_act == seat else (),
        rules=s.rules,
    )
