"""Built-in players of Twenty-Two: random, and a heuristic that tries not to hold a high card at the
reveal (22-7.3): it exchanges high cards away (22-4), leads its highest sets to shed cards early
(22-5), follows with its highest legal cards (22-6), and keeps its lowest card for the end.

>>> from harness.games.twenty_two import GAME
>>> m = GAME.start(3, GAME.rules())
>>> obs = GAME.observe(m, GAME.to_act(m))
>>> heuristic_action(obs) in obs.legal
True
"""

from __future__ import annotations

import random
from typing import Any

from harness.games.twenty_two.cards import RANK
from harness.games.twenty_two.observe import Observation

HIGH = RANK["TC"]  # ten and above are worth exchanging away


def random_action(obs: Any, rng: random.Random) -> str:
    """A uniformly random legal action."""
    return rng.choice(list(obs.legal))


def _ranks(action: str) -> list[int]:
    return [RANK[c] for c in action.split("+")]


def heuristic_action(obs: Observation) -> str:
    """Exchange high cards, lead the highest and longest sets, follow high, keep the lowest card."""
    legal = obs.legal
    if len(legal) == 1:
        return legal[0]
    if obs.point == "X":  # discard the highest card of ten or above while the stock allows
        discards = [a for a in legal if a.startswith("discard:") and RANK[a[8:]] >= HIGH]
        return max(discards, key=lambda a: RANK[a[8:]]) if discards else "done"
    lowest = min(RANK[c] for c in obs.hand)
    low_count = sum(1 for c in obs.hand if RANK[c] == lowest)

    def score(action: str) -> tuple[int, int, int]:
        ranks = _ranks(action)
        keeps_low = ranks.count(lowest) < low_count  # the lowest card stays for the reveal
        return (keeps_low, len(ranks) if obs.point == "L" else 0, sum(ranks))

    return max(legal, key=score)


def players(n: int, rng: random.Random) -> list[tuple[str, Any]]:
    """``n`` built-in players: the heuristic first, then random ones."""
    out: list[tuple[str, Any]] = [("heuristic", heuristic_action)]
    while len(out) < n:
        out.append((f"random-{len(out)}", lambda obs: random_action(obs, rng)))
    return out
