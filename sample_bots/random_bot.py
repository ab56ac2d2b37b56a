"""A uniformly random legal action, except that it claims only with 66 or more. It plays every
registered game (``games``, sent in Hello).

Its choices are seeded from the position it sees, so a match replays identically.
Run: python sample_bots/random_bot.py --arena ADDRESS --token TOKEN (or ARENA_ADDRESS / ARENA_TOKEN).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # when the harness is not installed

from harness.games import registry  # noqa: E402
from harness.sdk import Observation, run  # noqa: E402
from harness.strategies import random_action  # noqa: E402

POSITION = ("seat", "game_score", "trump_card", "hand", "history")  # what seeds a choice, where a game has it


class RandomBot:
    games: tuple[str, ...] = registry.ids()

    def act(self, obs: Observation) -> str:
        rng = random.Random(repr(tuple(getattr(obs, f, None) for f in POSITION)))
        return random_action(obs, rng)


if __name__ == "__main__":
    raise SystemExit(run(RandomBot(), name="random", max_concurrent=1))  # act() is quick: answered on the loop
