"""Built-in players of four-handed partnership Sixty-Six, on its observation only.

* :func:`random_action`: a uniformly random legal card.
* :func:`greedy_action`: lead aces, else the cheapest card; follow by winning cheaply when the
  opponents hold the trick (trumping when void), and, when the partner holds it and the rules
  leave a choice (4H-4 forces heading only when possible), never over-take him: add points as
  the last to play, else throw the cheapest card.

>>> from harness.games.four_handed import GAME
>>> m = GAME.start(2, GAME.rules())
>>> greedy_action(GAME.observe(m, GAME.to_act(m))) in GAME.legal(m)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from harness.games.four_handed.cards import CARD_INDEX, POINTS, STRENGTH
from harness.games.four_handed.observe import Observation

Player = tuple[str, Callable[[Any], str]]


def random_action(obs: Observation, rng: random.Random) -> str:
    return rng.choice(obs.legal)


def _beats(card: str, best: str, trump: str) -> bool:
    """66-6.5 against the trick's winning card so far."""
    if card[1] == best[1]:
        return STRENGTH[CARD_INDEX[card]] > STRENGTH[CARD_INDEX[best]]
    return card[1] == trump


def _value(card: str, trump: str) -> tuple[bool, int, int]:
    """How much a card is worth keeping: trumps first, then card points, then strength."""
    c = CARD_INDEX[card]
    return (card[1] == trump, POINTS[c], STRENGTH[c])


def trick_winner(trick: tuple[tuple[int, str], ...], trump: str) -> tuple[int, str]:
    """The (seat, card) winning the trick so far."""
    best = trick[0]
    for entry in trick[1:]:
        if _beats(entry[1], best[1], trump):
            best = entry
    return best


def greedy_action(obs: Observation) -> str:
    legal = obs.legal
    trump = obs.trump_suit
    if len(legal) == 1:
        return legal[0]
    if not obs.trick:  # leading: a plain ace, else the cheapest card
        aces = [c for c in legal if c[0] == "A" and c[1] != trump]
        if aces:
            return aces[0]
        return min(legal, key=lambda c: (_value(c, trump), c))
    seat, best = trick_winner(obs.trick, trump)
    last = len(obs.trick) == 3
    if seat == obs.partner:
        under = [c for c in legal if not _beats(c, best, trump)]
        if under:  # the rules leave a choice: do not over-take the partner
            if last:
                return max(under, key=lambda c: (c[1] != trump, POINTS[CARD_INDEX[c]], c))
            return min(under, key=lambda c: (_value(c, trump), c))
        return min(legal, key=lambda c: (_value(c, trump), c))
    winners = [c for c in legal if _beats(c, best, trump)]
    if winners:  # win as cheaply as possible (with a trump when void)
        return min(winners, key=lambda c: (_value(c, trump), c))
    return min(legal, key=lambda c: (_value(c, trump), c))


def players(n: int, rng: random.Random) -> list[Player]:
    """Greedy partners (players 0 and 2) against random partners (1 and 3)."""
    if n != 4:
        raise ValueError(f"four_handed seats 4 players, not {n}")
    rand: Callable[[Any], str] = lambda obs: random_action(obs, rng)  # noqa: E731
    return [("greedy-1", greedy_action), ("random-1", rand), ("greedy-2", greedy_action), ("random-2", rand)]
