"""The built-in greedy player of three-handed Sixty-Six as a bot process (SDK): heads tricks cheaply,
trumps when void, marries, claims at 66.

Run: python tests/bots/greedy3h_bot.py --arena ADDRESS --token TOKEN
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # when the harness is not installed

from harness.sdk import run  # noqa: E402
from harness.strategies_three_handed import greedy_action  # noqa: E402


class Greedy3H:
    games: tuple[str, ...] = ("three_handed",)

    def act(self, obs: Any) -> str:
        return greedy_action(obs)


if __name__ == "__main__":
    raise SystemExit(run(Greedy3H(), name="greedy3h", max_concurrent=4))
