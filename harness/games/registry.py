"""The registry of games: game id -> :class:`harness.games.base.Game`.

Adding a game adds one line here (its package's ``GAME``); nothing outside ``harness/games/<game>/``,
its wire codec and its built-in players imports a game's internals.

>>> ids()
('sixtysix', 'schnapsen', 'three_handed', 'four_handed', 'twenty_two')
>>> get("schnapsen").title
'Schnapsen'
>>> get("chess")
Traceback (most recent call last):
...
ValueError: unknown game 'chess' (games: sixtysix, schnapsen, three_handed, four_handed, twenty_two)
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import Game

_MODULES = {
    "sixtysix": "harness.games.sixtysix.game",
    "schnapsen": "harness.games.schnapsen",
    "three_handed": "harness.games.three_handed",
    "four_handed": "harness.games.four_handed",
    "twenty_two": "harness.games.twenty_two",
}


def ids() -> tuple[str, ...]:
    """Every registered game id, in the order of the seeds."""
    return tuple(_MODULES)


def get(game_id: str) -> Game[Any, Any, Any]:
    """The game registered as ``game_id``; ValueError names an unknown one."""
    module = _MODULES.get(game_id)
    if module is None:
        raise ValueError(f"unknown game {game_id!r} (games: {', '.join(_MODULES)})")
    game: Game[Any, Any, Any] = importlib.import_module(module).GAME
    return game
