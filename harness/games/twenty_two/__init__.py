"""Twenty-Two (RULES-SPEC sections 4, 6, 7.4): 2-8 players, sets, the exchange and elimination.

Pure rules: no I/O. The package's ``GAME`` is registered as ``twenty_two``.
"""

from harness.games.twenty_two.game import GAME, TwentyTwo

__all__ = ["GAME", "TwentyTwo"]
