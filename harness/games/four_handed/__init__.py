"""Four-handed partnership Sixty-Six (RULES-SPEC 3.3, 7.3): teams {0, 2} and {1, 3}, a 32- or 24-card
pack dealt out, the dealer's last card turned up for trump, the duty to win the trick (4H-4), all
tricks played, 1/2/3 game points by 66/100/every trick (4H-7), first team to 7.

A pure package: no I/O, immutable states, ``legal``/``apply``, one :func:`observe` gate.
"""

from harness.games.four_handed.game import GAME, FourHanded, Match
from harness.games.four_handed.observe import Observation, observe
from harness.games.four_handed.options import Rules

__all__ = ["GAME", "FourHanded", "Match", "Observation", "Rules", "observe"]
