"""A Python SDK bot for the wire tests: plays Sixty-Six and Schnapsen, and answers with a legal
action that depends on everything it was given, so that a test can tell a wrong decode.

    python tests/bots/sdkbot.py [--arena ADDRESS --token TOKEN]

The action is ``pick(obs)``: a hash of the game, the rules, the hand, the legal list and the
match id picks among the legal actions (claims only with 66, like the sample random bot).
With SDKBOT_RAISE set, ``act`` raises instead (the SDK then answers its fallback and reports the error).
"""

from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.sdk import run  # noqa: E402


def pick(obs: Any, game: str) -> str:
    """The action for ``obs`` of ``game`` (the test computes it too, from its own observation)."""
    legal = [a for a in obs.legal if a != "claim" or obs.points[obs.seat] >= 66] or list(obs.legal)
    key = repr((game, sorted(obs.rules.to_dict().items()), obs.hand, obs.legal, obs.history, obs.talon_size))
    return legal[zlib.crc32(key.encode()) % len(legal)]


class SdkBot:
    games = ("sixtysix", "schnapsen")

    def act(self, obs: Any) -> str:
        if os.environ.get("SDKBOT_RAISE"):
            raise RuntimeError("asked to raise")
        return pick(obs, obs.pack)


if __name__ == "__main__":
    raise SystemExit(run(SdkBot(), name="sdkbot", max_concurrent=8))
