"""A Python SDK bot whose ``act`` raises on every ERRORBOT_EVERY-th decision (default 4); otherwise a
seeded random legal action that claims only with 66. It prints one line to stdout at start, for the
log-file tests. Plays every registered game.

    python tests/bots/errorbot.py [--arena ADDRESS --token TOKEN]
"""

from __future__ import annotations

import itertools
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.games import registry  # noqa: E402
from harness.sdk import Observation, run  # noqa: E402
from harness.strategies import random_action  # noqa: E402


class ErrorBot:
    games: tuple[str, ...] = registry.ids()

    def __init__(self) -> None:
        self.every = int(os.environ.get("ERRORBOT_EVERY", "4"))
        self.count = itertools.count(1)
        self.rng = random.Random(7)

    def act(self, obs: Observation) -> str:
        if next(self.count) % self.every == 0:
            raise ValueError("errorbot fails on purpose")
        return random_action(obs, self.rng)


if __name__ == "__main__":
    print("errorbot: started (this line is on stdout)", flush=True)
    raise SystemExit(run(ErrorBot(), name="errorbot", max_concurrent=1))
