"""A uniformly random legal action, except that it claims only with 66 or more.

Its choices are seeded from the position it sees, so a match replays identically.
Run: python sample_bots/random_bot.py --arena ADDRESS --token TOKEN (or ARENA_ADDRESS / ARENA_TOKEN).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # when the harness is not installed

from harness.sdk import Observation, run  # noqa: E402
from harness.strategies import random_action  # noqa: E402


class RandomBot:
    def act(self, obs: Observation) -> str:
        rng = random.Random(repr((obs.seat, obs.game_score, obs.trump_card, obs.hand, obs.history)))
        return random_action(obs, rng)


if __name__ == "__main__":
    raise SystemExit(run(RandomBot(), name="random", max_concurrent=8))
