"""The built-in players of each game, for ``arena show`` and in-process benchmarks.

A player is a name and a function from the game's observation to an action.

>>> import random
>>> [name for name, _ in players_for("schnapsen", 2, random.Random(1))]
['greedy', 'random']
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from harness.strategies import greedy_action, random_action
from harness.strategies_four_handed import players as four_handed_players
from harness.strategies_three_handed import greedy_action as greedy_three_handed
from harness.strategies_twenty_two import players as twenty_two_players

Player = tuple[str, Callable[[Any], str]]
FAMILY = ("sixtysix", "schnapsen")


def players_for(game: str, n: int, rng: random.Random) -> list[Player]:
    """``n`` built-in players for ``game``: greedy first, then random ones."""
    if game == "four_handed":  # greedy partners (players 0, 2) against random partners (1, 3)
        return four_handed_players(n, rng)
    if game == "twenty_two":  # the heuristic (RULES.md, Twenty-Two) against random players
        return twenty_two_players(n, rng)
    greedy: Callable[[Any], str] = greedy_action
    if game == "three_handed":
        greedy = greedy_three_handed
    elif game not in FAMILY:
        raise ValueError(f"no built-in players for {game!r}")
    out: list[Player] = [("greedy", greedy)]
    while len(out) < n:
        out.append(("random" if n == 2 else f"random-{len(out)}", lambda obs: random_action(obs, rng)))
    return out
