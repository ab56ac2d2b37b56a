"""A strong bot: samples deals consistent with what it has seen and solves them with alpha-beta.
It plays Sixty-Six and Schnapsen (``games``, sent in Hello).

It stops sampling at half the move limit it is given (``--think`` changes the fraction), so it
answers in time. The search itself is :mod:`harness.strategies_search`.
Run: python sample_bots/search_bot.py --arena ADDRESS --token TOKEN (or ARENA_ADDRESS / ARENA_TOKEN).
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # when the harness is not installed

from harness.sdk import Observation, run  # noqa: E402
from harness.strategies_search import Budget, search_action  # noqa: E402


class SearchBot:
    games: tuple[str, ...] = ("sixtysix", "schnapsen")

    def __init__(self, think: float = 0.5, samples: int = 200) -> None:
        self.think = think
        self.samples = samples

    def act(self, obs: Observation) -> str:
        rng = random.Random(repr((obs.seat, obs.hand, obs.history)))
        deadline = obs.deadline(self.think) if obs.move_ms else None
        budget = Budget(samples=self.samples, endgame_samples=self.samples // 2, deadline=deadline)
        return search_action(obs, rng, budget)


if __name__ == "__main__":
    think = float(os.environ.get("SEARCH_THINK", "0.5"))
    raise SystemExit(run(SearchBot(think), name="search", max_concurrent=2))
