"""The decision points of the rules engines (RULES-SPEC 66-5, 3H, 22) in words, for messages people read.

>>> where("F"), where("over")
('following to a trick (point F)', 'at point over')
"""

from __future__ import annotations

POINT_WORDS = {
    "L": "on lead",  # 66-5.1, 3H-5, 22-5
    "D": "after winning a trick, before drawing",  # 66-5.4
    "R": "answering the opponent's close",  # 66-5.2
    "F": "following to a trick",  # 66-5.3, 3H-4, 22-6
    "E": "after the last trick",  # 66-12.3
    "T": "naming trump",  # 3H-2
    "X": "at the exchange",  # 22-4
}


def where(point: object) -> str:
    """A decision point in words, its letter after it: ``'F' -> 'following to a trick (point F)'``."""
    words = POINT_WORDS.get(str(point))
    return f"{words} (point {point})" if words else f"at point {point}"
