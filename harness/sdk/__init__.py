"""What bot authors import: the :class:`Bot` protocol, :func:`run`, and the SDK :class:`Observation`.

>>> from harness.sdk import Observation, run
"""

from .client import Bot, Observation, run
from .helpers import Determinizer, determinize, opponent_hand_size, played, points_in_play, unseen

__all__ = ["Bot", "Determinizer", "Observation", "determinize", "opponent_hand_size", "played",
           "points_in_play", "run", "unseen"]
