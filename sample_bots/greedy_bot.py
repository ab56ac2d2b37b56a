"""Sound simple play: wins tricks cheaply, marries, exchanges, closes near 66, claims at 66.
It plays Sixty-Six and Schnapsen (``games``, sent in Hello).

Run: python sample_bots/greedy_bot.py --arena ADDRESS --token TOKEN (or ARENA_ADDRESS / ARENA_TOKEN).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # when the harness is not installed

from harness.sdk import Observation, run  # noqa: E402
from harness.strategies import greedy_action  # noqa: E402


class GreedyBot:
    games: tuple[str, ...] = ("sixtysix", "schnapsen")

    def act(self, obs: Observation) -> str:
        return greedy_action(obs)


if __name__ == "__main__":
    raise SystemExit(run(GreedyBot(), name="greedy", max_concurrent=8))
