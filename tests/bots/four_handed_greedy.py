"""A four-handed Sixty-Six bot through the SDK (``harness.sdk.run``): the built-in greedy player
(harness.strategies_four_handed). It checks that what it is given is the game's observation.

    python tests/bots/four_handed_greedy.py --arena ADDRESS --token TOKEN
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.games.four_handed.observe import Observation  # noqa: E402
from harness.sdk import run  # noqa: E402
from harness.strategies_four_handed import greedy_action  # noqa: E402


class FourHandedGreedy:
    games = ("four_handed",)

    def act(self, obs: Any) -> str:
        if not isinstance(obs, Observation) or obs.move_ms <= 0:
            return "not-the-observation"  # an illegal reply: the match forfeits and the test fails
        return greedy_action(obs)


if __name__ == "__main__":
    raise SystemExit(run(FourHandedGreedy(), name="greedy4"))
