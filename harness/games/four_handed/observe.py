"""The one gate for hidden information in four-handed Sixty-Six: :func:`observe` builds everything a
seat may know. A partner's hand is as hidden as an opponent's (4H-1 gives partners no shared view).

Public: the trump suit; the turned-up trump card while the dealer still holds it (7.3); every card
played and by whom (so the trick so far, the points and tricks of each team); the game score.
Private: each hand.

Teams here are *deal* teams, by seat: team 0 = seats 0 and 2, team 1 = seats 1 and 3 (7.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import CARD_STR, SUITS, cards_of
from .engine import State
from .options import Rules


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat knows at one moment of a deal. Cards and actions are notation strings."""

    seat: int  # deal seat 0..3 (0 leads the first trick, 3 deals)
    to_act: int | None  # seat to act, None once the deal is over
    point: str  # L (on lead), F (follow) or "over"
    hand: tuple[str, ...]  # own cards, sorted
    trump_suit: str  # C D H S
    trump_card: str | None  # the turned-up trump card while the dealer holds it, else None
    leader: int  # seat that leads the current trick
    trick: tuple[tuple[int, str], ...]  # the current trick so far as (seat, card), the lead first
    history: tuple[tuple[int, str], ...]  # every card played in this deal as (seat, card)
    points: tuple[int, int]  # counted points by team (card points + 10 for the last trick)
    tricks: tuple[int, int]  # tricks won by team
    game_score: tuple[int, int]  # game points by team before this deal
    team: int  # this seat's team (seat % 2)
    legal: tuple[str, ...]  # legal actions, sorted; empty unless this seat is to act
    rules: Rules
    # The clock of a decision, filled in by the SDK (not part of the position).
    move_ms: int = field(default=0, compare=False)
    bank_ms: int = field(default=0, compare=False)
    received: float = field(default=0.0, compare=False)
    match_id: str = field(default="", compare=False)

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    def deadline(self, fraction: float = 0.5) -> float:
        """The monotonic time by which ``fraction`` of the move limit is used up."""
        return self.received + fraction * self.move_ms / 1000.0


def observe(s: State, seat: int) -> Observation:
    """Everything ``seat`` may know about deal ``s``, and nothing more."""
    over = s.result is not None
    n = len(s.trick)
    trick = s.history[len(s.history) - n:] if n else ()
    return Observation(
        seat=seat,
        to_act=None if over else s.to_act,
        point="over" if over else ("F" if n else "L"),
        hand=cards_of(s.hands[seat]),
        trump_suit=SUITS[s.trump],
        trump_card=CARD_STR[s.trump_card] if s.hands[3] >> s.trump_card & 1 else None,
        leader=s.leader,
        trick=trick,
        history=s.history,
        points=s.points,
        tricks=s.tricks,
        game_score=s.score,
        team=seat & 1,
        legal=cards_of(s.legal_mask) if not over and s.to_act == seat else (),
        rules=s.rules,
    )
