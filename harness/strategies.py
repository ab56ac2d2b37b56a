"""Two built-in players that work on an :class:`Observation`: uniform random, and greedy.

They are what ``make demo`` plays in process and what the sample bots wrap over gRPC.
Both see only what :func:`observe` gives them. :func:`random_action` plays any game whose
observation lists its legal actions; :func:`greedy_action` plays the Sixty-Six family (classic
Sixty-Six and Schnapsen, whose exchange card is the trump jack: it exchanges whatever the rules name).
"""

from __future__ import annotations

import random

from typing import Any

from harness.games.sixtysix.cards import CARD_INDEX, POINTS, RANK_OF, SUITS, beats
from harness.games.sixtysix.observe import Observation


def random_action(obs: Any, rng: random.Random) -> str:
    """A uniformly random legal action, except that in the Sixty-Six family it claims only with 66 or more.

    ``obs`` is any game's observation with ``legal`` (and, to hold back claims, ``points`` and ``seat``).
    """
    legal = list(obs.legal)
    if "claim" in legal and len(legal) > 1 and obs.points[obs.seat] < 66:
        legal.remove("claim")
    return rng.choice(legal)


def _value(card: str, trump: str) -> tuple[int, int]:
    """How much a card is worth keeping: trumps first, then card points."""
    return (card[1] == trump, POINTS[CARD_INDEX[card]])


def _marriage_cards(hand: tuple[str, ...]) -> set[str]:
    return {c for c in hand if c[0] in "KQ" and ("K" if c[0] == "Q" else "Q") + c[1] in hand}


def _sure_points(obs: Observation) -> int:
    """Points of cards that should win tricks on their own: aces, and tens whose ace is gone."""
    played = {a for _, a in obs.history if a in CARD_INDEX}
    total = 0
    for c in obs.hand:
        rank = RANK_OF[CARD_INDEX[c]]
        if rank == 5 or (rank == 4 and ("A" + c[1] in played or "A" + c[1] in obs.hand)):
            total += POINTS[CARD_INDEX[c]] + (10 if c[1] == obs.trump_suit else 5)
    return total


def greedy_action(obs: Observation) -> str:
    """Sound simple play: claim at 66, exchange, marry, close when 66 looks near, win cheaply."""
    legal = obs.legal
    me = obs.seat
    mine = obs.points[me]
    trump = obs.trump_suit
    if "claim" in legal and mine >= 66:
        return "claim"
    if obs.point == "R":
        return "exchange"
    if obs.point == "E":
        return "finish"
    if "exchange" in legal:
        return "exchange"
    marriages = sorted((a for a in legal if a.startswith("marry:")), key=lambda a: a[-1] != trump)
    if marriages:
        return marriages[0]
    if "close" in legal and obs.tricks[me] > 0 and mine + _sure_points(obs) >= 66:
        return "close"
    if obs.point == "D":
        return "draw"
    cards = [a for a in legal if a in CARD_INDEX]
    if obs.point == "F":
        led = obs.trick[0]
        winners = [c for c in cards if beats(CARD_INDEX[led], CARD_INDEX[c], SUITS.index(trump))]
        led_points = POINTS[CARD_INDEX[led]]
        # Win with the cheapest card of the led suit; trump only when the trick is worth it.
        same = [c for c in winners if c[1] == led[1]]
        if same:
            return min(same, key=lambda c: _value(c, trump))
        if winners and (led_points >= 10 or obs.talon_state != "open"):
            return min(winners, key=lambda c: _value(c, trump))
        keep = _marriage_cards(obs.hand)
        return min(cards, key=lambda c: (c in keep, _value(c, trump)))
    # Leading.
    if obs.trick == () and len(cards) <= 2 and all(c[0] in "KQ" for c in cards):
        return max(cards, key=lambda c: c[0] == "Q")  # after a marriage: lead the queen
    if obs.talon_state != "open":
        aces = [c for c in cards if c[0] == "A"]
        if aces:
            return max(aces, key=lambda c: c[1] == trump)
    keep = _marriage_cards(obs.hand)
    return min(cards, key=lambda c: (c in keep, _value(c, trump), c))


