"""The built-in players of each game, for ``arena show`` and in-process benchmarks.

A player is a name and a function from the game's observation to an action. :func:`greedy_action`
plays any registered game with that game's greedy player, chosen by the observation's type.

>>> import random
>>> [name for name, _ in players_for("schnapsen", 2, random.Random(1))]
['greedy', 'random']
>>> from harness.games import registry
>>> g = registry.get("twenty_two")
>>> m = g.start(1, g.rules())
>>> greedy_action(g.observe(m, g.to_act(m))) in g.legal(m)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from harness.games.four_handed.observe import Observation as FourHandedObservation
from harness.games.sixtysix.observe import Observation as FamilyObservation
from harness.games.three_handed.observe import ThreeHandedObservation
from harness.games.twenty_two.observe import Observation as TwentyTwoObservation
from harness.strategies import greedy_action as greedy_family
from harness.strategies import random_action
from harness.strategies_four_handed import greedy_action as greedy_four_handed
from harness.strategies_four_handed import players as four_handed_players
from harness.strategies_three_handed import greedy_action as greedy_three_handed
from harness.strategies_twenty_two import heuristic_action as greedy_twenty_two
from harness.strategies_twenty_two import players as twenty_two_players

Player = tuple[str, Callable[[Any], str]]
FAMILY = ("sixtysix", "schnapsen")


def players_for(game: str, n: int, rng: random.Random) -> list[Player]:
    """``n`` built-in players for ``game``: greedy first, then random ones."""
    if game == "four_handed":  # greedy partners (players 0, 2) against random partners (1, 3)
        return four_handed_players(n, rng)
    if game == "twenty_two":  # the heuristic (RULES.md, Twenty-Two) against random players
        return twenty_two_players(n, rng)
    greedy: Callable[[Any], str] = greedy_family
    if game == "three_handed":
        greedy = greedy_three_handed
    elif game not in FAMILY:
        raise ValueError(f"no built-in players for {game!r}")
    out: list[Player] = [("greedy", greedy)]
    while len(out) < n:
        out.append(("random" if n == 2 else f"random-{len(out)}", lambda obs: random_action(obs, rng)))
    return out


# Each game's greedy player by observation type (SDK and wire types subclass these). Sixty-Six and
# Schnapsen share one observation and one greedy player.
GREEDY: tuple[tuple[type, Callable[[Any], str]], ...] = (
    (FamilyObservation, greedy_family), (ThreeHandedObservation, greedy_three_handed),
    (FourHandedObservation, greedy_four_handed), (TwentyTwoObservation, greedy_twenty_two))


def greedy_action(obs: Any) -> str:
    """The greedy action of the game ``obs`` belongs to (for Twenty-Two: its heuristic);
    TypeError for an observation of no registered game."""
    for cls, act in GREEDY:
        if isinstance(obs, cls):
            return act(obs)
    raise TypeError(f"no greedy player for a {type(obs).__name__}")
