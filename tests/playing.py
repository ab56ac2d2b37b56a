"""Random play policies that reach every kind of position: late game, closed and played out."""

from __future__ import annotations

import random

from harness.games.sixtysix.cards import CLASSIC, Pack
from harness.games.sixtysix.engine import State, apply, counted_points, deal, legal_actions
from harness.games.sixtysix.options import Rules


def sensible(s: State, rng: random.Random, close_rate: float = 0.1) -> str:
    """Random, but claims only with 66 and closes only sometimes."""
    acts = legal_actions(s)
    if "claim" in acts and counted_points(s, s.to_act) >= 66:
        return "claim"
    rest = [a for a in acts if a != "claim" and (a != "close" or rng.random() < close_rate)]
    return rng.choice(rest or acts)


def random_states(n: int, seed: int, rules: Rules = Rules(), close_rate: float = 0.1,
                  pack: Pack = CLASSIC) -> list[State]:
    """``n`` states sampled along random deals of ``pack`` (every point of the deal, over or not)."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < n:
        deck = list(pack.cards)
        rng.shuffle(deck)
        s = deal(deck, rules)
        stop = rng.randrange(40)
        for _ in range(stop):
            if s.outcome is not None:
                break
            s = apply(s, sensible(s, rng, close_rate))
        out.append(s)
    return out
