"""Sound simple play in every registered game (``games``, sent in Hello), with each game's built-in
greedy player (:func:`harness.players.greedy_action` picks it by the observation's type):

* Sixty-Six and Schnapsen: wins tricks cheaply, marries, exchanges, closes near 66, claims at 66;
* three-handed Sixty-Six: names a trump from a strong start, heads tricks cheaply, marries, claims at 66;
* four-handed Sixty-Six: leads aces, wins cheaply against the opponents, never over-takes its partner;
* Twenty-Two: exchanges high cards, sheds its highest sets early, keeps its lowest card for the reveal.

Run: python sample_bots/greedy_bot.py --arena ADDRESS --token TOKEN (or ARENA_ADDRESS / ARENA_TOKEN).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # when the harness is not installed

from harness.games import registry  # noqa: E402
from harness.players import greedy_action  # noqa: E402
from harness.sdk import run  # noqa: E402


class GreedyBot:
    games: tuple[str, ...] = registry.ids()

    def act(self, obs: Any) -> str:
        return greedy_action(obs)


if __name__ == "__main__":
    raise SystemExit(run(GreedyBot(), name="greedy", max_concurrent=8))
