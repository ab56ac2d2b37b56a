"""One deal of Twenty-Two (RULES-SPEC section 4, 7.4) as a pure state machine.

Seats 0..n-1 sit clockwise from the dealer's left; seat n-1 deals. Decision points:

* ``X`` exchange (22-4): ``discard:CARD`` (while this seat's discards + 1 <= the stock) and ``done``,
  which draws as many cards from the top of the stock as were discarded;
* ``L`` lead (22-5): a card or a set of equal ranks that leaves a card in hand;
* ``F`` follow (22-6): as many cards as were led, meeting the bar or the lowest ones.

When every seat holds one card the deal ends with the simultaneous reveal (22-7.2, 22-7.3).
Actions are strings; a multi-card action joins its cards with ``+`` in ``sorted()`` order.

>>> s = deal(tuple("2C 3C 4C 5C 6C 7C".split()), 2, 3)
>>> s.point, s.to_act, s.hands, s.stock
('L', 0, (('2C', '4C', '6C'), ('3C', '5C', '7C')), ())
>>> s = apply(apply(s, "6C"), "7C"); s.to_act, s.point
(1, 'L')
>>> s = apply(apply(s, "3C"), "4C"); s.point, s.losers, s.penalty, s.revealed
('over', (1,), 5, ('2C', '5C'))
"""

from __future__ import annotations

from collections.abc import Sequence
from bisect import insort
from functools import lru_cache
from itertools import combinations, compress
from typing import NamedTuple

from harness.games.base import IllegalAction
from harness.games.points import where
from harness.games.tools import perft as _perft

from .cards import RANK, RANK_VALUE
from .options import Rules

Play = tuple[int, tuple[str, ...]]  # (seat, cards in sorted() order)
Trick = tuple[int, tuple[Play, ...], int]  # (leader, plays in order, winner)
DEFAULT_RULES = Rules()


class State(NamedTuple):
    """A deal in progress; immutable (a NamedTuple, for speed)."""

    n: int  # seats in this deal
    hands: tuple[tuple[str, ...], ...]  # by seat, each in sorted() order
    stock: tuple[str, ...]  # undealt cards, top first (hidden)
    discarded: tuple[tuple[str, ...], ...]  # by seat, this deal's discards (hidden, 22-4.3)
    point: str  # "X", "L", "F" or "over"
    to_act: int | None  # seat, None once over
    leader: int  # seat on lead in the current trick
    trick: tuple[Play, ...]  # plays so far in the current trick
    bar: tuple[int, ...]  # rank indexes, descending (22-6.2); () before the lead
    top: int  # seat whose play wins the trick so far (22-7.1, either option)
    top_rank: int  # the highest single rank played to the trick so far
    tricks: tuple[Trick, ...]  # finished tricks
    losers: tuple[int, ...]  # seats, sorted; () until over
    penalty: int  # the losing card's value (22-1.3); 0 until over
    revealed: tuple[str, ...]  # each seat's last card, by seat, once over
    deck: tuple[str, ...]  # the cards this deal was dealt from, top first
    size: int  # cards dealt to each seat
    bar_all: bool  # set_bar = positionwise_max_all
    win_high: bool  # set_trick_winner = highest_card


def deal(deck: Sequence[str], n: int, hand: int, rules: Rules = DEFAULT_RULES) -> State:
    """Deal ``deck`` (top first) to ``n`` seats: ``min(hand, len(deck) // n)`` cards each, one at a
    time from seat 0 (22-3.2, 22-3.5, 7.4); the rest is the stock. ValueError when no card is dealt."""
    deck = tuple(deck)
    k = min(hand, len(deck) // n)
    if k < 1:
        raise ValueError(f"{len(deck)} cards cannot deal a card to each of {n} seats")
    hands = tuple(tuple(sorted(deck[i:k * n:n])) for i in range(n))
    s = State(n, hands, deck[k * n:], ((),) * n, "X", 0, 0, (), (), 0, -1, (), (), 0, (), deck, k,
              rules.set_bar == "positionwise_max_all", rules.set_trick_winner == "highest_card")
    return s if s.stock else _play(s)


def _play(s: State) -> State:
    """After the exchange: the first lead by seat 0 (22-5.1), or the reveal of one-card hands."""
    if len(s.hands[0]) == 1:
        return _reveal(s, s.tricks)
    return s._replace(point="L", to_act=0, leader=0)


def _reveal(s: State, tricks: tuple[Trick, ...]) -> State:
    """22-7.2, 22-7.3: everyone shows his last card; the highest rank loses, ties all lose."""
    revealed = tuple(h[0] for h in s.hands)
    high = max(RANK[c] for c in revealed)
    losers = tuple(i for i, c in enumerate(revealed) if RANK[c] == high)
    return s._replace(hands=((),) * s.n, point="over", to_act=None, trick=(), bar=(), tricks=tricks,
                      losers=losers, penalty=RANK_VALUE[high], revealed=revealed)


# -- legal actions ----------------------------------------------------------------------------


def legal_actions(s: State) -> list[str]:
    """The legal actions of the seat to act, sorted; [] once over."""
    p = s.point
    if p == "F":
        return follows(s.hands[s.to_act], len(s.trick[0][1]), s.bar)  # type: ignore[index]
    if p == "L":
        return leads(s.hands[s.to_act])  # type: ignore[index]
    if p == "X":
        seat = s.to_act
        assert seat is not None
        out = ["discard:" + c for c in dict.fromkeys(s.hands[seat])] if len(s.discarded[seat]) < len(s.stock) else []
        out.append("done")  # "discard:..." sorts before "done"
        return out
    return []


def leads(hand: tuple[str, ...]) -> list[str]:
    """22-5.2, 22-5.3: each card, and each set of 2+ equal ranks that leaves a card in hand.

    >>> leads(("2C", "TD", "TH", "TS"))
    ['2C', 'TD', 'TD+TH', 'TD+TH+TS', 'TD+TS', 'TH', 'TH+TS', 'TS']
    >>> leads(("TD", "TH", "TS"))  # U09
    ['TD', 'TD+TH', 'TD+TS', 'TH', 'TH+TS', 'TS']
    """
    out = list(dict.fromkeys(hand))
    most = len(hand) - 1
    if most >= 2:
        by_rank: dict[int, list[str]] = {}
        for c in hand:
            by_rank.setdefault(RANK[c], []).append(c)
        for same in by_rank.values():
            for k in range(2, min(len(same), most) + 1):
                out.extend(dict.fromkeys(map("+".join, combinations(same, k))))
        out.sort()
    return out


def _meets(ranks_desc: Sequence[int], bar: Sequence[int]) -> bool:
    """22-6.3: position-wise at least the bar."""
    for x, b in zip(ranks_desc, bar):
        if x < b:
            return False
    return True


def follows(hand: tuple[str, ...], k: int, bar: tuple[int, ...]) -> list[str]:
    """22-6.4: every k-card selection of ``hand`` (in sorted() order) that meets ``bar``, and the k lowest-ranked cards
    (any of several cards of the boundary rank); sorted, each once.

    >>> follows(("3S", "4H", "9D", "AC"), 1, (7,))  # U03: after 8 then 9
    ['3S', '9D', 'AC']
    >>> follows(("2S", "3H", "6D", "9C"), 2, (3, 3))  # U04: pair of fives led
    ['2S+3H', '6D+9C']
    """
    if k == 1:  # the common case: a card at least the bar's, or one of the lowest rank
        b = bar[0]
        low1 = min(map(RANK.__getitem__, hand))
        return [c for c in dict.fromkeys(hand) if RANK[c] >= b or RANK[c] == low1]
    by_rank = sorted(hand, key=RANK.__getitem__)
    low = by_rank[:k]
    low_desc = [RANK[c] for c in reversed(low)]
    if _meets(low_desc, bar):  # every selection dominates the lowest one
        return list(dict.fromkeys(map("+".join, combinations(hand, k))))
    top_desc = [RANK[c] for c in reversed(by_rank[-k:])]
    out = _lowest(hand, by_rank, k)
    if _meets(top_desc, bar):
        # A card's layer is how many places of the bar it falls short of (bar[i] > its rank, a suffix
        # of places it can take); a selection meets the bar iff, for each i, at least i + 1 of its
        # cards have a layer <= i. Layer counts are packed 4 bits each, so one sum tells.
        shift = {r: 4 * sum(1 for b in bar if b > r) for r in set(map(RANK.__getitem__, hand))}
        weights = [1 << shift[RANK[c]] for c in hand]
        ok = _valid_layer_sums(k).__contains__
        met = list(compress(map("+".join, combinations(hand, k)), map(ok, map(sum, combinations(weights, k)))))
        if len(set(hand)) < len(hand):  # two packs: equal cards give equal strings, next to each other
            met = list(dict.fromkeys(met))
        for x in out:  # the lowest cards do not meet the bar here: the two lists are disjoint
            insort(met, x)
        out = met
    return out


@lru_cache(maxsize=None)
def _valid_layer_sums(k: int) -> frozenset[int]:
    """Packed layer counts (4 bits per layer 0..k) of the k-card selections that meet a bar."""
    found = set()

    def walk(layer: int, left: int, taken: int, packed: int) -> None:
        if layer == k:
            if left == 0:
                found.add(packed)
            return
        for c in range(left + 1):
            if taken + c >= layer + 1:  # places 0..layer are covered by layers 0..layer
                walk(layer + 1, left - c, taken + c, packed | c << (4 * layer))

    walk(0, k, 0, 0)
    return frozenset(found)


def _lowest(hand: tuple[str, ...], by_rank: list[str], k: int) -> list[str]:
    """The selections of the k lowest ranks: every card below the boundary rank, and any of the
    cards of the boundary rank (22-6.4)."""
    edge = RANK[by_rank[k - 1]]
    below = [c for c in by_rank[:k] if RANK[c] < edge]
    at = sorted(c for c in hand if RANK[c] == edge)
    need = k - len(below)
    if need == len(at):
        return ["+".join(sorted(by_rank[:k]))]
    return sorted(dict.fromkeys("+".join(sorted(below + list(pick))) for pick in combinations(at, need)))


def is_legal(s: State, action: str) -> bool:
    """Whether ``action`` is legal, without generating every legal action."""
    p = s.point
    if p == "over":
        return False
    seat = s.to_act
    assert seat is not None
    hand = s.hands[seat]
    if p == "X":
        if action == "done":
            return True
        return action[:8] == "discard:" and action[8:] in hand and len(s.discarded[seat]) < len(s.stock)
    if "+" not in action:
        if action not in hand:
            return False
        if p == "L":
            return True
        if len(s.trick[0][1]) != 1:
            return False
        r = RANK[action]
        return r >= s.bar[0] or r == min(map(RANK.__getitem__, hand))
    cards = action.split("+")
    if cards != sorted(cards) or not _holds(hand, cards):
        return False
    if p == "L":
        return len(cards) == 1 or (len(cards) < len(hand) and len({RANK[c] for c in cards}) == 1)
    k = len(s.trick[0][1])
    if len(cards) != k:
        return False
    desc = sorted((RANK[c] for c in cards), reverse=True)
    if _meets(desc, s.bar):
        return True
    low = sorted(RANK[c] for c in hand)[:k]
    return sorted(desc) == low


def _holds(hand: tuple[str, ...], cards: list[str]) -> bool:
    if len(cards) == 1:
        return cards[0] in hand
    rest = list(hand)
    for c in cards:
        if c not in rest:
            return False
        rest.remove(c)
    return True


# -- applying actions -------------------------------------------------------------------------


def apply(s: State, action: str) -> State:
    """The deal after the seat to act takes ``action``; IllegalAction when it is not legal."""
    if not is_legal(s, action):
        raise IllegalAction(f"{action!r} is illegal {where(s.point)} (legal: {' '.join(legal_actions(s))})")
    return apply_legal(s, action)


def apply_legal(s: State, action: str) -> State:
    """:func:`apply` without the legality check."""
    seat = s.to_act
    assert seat is not None
    n = s.n
    if s.point == "X":
        hands = list(s.hands)
        if action != "done":  # 22-4.1: one card face down
            card = action[8:]
            h = list(hands[seat])
            h.remove(card)
            hands[seat] = tuple(h)
            discarded = list(s.discarded)
            discarded[seat] = discarded[seat] + (card,)
            return State(n, tuple(hands), s.stock, tuple(discarded), "X", seat, 0, (), (), 0, -1, (), (), 0, (),
                         s.deck, s.size, s.bar_all, s.win_high)
        d = len(s.discarded[seat])
        stock = s.stock
        if d:  # draw as many as were discarded, from the top
            hands[seat] = tuple(sorted(hands[seat] + stock[:d]))
            stock = stock[d:]
        nxt = seat + 1
        if nxt < n and stock:  # 22-4.2: later seats are skipped once the stock is empty
            return s._replace(hands=tuple(hands), stock=stock, to_act=nxt)
        return _play(s._replace(hands=tuple(hands), stock=stock))
    cards = tuple(action.split("+")) if "+" in action else (action,)
    hands = list(s.hands)
    if len(cards) == 1:
        h = list(hands[seat])
        h.remove(action)
        hands[seat] = tuple(h)
        high = RANK[action]
        desc: list[int] = [high]
    else:
        h = list(hands[seat])
        for c in cards:
            h.remove(c)
        hands[seat] = tuple(h)
        desc = sorted((RANK[c] for c in cards), reverse=True)
        high = desc[0]
    trick = s.trick + ((seat, cards),)
    if s.point == "L":  # 22-5: the lead sets the bar
        bar = tuple(desc)
        top, top_rank = seat, high
    else:
        bar, top, top_rank = s.bar, s.top, s.top_rank
        meets = _meets(desc, bar)
        if s.bar_all:  # 22-6.2: position-wise maximum over every play
            if not meets:
                bar = tuple(b if b >= x else x for b, x in zip(bar, desc))
            else:
                bar = tuple(desc)
        elif meets:  # 22-6.5 last_meeting_set: only a play that meets the bar sets it
            bar = tuple(desc)
        if s.win_high:  # 22-7.1: highest single card, ties to the latest player
            if high >= top_rank:
                top, top_rank = seat, high
        elif meets:  # 22-7.1 option: the last play that met the bar
            top = seat
            top_rank = max(top_rank, high)
        else:
            top_rank = max(top_rank, high)
    nxt = seat + 1 if seat + 1 < n else 0
    leader = s.leader
    if nxt != leader:
        return State(n, tuple(hands), s.stock, s.discarded, "F", nxt, leader, trick, bar, top, top_rank, s.tricks,
                     (), 0, (), s.deck, s.size, s.bar_all, s.win_high)
    tricks = s.tricks + ((leader, trick, top),)
    if len(hands[0]) == 1:  # 22-7.2: one card each, the reveal
        return _reveal(s._replace(hands=tuple(hands)), tricks)
    return State(n, tuple(hands), s.stock, s.discarded, "L", top, top, (), (), top, -1, tricks, (), 0, (), s.deck,
                 s.size, s.bar_all, s.win_high)


# -- the rules tools (section 7.4) -------------------------------------------------------------


def summary(s: State) -> dict[str, object]:
    """The JSON object of ``arena rules run twenty_two``."""
    over = s.point == "over"
    return {
        "to_act": s.to_act,
        "legal": legal_actions(s),
        "hand_sizes": [len(h) for h in s.hands],
        "stock": len(s.stock),
        "over": over,
        "losers": list(s.losers),
        "penalty": s.penalty,
    }


def perft(s: State, depth: int) -> int:
    """Action sequences of length ``depth`` from ``s``; an ended deal counts as one leaf."""
    return _perft(s, depth, _over, legal_actions, apply_legal)


def _over(s: State) -> bool:
    return s.point == "over"
