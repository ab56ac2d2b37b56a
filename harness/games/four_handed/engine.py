"""One deal of four-handed partnership Sixty-Six (RULES-SPEC 3.3, 7.3): an immutable :class:`State`,
its legal actions and the state after one (:func:`apply`).

Seats 0..3 clockwise from the dealer's left; seat 3 deals (7.3). Teams by seat: team 0 = seats 0 and 2,
team 1 = seats 1 and 3 (4H-1). There is one kind of decision: play a card, on lead (point L) or to a
trick (point F). No talon, no drawing, closing, exchange, marriages or claims (4H-3, 4H-6, 4H-9).

>>> from .cards import CARD_STR, PACK32
>>> s = deal(PACK32, Rules())
>>> s.to_act, legal_actions(s)[:3], CARD_STR[s.trump_card], s.trump
(0, ('7C', '7D', '7H'), 'TS', 3)
>>> s = apply(apply(s, "7C"), "7D")
Traceback (most recent call last):
...
harness.games.base.IllegalAction: '7D' is illegal here (legal: 8C QC)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.games.base import IllegalAction

from .cards import ABOVE, CARD_INDEX, CARD_STR, PACKS, POINTS, STRENGTH, SUIT_MASK, SUIT_OF, SUITS, cards_of
from .options import Rules

LAST_TRICK = 10  # 4H-5
# 7.3: which seat receives d[i], for each pack (3-2-3 for 32 cards, 3-3 for 24).
_BATCHES = {32: (3, 3, 3, 3, 2, 2, 2, 2, 3, 3, 3, 3), 24: (3, 3, 3, 3, 3, 3, 3, 3)}
DEAL_SEATS: dict[int, tuple[int, ...]] = {
    n: tuple(seat for i, size in enumerate(b) for seat in [i % 4] * size) for n, b in _BATCHES.items()}


@dataclass(frozen=True, slots=True)
class Result:
    """How a deal ended (4H-7): the scoring team (by seat team) or None, its game points and why."""

    winner: int | None
    game_points: int
    reason: str


@dataclass(frozen=True, slots=True)
class State:
    rules: Rules
    deck: tuple[int, ...]  # as dealt, top first
    hands: tuple[int, int, int, int]  # card masks by seat
    trump: int  # suit index
    trump_card: int  # the dealer's last card, turned up (4H-3)
    leader: int  # seat that led (or leads) the current trick
    to_act: int  # seat to play (meaningless once over)
    trick: tuple[int, ...]  # cards of the current trick, the leader's first
    win_seat: int  # seat winning the current trick so far (-1 before the lead)
    win_card: int  # its card (-1 before the lead)
    points: tuple[int, int]  # counted points by team: card points of won tricks + 10 for the last (4H-5)
    tricks: tuple[int, int]  # tricks won by team
    history: tuple[tuple[int, str], ...]  # every card played, as (seat, card), all public
    legal_mask: int  # the cards the seat to act may play (0 once over)
    score: tuple[int, int]  # game score by team before this deal (for observations)
    result: Result | None  # set once the deal is over

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def trump_public(self) -> bool:
        """The turned-up trump card is public until the dealer plays it (7.3)."""
        return bool(self.hands[3] >> self.trump_card & 1)

    @property
    def n_tricks(self) -> int:
        return len(self.deck) // 4


def deal(deck: Sequence[int], rules: Rules, score: tuple[int, int] = (0, 0)) -> State:
    """The deal of ``deck`` (top first) under 7.3's mapping; ValueError if it is not the rules' pack."""
    n = len(deck)
    if n != rules.pack or sorted(deck) != sorted(PACKS[rules.pack]):
        raise ValueError(f"the deck is not the {rules.pack}-card pack")
    hands = [0, 0, 0, 0]
    for card, seat in zip(deck, DEAL_SEATS[n]):
        hands[seat] |= 1 << card
    trump_card = deck[-1]  # 7.3: d[31] or d[23], the dealer's last card
    h = (hands[0], hands[1], hands[2], hands[3])
    return State(rules, tuple(deck), h, SUIT_OF[trump_card], trump_card, 0, 0, (), -1, -1, (0, 0), (0, 0), (),
                 h[0], score, None)


def legal_actions(s: State) -> tuple[str, ...]:
    """The legal cards of the seat to act, in ``sorted()`` order; empty once over."""
    return cards_of(s.legal_mask)


def follow_mask(hand: int, led_suit: int, win_card: int, trump: int) -> int:
    """4H-4 at point F: follow suit and win the trick if possible (even over the partner); void, trump
    and over-trump if possible, any trump if not; with no trump, any card."""
    same = hand & SUIT_MASK[led_suit]
    if same:
        if SUIT_OF[win_card] == led_suit:  # not trumped (or trumps led): head it if possible
            return (same & ABOVE[win_card]) or same
        return same  # trumped: no card of a non-trump led suit can win
    trumps = hand & SUIT_MASK[trump]
    if trumps:
        if SUIT_OF[win_card] == trump:
            return (trumps & ABOVE[win_card]) or trumps
        return trumps
    return hand


def apply(s: State, action: str) -> State:
    """The deal after the seat to act plays ``action``; IllegalAction if it may not."""
    c = CARD_INDEX.get(action, -1)
    if c < 0 or not s.legal_mask >> c & 1:
        if s.result is not None:
            raise IllegalAction(f"{action!r} is illegal: the deal is over")
        raise IllegalAction(f"{action!r} is illegal here (legal: {' '.join(legal_actions(s))})")
    return play(s, c)


def play(s: State, c: int) -> State:
    """:func:`apply` of card ``c`` without the legality check."""
    seat = s.to_act
    hands = list(s.hands)
    hands[seat] ^= 1 << c
    h = (hands[0], hands[1], hands[2], hands[3])
    trick = s.trick + (c,)
    history = s.history + ((seat, CARD_STR[c]),)
    trump = s.trump
    if not s.trick:
        win_seat, win_card = seat, c
    else:
        w = s.win_card
        if (STRENGTH[c] > STRENGTH[w]) if SUIT_OF[c] == SUIT_OF[w] else SUIT_OF[c] == trump:  # 66-6.5
            win_seat, win_card = seat, c
        else:
            win_seat, win_card = s.win_seat, w
    if len(trick) < 4:
        nxt = (seat + 1) & 3
        mask = follow_mask(h[nxt], SUIT_OF[trick[0]], win_card, trump)
        return State(s.rules, s.deck, h, trump, s.trump_card, s.leader, nxt, trick, win_seat, win_card, s.points,
                     s.tricks, history, mask, s.score, None)
    team = win_seat & 1
    gained = POINTS[trick[0]] + POINTS[trick[1]] + POINTS[trick[2]] + POINTS[trick[3]]
    last = not h[win_seat]
    if last:
        gained += LAST_TRICK  # 4H-5
    points = (s.points[0] + gained, s.points[1]) if team == 0 else (s.points[0], s.points[1] + gained)
    tricks = (s.tricks[0] + 1, s.tricks[1]) if team == 0 else (s.tricks[0], s.tricks[1] + 1)
    result = score_deal(points, tricks, len(s.deck) // 4) if last else None
    return State(s.rules, s.deck, h, trump, s.trump_card, win_seat, win_seat, (), -1, -1, points, tricks, history,
                 0 if last else h[win_seat], s.score, result)


def score_deal(points: tuple[int, int], tricks: tuple[int, int], n_tricks: int) -> Result:
    """4H-7, tested in this order: every trick 3; else 100 or more 2; else 66 or more 1; else 65:65.

    >>> score_deal((130, 0), (8, 0), 8), score_deal((130, 0), (7, 1), 8).game_points
    (Result(winner=0, game_points=3, reason='every trick'), 2)
    >>> score_deal((34, 96), (3, 5), 8), score_deal((65, 65), (4, 4), 8)
    (Result(winner=1, game_points=1, reason='66 or more'), Result(winner=None, game_points=0, reason='65:65'))
    """
    for t in (0, 1):
        if tricks[t] == n_tricks:
            return Result(t, 3, "every trick")
    for t in (0, 1):
        if points[t] >= 100:
            return Result(t, 2, "100 or more")
    for t in (0, 1):
        if points[t] >= 66:
            return Result(t, 1, "66 or more")
    return Result(None, 0, "65:65")


def perft(s: State, depth: int) -> int:
    """Action sequences of length ``depth`` from ``s``; an ended deal is one leaf."""
    if depth == 0 or s.result is not None:
        return 1
    mask = s.legal_mask
    if depth == 1:
        return mask.bit_count()
    total = 0
    while mask:
        low = mask & -mask
        mask ^= low
        total += perft(play(s, low.bit_length() - 1), depth - 1)
    return total


def summary(s: State) -> dict[str, object]:
    """The JSON object of ``arena rules run four_handed`` (7.3), keys in the spec's order."""
    r = s.result
    return {
        "to_act": None if r else s.to_act,
        "legal": list(legal_actions(s)),
        "trump": SUITS[s.trump],
        "points": [s.points[0], s.points[1]],
        "tricks": [s.tricks[0], s.tricks[1]],
        "talon": 0,
        "over": r is not None,
        "winner": r.winner if r else None,
        "game_points": r.game_points if r else 0,
    }
