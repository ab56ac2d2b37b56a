"""Classic two-player Sixty-Six: one deal, as a pure state machine (RULES-SPEC section 1).

A :class:`State` is immutable. :func:`legal_actions` lists what the player to act may do and
:func:`apply` returns the next state. Seats are deal seats: 0 is the non-dealer, who leads the
first trick, and 1 is the dealer (66-4.5).

Decision points (66-5): ``L`` pre-lead, ``D`` after a trick before drawing, ``R`` close
response, ``F`` follow, ``E`` end of play; ``over`` once the deal has ended.

Actions are notation strings: a card (``"TH"``) to lead or follow, ``"marry:H"``,
``"exchange"``, ``"close"``, ``"claim"``, ``"draw"``, ``"pass"`` and ``"finish"``.

>>> from harness.games.sixtysix.cards import parse_deck
>>> s = deal(parse_deck("AH TH KH 9H QS KC QH JC 9D AC TD JD KS AS TS JS KD QD AD 9C QC TC 9S JH"))
>>> str(s.point), s.to_act, sorted(legal_actions(s))[:4]
('L', 0, ['9D', 'AH', 'JC', 'KH'])
>>> s = apply(apply(s, "AH"), "9H")
>>> str(s.point), s.to_act, counted_points(s, 0)
('D', 0, 11)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import NamedTuple

from harness.games.base import IllegalAction
from harness.games.points import where

from .cards import CARD_INDEX, CARD_STR, CLASSIC, POINTS, SCHNAPSEN, SUIT_MASK, SUIT_OF, SUITS, beats, cards_in, mask_of
from .options import Rules

DEFAULT_RULES = Rules()


class Point(enum.StrEnum):
    """The decision points of a deal (66-5); members compare equal to their letters."""

    LEAD = "L"  # 66-5.1, on lead
    DRAW = "D"  # after winning a trick, before drawing
    CLOSE_RESPONSE = "R"  # 66-5.2, the opponent has closed
    FOLLOW = "F"  # follow to the led card
    END = "E"  # 66-12.3, after the last trick
    OVER = "over"  # the deal has ended


L, D, R, F, E, OVER = Point.LEAD, Point.DRAW, Point.CLOSE_RESPONSE, Point.FOLLOW, Point.END, Point.OVER

MARRY = tuple(f"marry:{s}" for s in SUITS)
_MARRY_SUIT = {a: i for i, a in enumerate(MARRY)}
_KQ = tuple((6 * s + 3, 6 * s + 2) for s in range(4))  # (king, queen) of each suit
_KQ_MASK = tuple((1 << k) | (1 << q) for k, q in _KQ)
_QUEENS = sum(1 << q for _, q in _KQ)

# Per-turn flags.
_EXCHANGED = 1
_CLOSED = 2


class Outcome(NamedTuple):
    """How a deal ended: who receives how many game points, and by which row of 66-13.1."""

    winner: int | None  # deal seat, or None on a tie (row 8)
    game_points: int  # 0..3
    row: int  # 1..8
    reason: str  # short words, e.g. "valid claim", "false claim", "played out"


class State(NamedTuple):
    """One deal of classic Sixty-Six. Treat it as immutable; build one with :func:`deal`.

    Cards are ints (see :mod:`cards`), hands are 24-bit masks.
    """

    rules: Rules
    deck: tuple[int, ...]  # 24 cards (20 in Schnapsen), top first (66-4.2, SCH-2); hidden information
    stock: tuple[int, ...]  # the face-down talon in draw order, without the trump card (hidden)
    talon_n: int  # cards in the talon at the deal, trump card included: 12 (10 in Schnapsen)
    score: tuple[int, int]  # game points of each seat before this deal (public)
    hands: tuple[int, int]  # card masks
    drawn: int  # cards drawn from the talon so far (0..talon_n)
    bottom: int  # the face-up card at the bottom of the talon: the trump card, or the 9 after an exchange
    trump: int  # trump suit (0..3)
    closed_by: int  # seat that closed the talon, or -1 (66-10)
    close_info: tuple[bool, int, int]  # at closing: opponent had a trick, opponent's tricks, opponent's counted points
    tricks: tuple[int, int]  # tricks won
    card_points: tuple[int, int]  # card points in won tricks
    marriages: tuple[int, int]  # declared marriage points (count once the seat has a trick, 66-9.5)
    bonus_to: int  # seat that received the last-trick bonus, or -1
    point: Point  # L D R F E or over
    to_act: int  # seat to act (meaningless once over)
    leader: int  # seat on lead for the current trick
    lead: int  # card led to the current trick, or -1
    married: int  # suit declared this turn, or -1
    turn: int  # per-turn flags: exchanged, closed
    history: tuple[tuple[int, str], ...]  # every action as (seat, action); all actions are public
    outcome: Outcome | None  # set once the deal is over

    # -- derived views ---------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def talon_size(self) -> int:
        """Cards in the talon, the bottom card included; a closed talon keeps its cards."""
        return self.talon_n - self.drawn

    @property
    def talon_state(self) -> str:
        """``open``, ``closed`` or ``exhausted`` (66-1.2 definitions)."""
        if self.closed_by >= 0:
            return "closed"
        return "open" if self.drawn < self.talon_n else "exhausted"

    @property
    def talon(self) -> tuple[int, ...]:
        """The talon's cards in draw order, the bottom card last (hidden information)."""
        if self.drawn >= self.talon_n:
            return ()
        return self.stock[self.drawn :] + (self.bottom,)

    @property
    def trump_card(self) -> int:
        """The card turned face up at the deal (66-4.3, SCH-2)."""
        return self.deck[12] if len(self.deck) == 24 else self.deck[6]

    @property
    def phase2(self) -> bool:
        """The talon is closed or exhausted (66-6.3)."""
        return self.closed_by >= 0 or self.drawn >= self.talon_n


def deal(deck: Iterable[int], rules: Rules = DEFAULT_RULES, score: tuple[int, int] = (0, 0)) -> State:
    """The state after dealing ``deck``, top first: 24 cards as 66-4.2 to 66-4.5, or the 20 cards
    of Schnapsen as SCH-2 (non-dealer 0-2 and 7-8, dealer 3-5 and 9-10, trump card 6)."""
    d = tuple(deck)
    if len(d) == 24 and sorted(d) == list(CLASSIC.cards):
        h0, h1, trump_card, stock = d[0:3] + d[6:9], d[3:6] + d[9:12], d[12], d[13:]
    elif len(d) == 20 and sorted(d) == list(SCHNAPSEN.cards):
        h0, h1, trump_card, stock = d[0:3] + d[7:9], d[3:6] + d[9:11], d[6], d[11:]
    else:
        raise ValueError("a deck is the 24 cards of Sixty-Six or the 20 of Schnapsen, each once")
    return State(
        rules=rules, deck=d, stock=stock, talon_n=len(stock) + 1, score=score, hands=(mask_of(h0), mask_of(h1)),
        drawn=0, bottom=trump_card, trump=SUIT_OF[trump_card], closed_by=-1, close_info=(False, 0, 0),
        tricks=(0, 0), card_points=(0, 0), marriages=(0, 0), bonus_to=-1, point=L, to_act=0, leader=0,
        lead=-1, married=-1, turn=0, history=(), outcome=None,
    )


def counted_points(s: State, seat: int) -> int:
    """Counted points (66-1.2): card points, marriages once a trick is won, last-trick bonus."""
    pts = s.card_points[seat]
    if s.tricks[seat]:
        pts += s.marriages[seat]
    if s.bonus_to == seat:
        pts += 10
    return pts


def exchange_card(s: State) -> int:
    """The trump card a player may swap for the trump card (66-8.1; J under ``exchange_rank=J``)."""
    return 6 * s.trump + (0 if s.rules.exchange_rank == "9" else 1)


# -- legality --------------------------------------------------------------------------


def _talon_open(s: State) -> bool:
    return s.closed_by < 0 and s.drawn < s.talon_n


def _can_close(s: State, me: int) -> bool:
    r = s.rules
    return (
        s.closed_by < 0
        and s.talon_n - s.drawn >= r.close_min_talon
        and s.drawn < s.talon_n
        and (s.point == L or r.close_before_draw)
        and (s.tricks[0] + s.tricks[1] > 0 or r.close_before_first_trick)
        and (s.married < 0 or r.marriage_then_close)
    )


def _can_exchange(s: State, me: int) -> bool:
    r = s.rules
    return (
        _talon_open(s)
        and s.talon_n - s.drawn >= r.exchange_min_talon
        and not s.turn & _EXCHANGED
        and s.hands[me] >> exchange_card(s) & 1 == 1
        and (s.tricks[me] > 0 or not r.exchange_requires_trick)
    )


def _marriages(s: State, me: int) -> list[str]:
    r = s.rules
    if s.married >= 0 or (s.turn & _CLOSED and not r.marriage_in_phase2):  # 66-5.1, 66-9.4, section 7.1
        return []
    if not (_talon_open(s) or r.marriage_in_phase2):
        return []
    if not (s.tricks[me] > 0 or r.marriage_before_first_trick):
        return []
    hand = s.hands[me]
    if not hand & (hand >> 1) & _QUEENS:  # no king above its queen: no marriage (the common case)
        return []
    return [MARRY[su] for su in range(4) if hand & _KQ_MASK[su] == _KQ_MASK[su]]


def follow_cards(hand: int, led: int, trump: int, phase2: bool, rules: Rules = DEFAULT_RULES) -> int:
    """The mask of cards the follower may play to ``led`` (66-6.2, 66-6.3)."""
    if not phase2:
        return hand
    suit = SUIT_OF[led]
    same = hand & SUIT_MASK[suit]
    if same:
        if rules.phase2_must_head:
            # Cards of the led suit are ordered by strength, so "beats" is "higher bit".
            higher = same & ~((2 << led) - 1)
            if higher:
                return higher
        return same
    trumps = hand & SUIT_MASK[trump]
    if trumps and rules.phase2_must_trump:
        return trumps
    return hand


def legal_actions(s: State) -> list[str]:
    """Every legal action of the player to act (66-1.17); empty once the deal is over."""
    p = s.point
    me = s.to_act
    if p == F:
        acts = [CARD_STR[c] for c in cards_in(follow_cards(s.hands[me], s.lead, s.trump, s.phase2, s.rules))]
        if s.rules.exchange_by_non_leader and _can_exchange(s, me):
            acts.append("exchange")
        return acts
    if p == L:
        if s.married >= 0:
            k, q = _KQ[s.married]
            acts = [CARD_STR[q], CARD_STR[k], "claim"]
        else:
            acts = [CARD_STR[c] for c in cards_in(s.hands[me])]
            acts.append("claim")
        if s.closed_by < 0:  # nothing below is possible once the talon is closed
            if _can_exchange(s, me):
                acts.append("exchange")
            if _can_close(s, me):
                acts.append("close")
        if s.closed_by < 0 or s.rules.marriage_in_phase2:
            acts += _marriages(s, me)
        return acts
    if p == D:
        acts = ["claim", "draw"]
        r = s.rules
        if _can_close(s, me):
            acts.append("close")
        if (r.exchange_before_draw or r.pre_draw_declarations) and _can_exchange(s, me):
            acts.append("exchange")
        if r.pre_draw_declarations:
            acts += _marriages(s, me)
        return acts
    if p == R:
        return ["exchange", "pass"]
    if p == E:
        return ["claim", "finish"]
    return []


def apply(s: State, action: str) -> State:
    """The state after the player to act takes ``action``; IllegalAction if it is not legal."""
    if action not in legal_actions(s):
        if s.outcome is not None:
            raise IllegalAction(f"{action!r} is illegal: the deal is over")
        raise IllegalAction(f"{action!r} is not legal for seat {s.to_act} {where(s.point)}; legal: "
                            f"{' '.join(legal_actions(s))}")
    return apply_legal(s, action)


def apply_legal(s: State, action: str) -> State:
    """:func:`apply` without the legality check (the caller has checked)."""
    me = s.to_act
    hist = s.history + ((me, action),)
    card = CARD_INDEX.get(action)
    if card is not None:
        if s.point == F:
            n = _trick(s, card, hist)
        else:  # lead
            hands = _without(s.hands, me, card)
            n = s._replace(hands=hands, point=F, to_act=1 - me, lead=card, history=hist)
    elif action == "draw":
        n = _draw(s, hist)
    elif action == "claim":
        return _claim(s._replace(history=hist), me)
    elif action == "close":
        n = _close(s, me, hist)
    elif action == "exchange":
        n = _exchange(s, me, hist)
    elif action == "pass":
        n = s._replace(point=L, to_act=1 - me, history=hist)
    elif action == "finish":
        return _end(s._replace(history=hist), None)
    else:  # marry:S
        su = _MARRY_SUIT[action]
        marriages = list(s.marriages)
        marriages[me] += 40 if su == s.trump else 20  # 66-9.1
        n = s._replace(married=su, marriages=(marriages[0], marriages[1]), history=hist)
    if n.rules.auto_claim and n.point in (L, D, E) and counted_points(n, n.to_act) >= 66:
        return _claim(n, n.to_act)  # 66-11.5
    return n


def _without(hands: tuple[int, int], seat: int, card: int) -> tuple[int, int]:
    bit = ~(1 << card)
    return (hands[0] & bit, hands[1]) if seat == 0 else (hands[0], hands[1] & bit)


def _trick(s: State, card: int, hist: tuple[tuple[int, str], ...]) -> State:
    """The follower plays ``card``; resolve the trick (66-5.4, 66-6.5)."""
    leader = s.leader
    led = s.lead
    w = 1 - leader if beats(led, card, s.trump) else leader
    hands = _without(s.hands, 1 - leader, card)
    gain = POINTS[led] + POINTS[card]
    cp = (s.card_points[0] + gain, s.card_points[1]) if w == 0 else (s.card_points[0], s.card_points[1] + gain)
    tr = (s.tricks[0] + 1, s.tricks[1]) if w == 0 else (s.tricks[0], s.tricks[1] + 1)
    bonus_to = s.bonus_to
    if hands[0] == 0 and hands[1] == 0:
        point = E  # 66-12.3
        if s.closed_by < 0 and s.rules.last_trick == "bonus10":
            bonus_to = w  # 66-12.2
    elif s.closed_by < 0 and s.drawn < s.talon_n:
        point = D
    else:
        point = L
    # Positional, in field order: this runs once per trick and keywords cost twice as much here
    # (test_engine_fields_are_in_the_order_trick_builds_them guards the order).
    return State(
        s.rules, s.deck, s.stock, s.talon_n, s.score, hands, s.drawn, s.bottom, s.trump, s.closed_by, s.close_info,
        tr, cp, s.marriages, bonus_to, point, w, w, -1, -1, 0, hist, None,
    )


def _draw(s: State, hist: tuple[tuple[int, str], ...]) -> State:
    """Winner takes the top card, loser the next (66-7.1, 66-7.2)."""
    me = s.to_act
    k = s.drawn
    first = s.stock[k]
    second = s.stock[k + 1] if k + 1 < len(s.stock) else s.bottom
    hands = list(s.hands)
    hands[me] |= 1 << first
    hands[1 - me] |= 1 << second
    return s._replace(hands=(hands[0], hands[1]), drawn=k + 2, point=L, history=hist)


def _close(s: State, me: int, hist: tuple[tuple[int, str], ...]) -> State:
    """Close the talon (66-10); maybe offer the opponent the exchange at point R (66-8.3)."""
    opp = 1 - me
    info = (s.tricks[opp] > 0, s.tricks[opp], counted_points(s, opp))  # 66-10.4
    r = s.rules
    offer = (
        r.exchange_on_opponent_close != "none"
        and (r.exchange_on_opponent_close == "any" or s.tricks[opp] > 0)
        and s.talon_n - s.drawn >= r.exchange_min_talon
        and s.hands[opp] >> exchange_card(s) & 1 == 1
    )
    return s._replace(
        closed_by=me, close_info=info, point=R if offer else L, to_act=opp if offer else me,
        turn=s.turn | _CLOSED, history=hist,
    )


def _exchange(s: State, me: int, hist: tuple[tuple[int, str], ...]) -> State:
    """Swap the trump nine (or jack) for the trump card at the bottom (66-8)."""
    nine = exchange_card(s)
    hands = list(s.hands)
    hands[me] = hands[me] & ~(1 << nine) | (1 << s.bottom)
    if s.point == R:  # 66-5.2: then the closer continues at L
        return s._replace(hands=(hands[0], hands[1]), bottom=nine, point=L, to_act=1 - me, history=hist)
    return s._replace(hands=(hands[0], hands[1]), bottom=nine, turn=s.turn | _EXCHANGED, history=hist)


# -- scoring (66-13) -------------------------------------------------------------------


def _grade(s: State, loser: int) -> int:
    """3 if the loser has no trick (schwarz), 2 if under 33 (schneider), else 1."""
    if s.tricks[loser] == 0:
        return 3
    return 2 if counted_points(s, loser) < 33 else 1


def _failed_close(s: State) -> int:
    """2 if the closer's opponent had a trick at closing, else 3 (rows 4 and 6)."""
    return 2 if s.close_info[0] else 3


def _claim(s: State, me: int) -> State:
    """Score a claim by ``me`` (66-11, rows 1-5 of 66-13.1)."""
    r = s.rules
    opp = 1 - me
    valid = counted_points(s, me) >= 66
    closer = s.closed_by
    if valid:
        if closer < 0:
            return _end(s, Outcome(me, _grade(s, opp), 1, "valid claim"))
        if closer == me:
            if r.closer_win_basis == "close":
                had_trick, _, pts = s.close_info
                pts_grade = 3 if not had_trick else 2 if pts < 33 else 1
                return _end(s, Outcome(me, pts_grade, 2, "closer's valid claim"))
            return _end(s, Outcome(me, _grade(s, opp), 2, "closer's valid claim"))
        gp = 2 if r.beaten_closer_points == "flat2" else _failed_close(s)
        return _end(s, Outcome(me, gp, 3, "valid claim against the closer"))
    if closer == me:
        gp = _failed_close(s) if r.closer_false_claim == "as_failed_close" else 2
        return _end(s, Outcome(opp, gp, 4, "closer's false claim"))
    gp = 3 if r.false_claim_points == "two_or_three" and s.tricks[opp] == 0 else 2
    return _end(s, Outcome(opp, gp, 5, "false claim"))


def _end(s: State, outcome: Outcome | None) -> State:
    """End the deal; ``None`` means all cards were played without a claim (rows 6-8)."""
    if outcome is None:
        if s.closed_by >= 0:
            outcome = Outcome(1 - s.closed_by, _failed_close(s), 6, "closer failed")
        elif s.rules.last_trick == "wins_deal":  # SCH-9
            outcome = Outcome(s.leader, 1, 7, "last trick")
        else:
            a, b = counted_points(s, 0), counted_points(s, 1)
            if a == b:
                outcome = Outcome(None, 0, 8, "tie")
            else:
                w = 0 if a > b else 1
                gp = _grade(s, 1 - w) if s.rules.played_out_scoring == "graded" else 1
                outcome = Outcome(w, gp, 7, "played out")
    return s._replace(point=OVER, outcome=outcome, lead=-1)


# -- tools -----------------------------------------------------------------------------


def replay(deck: Iterable[int], actions: Iterable[str], rules: Rules = DEFAULT_RULES,
           score: tuple[int, int] = (0, 0)) -> State:
    """Deal ``deck`` and apply ``actions`` in turn (IllegalAction names the first bad one)."""
    s = deal(deck, rules, score)
    for i, a in enumerate(actions):
        try:
            s = apply(s, a)
        except IllegalAction as e:
            raise IllegalAction(f"action {i + 1} {e}") from None
    return s


def perft(s: State, depth: int) -> int:
    """Action sequences of length ``depth`` from ``s``; an ended deal counts as one leaf."""
    if depth == 0 or s.outcome is not None:
        return 1
    acts = legal_actions(s)
    if depth == 1:
        return len(acts)
    return sum(perft(apply_legal(s, a), depth - 1) for a in acts)


def summary(s: State) -> dict[str, object]:
    """The JSON object printed by ``arena rules run``."""
    o = s.outcome
    return {
        "to_act": None if o else s.to_act,
        "legal": sorted(legal_actions(s)),
        "points": [counted_points(s, 0), counted_points(s, 1)],
        "tricks": [s.tricks[0], s.tricks[1]],
        "talon": s.talon_size,
        "over": o is not None,
        "winner": o.winner if o else None,
        "game_points": o.game_points if o else 0,
    }
