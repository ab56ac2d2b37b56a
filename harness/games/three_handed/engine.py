"""One deal of three-handed Sixty-Six, variant 3A (RULES-SPEC 3.2, 7.2): a pure state machine.

Seats 0, 1, 2 sit clockwise from the dealer's left; seat 0 is forehand, seat 2 deals. Every card is
dealt (3-2-3, no talon: 3H-1); seat 0 names trump at point T after three cards (3H-2); the leader
may marry and then leads (point L, 3H-5), the others follow and head (point F, 3H-4); 10 for the
last trick and its winner at point E; a claim needs 66 and is paid ``3h_grade`` over both opponents'
grades (3H-6).

Inside, a set of cards is a 24-bit mask over the cards *in notation order* (``sorted()`` of the
card strings), so that a mask lists its cards already sorted. Card points, suits and the trick rule
come from :mod:`harness.games.sixtysix.cards` (the tables below are built from its ``beats``).

>>> s = deal(parse_deck(" ".join(CARD_STR)))
>>> s.point, s.to_act, legal_actions(s)
('T', 0, ('trump:C', 'trump:D', 'trump:H', 'trump:S', 'trump:next'))
>>> s = apply(s, "trump:next")  # d[9] is KD
>>> SUITS[s.trump], hand_cards(s, 0)
('D', ['9C', 'AH', 'JC', 'KD', 'KH', 'QC', 'TD', 'TH'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from harness.games.base import IllegalAction
from harness.games.points import where
from harness.games.sixtysix.cards import CARD_INDEX, CARD_STR, POINTS, SUITS, beats, parse_deck
from harness.games.tools import perft as _perft, play_out, read_deck

from .options import Rules

__all__ = ["CARD_STR", "SUITS", "State", "apply", "counted_points", "deal", "legal_actions", "parse_deck",
           "perft", "summary"]

DEFAULT_RULES = Rules()
PLAYERS = 3
TRICKS = 8  # cards per hand, tricks per deal (3H-1)
CLAIM_AT = 66  # 66-11, 7.2 point L
LAST_TRICK = 10  # 7.2 point E

# -- tables over the notation order ------------------------------------------------------------

ORDER: tuple[int, ...] = tuple(sorted(range(24), key=CARD_STR.__getitem__))  # bit i <-> card ORDER[i]
BIT: dict[int, int] = {c: i for i, c in enumerate(ORDER)}  # card int -> bit
TEXT: tuple[str, ...] = tuple(CARD_STR[c] for c in ORDER)
BIT_OF: dict[str, int] = {t: i for i, t in enumerate(TEXT)}  # notation -> bit
SUIT: tuple[int, ...] = tuple(c // 6 for c in ORDER)
PTS: tuple[int, ...] = tuple(POINTS[c] for c in ORDER)
SUIT_BITS: tuple[int, ...] = tuple(sum(1 << i for i in range(24) if SUIT[i] == s) for s in range(4))
# BEATEN_BY[t][w]: the cards that beat the winning card w when t is trump (66-6.5 via cards.beats)
BEATEN_BY: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << j for j in range(24) if beats(ORDER[w], ORDER[j], t)) for w in range(24)) for t in range(4)
)
# HIGHER[w]: the cards of w's suit that beat it (a higher rank), whatever the trump
HIGHER: tuple[int, ...] = tuple(BEATEN_BY[0][w] & SUIT_BITS[SUIT[w]] for w in range(24))
KING_QUEEN: tuple[int, ...] = tuple(1 << BIT[CARD_INDEX["K" + s]] | 1 << BIT[CARD_INDEX["Q" + s]] for s in SUITS)
_BYTE: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple(TEXT[8 * k + i] for i in range(8) if b >> i & 1) for b in range(256)) for k in range(3)
)
_B0, _B1, _B2 = _BYTE

TRUMP_ACTIONS = ("trump:C", "trump:D", "trump:H", "trump:S", "trump:next")  # point T, sorted
_TRUMP_OF = {"trump:C": 0, "trump:D": 1, "trump:H": 2, "trump:S": 3}
MARRY = tuple(f"marry:{s}" for s in SUITS)  # sorted
_MARRY_OF = {a: i for i, a in enumerate(MARRY)}
WORDS = frozenset(("claim", "finish", *TRUMP_ACTIONS, *MARRY))  # every non-card action of the game
ACTIONS = WORDS.union(BIT_OF)  # every action of the game
# the deal, 7.2: d[0..2]->0, d[3..5]->1, d[6..8]->2, d[9..10]->0, d[11..12]->1, d[13..14]->2, d[15..17]->0, ...
DEAL_MAP: tuple[tuple[int, ...], ...] = (
    (0, 1, 2, 9, 10, 15, 16, 17),
    (3, 4, 5, 11, 12, 18, 19, 20),
    (6, 7, 8, 13, 14, 21, 22, 23),
)
NEXT_CARD = 9  # trump:next makes the suit of d[9] trump and d[9] public (3H-2)


def texts(mask: int) -> tuple[str, ...]:
    """The cards of a mask, sorted."""
    return _B0[mask & 255] + _B1[mask >> 8 & 255] + _B2[mask >> 16]


class State(NamedTuple):
    """A deal in progress. ``point`` is T, L, F, E or ``over``; seats are deal seats."""

    rules: Rules
    deck: tuple[int, ...]  # the 24 cards top first (card ints of sixtysix.cards)
    hands: tuple[int, int, int]  # masks over the notation order
    trump: int  # suit index, -1 until named at point T
    shown: int  # d[9] as a card int when trump:next made it public, else -1
    point: str
    to_act: int  # the seat to act (meaningless once over)
    leader: int  # the seat that led (or leads) the current trick
    trick: tuple[int, ...]  # bits of the cards played to the current trick, leader first
    win_seat: int  # the seat whose card wins the trick so far
    win_bit: int  # that card's bit
    married: int  # the suit declared on this lead, -1
    tricks: tuple[int, int, int]  # tricks won
    won_points: tuple[int, int, int]  # card points in won tricks, plus 10 for the last trick
    marriages: tuple[int, int, int]  # declared marriage points, counted or pending (66-9.5)
    done: int  # completed tricks
    history: tuple[tuple[int, str], ...]  # every action as (seat, action); all public
    score: tuple[int, int, int]  # game points by seat before this deal
    winner: int  # the claimant once over by a claim, else -1
    game_points: int
    reason: str  # how the deal ended: "claim" or "finish" (no claim), "" while it runs

    @property
    def over(self) -> bool:
        return self.point == "over"


def deal(deck: Sequence[int], rules: Rules = DEFAULT_RULES, score: tuple[int, int, int] = (0, 0, 0)) -> State:
    """The deal of ``deck`` (24 card ints, top first) as 7.2 maps it; seat 0 is at point T."""
    d = tuple(deck)
    if len(d) != 24 or len(set(d)) != 24:
        raise ValueError("a three-handed deck is the 24 cards, each once")
    hands = tuple(sum(1 << BIT[d[i]] for i in idx) for idx in DEAL_MAP)
    return State(rules, d, (hands[0], hands[1], hands[2]), -1, -1, "T", 0, 0, (), -1, -1, -1, (0, 0, 0),
                 (0, 0, 0), (0, 0, 0), 0, (), score, -1, 0, "")


def counted_points(s: State, seat: int) -> int:
    """Card points won, the last-trick 10, and declared marriages once the seat has a trick (66-9.5, 3H-5)."""
    return s.won_points[seat] + (s.marriages[seat] if s.tricks[seat] else 0)


def follow_mask(s: State) -> int:
    """The cards the seat to act may play to the trick (point F, 3H-4, 7.2)."""
    hand = s.hands[s.to_act]
    led = SUIT[s.trick[0]]
    same = hand & SUIT_BITS[led]
    w = s.win_bit
    if s.rules.must_head:
        if same:
            if SUIT[w] != led:  # trumped: any card of the (non-trump) led suit follows
                return same
            return same & HIGHER[w] or same
        trumps = hand & SUIT_BITS[s.trump]
        if trumps:
            if SUIT[w] == s.trump:  # over-trump a winning trump when he can
                return trumps & HIGHER[w] or trumps
            return trumps
        return hand
    return same or hand & SUIT_BITS[s.trump] or hand


def legal_actions(s: State) -> tuple[str, ...]:
    """The legal actions of the seat to act, sorted; empty once over."""
    p = s.point
    if p == "F":
        return texts(follow_mask(s))
    if p == "L":
        seat = s.to_act
        hand = s.hands[seat]
        if s.married >= 0:  # 3H-5: lead the king or queen of the marriage just declared
            out = texts(KING_QUEEN[s.married])
        else:
            out = texts(hand)
        if s.won_points[seat] + (s.marriages[seat] if s.tricks[seat] else 0) >= CLAIM_AT:
            out += ("claim",)
        if s.married < 0:
            for i in range(4):
                kq = KING_QUEEN[i]
                if hand & kq == kq:
                    out += (MARRY[i],)
        return out
    if p == "T":
        return TRUMP_ACTIONS
    if p == "E":
        return ("claim", "finish") if counted_points(s, s.to_act) >= CLAIM_AT else ("finish",)
    return ()


def is_legal(s: State, action: str) -> bool:
    """Whether ``action`` is legal, without listing every legal action."""
    p = s.point
    if p == "F":
        b = BIT_OF.get(action)
        return b is not None and bool(follow_mask(s) >> b & 1)
    if p == "L":
        seat = s.to_act
        b = BIT_OF.get(action)
        if b is not None:
            return bool((KING_QUEEN[s.married] if s.married >= 0 else s.hands[seat]) >> b & 1)
        if action == "claim":
            return counted_points(s, seat) >= CLAIM_AT
        m = _MARRY_OF.get(action)
        kq = KING_QUEEN[m] if m is not None else 0
        return m is not None and s.married < 0 and s.hands[seat] & kq == kq
    if p == "T":
        return action in TRUMP_ACTIONS
    if p == "E":
        return action == "finish" or (action == "claim" and counted_points(s, s.to_act) >= CLAIM_AT)
    return False


def apply(s: State, action: str) -> State:
    """The deal after the seat to act takes ``action``; IllegalAction when it is not legal."""
    if not is_legal(s, action):
        if s.point == "over":
            raise IllegalAction(f"{action!r} is illegal: the deal is over")
        raise IllegalAction(f"{action!r} is illegal {where(s.point)} (legal: {' '.join(legal_actions(s))})")
    return apply_legal(s, action)


def apply_legal(s: State, action: str) -> State:
    """:func:`apply` without the legality check."""
    seat = s.to_act
    hist = s.history + ((seat, action),)
    p = s.point
    if p == "F" or (p == "L" and action in BIT_OF):
        return _play(s, BIT_OF[action], hist)
    if p == "T":  # 3H-2: name a suit, or make d[9] public and its suit trump
        if action == "trump:next":
            c = s.deck[NEXT_CARD]
            return s._replace(trump=c // 6, shown=c, point="L", history=hist)
        return s._replace(trump=_TRUMP_OF[action], point="L", history=hist)
    if action == "claim":
        return _claim(s, seat, hist)
    if action == "finish":  # 7.2: a deal with no claim scores nothing
        return s._replace(point="over", history=hist, reason="finish")
    m = _MARRY_OF[action]  # 3H-5: 20, or 40 in trumps; counts once the declarer has a trick
    marr = list(s.marriages)
    marr[seat] += 40 if m == s.trump else 20
    return s._replace(married=m, marriages=(marr[0], marr[1], marr[2]), history=hist)


def _play(s: State, b: int, hist: tuple[tuple[int, str], ...]) -> State:
    seat = s.to_act
    h0, h1, h2 = s.hands
    if seat == 0:
        h0 &= ~(1 << b)
    elif seat == 1:
        h1 &= ~(1 << b)
    else:
        h2 &= ~(1 << b)
    hands = (h0, h1, h2)
    if s.point == "L":
        return State(s.rules, s.deck, hands, s.trump, s.shown, "F", (seat + 1) % 3, seat, (b,), seat, b, -1,
                     s.tricks, s.won_points, s.marriages, s.done, hist, s.score, -1, 0, "")
    trick = s.trick + (b,)
    win_seat, win_bit = s.win_seat, s.win_bit
    if BEATEN_BY[s.trump][win_bit] >> b & 1:
        win_seat, win_bit = seat, b
    if len(trick) < 3:
        return State(s.rules, s.deck, hands, s.trump, s.shown, "F", (seat + 1) % 3, s.leader, trick, win_seat,
                     win_bit, -1, s.tricks, s.won_points, s.marriages, s.done, hist, s.score, -1, 0, "")
    done = s.done + 1
    gain = PTS[trick[0]] + PTS[trick[1]] + PTS[trick[2]] + (LAST_TRICK if done == TRICKS else 0)
    t = list(s.tricks)
    t[win_seat] += 1
    w = list(s.won_points)
    w[win_seat] += gain
    return State(s.rules, s.deck, hands, s.trump, s.shown, "E" if done == TRICKS else "L", win_seat, win_seat, (),
                 -1, -1, -1, (t[0], t[1], t[2]), (w[0], w[1], w[2]), s.marriages, done, hist, s.score, -1, 0, "")


def grade(s: State, seat: int) -> int:
    """The 66-13 grade of a losing seat: 3 without a trick, 2 under 33 counted points, else 1."""
    if not s.tricks[seat]:
        return 3
    return 2 if counted_points(s, seat) < 33 else 1


def _claim(s: State, seat: int, hist: tuple[tuple[int, str], ...]) -> State:
    """A valid claim (3H-6): the claimant scores ``3h_grade`` over both opponents' grades."""
    g = (grade(s, (seat + 1) % 3), grade(s, (seat + 2) % 3))
    rule = s.rules.grade
    points = min(g) if rule == "min" else max(g) if rule == "max" else g[0] + g[1]
    return s._replace(point="over", history=hist, winner=seat, game_points=points, reason="claim")


def hand_cards(s: State, seat: int) -> list[str]:
    """The cards ``seat`` holds, sorted."""
    return list(texts(s.hands[seat]))


# -- the rules tools (7.2) ------------------------------------------------------------------------------


def perft(s: State, depth: int) -> int:
    """Action sequences of length ``depth`` from ``s``; an ended deal counts as one leaf."""
    return _perft(s, depth, _over, legal_actions, apply_legal)


def _over(s: State) -> bool:
    return s.point == "over"


def summary(s: State) -> dict[str, object]:
    """The JSON object of ``arena rules run three_handed`` (7.2)."""
    over = s.point == "over"
    return {
        "to_act": None if over else s.to_act,
        "legal": list(legal_actions(s)),
        "trump": None if s.trump < 0 else SUITS[s.trump],
        "points": [counted_points(s, 0), counted_points(s, 1), counted_points(s, 2)],
        "tricks": list(s.tricks),
        "talon": 0,
        "over": over,
        "winner": s.winner if over and s.winner >= 0 else None,
        "game_points": s.game_points,
    }


def position(deck: str, actions: Sequence[str], rules: Rules = DEFAULT_RULES) -> State:
    """The deal of the written ``deck`` after ``actions``; ValueError names the bad token in one line."""
    return play_out(deal(read_deck(lambda: parse_deck(deck)), rules), actions, apply, ACTIONS)
