"""Built-in players of three-handed Sixty-Six (RULES-SPEC 3.2, 7.2) that work on a
:class:`harness.games.three_handed.observe.ThreeHandedObservation`: greedy (below) and random
(:func:`harness.strategies.random_action`, which plays any game that lists its legal actions).

Greedy heads tricks cheaply, trumps when void, marries, and claims as soon as it has 66.

>>> from harness.games.three_handed import GAME
>>> m = GAME.start(3, GAME.rules())
>>> greedy_action(GAME.observe(m, GAME.to_act(m))) in GAME.legal(m)
True
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.games.three_handed.engine import BIT_OF, BEATEN_BY, PTS, SUITS
from harness.games.three_handed.observe import ThreeHandedObservation

RANKS = "9JQKTA"


def _value(card: str, trump: str | None) -> tuple[bool, int, int]:
    """How dear a card is to give up: trumps first, then card points, then rank."""
    return (card[1] == trump, PTS[BIT_OF[card]], RANKS.index(card[0]))


def _marriage_cards(hand: Sequence[str]) -> set[str]:
    return {c for c in hand if c[0] in "KQ" and ("K" if c[0] == "Q" else "Q") + c[1] in hand}


def _name_trump(hand: Sequence[str]) -> str:
    """Point T: the suit of the best of the first three cards, or the next card when they are weak."""
    best, score = "", 0
    for s in SUITS:
        mine = [c for c in hand if c[1] == s]
        v = sum(PTS[BIT_OF[c]] + 6 for c in mine)
        if v > score:
            best, score = s, v
    return f"trump:{best}" if score >= 16 else "trump:next"  # two cards, or an ace or ten


def greedy_action(obs: ThreeHandedObservation) -> str:
    legal = obs.legal
    if obs.point == "T":
        return _name_trump(obs.hand)
    if "claim" in legal:  # only offered with 66 (7.2)
        return "claim"
    if obs.point == "E":
        return "finish"
    trump = obs.trump
    marriages = sorted((a for a in legal if a.startswith("marry:")), key=lambda a: a[-1] != trump)
    if marriages:
        return marriages[0]
    cards = [a for a in legal if a in BIT_OF]
    if obs.point == "L":
        if len(cards) < len(obs.hand):  # a marriage was declared: lead its queen, keep the king
            return max(cards, key=lambda c: c[0] == "Q")
        aces = [c for c in cards if c[0] == "A"]
        if aces:
            return max(aces, key=lambda c: c[1] == trump)
        keep = _marriage_cards(obs.hand)
        return min(cards, key=lambda c: (c in keep, _value(c, trump), c))
    # Point F: head the trick as cheaply as possible; else give the least.
    t = SUITS.index(trump) if trump is not None else 0
    best = obs.trick[0][1]
    for _, c in obs.trick[1:]:
        if BEATEN_BY[t][BIT_OF[best]] >> BIT_OF[c] & 1:
            best = c
    winners = [c for c in cards if BEATEN_BY[t][BIT_OF[best]] >> BIT_OF[c] & 1]
    at_stake = sum(PTS[BIT_OF[c]] for _, c in obs.trick)
    last = len(obs.trick) == 2
    if winners:
        cheap = min(winners, key=lambda c: _value(c, trump))
        if cheap[1] != trump or at_stake >= 10 or last or all(c[1] == trump for c in cards):
            return cheap
    keep = _marriage_cards(obs.hand)
    return min(cards, key=lambda c: (c in keep, _value(c, trump), c))
