"""Three-handed Sixty-Six, variant 3A (RULES-SPEC 3.2, 7.2): ``GAME`` behind the game interface."""

from .game import GAME, ThreeHanded

__all__ = ["GAME", "ThreeHanded"]
