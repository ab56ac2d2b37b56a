"""The one gate for hidden information: :func:`observe` builds everything a seat may know (66-15).

Nothing else in the project builds what a player sees. The wire encoder, the SDK and the
in-process strategies all start from an :class:`Observation`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CARD_INDEX, CARD_STR, CLASSIC, SCHNAPSEN, SUITS, beats, cards_of
from .engine import State, counted_points, exchange_card, legal_actions
from .options import Rules


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat knows at one moment of a deal. Cards and actions are notation strings."""

    seat: int  # deal seat: 0 = non-dealer, 1 = dealer
    to_act: int | None  # seat to act, None once the deal is over
    point: str  # decision point: L D R F E, or "over"
    hand: tuple[str, ...]  # own cards, sorted
    trump_suit: str  # C D H S
    trump_card: str | None  # the card at the bottom of the talon while it is there (also once closed)
    talon_size: int  # cards in the talon, bottom card included
    talon_state: str  # open, closed, exhausted
    closed_by: int | None
    leader: int  # seat on lead for the current trick
    trick: tuple[str, ...]  # cards played to the current trick so far
    history: tuple[tuple[int, str], ...]  # every action so far as (seat, action), all public
    trick_winners: tuple[int, ...]  # winner of each completed trick, in order
    tricks: tuple[int, int]  # tricks won per seat
    points: tuple[int, int]  # counted points per seat (66-1.2)
    marriages: tuple[int, int]  # declared marriage points per seat, counted or pending
    opponent_known: tuple[str, ...]  # cards publicly known to be in the opponent's hand
    last_drawn: str | None  # the card the loser of the last draw received (public, 66-7.2)
    game_score: tuple[int, int]  # game points per seat before this deal
    legal: tuple[str, ...]  # legal actions, sorted; empty unless this seat is to act
    rules: Rules
    pack: str = "sixtysix"  # the cards dealt (cards.Pack name): "sixtysix" (24) or "schnapsen" (20, no nines)

    @property
    def opponent(self) -> int:
        return 1 - self.seat


def observe(s: State, seat: int) -> Observation:
    """Everything ``seat`` may know about deal ``s``, and nothing more."""
    over = s.outcome is not None
    public = s.rules.public_trick_history
    trump_card = CARD_STR[s.bottom] if s.drawn < s.talon_n else None
    winners, known, last_drawn = _public_log(s)
    opp_known = tuple(sorted(CARD_STR[c] for c in known[1 - seat]))
    legal = tuple(sorted(legal_actions(s))) if not over and s.to_act == seat else ()
    return Observation(
        seat=seat,
        to_act=None if over else s.to_act,
        point=s.point,
        hand=tuple(cards_of(s.hands[seat])),
        trump_suit=SUITS[s.trump],
        trump_card=trump_card,
        talon_size=s.talon_size,
        talon_state=s.talon_state,
        closed_by=s.closed_by if s.closed_by >= 0 else None,
        leader=s.leader,
        trick=(CARD_STR[s.lead],) if s.lead >= 0 else (),
        history=s.history if public else (),
        trick_winners=winners if public else (),
        tricks=s.tricks,
        points=(counted_points(s, 0), counted_points(s, 1)),
        marriages=s.marriages,
        opponent_known=opp_known,
        last_drawn=last_drawn,
        game_score=s.score,
        legal=legal,
        rules=s.rules,
        pack=SCHNAPSEN.name if len(s.deck) == len(SCHNAPSEN.cards) else CLASSIC.name,
    )


def _public_log(s: State) -> tuple[tuple[int, ...], tuple[set[int], set[int]], str | None]:
    """Trick winners, cards shown to be in each hand, and the last drawn card, from public facts only."""
    trump = s.trump
    bottom = s.trump_card  # turned face up at the deal (66-4.3)
    known: tuple[set[int], set[int]] = (set(), set())
    winners: list[int] = []
    draws = 0
    last_drawn = None
    lead = -1
    leader = 0
    for seat, a in s.history:
        c = CARD_INDEX.get(a)
        if c is not None:
            known[seat].discard(c)
            if lead < 0:
                lead, leader = c, seat
            else:
                winners.append(seat if beats(lead, c, trump) else leader)
                lead = -1
        elif a.startswith("marry:"):  # both cards are shown (66-9.2)
            su = SUITS.index(a[-1])
            known[seat].update((6 * su + 2, 6 * su + 3))
        elif a == "exchange":
            known[seat].add(bottom)
            bottom = exchange_card(s)
            known[seat].discard(bottom)
        elif a == "draw":
            draws += 1
            if draws == s.talon_n // 2:  # the loser takes the bottom card (66-7.2)
                known[1 - seat].add(bottom)
                last_drawn = CARD_STR[bottom]
    return tuple(winners), known, last_drawn
